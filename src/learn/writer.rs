//! The learn file's background writer (`Writer`): a thread that owns the writes of one
//! [`LearnFile`], so that the engine never waits for the file's lock, nor for a store's re-read,
//! fsync and rename, while its clock runs.
//!
//! Entries are queued on an unbounded channel and never dropped: the thread writes whatever has
//! queued up in one store, and keeps a batch whose store failed to try again with the next one
//! (and once more when the queue closes). After each write it hands back the file as written
//! (`Written`), so that the engine's memory follows the file without reading it again.
//! Messages (what was learned, errors) go to the [`Sink`] the engine gave.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::{LearnEntry, LearnFile, Snapshot};

/// Where the learning code's messages go (the UCI layer prints them as `info string` lines).
pub type Sink = Arc<dyn Fn(&str) + Send + Sync>;

/// One entry to store.
pub(super) struct Request {
    /// Its number: requests are numbered 1, 2, 3... in the order they are sent.
    pub seq: u64,
    /// The entry.
    pub entry: LearnEntry,
    /// What to say once it is written (`; <N> positions in <file>` is added).
    pub note: Option<String>,
}

/// A write done: the file as written, which holds every request up to number `seq`.
pub(super) struct Written {
    /// The last request the write holds (and every one before it).
    pub seq: u64,
    /// The file as written.
    pub snapshot: Snapshot,
}

/// The writer thread of one learn file.
pub(super) struct Writer {
    requests: Option<Sender<Request>>,
    written: Receiver<Written>,
    /// Disconnected when the thread ends.
    done: Receiver<()>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts the thread (the error is the system's when it cannot).
    pub fn start(file: LearnFile, sink: Sink) -> std::io::Result<Writer> {
        let (requests, queue) = mpsc::channel();
        let (hand_back, written) = mpsc::channel();
        let (alive, done) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("learn-writer".into())
            .spawn(move || {
                let _alive = alive;
                run(&file, &queue, &hand_back, &*sink);
            })?;
        Ok(Writer {
            requests: Some(requests),
            written,
            done,
            thread: Some(thread),
        })
    }

    /// Queues `request`; false when the thread is gone (it panicked) or the writer is closed.
    pub fn send(&self, request: Request) -> bool {
        self.requests
            .as_ref()
            .is_some_and(|tx| tx.send(request).is_ok())
    }

    /// The newest write handed back since the last call, if any.
    pub fn latest(&self) -> Option<Written> {
        self.written.try_iter().last()
    }

    /// Closes the queue and waits at most `bound` for the thread to write what is left; false
    /// when it is still busy then (waiting for another process's lock, or a slow disk). It is
    /// then left to finish on its own, or to end with the process: the file stays whole either
    /// way, since every write goes through a temporary file and a rename.
    pub fn close(&mut self, bound: Duration) -> bool {
        self.requests = None;
        match self.done.recv_timeout(bound) {
            Err(RecvTimeoutError::Timeout) => false,
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                if let Some(thread) = self.thread.take() {
                    let _ = thread.join();
                }
                true
            }
        }
    }
}

/// The thread: writes what has queued up, until the queue closes and nothing is left.
fn run(
    file: &LearnFile,
    queue: &Receiver<Request>,
    hand_back: &Sender<Written>,
    sink: &dyn Fn(&str),
) {
    let mut failed: Vec<Request> = Vec::new();
    while let Ok(first) = queue.recv() {
        let mut batch = std::mem::take(&mut failed);
        batch.push(first);
        batch.extend(queue.try_iter());
        if let Err(batch) = write(file, batch, hand_back, sink) {
            failed = batch;
        }
    }
    if !failed.is_empty() {
        let _ = write(file, failed, hand_back, sink);
    }
}

/// Stores `batch` in one write; gives the batch back when the store failed.
fn write(
    file: &LearnFile,
    batch: Vec<Request>,
    hand_back: &Sender<Written>,
    sink: &dyn Fn(&str),
) -> Result<(), Vec<Request>> {
    let entries: Vec<LearnEntry> = batch.iter().map(|r| r.entry.clone()).collect();
    match file.store_snapshot(&entries) {
        Ok((report, snapshot)) => {
            if let Some((moved_to, reason)) = &report.quarantined {
                sink(&format!(
                    "error: learn file {} was damaged ({reason}); moved aside to {}, starting a new one",
                    file.path().display(),
                    moved_to.display()
                ));
            }
            for note in batch.iter().filter_map(|r| r.note.as_deref()) {
                sink(&format!(
                    "{note}; {} positions in {}",
                    report.entries,
                    file.path().display()
                ));
            }
            let seq = batch.iter().map(|r| r.seq).max().unwrap_or(0);
            let _ = hand_back.send(Written { seq, snapshot });
            Ok(())
        }
        Err(e) => {
            sink(&format!("error: cannot store a learned position: {e}"));
            Err(batch)
        }
    }
}
