//! Search control shared by every thread of one search: the stop flag, ponder/infinite state, the
//! clock (restartable at `ponderhit`), limits, and per-thread node and tablebase-hit counters that
//! are summed on demand.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crossbeam::utils::CachePadded;

use crate::time::TimeBudget;

/// Limits of one search other than time.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Maximum iteration depth.
    pub depth: Option<u32>,
    /// Node budget (all threads together).
    pub nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    /// Time budget.
    pub time: TimeBudget,
}

/// Flags and counters of a running search.
pub struct SearchControl {
    /// Set to stop every thread.
    pub stop: AtomicBool,
    /// `go ponder` until `ponderhit`, or `go infinite`: time limits are ignored and `bestmove` waits
    /// for `stop`/`ponderhit`.
    pub waiting: AtomicBool,
    epoch: Instant,
    start_ms: AtomicU64,
    /// The limits.
    pub limits: SearchLimits,
    /// One cache line per thread, written by that thread only.
    counts: Vec<CachePadded<Counts>>,
}

/// What one thread has searched so far, published for the others.
#[derive(Default)]
struct Counts {
    nodes: AtomicU64,
    tbhits: AtomicU64,
}

impl SearchControl {
    /// Control for a search with `threads` threads, starting now.
    pub fn new(limits: SearchLimits, threads: usize, waiting: bool) -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            waiting: AtomicBool::new(waiting),
            epoch: Instant::now(),
            start_ms: AtomicU64::new(0),
            limits,
            counts: (0..threads.max(1)).map(|_| Default::default()).collect(),
        }
    }

    /// Milliseconds since our clock started.
    #[inline]
    pub fn elapsed_ms(&self) -> u64 {
        (self.epoch.elapsed().as_millis() as u64)
            .saturating_sub(self.start_ms.load(Ordering::Relaxed))
    }

    /// `ponderhit`: our clock starts now and time limits apply from here.
    pub fn ponderhit(&self) {
        self.start_ms
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        self.waiting.store(false, Ordering::Release);
    }

    /// Asks every thread to stop.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// True once a stop was requested.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// True while pondering or infinite.
    #[inline]
    pub fn is_waiting(&self) -> bool {
        self.waiting.load(Ordering::Acquire)
    }

    /// Publishes a thread's node and tablebase-hit counts.
    #[inline]
    pub fn publish(&self, thread: usize, nodes: u64, tbhits: u64) {
        if let Some(c) = self.counts.get(thread) {
            c.nodes.store(nodes, Ordering::Relaxed);
            c.tbhits.store(tbhits, Ordering::Relaxed);
        }
    }

    /// Nodes of all threads.
    pub fn total_nodes(&self) -> u64 {
        self.counts
            .iter()
            .map(|c| c.nodes.load(Ordering::Relaxed))
            .sum()
    }

    /// Tablebase hits of all threads.
    pub fn total_tbhits(&self) -> u64 {
        self.counts
            .iter()
            .map(|c| c.tbhits.load(Ordering::Relaxed))
            .sum()
    }

    /// True when the hard time limit has passed (never while pondering/infinite).
    #[inline]
    pub fn past_hard_limit(&self) -> bool {
        match self.limits.time.hard_ms {
            Some(hard) => !self.is_waiting() && self.elapsed_ms() >= hard,
            None => false,
        }
    }

    /// True when `fraction_percent` % of the soft limit has passed (never while
    /// pondering/infinite); exact for any soft limit up to `u64::MAX`.
    pub fn past_soft_limit(&self, fraction_percent: u64) -> bool {
        match self.limits.time.soft_ms {
            Some(soft) => {
                !self.is_waiting()
                    && u128::from(self.elapsed_ms()) * 100
                        >= u128::from(soft) * u128::from(fraction_percent)
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_soft_limit(soft_ms: u64) -> SearchControl {
        let limits = SearchLimits {
            time: TimeBudget {
                soft_ms: Some(soft_ms),
                hard_ms: Some(u64::MAX),
            },
            ..SearchLimits::default()
        };
        SearchControl::new(limits, 1, false)
    }

    #[test]
    fn huge_soft_limits_are_not_passed() {
        for soft in [1 << 40, u64::MAX / 200 + 1, i64::MAX as u64, u64::MAX] {
            let ctl = with_soft_limit(soft);
            for percent in [1, 55, 110, 200] {
                assert!(!ctl.past_soft_limit(percent), "{soft} ms at {percent} %");
            }
            assert!(!ctl.past_hard_limit());
        }
        // A limit of zero has passed at once, unless the search waits for `ponderhit`.
        let ctl = with_soft_limit(0);
        assert!(ctl.past_soft_limit(55));
        ctl.waiting.store(true, Ordering::Release);
        assert!(!ctl.past_soft_limit(55));
    }
}
