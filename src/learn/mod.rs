//! Position learning: the persistent store of root positions whose search score dropped
//! (a "persistent hash table" in the tradition of Slate's Mouse, BeBe and Crafty).
//!
//! The engine keeps the positions where its score fell in a small file; before each search they
//! are written into the transposition table so that the search sees the trouble coming.
//!
//! * [`entry`]: one learned position ([`LearnEntry`]) and its [`Origin`];
//! * [`table`]: the in-memory table ([`LearnTable`]: one entry per position, at most `capacity`;
//!   the oldest search entry is dropped first, imported and human ones only when no search entry
//!   is left);
//! * [`format`](mod@format): the versioned file format (header, entries, checksum);
//! * [`file`](mod@file): the file on disk ([`LearnFile`]), which several engines can share (GUI
//!   tournaments run many at once): locking, re-reading and merging, atomic writes, quarantine
//!   of damaged files;
//! * [`epd`]: EPD import and export, so that people and other tools can read and teach positions;
//! * [`policy`]: what the engine stores and when, and how it loads the positions into the table
//!   ([`Learner`]);
//! * [`random`]: entries from seeded random games, for tests and benchmarks;
//! * [`writer`]: the background thread that writes the file for the engine, off its clock;
//! * [`error`]: [`LearnError`], what can go wrong.

pub mod entry;
pub mod epd;
pub mod error;
pub mod file;
pub mod format;
pub mod policy;
pub mod random;
pub mod table;
pub mod writer;

#[cfg(test)]
mod testutil;

pub use entry::{LearnEntry, Origin};
pub use epd::{entry_to_epd, export_epd, import_epd};
pub use error::{IoOp, LearnError};
pub use file::{LearnFile, LoadStatus, Snapshot, Stamp, StoreReport, DEFAULT_CAPACITY};
pub use format::{encode, ENTRY_SIZE, EVAL_VERSION, FORMAT_VERSION, HEADER_SIZE, MAGIC};
pub use policy::Learner;
pub use table::{LearnTable, MAX_CAPACITY};
pub use writer::Sink;
