//! The learn file on disk ([`LearnFile`]), shared by every engine that names it.
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
//! * The file's capacity is its own (in its header): a writer never drops entries because its own
//!   capacity is smaller. A new file gets the capacity of the [`LearnFile`] that creates it; a
//!   [`LearnFile`] with a larger capacity grows the file's on its next write; only
//!   [`LearnFile::resize`] shrinks it.
//! * Every write increments the generation in the header, so [`LearnFile::stamp`] (a read of the
//!   header) tells whether the file changed since it was read.
//! * A file of a newer format version (written by a newer Trine) or of another evaluation version
//!   ([`EVAL_VERSION`], whose scores would not mean the same thing) is refused with an error
//!   ([`LearnError::NewerFormat`], [`LearnError::OtherEval`]) and left untouched: it is neither
//!   read, nor moved, nor written.

use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::error::IoOp;
use super::format::{decode, encode, header_stamp, Decoded, Problem, EVAL_VERSION, HEADER_SIZE};
use super::{LearnEntry, LearnError, LearnTable, MAX_CAPACITY};

/// Default number of entries a learn file keeps.
pub const DEFAULT_CAPACITY: usize = 65_536;

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
    /// The file's capacity after the write.
    pub capacity: usize,
    /// The file's generation after the write.
    pub generation: u64,
    /// `(moved_to, reason)` when the file found was damaged and was renamed aside first.
    pub quarantined: Option<(PathBuf, String)>,
}

/// What the learn file is at a moment, for change detection ([`LearnFile::stamp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// A learn file: its header's generation (0 in a version 1 file) and checksum.
    Header {
        /// Incremented by every write.
        generation: u64,
        /// The checksum of the whole file.
        checksum: u64,
    },
    /// A file without a header this Trine reads (damaged, or of a newer format): its length and
    /// modification time.
    Other {
        /// Length in bytes.
        len: u64,
        /// Modification time.
        modified: SystemTime,
    },
}

/// What a read found: the entries, what happened, and the stamp of the file read (`None` when
/// there was none).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The entries, in a table of the file's capacity.
    pub table: LearnTable,
    /// Missing, loaded or moved aside.
    pub status: LoadStatus,
    /// The stamp of the bytes the table was read from.
    pub stamp: Option<Stamp>,
}

/// The file as found on disk.
enum Found {
    Missing,
    Good(Decoded),
    Corrupt(String),
}

/// The learn file.
#[derive(Clone, Debug)]
pub struct LearnFile {
    path: PathBuf,
    /// The capacity asked for: a new file's, and the least an existing file grows to. `None`:
    /// leave the file's as it is ([`DEFAULT_CAPACITY`] for a new file).
    capacity: Option<usize>,
    /// Version of the evaluation whose scores the file holds.
    eval: u32,
}

impl LearnFile {
    /// A learn file at `path` with room for at least `capacity` entries (clamped to 1 ..=
    /// [`MAX_CAPACITY`]): a new file gets that capacity, an existing file with a smaller one grows
    /// to it on the next write, and one with a larger capacity keeps its own. Nothing is touched
    /// until [`LearnFile::load`] or [`LearnFile::store`].
    pub fn new(path: impl Into<PathBuf>, capacity: usize) -> LearnFile {
        LearnFile {
            path: path.into(),
            capacity: Some(capacity.clamp(1, MAX_CAPACITY)),
            eval: EVAL_VERSION,
        }
    }

    /// A learn file at `path` that keeps the capacity it has ([`DEFAULT_CAPACITY`] when it is
    /// created).
    pub fn at(path: impl Into<PathBuf>) -> LearnFile {
        LearnFile {
            capacity: None,
            ..LearnFile::new(path, DEFAULT_CAPACITY)
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

    /// The capacity asked for ([`LearnFile::new`]); `None` for [`LearnFile::at`].
    pub fn capacity(&self) -> Option<usize> {
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
    /// something that is neither a file nor a directory is an error and left untouched.
    pub fn load(&self) -> Result<(LearnTable, LoadStatus), LearnError> {
        let s = self.load_snapshot()?;
        Ok((s.table, s.status))
    }

    /// [`LearnFile::load`], also giving the [`Stamp`] of what was read.
    pub fn load_snapshot(&self) -> Result<Snapshot, LearnError> {
        let read = self.snapshot(true)?;
        // A read that may wait for the lock always ends with a snapshot.
        read.ok_or_else(|| self.locked(ErrorKind::WouldBlock.into()))
    }

    /// [`LearnFile::load_snapshot`] without waiting: `Ok(None)` at once when another process
    /// (or another handle in this one) holds the lock.
    pub fn try_load_snapshot(&self) -> Result<Option<Snapshot>, LearnError> {
        self.snapshot(false)
    }

    /// The read of [`LearnFile::load`]; `None` when `wait` is false and another process holds
    /// the lock.
    fn snapshot(&self, wait: bool) -> Result<Option<Snapshot>, LearnError> {
        self.check_name()?;
        let found = |f: Found| match f {
            Found::Missing => Some(Snapshot {
                table: self.empty(),
                status: LoadStatus::Missing,
                stamp: None,
            }),
            Found::Good(d) => Some(Snapshot {
                status: LoadStatus::Loaded(d.table.len()),
                stamp: Some(Stamp::Header {
                    generation: d.generation,
                    checksum: d.checksum,
                }),
                table: d.table,
            }),
            Found::Corrupt(_) => None,
        };
        let mut lock = self.open_existing_lock();
        if let Some(l) = &lock {
            if !self.take_lock(l, false, wait)? {
                return Ok(None);
            }
        }
        if let Some(s) = found(self.read_found()?) {
            return Ok(Some(s));
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
            if !self.take_lock(l, true, wait)? {
                return Ok(None);
            }
        }
        let reason = match self.read_found()? {
            Found::Corrupt(reason) => reason,
            other => return Ok(found(other)),
        };
        let status = match self.quarantine() {
            Ok(moved_to) => LoadStatus::Quarantined { moved_to, reason },
            Err(e) => LoadStatus::Quarantined {
                moved_to: self.path.clone(),
                reason: format!("{reason}; {e}; it is left in place, unused"),
            },
        };
        Ok(Some(Snapshot {
            table: self.empty(),
            status,
            stamp: self.stamp(),
        }))
    }

    /// Takes the lock on `lock` (shared or `exclusive`); without `wait`, false when another
    /// process holds it.
    fn take_lock(&self, lock: &File, exclusive: bool, wait: bool) -> Result<bool, LearnError> {
        let tried = match (exclusive, wait) {
            (false, true) => {
                return lock
                    .lock_shared()
                    .map(|()| true)
                    .map_err(|e| self.locked(e))
            }
            (true, true) => return lock.lock().map(|()| true).map_err(|e| self.locked(e)),
            (false, false) => lock.try_lock_shared(),
            (true, false) => lock.try_lock(),
        };
        match tried {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(self.locked(e)),
        }
    }

    /// Adds entries: exclusive advisory lock on `<name>.lock`, re-read the current file
    /// (quarantining a damaged one as in [`LearnFile::load`]), merge, write `<name>.tmp-<pid>`,
    /// fsync it, rename it over the file, fsync the directory, unlock. Returns the number of
    /// entries in the file now. An unwritable path, a file this Trine must not touch and a damaged
    /// file that could not be moved aside are errors, with nothing written.
    pub fn store(&self, entries: &[LearnEntry]) -> Result<usize, LearnError> {
        self.store_report(entries).map(|r| r.entries)
    }

    /// [`LearnFile::store`], also telling whether a damaged file was moved aside.
    pub fn store_report(&self, entries: &[LearnEntry]) -> Result<StoreReport, LearnError> {
        self.store_snapshot(entries).map(|(report, _)| report)
    }

    /// [`LearnFile::store_report`], also giving the file as written (what
    /// [`LearnFile::load_snapshot`] would read now, when nobody else wrote since).
    pub fn store_snapshot(
        &self,
        entries: &[LearnEntry],
    ) -> Result<(StoreReport, Snapshot), LearnError> {
        self.rewrite_snapshot(|table| {
            for e in entries {
                table.insert(e.clone());
            }
        })
    }

    /// Replaces the whole content with an empty table (same locking and atomic write; a damaged
    /// file is moved aside, a file this Trine must not touch is refused).
    pub fn clear(&self) -> Result<(), LearnError> {
        self.clear_report().map(|_| ())
    }

    /// [`LearnFile::clear`], also telling whether a damaged file was moved aside.
    pub fn clear_report(&self) -> Result<StoreReport, LearnError> {
        self.rewrite(LearnTable::clear)
    }

    /// Sets the file's capacity to `capacity` (clamped to 1 ..= [`MAX_CAPACITY`]), larger or
    /// smaller: the one way to shrink a file. Shrinking drops the oldest search entries first, as
    /// a full table does (same locking and atomic write as [`LearnFile::store`]).
    pub fn resize(&self, capacity: usize) -> Result<StoreReport, LearnError> {
        let capacity = capacity.clamp(1, MAX_CAPACITY);
        self.rewrite(|table| table.set_capacity(capacity))
    }

    /// What the file is now, for cheap change detection (one read of the header, no lock: a
    /// writer replaces the file by a rename, so the header read is whole); `None` if there is no
    /// regular file.
    pub fn stamp(&self) -> Option<Stamp> {
        let file = File::open(&self.path).ok()?;
        let meta = file.metadata().ok().filter(|m| m.is_file())?;
        let mut head = Vec::with_capacity(HEADER_SIZE);
        let _ = file.take(HEADER_SIZE as u64).read_to_end(&mut head);
        Some(match header_stamp(&head) {
            Some((generation, checksum)) => Stamp::Header {
                generation,
                checksum,
            },
            None => Stamp::Other {
                len: meta.len(),
                modified: meta.modified().unwrap_or(UNIX_EPOCH),
            },
        })
    }

    fn empty(&self) -> LearnTable {
        LearnTable::new(self.capacity.unwrap_or(DEFAULT_CAPACITY))
    }

    fn check_name(&self) -> Result<(), LearnError> {
        if self.path.file_name().is_none() {
            return Err(LearnError::NoFileName(self.path.clone()));
        }
        Ok(())
    }

    fn locked(&self, source: std::io::Error) -> LearnError {
        LearnError::Locked {
            lock: self.lock_path(),
            source,
        }
    }

    fn io(op: IoOp, path: &Path, source: std::io::Error) -> LearnError {
        LearnError::Io {
            op,
            path: path.to_path_buf(),
            source,
        }
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
    fn open_lock(&self) -> Result<File, LearnError> {
        let path = self.lock_path();
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Self::io(IoOp::OpenLock, &path, e))
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
    fn read_found(&self) -> Result<Found, LearnError> {
        let meta = match fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(Self::io(IoOp::Read, &self.path, e)),
        };
        if meta.is_dir() {
            return Ok(Found::Corrupt("a directory is in place of the file".into()));
        }
        if !meta.is_file() {
            return Err(LearnError::NotAFile(self.path.clone()));
        }
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(Self::io(IoOp::Read, &self.path, e)),
        };
        match decode(&bytes, &self.path, self.eval) {
            Ok(mut d) => {
                if let Some(wanted) = self.capacity.filter(|&c| c > d.table.capacity()) {
                    d.table.set_capacity(wanted);
                }
                Ok(Found::Good(d))
            }
            Err(Problem::Corrupt(reason)) => Ok(Found::Corrupt(reason)),
            Err(Problem::Refused(err)) => Err(err),
        }
    }

    /// Renames the file (or directory) aside to a name not yet taken; returns the new path.
    fn quarantine(&self) -> Result<PathBuf, LearnError> {
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
                .map_err(|source| LearnError::Quarantine {
                    path: self.path.clone(),
                    to: target,
                    source,
                });
        }
        Err(LearnError::NoQuarantineName(self.path.clone()))
    }

    /// The locked read-modify-write that store, clear and resize share.
    fn rewrite(&self, change: impl FnOnce(&mut LearnTable)) -> Result<StoreReport, LearnError> {
        self.rewrite_snapshot(change).map(|(report, _)| report)
    }

    /// [`LearnFile::rewrite`], also giving the table written and its stamp.
    fn rewrite_snapshot(
        &self,
        change: impl FnOnce(&mut LearnTable),
    ) -> Result<(StoreReport, Snapshot), LearnError> {
        self.check_name()?;
        let dir = self.dir();
        fs::create_dir_all(&dir).map_err(|e| Self::io(IoOp::CreateDir, &dir, e))?;
        let lock = self.open_lock()?;
        lock.lock().map_err(|e| self.locked(e))?;
        let (mut table, generation, quarantined) = match self.read_found()? {
            Found::Missing => (self.empty(), 0, None),
            Found::Good(d) => (d.table, d.generation, None),
            Found::Corrupt(reason) => {
                let moved_to = self.quarantine().map_err(|e| LearnError::Corrupt {
                    reason: reason.clone(),
                    source: Box::new(e),
                })?;
                (self.empty(), 0, Some((moved_to, reason)))
            }
        };
        change(&mut table);
        let generation = generation.wrapping_add(1);
        self.remove_stale_temp_files(&dir);
        let checksum = self.write_atomic(&table, generation, &dir)?;
        let _ = lock.unlock();
        let report = StoreReport {
            entries: table.len(),
            capacity: table.capacity(),
            generation,
            quarantined,
        };
        let snapshot = Snapshot {
            status: LoadStatus::Loaded(table.len()),
            stamp: Some(Stamp::Header {
                generation,
                checksum,
            }),
            table,
        };
        Ok((report, snapshot))
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

    fn write_atomic(
        &self,
        table: &LearnTable,
        generation: u64,
        dir: &Path,
    ) -> Result<u64, LearnError> {
        let tmp = self.sibling(&format!(".tmp-{}", std::process::id()));
        let bytes = encode(table, self.eval, generation);
        let checksum = header_stamp(&bytes).map_or(0, |(_, sum)| sum);
        let written = File::create(&tmp).and_then(|mut f| {
            f.write_all(&bytes)?;
            f.sync_all()
        });
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(Self::io(IoOp::Write, &tmp, e));
        }
        if let Err(e) = fs::rename(&tmp, &self.path) {
            let _ = fs::remove_file(&tmp);
            return Err(Self::io(
                IoOp::Rename {
                    to: self.path.clone(),
                },
                &tmp,
                e,
            ));
        }
        // Make the rename itself durable. Some file systems cannot fsync a directory; the data is
        // in place either way.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(checksum)
    }
}

#[cfg(test)]
mod tests;
