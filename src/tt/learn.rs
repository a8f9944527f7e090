//! Position learning: the persistent store of root positions whose search score dropped
//! (a "persistent hash table" in the tradition of Slate's Mouse, BeBe and Crafty).
//!
//! The engine keeps the positions where its score fell in a small file; before each search they
//! are written into the transposition table so that the search sees the trouble coming. This
//! module is the store: [`LearnTable`] is the in-memory table (one entry per position, at most
//! `capacity`, oldest dropped first) and [`LearnFile`] reads and writes it on disk so that several
//! engines (GUI tournaments run many at once) can share one file. EPD import and export live in
//! [`super::learn_epd`] and are re-exported here.
//!
//! # Safety of the file
//!
//! * Every write holds an exclusive advisory lock on the side file `<name>.lock`, re-reads the
//!   current file, merges, writes `<name>.tmp-<pid>`, fsyncs it, renames it over the file and
//!   fsyncs the directory. A process killed at any moment leaves the old or the new file (and
//!   perhaps its temporary file, which the next writer removes).
//!   Readers hold a shared lock on the same side file when it exists (the atomic rename
//!   already guarantees them a whole file; they create nothing unless they must move a file).
//! * A damaged file (bad magic, truncated, trailing bytes, bad checksum, empty, a directory in its
//!   place, impossible field values) is never overwritten or deleted: it is renamed aside to
//!   `<name>.corrupt-<unix seconds>` and reported; the table starts empty.
//! * A file of a newer format version (written by a newer Trine) or of another evaluation version
//!   ([`EVAL_VERSION`], whose scores would not mean the same thing) is refused with an error and
//!   left untouched: it is neither read, nor moved, nor written.
//!
//! # Layout (format version 1, all numbers little-endian)
//!
//! ```text
//! header, 36 bytes
//!  0       8          12         16         20         24                 32         36
//! +--------+----------+----------+----------+----------+------------------+----------+
//! |TRINELRN| format=1 | eval ver | entry=96 |  count   |     checksum     | reserved |
//! +--------+----------+----------+----------+----------+------------------+----------+
//!  8 bytes    u32        u32        u32        u32            u64          u32 = 0
//!
//! then `count` entries of 96 bytes each, oldest first
//!  0          8     9      10      12      14       16    17                       81       96
//! +----------+-----+------+-------+-------+--------+-----+------------------------+--------+
//! |   key    |depth|origin| score | move  |game ply| len |   packed setup bytes   |  zero  |
//! +----------+-----+------+-------+-------+--------+-----+------------------------+--------+
//!    u64      u8    u8     i16     u16     u16      u8   64 bytes, `len` used,    15 bytes
//!                                                        the rest zero
//! ```
//!
//! `key` is [`crate::board::full_key`]; `origin` is [`Origin`] (0 search, 1 imported, 2 human);
//! `score` is from the side to move's view (mates in the search's convention); `move` is a
//! [`crate::tt::PackedMove`] (0 = none); the setup is shakmaty's
//! [`PackedSetup`] (standard packing, en passant square only when the capture is legal).
//! The file length must be exactly `36 + 96 * count`.
//!
//! The checksum is FNV-1a run over 64-bit little-endian words instead of bytes: over the whole
//! file with the checksum field read as zero, the final partial word zero-padded, and then the
//! file length. Changing any single word always changes it.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use shakmaty::packed::PackedSetup;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Move, Position, PositionError};

use crate::board::full_key;
use crate::tt::PackedMove;

pub use super::learn_epd::{entry_to_epd, export_epd, import_epd};

/// Default number of entries a learn file keeps.
pub const DEFAULT_CAPACITY: usize = 65_536;
/// Largest capacity a table or file may be given (the entry count is a `u32` on disk; this keeps
/// a file under 1.6 GB).
pub const MAX_CAPACITY: usize = 1 << 24;
/// Version of the evaluation (a fingerprint of its code version and weights, see
/// [`crate::eval::VERSION`]): learned scores from another evaluation mean something else, so files
/// written for another version are refused.
pub const EVAL_VERSION: u32 = crate::eval::VERSION;
/// The on-disk format version this code reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// The first eight bytes of every learn file.
pub const MAGIC: [u8; 8] = *b"TRINELRN";
/// Size of the file header in bytes.
pub const HEADER_SIZE: usize = 36;
/// Size of one entry in bytes.
pub const ENTRY_SIZE: usize = 96;

const SETUP_OFFSET: usize = 17;
const SETUP_BYTES: usize = 64;
const CHECKSUM_OFFSET: usize = 24;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

const _: () = assert!(PackedSetup::MAX_BYTES <= SETUP_BYTES);
const _: () = assert!(SETUP_OFFSET + SETUP_BYTES <= ENTRY_SIZE);

/// Where a learned entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Origin {
    /// Found by Trine's own search (a root score drop).
    Search = 0,
    /// Read from an EPD file.
    Imported = 1,
    /// Entered by a person (an annotation that should win over imported data).
    Human = 2,
}

impl Origin {
    /// All origins, in their numeric order.
    pub const ALL: [Origin; 3] = [Origin::Search, Origin::Imported, Origin::Human];

    /// The name used in files and messages: `search`, `imported` or `human`.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Search => "search",
            Origin::Imported => "imported",
            Origin::Human => "human",
        }
    }

    /// The origin with this name (case-insensitive), if any.
    pub fn from_name(name: &str) -> Option<Origin> {
        Origin::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The origin stored as this byte, if any.
    pub fn from_u8(b: u8) -> Option<Origin> {
        Origin::ALL.get(usize::from(b)).copied()
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Origin {
    type Err = String;

    fn from_str(s: &str) -> Result<Origin, String> {
        Origin::from_name(s)
            .ok_or_else(|| format!("unknown origin '{s}' (expected search, imported or human)"))
    }
}

/// One learned position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LearnEntry {
    /// [`crate::board::full_key`] of the position.
    pub key: u64,
    /// Depth the score was searched to.
    pub depth: u8,
    /// Exact score in centipawns (or a mate score), from the side to move's view.
    pub score: i16,
    /// Best move as [`PackedMove`]`.0` (0 = none).
    pub best_move: u16,
    /// Ply of the game the position occurred at (0 when unknown).
    pub game_ply: u16,
    /// Where the entry came from.
    pub origin: Origin,
    /// The position itself, for export and display.
    pub setup: PackedSetup,
}

impl LearnEntry {
    /// Builds an entry for `pos`. (A position shakmaty cannot pack, which a legal `Chess` never
    /// is, gets an empty setup and [`LearnEntry::position`] then fails.)
    pub fn from_position(
        pos: &Chess,
        depth: u8,
        score: i16,
        best_move: Option<Move>,
        game_ply: u16,
        origin: Origin,
    ) -> LearnEntry {
        let setup = PackedSetup::pack_standard(&pos.to_setup(EnPassantMode::Legal))
            .unwrap_or_else(|_| PackedSetup::empty());
        LearnEntry {
            key: full_key(pos),
            depth,
            score,
            best_move: best_move.map_or(0, |m| PackedMove::new(m).0),
            game_ply,
            origin,
            setup,
        }
    }

    /// Unpacks the stored position (standard castling if it fits, Chess960 otherwise) and
    /// checks that it hashes to `key`.
    pub fn position(&self) -> Result<Chess, String> {
        let setup = self
            .setup
            .unpack_standard()
            .map_err(|e| format!("learn entry {:016x}: cannot unpack: {e}", self.key))?;
        let pos = match Chess::from_setup(setup.clone(), CastlingMode::Standard) {
            Ok(p) => Ok(p),
            Err(_) => Chess::from_setup(setup, CastlingMode::Chess960),
        };
        let pos = pos
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| format!("learn entry {:016x}: illegal position: {e}", self.key))?;
        if full_key(&pos) != self.key {
            return Err(format!(
                "learn entry {:016x}: the stored position hashes to {:016x}",
                self.key,
                full_key(&pos)
            ));
        }
        Ok(pos)
    }

    /// The best move as a legal move of `pos` (the entry's own position), if there is one.
    pub fn best_move_in(&self, pos: &Chess) -> Option<Move> {
        let packed = PackedMove(self.best_move);
        if packed.is_none() {
            return None;
        }
        pos.legal_moves().into_iter().find(|&m| packed.matches(m))
    }
}

/// Hashes a Zobrist key (already uniformly random) with one multiplication.
#[derive(Clone, Copy, Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The in-memory table: at most `capacity` entries, one per key, FIFO order (oldest first).
///
/// Entries sit in a queue in insertion order; a replaced entry leaves a hole (compacted away once
/// holes outnumber entries), and a map from key to position in the queue finds them.
#[derive(Clone, Debug)]
pub struct LearnTable {
    capacity: usize,
    /// Sequence number of `queue[0]`; `queue[i]` has sequence `front + i`.
    front: u64,
    queue: VecDeque<Option<LearnEntry>>,
    index: HashMap<u64, u64, BuildHasherDefault<KeyHasher>>,
}

impl LearnTable {
    /// An empty table holding at most `capacity` entries (clamped to [`MAX_CAPACITY`]; 0 keeps
    /// nothing).
    pub fn new(capacity: usize) -> LearnTable {
        LearnTable {
            capacity: capacity.min(MAX_CAPACITY),
            front: 0,
            queue: VecDeque::new(),
            index: HashMap::default(),
        }
    }

    /// Makes room for `additional` more entries (never beyond the capacity).
    fn reserve(&mut self, additional: usize) {
        let n = additional.min(self.capacity);
        self.queue.reserve(n);
        self.index.reserve(n);
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Most entries kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &LearnEntry> {
        self.queue.iter().flatten()
    }

    fn slot(&self, seq: u64) -> Option<usize> {
        usize::try_from(seq.checked_sub(self.front)?).ok()
    }

    /// The entry for `key`, if any.
    pub fn get(&self, key: u64) -> Option<&LearnEntry> {
        let i = self.slot(*self.index.get(&key)?)?;
        self.queue.get(i)?.as_ref()
    }

    /// One entry per position: a new entry for an existing key replaces it if it is at least as
    /// deep (or the old one is from another origin than Search and the new one is Human), and
    /// moves to the back (newest). When full, the oldest entry is dropped (FIFO).
    pub fn insert(&mut self, e: LearnEntry) {
        if self.capacity == 0 {
            return;
        }
        if let Some(i) = self.index.get(&e.key).and_then(|&seq| self.slot(seq)) {
            if let Some(old) = self.queue.get(i).and_then(Option::as_ref) {
                let human_override = old.origin != Origin::Search && e.origin == Origin::Human;
                if e.depth < old.depth && !human_override {
                    return;
                }
            }
            if let Some(hole) = self.queue.get_mut(i) {
                *hole = None;
            }
            self.index.remove(&e.key);
        } else {
            while self.index.len() >= self.capacity && self.pop_oldest() {}
        }
        self.index
            .insert(e.key, self.front + self.queue.len() as u64);
        self.queue.push_back(Some(e));
        self.drop_leading_holes();
        if self.queue.len() > 2 * self.index.len() + 64 {
            self.compact();
        }
    }

    /// Drops the oldest entry; false when there was none.
    fn pop_oldest(&mut self) -> bool {
        self.drop_leading_holes();
        match self.queue.pop_front() {
            Some(Some(oldest)) => {
                self.index.remove(&oldest.key);
                self.front += 1;
                true
            }
            _ => false,
        }
    }

    fn drop_leading_holes(&mut self) {
        while let Some(None) = self.queue.front() {
            self.queue.pop_front();
            self.front += 1;
        }
    }

    /// Removes the holes, renumbering the entries.
    fn compact(&mut self) {
        self.queue.retain(Option::is_some);
        for (i, e) in self.queue.iter().flatten().enumerate() {
            self.index.insert(e.key, self.front + i as u64);
        }
    }

    /// Inserts every entry of `other`, oldest first.
    pub fn merge(&mut self, other: &LearnTable) {
        self.reserve(other.len());
        for e in other.entries() {
            self.insert(e.clone());
        }
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.front += self.queue.len() as u64;
        self.queue.clear();
        self.index.clear();
    }
}

/// What happened when opening a file, for `info string` messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadStatus {
    /// No file yet: the table is empty.
    Missing,
    /// The file was read; this many entries are in the table.
    Loaded(usize),
    /// The file was damaged and has been renamed to `moved_to` (or, when the rename failed,
    /// `moved_to` is the file's own path, left in place and unused; `reason` says so). The
    /// table is empty.
    Quarantined {
        /// Where the damaged file is now.
        moved_to: PathBuf,
        /// What was wrong with it.
        reason: String,
    },
}

impl fmt::Display for LoadStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadStatus::Missing => f.write_str("no learn file yet"),
            LoadStatus::Loaded(n) => write!(f, "{n} learned positions loaded"),
            LoadStatus::Quarantined { moved_to, reason } => write!(
                f,
                "damaged learn file ({reason}); kept as {}; starting empty",
                moved_to.display()
            ),
        }
    }
}

/// What a write did: the entry count now in the file and a damaged file moved aside, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreReport {
    /// Entries in the file after the write.
    pub entries: usize,
    /// `(moved_to, reason)` when the file found was damaged and was renamed aside first.
    pub quarantined: Option<(PathBuf, String)>,
}

/// Why a file's bytes could not be used.
enum Problem {
    /// Damaged: move it aside.
    Corrupt(String),
    /// Valid but not for this Trine: leave it alone.
    Refused(String),
}

/// The file as found on disk.
enum Found {
    Missing,
    Good(LearnTable),
    Corrupt(String),
}

/// The learn file.
#[derive(Clone, Debug)]
pub struct LearnFile {
    path: PathBuf,
    capacity: usize,
    /// Version of the evaluation whose scores the file holds.
    eval: u32,
}

impl LearnFile {
    /// A learn file at `path` keeping at most `capacity` entries (clamped to [`MAX_CAPACITY`]).
    /// Nothing is touched until [`LearnFile::load`] or [`LearnFile::store`].
    pub fn new(path: impl Into<PathBuf>, capacity: usize) -> LearnFile {
        LearnFile {
            path: path.into(),
            capacity: capacity.min(MAX_CAPACITY),
            eval: EVAL_VERSION,
        }
    }

    /// The same file for scores of the evaluation of version `eval` (default: the hand-written
    /// evaluation's [`EVAL_VERSION`]; a network's is its fingerprint): a file written for another
    /// evaluation is refused on load.
    pub fn with_eval(mut self, eval: u32) -> LearnFile {
        self.eval = eval;
        self
    }

    /// Version of the evaluation the file is for.
    pub fn eval(&self) -> u32 {
        self.eval
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Most entries kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The side file that carries the advisory lock: `<name>.lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.sibling(".lock")
    }

    /// Reads the file (shared lock on the side lock file if there is one; a read creates
    /// nothing). Missing file = empty table. A corrupt, truncated, wrong-magic, bad-checksum or
    /// empty (0-byte) file, or a directory in place of the file, is never overwritten or deleted:
    /// it is renamed aside to `<name>.corrupt-<unix seconds>` (if the rename fails, it is left in
    /// place, unused) and reported in [`LoadStatus::Quarantined`]; the table is then empty. A file
    /// of a newer format version or of another evaluation version, an unreadable path, or
    /// something that is neither a file nor a directory is `Err(message)` and left untouched.
    pub fn load(&self) -> Result<(LearnTable, LoadStatus), String> {
        self.check_name()?;
        let loaded = |t: LearnTable| {
            let n = t.len();
            Ok((t, LoadStatus::Loaded(n)))
        };
        let mut lock = self.open_existing_lock();
        if let Some(l) = &lock {
            l.lock_shared()
                .map_err(|e| format!("cannot lock {}: {e}", self.lock_path().display()))?;
        }
        match self.read_found()? {
            Found::Missing => return Ok((self.empty(), LoadStatus::Missing)),
            Found::Good(t) => return loaded(t),
            Found::Corrupt(_) => {}
        }
        // Moving the file needs the exclusive lock, so that no writer can have replaced it with a
        // good one between our read and the rename: upgrade, then look again.
        match &lock {
            Some(l) => {
                let _ = l.unlock();
            }
            // Without a lock file (a read-only directory) the rename below fails too and is
            // reported as such.
            None => lock = self.open_lock().ok(),
        }
        if let Some(l) = &lock {
            l.lock()
                .map_err(|e| format!("cannot lock {}: {e}", self.lock_path().display()))?;
        }
        let reason = match self.read_found()? {
            Found::Missing => return Ok((self.empty(), LoadStatus::Missing)),
            Found::Good(t) => return loaded(t),
            Found::Corrupt(reason) => reason,
        };
        let status = match self.quarantine() {
            Ok(moved_to) => LoadStatus::Quarantined { moved_to, reason },
            Err(e) => LoadStatus::Quarantined {
                moved_to: self.path.clone(),
                reason: format!("{reason}; {e}; it is left in place, unused"),
            },
        };
        Ok((self.empty(), status))
    }

    /// Adds entries: exclusive advisory lock on `<name>.lock`, re-read the current file
    /// (quarantining a damaged one as in [`LearnFile::load`]), merge, write `<name>.tmp-<pid>`,
    /// fsync it, rename it over the file, fsync the directory, unlock. Returns the number of
    /// entries in the file now. Errors (unwritable path, a file this Trine must not touch, a
    /// damaged file that could not be moved aside) are `Err(message)`, with nothing written.
    pub fn store(&self, entries: &[LearnEntry]) -> Result<usize, String> {
        self.store_report(entries).map(|r| r.entries)
    }

    /// [`LearnFile::store`], also telling whether a damaged file was moved aside.
    pub fn store_report(&self, entries: &[LearnEntry]) -> Result<StoreReport, String> {
        self.rewrite(|table| {
            for e in entries {
                table.insert(e.clone());
            }
        })
    }

    /// Replaces the whole content with an empty table (same locking and atomic write; a damaged
    /// file is moved aside, a file this Trine must not touch is refused).
    pub fn clear(&self) -> Result<(), String> {
        self.clear_report().map(|_| ())
    }

    /// [`LearnFile::clear`], also telling whether a damaged file was moved aside.
    pub fn clear_report(&self) -> Result<StoreReport, String> {
        self.rewrite(LearnTable::clear)
    }

    /// File modification stamp (length and mtime) for cheap change detection; `None` if there is
    /// no regular file.
    pub fn stamp(&self) -> Option<(u64, SystemTime)> {
        let meta = fs::metadata(&self.path).ok().filter(|m| m.is_file())?;
        Some((meta.len(), meta.modified().unwrap_or(UNIX_EPOCH)))
    }

    fn empty(&self) -> LearnTable {
        LearnTable::new(self.capacity)
    }

    fn check_name(&self) -> Result<(), String> {
        if self.path.file_name().is_none() {
            return Err(format!(
                "learn file path '{}' does not name a file",
                self.path.display()
            ));
        }
        Ok(())
    }

    /// `<path><suffix>` (the suffix appended to the file name).
    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        self.path.with_file_name(name)
    }

    fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Opens the lock file for a writer, creating it if needed.
    fn open_lock(&self) -> Result<File, String> {
        let path = self.lock_path();
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("cannot open lock file {}: {e}", path.display()))
    }

    /// Opens the lock file for a reader if it exists. Reading without it is safe (writers replace
    /// the file by an atomic rename, so a reader sees the old or the new file whole); the lock
    /// only keeps readers off while a writer is busy, and a read does not leave a lock file behind.
    fn open_existing_lock(&self) -> Option<File> {
        let path = self.lock_path();
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .or_else(|_| File::open(&path))
            .ok()
    }

    /// Reads and checks the file without changing anything.
    fn read_found(&self) -> Result<Found, String> {
        let meta = match fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(format!("cannot read {}: {e}", self.path.display())),
        };
        if meta.is_dir() {
            return Ok(Found::Corrupt("a directory is in place of the file".into()));
        }
        if !meta.is_file() {
            return Err(format!(
                "{} is not a regular file; not touching it",
                self.path.display()
            ));
        }
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(format!("cannot read {}: {e}", self.path.display())),
        };
        match decode(&bytes, self.capacity, &self.path, self.eval) {
            Ok(t) => Ok(Found::Good(t)),
            Err(Problem::Corrupt(reason)) => Ok(Found::Corrupt(reason)),
            Err(Problem::Refused(msg)) => Err(msg),
        }
    }

    /// Renames the file (or directory) aside to a name not yet taken; returns the new path.
    fn quarantine(&self) -> Result<PathBuf, String> {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let base = format!(".corrupt-{secs}");
        for n in 0..1000 {
            let target = if n == 0 {
                self.sibling(&base)
            } else {
                self.sibling(&format!("{base}-{n}"))
            };
            if fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            return fs::rename(&self.path, &target)
                .map(|()| target.clone())
                .map_err(|e| {
                    format!(
                        "could not move {} to {}: {e}",
                        self.path.display(),
                        target.display()
                    )
                });
        }
        Err(format!(
            "could not find a free name to move {} aside",
            self.path.display()
        ))
    }

    /// The locked read-modify-write that store and clear share.
    fn rewrite(&self, change: impl FnOnce(&mut LearnTable)) -> Result<StoreReport, String> {
        self.check_name()?;
        let dir = self.dir();
        fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create directory {}: {e}", dir.display()))?;
        let lock = self.open_lock()?;
        lock.lock()
            .map_err(|e| format!("cannot lock {}: {e}", self.lock_path().display()))?;
        let (mut table, quarantined) = match self.read_found()? {
            Found::Missing => (self.empty(), None),
            Found::Good(t) => (t, None),
            Found::Corrupt(reason) => {
                let moved_to = self
                    .quarantine()
                    .map_err(|e| format!("damaged learn file ({reason}), not overwritten: {e}"))?;
                (self.empty(), Some((moved_to, reason)))
            }
        };
        change(&mut table);
        self.remove_stale_temp_files(&dir);
        self.write_atomic(&table, &dir)?;
        let _ = lock.unlock();
        Ok(StoreReport {
            entries: table.len(),
            quarantined,
        })
    }

    /// Removes `<name>.tmp-*` files left by writers that were killed. Only called under the
    /// exclusive lock, which every writer holds from creating its temporary file to renaming it,
    /// so any such file is stale.
    fn remove_stale_temp_files(&self, dir: &Path) {
        let Some(name) = self.path.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let prefix = format!("{name}.tmp-");
        let Ok(list) = fs::read_dir(dir) else {
            return;
        };
        for entry in list.flatten() {
            let stale = entry.file_name().to_str().is_some_and(|n| {
                n.strip_prefix(&prefix)
                    .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
            });
            if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    fn write_atomic(&self, table: &LearnTable, dir: &Path) -> Result<(), String> {
        let tmp = self.sibling(&format!(".tmp-{}", std::process::id()));
        let bytes = encode(table, self.eval);
        let written = File::create(&tmp).and_then(|mut f| {
            f.write_all(&bytes)?;
            f.sync_all()
        });
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(format!("cannot write {}: {e}", tmp.display()));
        }
        if let Err(e) = fs::rename(&tmp, &self.path) {
            let _ = fs::remove_file(&tmp);
            return Err(format!(
                "cannot rename {} to {}: {e}",
                tmp.display(),
                self.path.display()
            ));
        }
        // Make the rename itself durable. Some file systems cannot fsync a directory; the data is
        // in place either way.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// The checksum described in the module documentation.
fn checksum(bytes: &[u8]) -> u64 {
    let mut h = FNV_OFFSET;
    let mut chunks = bytes.chunks_exact(8);
    for (i, c) in chunks.by_ref().enumerate() {
        let w = if i * 8 == CHECKSUM_OFFSET {
            0
        } else {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            u64::from_le_bytes(a)
        };
        h = (h ^ w).wrapping_mul(FNV_PRIME);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut a = [0u8; 8];
        a[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(a)).wrapping_mul(FNV_PRIME);
    }
    (h ^ bytes.len() as u64).wrapping_mul(FNV_PRIME)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Serializes a table (entries oldest first) into the file format, for scores of evaluation
/// version `eval`.
pub fn encode(table: &LearnTable, eval: u32) -> Vec<u8> {
    let count = table.len();
    let mut out = Vec::with_capacity(HEADER_SIZE + count * ENTRY_SIZE);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&eval.to_le_bytes());
    out.extend_from_slice(&(ENTRY_SIZE as u32).to_le_bytes());
    // A table never holds more than MAX_CAPACITY (< u32::MAX) entries.
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for e in table.entries() {
        let start = out.len();
        out.extend_from_slice(&e.key.to_le_bytes());
        out.push(e.depth);
        out.push(e.origin as u8);
        out.extend_from_slice(&e.score.to_le_bytes());
        out.extend_from_slice(&e.best_move.to_le_bytes());
        out.extend_from_slice(&e.game_ply.to_le_bytes());
        let setup = e.setup.as_bytes();
        out.push(setup.len() as u8);
        out.extend_from_slice(setup);
        out.resize(start + ENTRY_SIZE, 0);
    }
    let sum = checksum(&out);
    out[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Parses and checks a whole file's bytes, refusing a file for another evaluation than `want`.
fn decode(bytes: &[u8], capacity: usize, path: &Path, want: u32) -> Result<LearnTable, Problem> {
    let corrupt = |s: String| Err(Problem::Corrupt(s));
    if bytes.is_empty() {
        return corrupt("the file is empty (0 bytes)".into());
    }
    if bytes.len() < MAGIC.len() {
        return if MAGIC.starts_with(bytes) {
            corrupt(format!("truncated: only {} bytes", bytes.len()))
        } else {
            corrupt("bad magic: not a Trine learn file".into())
        };
    }
    if bytes[..MAGIC.len()] != MAGIC {
        return corrupt("bad magic: not a Trine learn file".into());
    }
    if bytes.len() < HEADER_SIZE {
        return corrupt(format!(
            "truncated header: {} bytes of {HEADER_SIZE}",
            bytes.len()
        ));
    }
    let format = u32_at(bytes, 8);
    if format > FORMAT_VERSION {
        return Err(Problem::Refused(format!(
            "learn file {} has format version {format}; this Trine reads version \
             {FORMAT_VERSION} — upgrade Trine or use another file",
            path.display()
        )));
    }
    if format == 0 {
        return corrupt("format version 0 does not exist".into());
    }
    let entry_size = u32_at(bytes, 16);
    if entry_size as usize != ENTRY_SIZE {
        return corrupt(format!(
            "entry size {entry_size} in a version {FORMAT_VERSION} file (must be {ENTRY_SIZE})"
        ));
    }
    if u32_at(bytes, 32) != 0 {
        return corrupt("reserved header field is not zero".into());
    }
    let count = u32_at(bytes, 20) as u64;
    let expected = HEADER_SIZE as u64 + count * ENTRY_SIZE as u64;
    let len = bytes.len() as u64;
    if len < expected {
        return corrupt(format!(
            "truncated: {len} bytes, but {count} entries need {expected}"
        ));
    }
    if len > expected {
        return corrupt(format!(
            "{} bytes of trailing garbage after {count} entries",
            len - expected
        ));
    }
    let stored = u64_at(bytes, CHECKSUM_OFFSET);
    let computed = checksum(bytes);
    if stored != computed {
        return corrupt(format!(
            "checksum mismatch (stored {stored:016x}, computed {computed:016x}): damaged contents"
        ));
    }
    let eval = u32_at(bytes, 12);
    if eval != want {
        return Err(Problem::Refused(format!(
            "learn file {} was written for evaluation version {eval}; this Trine's evaluation is \
             version {want}, so its scores do not apply — use another file (or delete \
             that one)",
            path.display()
        )));
    }
    let mut table = LearnTable::new(capacity);
    table.reserve(count as usize);
    for (i, b) in bytes[HEADER_SIZE..].chunks_exact(ENTRY_SIZE).enumerate() {
        let entry = decode_entry(b).map_err(|why| Problem::Corrupt(format!("entry {i}: {why}")))?;
        table.insert(entry);
    }
    Ok(table)
}

fn decode_entry(b: &[u8]) -> Result<LearnEntry, String> {
    let origin =
        Origin::from_u8(b[9]).ok_or_else(|| format!("origin byte {} is not 0, 1 or 2", b[9]))?;
    let setup_len = usize::from(b[16]);
    if setup_len > PackedSetup::MAX_BYTES {
        return Err(format!(
            "setup length {setup_len} exceeds {}",
            PackedSetup::MAX_BYTES
        ));
    }
    if b[SETUP_OFFSET + setup_len..]
        .iter()
        .fold(0, |acc, &x| acc | x)
        != 0
    {
        return Err("non-zero padding".into());
    }
    // The bytes past `setup_len` are zero, and trailing zeros mean nothing to a packed setup, so
    // all 64 can be copied at once.
    let setup = PackedSetup::try_from_bytes(&b[SETUP_OFFSET..SETUP_OFFSET + SETUP_BYTES])
        .map_err(|e| format!("bad setup: {e}"))?;
    Ok(LearnEntry {
        key: u64_at(b, 0),
        depth: b[8],
        score: i16::from_le_bytes([b[10], b[11]]),
        best_move: u16_at(b, 12),
        game_ply: u16_at(b, 14),
        origin,
        setup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A scratch directory, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let p =
                std::env::temp_dir().join(format!("trine-learn-{tag}-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&p);
            fs::create_dir_all(&p).expect("create temp dir");
            TempDir(p)
        }

        fn file(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }

        /// Names in the directory that start with `prefix`.
        fn names(&self, prefix: &str) -> Vec<String> {
            let mut v: Vec<String> = fs::read_dir(&self.0)
                .expect("read temp dir")
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(prefix))
                .collect();
            v.sort();
            v
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// `n` entries with distinct keys from random games (seeded), with their best moves.
    fn sample(n: usize, seed: u64) -> Vec<LearnEntry> {
        let mut rng = seed.max(1);
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let mut pos = Chess::default();
            for ply in 0..80u16 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(xorshift(&mut rng) % moves.len() as u64) as usize];
                if seen.insert(full_key(&pos)) {
                    let score = (xorshift(&mut rng) % 600) as i16 - 300;
                    let depth = (xorshift(&mut rng) % 20) as u8 + 1;
                    out.push(LearnEntry::from_position(
                        &pos,
                        depth,
                        score,
                        Some(m),
                        ply,
                        Origin::Search,
                    ));
                    if out.len() == n {
                        break;
                    }
                }
                pos.play_unchecked(m);
            }
        }
        out
    }

    fn keys(t: &LearnTable) -> Vec<u64> {
        t.entries().map(|e| e.key).collect()
    }

    #[test]
    fn origin_names_round_trip() {
        for o in Origin::ALL {
            assert_eq!(Origin::from_name(o.name()), Some(o));
            assert_eq!(o.name().parse::<Origin>(), Ok(o));
            assert_eq!(Origin::from_u8(o as u8), Some(o));
        }
        assert_eq!(Origin::from_name("Human"), Some(Origin::Human));
        assert!("book".parse::<Origin>().is_err());
        assert_eq!(Origin::from_u8(3), None);
    }

    #[test]
    fn entry_position_and_move_round_trip() {
        for e in sample(200, 7) {
            let pos = e.position().expect("position unpacks");
            assert_eq!(full_key(&pos), e.key);
            let m = e.best_move_in(&pos).expect("best move is legal");
            assert_eq!(PackedMove::new(m).0, e.best_move);
        }
        // Castling rights and a legal en passant square survive packing.
        let fen = "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1";
        let pos = crate::board::Board::from_fen(fen, false)
            .expect("fen")
            .pos()
            .clone();
        let e = LearnEntry::from_position(&pos, 3, 10, None, 0, Origin::Human);
        assert_eq!(e.position().expect("unpacks"), pos);
        assert_eq!(e.best_move_in(&pos), None);
    }

    #[test]
    fn fifo_capacity_and_replacement_order() {
        let es = sample(6, 11);
        let mut t = LearnTable::new(4);
        for e in &es[..4] {
            t.insert(e.clone());
        }
        assert_eq!(keys(&t), es[..4].iter().map(|e| e.key).collect::<Vec<_>>());
        // Full: the oldest goes.
        t.insert(es[4].clone());
        assert_eq!(t.len(), 4);
        assert!(t.get(es[0].key).is_none());
        assert_eq!(keys(&t), vec![es[1].key, es[2].key, es[3].key, es[4].key]);
        // Replacing an entry moves it to the back, and then it is no longer the oldest.
        let mut deeper = es[1].clone();
        deeper.depth = 60;
        t.insert(deeper);
        assert_eq!(keys(&t), vec![es[2].key, es[3].key, es[4].key, es[1].key]);
        t.insert(es[5].clone());
        assert_eq!(keys(&t), vec![es[3].key, es[4].key, es[1].key, es[5].key]);
        assert_eq!(t.get(es[1].key).map(|e| e.depth), Some(60));
        t.clear();
        assert!(t.is_empty());
        assert_eq!(t.capacity(), 4);
        let mut none = LearnTable::new(0);
        none.insert(es[0].clone());
        assert!(none.is_empty());
    }

    #[test]
    fn one_entry_per_key_deeper_replaces_shallower_does_not() {
        let base = sample(1, 3).remove(0);
        let at = |depth: u8, score: i16, origin: Origin| LearnEntry {
            depth,
            score,
            origin,
            ..base.clone()
        };
        let mut t = LearnTable::new(16);
        t.insert(at(10, 50, Origin::Search));
        t.insert(at(9, -50, Origin::Search));
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.get(base.key).map(|e| e.score),
            Some(50),
            "shallower kept out"
        );
        t.insert(at(10, -20, Origin::Search));
        assert_eq!(
            t.get(base.key).map(|e| e.score),
            Some(-20),
            "as deep replaces"
        );
        t.insert(at(14, -30, Origin::Imported));
        assert_eq!(
            t.get(base.key).map(|e| e.score),
            Some(-30),
            "deeper replaces"
        );
        // A human entry wins over a shallower-searched imported one, but not over the search's.
        t.insert(at(2, 77, Origin::Human));
        assert_eq!(
            t.get(base.key).map(|e| (e.score, e.origin)),
            Some((77, Origin::Human))
        );
        t.insert(at(20, 5, Origin::Search));
        t.insert(at(3, 99, Origin::Human));
        assert_eq!(t.get(base.key).map(|e| e.score), Some(5));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn table_matches_a_simple_model_under_random_inserts() {
        let pool = sample(40, 17);
        let mut rng = 12345u64;
        for capacity in [1usize, 3, 16, 50] {
            let mut t = LearnTable::new(capacity);
            let mut model: Vec<LearnEntry> = Vec::new();
            for _ in 0..5000 {
                let mut e = pool[(xorshift(&mut rng) % 40) as usize].clone();
                e.depth = (xorshift(&mut rng) % 8) as u8;
                e.origin = Origin::ALL[(xorshift(&mut rng) % 3) as usize];
                e.score = (xorshift(&mut rng) % 100) as i16;
                t.insert(e.clone());
                match model.iter().position(|m| m.key == e.key) {
                    Some(i) => {
                        let old = &model[i];
                        let human = old.origin != Origin::Search && e.origin == Origin::Human;
                        if e.depth >= old.depth || human {
                            model.remove(i);
                            model.push(e);
                        }
                    }
                    None => {
                        if model.len() == capacity {
                            model.remove(0);
                        }
                        model.push(e);
                    }
                }
                assert!(t.entries().eq(model.iter()), "order after each insert");
                assert!(t.queue.len() <= 2 * t.len() + 65, "holes are compacted");
            }
            assert_eq!(t.entries().cloned().collect::<Vec<_>>(), model);
            for m in &model {
                assert_eq!(t.get(m.key), Some(m));
            }
        }
    }

    #[test]
    fn merge_inserts_in_the_other_tables_order() {
        let es = sample(5, 5);
        let mut a = LearnTable::new(4);
        a.insert(es[0].clone());
        a.insert(es[1].clone());
        let mut b = LearnTable::new(10);
        for e in [&es[2], &es[0], &es[3], &es[4]] {
            b.insert(e.clone());
        }
        a.merge(&b);
        assert_eq!(keys(&a), vec![es[2].key, es[0].key, es[3].key, es[4].key]);
    }

    #[test]
    fn store_and_load_round_trip() {
        let dir = TempDir::new("roundtrip");
        let path = dir.file("learn.bin");
        let f = LearnFile::new(&path, 1000);
        assert_eq!(f.stamp(), None);
        let (t, status) = f.load().expect("load missing");
        assert!(t.is_empty());
        assert_eq!(status, LoadStatus::Missing);
        assert!(!f.lock_path().exists(), "a read creates no lock file");
        let mut es = sample(300, 9);
        es[0].best_move = 0;
        es[1].score = (3 - crate::score::MATE) as i16;
        es[2].origin = Origin::Human;
        es[3].origin = Origin::Imported;
        assert_eq!(f.store(&es[..100]), Ok(100));
        assert_eq!(f.store(&es[100..]), Ok(300));
        let (len, _) = f.stamp().expect("stamp");
        assert_eq!(len as usize, HEADER_SIZE + 300 * ENTRY_SIZE);
        let (t, status) = f.load().expect("load");
        assert_eq!(status, LoadStatus::Loaded(300));
        assert_eq!(t.entries().cloned().collect::<Vec<_>>(), es);
        // A smaller capacity keeps the newest entries.
        let (t, status) = LearnFile::new(&path, 50).load().expect("load");
        assert_eq!(status, LoadStatus::Loaded(50));
        assert_eq!(t.entries().next(), Some(&es[250]));
        f.clear().expect("clear");
        let (t, status) = f.load().expect("load cleared");
        assert!(t.is_empty());
        assert_eq!(status, LoadStatus::Loaded(0));
        assert!(dir.names("learn.bin.tmp").is_empty(), "no temp file left");
        // A writer killed between creating its temporary file and renaming it leaves one behind;
        // the next store removes it (and nothing else).
        fs::write(dir.file("learn.bin.tmp-999999"), b"half written").expect("write");
        fs::write(dir.file("learn.bin.tmp-notes"), b"not ours").expect("write");
        f.store(&es[..1]).expect("store");
        assert_eq!(
            dir.names("learn.bin.tmp"),
            vec!["learn.bin.tmp-notes".to_string()]
        );
        assert!(dir.names("learn.bin.corrupt").is_empty());
    }

    /// Writes `bytes` as the learn file, loads it, and checks it was moved aside intact with a
    /// reason containing `why`; then checks that a store starts a fresh file.
    fn check_quarantined(bytes: Option<&[u8]>, why: &str) {
        let dir = TempDir::new("corrupt");
        let path = dir.file("learn.bin");
        match bytes {
            Some(b) => fs::write(&path, b).expect("write"),
            None => {
                fs::create_dir(&path).expect("mkdir");
                fs::write(path.join("inside"), b"keep me").expect("write inside");
            }
        }
        let f = LearnFile::new(&path, 100);
        let (t, status) = f.load().expect("load");
        assert!(t.is_empty());
        let LoadStatus::Quarantined { moved_to, reason } = status else {
            panic!("{why}: not quarantined: {status:?}");
        };
        assert!(reason.contains(why), "reason '{reason}' lacks '{why}'");
        assert!(!path.exists(), "{why}: still in place");
        let name = moved_to
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        assert!(name.is_some_and(|n| n.starts_with("learn.bin.corrupt-")));
        match bytes {
            Some(b) => assert_eq!(fs::read(&moved_to).expect("read moved"), b),
            None => assert_eq!(
                fs::read(moved_to.join("inside")).expect("read moved dir"),
                b"keep me"
            ),
        }
        // The same damage found by a store: moved aside again (a second, distinct name), and
        // the new entry is written to a fresh file.
        match bytes {
            Some(b) => fs::write(&path, b).expect("write"),
            None => fs::create_dir(&path).expect("mkdir"),
        }
        let es = sample(1, 1);
        let report = f.store_report(&es).expect("store");
        assert_eq!(report.entries, 1);
        let (moved_again, _) = report.quarantined.expect("quarantined by store");
        assert_ne!(moved_again, moved_to);
        assert_eq!(dir.names("learn.bin.corrupt-").len(), 2);
        assert_eq!(f.load().expect("load").1, LoadStatus::Loaded(1));
    }

    fn good_file_bytes() -> Vec<u8> {
        let mut t = LearnTable::new(100);
        for e in sample(10, 21) {
            t.insert(e);
        }
        encode(&t, EVAL_VERSION)
    }

    #[test]
    fn truncated_file_is_quarantined() {
        let b = good_file_bytes();
        check_quarantined(Some(&b[..b.len() - 7]), "truncated");
        check_quarantined(Some(&b[..20]), "truncated");
        check_quarantined(Some(&b[..5]), "truncated");
    }

    #[test]
    fn flipped_byte_is_quarantined() {
        let mut b = good_file_bytes();
        b[HEADER_SIZE + 3 * ENTRY_SIZE + 10] ^= 0x20;
        check_quarantined(Some(&b), "checksum");
        let mut b = good_file_bytes();
        b[12] ^= 1; // the eval version is covered by the checksum too
        check_quarantined(Some(&b), "checksum");
    }

    #[test]
    fn wrong_magic_is_quarantined() {
        let mut b = good_file_bytes();
        b[..8].copy_from_slice(b"TRINELRX");
        check_quarantined(Some(&b), "magic");
        check_quarantined(Some(b"hello, this is not a learn file at all\n"), "magic");
    }

    #[test]
    fn empty_file_is_quarantined() {
        check_quarantined(Some(b""), "empty");
    }

    #[test]
    fn directory_in_place_of_the_file_is_quarantined() {
        check_quarantined(None, "directory");
    }

    #[test]
    fn trailing_bytes_and_bad_fields_are_quarantined() {
        let mut b = good_file_bytes();
        b.extend_from_slice(&[0; 5]);
        check_quarantined(Some(&b), "trailing");
        // An impossible origin with a valid checksum (as a buggy writer would leave it).
        let mut b = good_file_bytes();
        b[HEADER_SIZE + 9] = 7;
        let sum = checksum(&b);
        b[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
        check_quarantined(Some(&b), "origin");
    }

    /// Rewrites a header field and the checksum, as another Trine would have written it.
    fn with_header_u32(at: usize, value: u32) -> Vec<u8> {
        let mut b = good_file_bytes();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let sum = checksum(&b);
        b[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
        b
    }

    fn check_refused(bytes: &[u8], words: &[&str]) {
        let dir = TempDir::new("refused");
        let path = dir.file("learn.bin");
        fs::write(&path, bytes).expect("write");
        let f = LearnFile::new(&path, 100);
        let err = f.load().expect_err("load must refuse");
        for w in words {
            assert!(err.contains(w), "message '{err}' lacks '{w}'");
        }
        let err = f.store(&sample(2, 2)).expect_err("store must refuse");
        assert!(err.contains(words[0]), "{err}");
        assert!(f.clear().is_err(), "clear must refuse");
        assert_eq!(fs::read(&path).expect("read"), bytes, "file untouched");
        assert!(dir.names("learn.bin.corrupt").is_empty(), "not quarantined");
        assert!(dir.names("learn.bin.tmp").is_empty());
    }

    #[test]
    fn newer_format_version_is_refused_and_untouched() {
        // A newer format may have another header; only the magic and version are read.
        let mut b = good_file_bytes();
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        b.truncate(50);
        check_refused(&b, &["format version 2", "reads version 1", "upgrade"]);
    }

    #[test]
    fn a_file_is_for_the_evaluation_it_was_written_with() {
        let dir = TempDir::new("eval-version");
        let path = dir.file("learn.bin");
        let net = LearnFile::new(&path, 100).with_eval(0xABCD_0123);
        net.store(&sample(3, 1)).expect("store");
        let (t, _) = net.load().expect("the same evaluation reads it");
        assert_eq!(t.len(), 3);
        let err = LearnFile::new(&path, 100)
            .load()
            .expect_err("another evaluation");
        assert!(err.contains("evaluation version"), "{err}");
    }

    #[test]
    fn other_eval_version_is_refused_and_untouched() {
        let other = EVAL_VERSION.wrapping_add(1);
        let b = with_header_u32(12, other);
        check_refused(
            &b,
            &[
                &format!("evaluation version {other}"),
                &format!("version {EVAL_VERSION}"),
            ],
        );
    }

    #[test]
    fn unwritable_or_unreadable_paths_are_errors() {
        let dir = TempDir::new("unwritable");
        let plain = dir.file("plain");
        fs::write(&plain, b"x").expect("write");
        let es = sample(1, 4);
        let under_file = LearnFile::new(plain.join("learn.bin"), 10);
        assert!(under_file.store(&es).is_err());
        assert!(under_file.load().is_err());
        assert!(under_file.clear().is_err());
        let in_proc = LearnFile::new("/proc/trine-no-such-dir/learn.bin", 10);
        assert!(in_proc.store(&es).is_err());
        assert!(matches!(
            in_proc.load(),
            Ok((_, LoadStatus::Missing)) | Err(_)
        ));
        assert!(LearnFile::new("/", 10).store(&es).is_err());
        assert!(LearnFile::new("/", 10).load().is_err());
        assert_eq!(fs::read(&plain).expect("read"), b"x");
    }

    #[test]
    fn concurrent_stores_keep_every_entry() {
        let dir = TempDir::new("threads");
        let path = dir.file("shared.bin");
        let all = sample(1200, 99);
        std::thread::scope(|s| {
            for chunk in all.chunks(200) {
                let path = path.clone();
                s.spawn(move || {
                    let f = LearnFile::new(path, 10_000);
                    for e in chunk {
                        f.store(std::slice::from_ref(e)).expect("store");
                    }
                });
            }
        });
        let (t, status) = LearnFile::new(&path, 10_000).load().expect("load");
        assert_eq!(status, LoadStatus::Loaded(1200));
        for e in &all {
            assert_eq!(t.get(e.key), Some(e));
        }
        assert!(dir.names("shared.bin.tmp").is_empty());
    }

    #[test]
    fn checksum_sees_every_word() {
        let b = good_file_bytes();
        let base = checksum(&b);
        for i in (0..b.len()).filter(|i| !(CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8).contains(i)) {
            let mut c = b.clone();
            c[i] ^= 0x80;
            assert_ne!(checksum(&c), base, "byte {i}");
        }
    }
}
