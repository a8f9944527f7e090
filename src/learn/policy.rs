//! The engine's learning policy (persistent hash table, after Slate's Mouse, BeBe and Crafty): when
//! a finished search's score has dropped by at least `Learn Threshold` — against the previous search
//! in this game (two plies earlier, same side to move) or against the best earlier iteration of the
//! same search — its root position is stored in the learn file; the stored positions are written
//! into the TT as pinned windows `score ± fuzz` (BeBe's fuzz: 20 cp, none for mate, tablebase and
//! draw scores), which the search cannot overwrite (until the table is cleared); before a search
//! only what changed since is written. A root scored a mate or a tablebase result is not stored.
//!
//! Nothing here waits for the file's lock or writes while the engine's clock runs: stores go to
//! the background [`writer`](super::writer) (the entry is in memory at once), and before a search
//! the file is read only when its header's generation says it changed, and only if its lock is
//! free at that moment (otherwise the search uses what is in memory and the next one tries again).

use std::path::PathBuf;
use std::time::Duration;

use super::writer::{Request, Sink, Writer};
use super::{LearnEntry, LearnFile, LearnTable, LoadStatus, Origin, Snapshot, Stamp};
use crate::board::Game;
use crate::score::is_decisive;
use crate::search::SearchResult;
use crate::tt::{PackedMove, Table};

/// Fuzz added around learned scores (centipawns).
pub const FUZZ_CP: i32 = 20;
/// Searches shallower than this are not trusted to teach anything.
pub const MIN_LEARN_DEPTH: u32 = 4;
/// How long closing a [`Learner`] (at `quit`) waits for the writer to save what is queued.
pub const CLOSE_WAIT: Duration = Duration::from_secs(3);

/// Learning state of one engine process.
pub struct Learner {
    file: LearnFile,
    table: LearnTable,
    /// The stamp of the file the table was read from.
    stamp: Option<Stamp>,
    loaded_once: bool,
    /// Score and game length of the previous search in this game.
    last: Option<(i32, usize)>,
    /// `None` once closed.
    writer: Option<Writer>,
    sink: Sink,
    /// Entries queued for the writer and not yet in a write it handed back, with their request
    /// numbers: they are kept in memory across re-reads of the file.
    pending: Vec<(u64, LearnEntry)>,
    sent: u64,
    /// The table changed as a whole (a read of the file) since it was last written into a TT.
    reload: bool,
    /// Entries learned here since the table was last written into a TT.
    fresh: Vec<LearnEntry>,
}

impl Learner {
    /// Learning from/to `path`, with room for at least `capacity` positions (a file with a
    /// larger capacity keeps its own), for scores of the evaluation of version `eval`
    /// ([`crate::nnue::eval_version`]). The writer's messages go to `sink`. The error is the
    /// system's when the writer thread cannot be started.
    pub fn new(
        path: impl Into<PathBuf>,
        capacity: usize,
        eval: u32,
        sink: Sink,
    ) -> std::io::Result<Learner> {
        let file = LearnFile::new(path, capacity).with_eval(eval);
        let writer = Writer::start(file.clone(), sink.clone())?;
        Ok(Learner {
            file,
            table: LearnTable::new(capacity),
            stamp: None,
            loaded_once: false,
            last: None,
            writer: Some(writer),
            sink,
            pending: Vec::new(),
            sent: 0,
            reload: true,
            fresh: Vec::new(),
        })
    }

    /// Forgets the previous search's score (new game).
    pub fn new_game(&mut self) {
        self.last = None;
    }

    /// Re-reads the file if its stamp changed since the table was read (one header read when
    /// it did not); returns messages for `info string`. Never waits for the file's lock: when
    /// another process holds it, the table stays as it is and the next call tries again.
    pub fn refresh(&mut self) -> Vec<String> {
        self.take_written();
        let stamp = self.file.stamp();
        if self.loaded_once && stamp == self.stamp {
            return Vec::new();
        }
        let mut messages = Vec::new();
        match self.file.try_load_snapshot() {
            Ok(None) => return messages,
            Ok(Some(snapshot)) => {
                if let LoadStatus::Quarantined { moved_to, reason } = &snapshot.status {
                    messages.push(format!(
                        "error: learn file {} is unusable ({reason}); moved aside to {}, starting with an empty memory",
                        self.file.path().display(),
                        moved_to.display()
                    ));
                }
                self.adopt(snapshot);
            }
            Err(e) => {
                let empty = LearnTable::new(self.table.capacity());
                self.adopt(Snapshot {
                    table: empty,
                    status: LoadStatus::Missing,
                    stamp,
                });
                messages.push(format!("error: {e}"));
            }
        }
        messages
    }

    /// Takes the newest write the writer handed back, if any.
    fn take_written(&mut self) {
        let Some(written) = self.writer.as_ref().and_then(Writer::latest) else {
            return;
        };
        self.pending.retain(|&(seq, _)| seq > written.seq);
        self.adopt(written.snapshot);
    }

    /// Makes `snapshot` the table, with the entries still queued on top.
    fn adopt(&mut self, snapshot: Snapshot) {
        self.table = snapshot.table;
        self.stamp = snapshot.stamp;
        self.loaded_once = true;
        self.reload = true;
        for (_, e) in &self.pending {
            self.table.insert(e.clone());
        }
    }

    /// Number of positions in memory.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Writes every remembered position into the TT as a pinned window; returns how many. (Pins
    /// hold for one search generation, so this runs before every search.)
    pub fn load_into(&self, tt: &Table) -> usize {
        for e in self.table.entries() {
            pin(tt, e);
        }
        self.table.len()
    }

    /// Brings `tt` up to date with memory, the cheap way: pinned entries stay pinned, so only what
    /// changed since the last call is written (every entry after a read of the file, or when
    /// `tt_emptied` says the table was cleared or replaced since; else the entries learned here
    /// since). Returns how many were written.
    pub fn sync_into(&mut self, tt: &Table, tt_emptied: bool) -> usize {
        let n = if self.reload || tt_emptied {
            self.load_into(tt)
        } else {
            for e in &self.fresh {
                pin(tt, e);
            }
            self.fresh.len()
        };
        self.reload = false;
        self.fresh.clear();
        n
    }

    /// Looks at a finished search of `game`'s position: when the score dropped, remembers the
    /// root at once and queues it for the writer, which says `learned: ...` through the sink
    /// once it is in the file. Returns whether it was queued.
    pub fn after_search(&mut self, game: &Game, result: &SearchResult, threshold: i32) -> bool {
        let Some(line) = result.lines.first() else {
            return false;
        };
        let score = line.score;
        let previous = self
            .last
            .filter(|&(_, plies)| plies + 2 == game.moves_played)
            .map(|(s, _)| s);
        self.last = Some((score, game.moves_played));
        let earlier_best = result.scores.iter().rev().skip(1).copied().max();
        let Some(drop) = previous
            .into_iter()
            .chain(earlier_best)
            .map(|before| before - score)
            .max()
        else {
            return false;
        };
        if drop < threshold || result.depth < MIN_LEARN_DEPTH || is_decisive(score) {
            return false;
        }
        let entry = LearnEntry::from_position(
            game.board.pos(),
            result.depth.min(255) as u8,
            score as i16,
            result.best_move,
            game.moves_played.min(usize::from(u16::MAX)) as u16,
            Origin::Search,
        );
        let fen =
            shakmaty::fen::Fen::from_position(game.board.pos(), shakmaty::EnPassantMode::Legal);
        let note = format!(
            "learned: score dropped {drop} cp to {score} at depth {} in {fen}",
            result.depth
        );
        self.queue(entry, Some(note))
    }

    /// Remembers `entry` and queues it for the writer.
    fn queue(&mut self, entry: LearnEntry, note: Option<String>) -> bool {
        self.table.insert(entry.clone());
        self.fresh.push(entry.clone());
        self.sent += 1;
        self.pending.push((self.sent, entry.clone()));
        let request = Request {
            seq: self.sent,
            entry,
            note,
        };
        let queued = self.writer.as_ref().is_some_and(|w| w.send(request));
        if !queued {
            (self.sink)(&format!(
                "error: the learn file writer has stopped; a learned position stays in memory only, not in {}",
                self.file.path().display()
            ));
        }
        queued
    }

    /// Saves what is queued and stops the writer, waiting at most [`CLOSE_WAIT`]; returns
    /// messages for `info string`. Learning stops with it.
    pub fn close(&mut self) -> Vec<String> {
        self.close_within(CLOSE_WAIT)
    }

    /// [`Learner::close`], waiting at most `bound`.
    pub fn close_within(&mut self, bound: Duration) -> Vec<String> {
        let Some(mut writer) = self.writer.take() else {
            return Vec::new();
        };
        if writer.close(bound) {
            return Vec::new();
        }
        if let Some(written) = writer.latest() {
            self.pending.retain(|&(seq, _)| seq > written.seq);
        }
        vec![format!(
            "error: {} learned position(s) not saved in {}: still waiting for its lock ({}) after {} ms; the file is left as it was",
            self.pending.len(),
            self.file.path().display(),
            self.file.lock_path().display(),
            bound.as_millis()
        )]
    }
}

impl Drop for Learner {
    fn drop(&mut self) {
        for m in self.close() {
            (self.sink)(&m);
        }
    }
}

/// Writes `e` into `tt` as a pinned window `score ± fuzz`.
fn pin(tt: &Table, e: &LearnEntry) {
    let score = i32::from(e.score);
    let fuzz = if score == 0 || is_decisive(score) {
        0
    } else {
        FUZZ_CP
    };
    let lower = (score - fuzz).clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
    let upper = (score + fuzz).clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
    tt.store_learned(e.key, PackedMove(e.best_move), lower, upper, e.depth);
}

#[cfg(test)]
mod tests {
    use std::fs::{self, File};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::*;
    use crate::learn::testutil::{sample, TempDir};
    use crate::learn::EVAL_VERSION;

    /// A learner on `path` whose messages are collected in the returned list.
    fn learner(path: &std::path::Path, capacity: usize) -> (Learner, Arc<Mutex<Vec<String>>>) {
        let said = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&said);
        let sink: Sink = Arc::new(move |m: &str| log.lock().expect("log").push(m.to_string()));
        let l = Learner::new(path, capacity, EVAL_VERSION, sink).expect("writer starts");
        (l, said)
    }

    /// Holds the exclusive lock of the learn file at `path`, as another process's writer would.
    fn hold_lock(path: &std::path::Path) -> File {
        let lock = File::create(LearnFile::new(path, 1).lock_path()).expect("lock file");
        lock.lock().expect("lock");
        lock
    }

    #[test]
    fn only_what_changed_is_written_into_the_table_before_a_search() {
        let dir = TempDir::new("sync");
        let path = dir.file("sync.bin");
        let es = sample(6, 71);
        LearnFile::new(&path, 100).store(&es[..4]).expect("store");
        let (mut l, _) = learner(&path, 100);
        assert!(l.refresh().is_empty());
        let tt = Table::new(1).expect("table");
        assert_eq!(l.sync_into(&tt, false), 4, "a read: everything");
        assert_eq!(l.sync_into(&tt, false), 0, "nothing changed");
        tt.new_search();
        assert!(tt.probe(es[0].key).is_some(), "pinned across searches");
        assert!(l.queue(es[4].clone(), None));
        assert_eq!(l.sync_into(&tt, false), 1, "the entry learned here");
        assert!(tt.probe(es[4].key).is_some());
        tt.clear();
        assert_eq!(l.sync_into(&tt, true), 5, "an emptied table: everything");
        assert!(tt.probe(es[0].key).is_some());
    }

    #[test]
    fn refresh_sees_a_write_that_keeps_the_length_and_the_mtime() {
        let dir = TempDir::new("refresh");
        let path = dir.file("shared.bin");
        let es = sample(11, 61);
        let writer = LearnFile::new(&path, 10);
        writer.store(&es[..10]).expect("fill");
        let (mut reader, _) = learner(&path, 10);
        assert!(reader.refresh().is_empty());
        assert_eq!(reader.len(), 10);
        let meta = fs::metadata(&path).expect("metadata");
        let modified = meta.modified().expect("mtime");
        // At full capacity a store keeps the length; a coarse clock keeps the mtime (set back
        // here, so that the test does not depend on the file system's granularity).
        writer.store(&es[10..]).expect("store");
        assert_eq!(fs::metadata(&path).expect("metadata").len(), meta.len());
        File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(modified))
            .expect("set mtime");
        assert!(reader.refresh().is_empty());
        assert_eq!(reader.len(), 10);
        assert!(
            reader.table.get(es[10].key).is_some(),
            "the new entry is seen"
        );
        assert!(reader.table.get(es[0].key).is_none());
    }

    #[test]
    fn stores_are_written_in_the_background_and_saved_on_close() {
        let dir = TempDir::new("writer");
        let path = dir.file("bg.bin");
        let es = sample(30, 71);
        let (mut l, said) = learner(&path, 100);
        assert!(l.refresh().is_empty());
        for e in &es[..20] {
            assert!(l.queue(e.clone(), Some("learned: x".into())));
        }
        // In memory at once, whatever the writer is doing.
        assert_eq!(l.len(), 20);
        // Another process adds entries; a refresh takes the writer's writes and theirs, and
        // keeps what is still queued.
        LearnFile::new(&path, 100)
            .store(&es[20..25])
            .expect("store");
        for e in &es[25..] {
            l.queue(e.clone(), None);
        }
        assert!(l.refresh().is_empty());
        assert!(l.close().is_empty());
        assert!(l.refresh().is_empty());
        assert_eq!(l.len(), 30);
        let (t, _) = LearnFile::at(&path).load().expect("load");
        assert_eq!(t.len(), 30);
        for e in &es {
            assert_eq!(t.get(e.key), Some(e));
        }
        let said = said.lock().expect("log").clone();
        assert_eq!(said.len(), 20, "{said:?}");
        assert!(
            said.iter().all(|m| m.starts_with("learned: x; ")),
            "{said:?}"
        );
        // Closed: nothing more is queued or said.
        assert!(!l.queue(es[0].clone(), None));
    }

    #[test]
    fn a_held_lock_delays_nothing_but_the_file() {
        let dir = TempDir::new("held");
        let path = dir.file("held.bin");
        let es = sample(3, 81);
        LearnFile::new(&path, 100).store(&es[..1]).expect("store");
        let before = fs::read(&path).expect("read");
        let (mut l, said) = learner(&path, 100);
        let lock = hold_lock(&path);
        // The lock is held: refresh and queue return at once and work from memory.
        let start = Instant::now();
        assert!(l.refresh().is_empty());
        assert_eq!(l.len(), 0, "not read yet");
        assert!(l.queue(es[1].clone(), Some("learned: y".into())));
        assert!(l.refresh().is_empty());
        assert_eq!(l.len(), 1);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        // Closing gives up after its bound, says so, and leaves the file as it was.
        let messages = l.close_within(Duration::from_millis(300));
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("error: 1 learned position(s) not saved"),
            "{messages:?}"
        );
        assert_eq!(fs::read(&path).expect("read"), before, "file untouched");
        // Once the lock is free, the writer, left to finish, still saves the entry.
        drop(lock);
        let deadline = Instant::now() + Duration::from_secs(20);
        while LearnFile::at(&path).load().expect("load").0.len() < 2 {
            assert!(Instant::now() < deadline, "the entry was never written");
            std::thread::sleep(Duration::from_millis(20));
        }
        while said.lock().expect("log").is_empty() {
            assert!(Instant::now() < deadline, "nothing said");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(said.lock().expect("log")[0].starts_with("learned: y; 2 positions in "));
    }
}
