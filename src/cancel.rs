//! A stop request for long work that is not a game search: the console's `bench` and `perft`,
//! which run beside the input loop so that `stop` and `quit` end them. It is a state (running,
//! cancelled or finished), and the search of the moment (a bench position), which is stopped with
//! it. The work marks itself finished before it prints its result, so a `stop` read after the
//! result was printed finds nothing running, however soon it comes.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::search::SearchControl;

/// The work runs and may still be cancelled.
const RUNNING: u8 = 0;
/// The work was asked to stop before it finished.
const CANCELLED: u8 = 1;
/// The work finished (its result may be printing); a cancel now stops nothing.
const FINISHED: u8 = 2;

/// A stop request shared by the work and whoever may stop it.
#[derive(Default)]
pub struct Cancel {
    /// [`RUNNING`], [`CANCELLED`] or [`FINISHED`]; only `RUNNING` ever changes.
    state: AtomicU8,
    search: Mutex<Option<Arc<SearchControl>>>,
}

impl Cancel {
    /// A request not yet made.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks the work to stop, the search it is running included; true when this stopped work
    /// that had not finished (false when it had, or was already cancelled).
    pub fn cancel(&self) -> bool {
        let stopped = self
            .state
            .compare_exchange(RUNNING, CANCELLED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if stopped {
            if let Some(ctl) = self.search.lock().as_ref() {
                ctl.request_stop();
            }
        }
        stopped
    }

    /// The work is done and about to report: true when it may (it was not cancelled first);
    /// a later [`Cancel::cancel`] stops nothing.
    pub fn finish(&self) -> bool {
        match self
            .state
            .compare_exchange(RUNNING, FINISHED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(state) => state == FINISHED,
        }
    }

    /// True once [`Cancel::cancel`] stopped the work.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.state.load(Ordering::Relaxed) == CANCELLED
    }

    /// The search the work runs now: a cancel stops it (at once, if the cancel came first).
    pub fn watch(&self, ctl: &Arc<SearchControl>) {
        let mut search = self.search.lock();
        *search = Some(Arc::clone(ctl));
        if self.state.load(Ordering::Acquire) == CANCELLED {
            ctl.request_stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchLimits;

    #[test]
    fn a_cancel_stops_the_watched_search_before_or_after_it_is_watched() {
        let c = Cancel::new();
        let first = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        c.watch(&first);
        assert!(!first.stopped() && !c.is_cancelled());
        assert!(c.cancel(), "it was running");
        assert!(first.stopped() && c.is_cancelled());
        assert!(!c.cancel(), "already cancelled");
        assert!(!c.finish(), "cancelled work does not report");
        let second = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        c.watch(&second);
        assert!(second.stopped(), "watched after the cancel");
    }

    #[test]
    fn finished_work_is_not_stopped_by_a_late_cancel() {
        let c = Cancel::new();
        let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        c.watch(&ctl);
        assert!(c.finish());
        assert!(c.finish(), "finishing twice still reports");
        assert!(!c.cancel(), "nothing was running");
        assert!(!c.is_cancelled() && !ctl.stopped());
    }
}
