//! The console's long commands (`bench`, `perft`) as jobs: each runs on its own thread, so that
//! the input loop keeps reading, `isready` is answered at once, and `stop`, `quit` or a command
//! that needs the engine (`go`, `setoption`, `ucinewgame`, another `bench` or `perft`) ends it.

use std::sync::Arc;
use std::thread::JoinHandle;

use crate::cancel::Cancel;
use crate::threads::SEARCH_STACK_BYTES;

/// A console command running beside the input loop.
pub struct ConsoleJob {
    name: &'static str,
    cancel: Arc<Cancel>,
    handle: JoinHandle<()>,
}

impl ConsoleJob {
    /// Starts `work` (which should give up once its [`Cancel`] is set) on a thread of its own,
    /// with a search thread's stack; `name` is the command, for messages.
    pub fn spawn(
        name: &'static str,
        work: impl FnOnce(&Cancel) + Send + 'static,
    ) -> Result<ConsoleJob, String> {
        let cancel = Arc::new(Cancel::new());
        let theirs = Arc::clone(&cancel);
        let handle = std::thread::Builder::new()
            .name(format!("trine-{name}"))
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || work(&theirs))
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        Ok(ConsoleJob {
            name,
            cancel,
            handle,
        })
    }

    /// The command this job runs.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// True until the work has returned.
    pub fn is_running(&self) -> bool {
        !self.handle.is_finished()
    }

    /// Stops the work and waits for its thread; true when the work was stopped before it
    /// finished (work that marked itself finished with [`Cancel::finish`], or whose thread has
    /// ended, was not).
    pub fn stop(self) -> bool {
        let stopped = self.cancel.cancel() && self.is_running();
        self.wait();
        stopped
    }

    /// Waits for the work to finish on its own.
    pub fn wait(self) {
        // A panic in the work was already reported by the panic hook; the engine plays on.
        let _ = self.handle.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    #[test]
    fn stop_ends_work_that_watches_its_cancel() {
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        let job = ConsoleJob::spawn("test", move |cancel| {
            while !cancel.is_cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
            flag.store(true, Ordering::Release);
        })
        .unwrap();
        assert!(job.is_running());
        assert_eq!(job.name(), "test");
        assert!(job.stop(), "it was running");
        assert!(done.load(Ordering::Acquire));
    }

    #[test]
    fn work_that_finished_is_not_stopped_while_it_still_reports() {
        let (tx, rx) = std::sync::mpsc::channel();
        let job = ConsoleJob::spawn("test", move |cancel| {
            assert!(cancel.finish());
            tx.send(()).unwrap();
            // Still printing its result when the stop comes (most likely: a stop after the
            // thread has ended is no stop either, so a slow machine cannot fail this).
            std::thread::sleep(Duration::from_millis(200));
        })
        .unwrap();
        rx.recv().unwrap();
        assert!(!job.stop(), "it had finished");
    }
}
