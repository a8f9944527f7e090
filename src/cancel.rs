//! A stop request for long work that is not a game search: the console's `bench` and `perft`,
//! which run beside the input loop so that `stop` and `quit` end them. It is a flag, and the
//! search of the moment (a bench position), which is stopped with it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::search::SearchControl;

/// A stop request shared by the work and whoever may stop it.
#[derive(Default)]
pub struct Cancel {
    flag: AtomicBool,
    search: Mutex<Option<Arc<SearchControl>>>,
}

impl Cancel {
    /// A request not yet made.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks the work to stop, the search it is running included.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Release);
        if let Some(ctl) = self.search.lock().as_ref() {
            ctl.request_stop();
        }
    }

    /// True once [`Cancel::cancel`] was called.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// The search the work runs now: a cancel stops it (at once, if the cancel came first).
    pub fn watch(&self, ctl: &Arc<SearchControl>) {
        let mut search = self.search.lock();
        *search = Some(Arc::clone(ctl));
        if self.flag.load(Ordering::Acquire) {
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
        c.cancel();
        assert!(first.stopped() && c.is_cancelled());
        let second = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        c.watch(&second);
        assert!(second.stopped(), "watched after the cancel");
    }
}
