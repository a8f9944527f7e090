//! Syzygy endgame tablebases (the `shakmaty-syzygy` crate): the tables `SyzygyPath` names
//! ([`tables`]), when and how the search probes them and what a probe scores ([`probe`]), and
//! the root moves they keep ([`root`]). Positions with castling rights and `UCI_Chess960` games
//! are never probed. See docs/syzygy.md.

pub mod probe;
pub mod root;
pub mod tables;
#[cfg(test)]
pub(crate) mod testutil;

pub use probe::Probing;
pub use root::{rank_root, RootTablebase};
pub use tables::Tablebases;
