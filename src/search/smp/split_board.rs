//! The split points on offer in one search ([`SplitBoard`]): owners publish and withdraw them,
//! idle threads wait for one and join the one with the most work left, whoever its owner; and the
//! SMP modes that decide who splits ([`SmpMode`]).

#[cfg(test)]
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam::utils::CachePadded;
use parking_lot::{Condvar, Mutex};

use super::SplitPoint;

/// How the helper threads share the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmpMode {
    /// Lazy SMP only: every thread runs its own iterative deepening over the shared TT.
    Lazy,
    /// Young Brothers Wait only: helpers wait for split points at expected ALL-nodes.
    Ybw,
    /// Helpers run lazy SMP and join split points whenever one is offered.
    Hybrid,
}

impl SmpMode {
    /// The UCI/CLI name.
    pub fn name(self) -> &'static str {
        match self {
            SmpMode::Lazy => "lazy",
            SmpMode::Ybw => "ybw",
            SmpMode::Hybrid => "hybrid",
        }
    }

    /// Parses a UCI/CLI name (case-insensitive).
    pub fn parse(text: &str) -> Option<SmpMode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "lazy" => Some(SmpMode::Lazy),
            "ybw" => Some(SmpMode::Ybw),
            "hybrid" => Some(SmpMode::Hybrid),
            _ => None,
        }
    }
}

/// The split points on offer in one search, and the threads waiting for one.
pub struct SplitBoard {
    points: CachePadded<Mutex<Vec<Arc<SplitPoint>>>>,
    wake: Condvar,
    // Written as threads wait and split points come and go; read at every node that may split.
    // Each on its own cache line, away from the read-only fields below.
    available: CachePadded<AtomicUsize>,
    idle: CachePadded<AtomicUsize>,
    /// Scheme in use.
    pub mode: SmpMode,
    /// Threads in the search.
    pub threads: usize,
    /// Smallest remaining depth at which a split point is created.
    pub min_depth: i32,
    /// `hybrid` only: how many plies below the root (in remaining depth) split points are offered.
    pub hybrid_margin: i32,
    /// Tests only: the next helper (any thread but the master) to take a move at a split point panics.
    #[cfg(test)]
    pub inject_panic: AtomicBool,
}

/// Default of `hybrid`'s margin: how far below the root (in remaining depth) split points are
/// still offered.
pub const HYBRID_MARGIN: i32 = 2;

/// Default smallest split depth.
pub const MIN_SPLIT_DEPTH: i32 = 8;

impl SplitBoard {
    /// A board for a search with `threads` threads in `mode`.
    pub fn new(mode: SmpMode, threads: usize, min_depth: i32) -> SplitBoard {
        SplitBoard {
            points: CachePadded::new(Mutex::new(Vec::new())),
            wake: Condvar::new(),
            available: CachePadded::new(AtomicUsize::new(0)),
            idle: CachePadded::new(AtomicUsize::new(0)),
            mode,
            threads,
            min_depth,
            hybrid_margin: HYBRID_MARGIN,
            #[cfg(test)]
            inject_panic: AtomicBool::new(false),
        }
    }

    /// The same board with `hybrid`'s margin set to `margin` plies (negative counts as 0).
    pub fn with_hybrid_margin(mut self, margin: i32) -> SplitBoard {
        self.hybrid_margin = margin.max(0);
        self
    }

    /// Tests only: panics once when [`SplitBoard::inject_panic`] is set (a helper dying mid-search).
    #[cfg(test)]
    pub fn maybe_inject_panic(&self) {
        if self.inject_panic.swap(false, Ordering::AcqRel) {
            panic!("injected panic at a split point");
        }
    }

    /// Should a node of remaining `depth`, in an iteration of depth `root_depth`, offer a split
    /// point now? `ybw`: when a helper is idle. `hybrid`: only near the root (remaining depth at
    /// least `root_depth - hybrid_margin`), where a split point holds more work than a lazy
    /// helper's own iteration would do in the time it helps.
    #[inline]
    pub fn wanted(&self, depth: i32, root_depth: i32) -> bool {
        if self.threads < 2 || depth < self.min_depth {
            return false;
        }
        match self.mode {
            SmpMode::Lazy => false,
            SmpMode::Ybw => self.idle.load(Ordering::Relaxed) > 0,
            SmpMode::Hybrid => depth >= root_depth - self.hybrid_margin,
        }
    }

    /// True if some split point is on offer (a cheap check before [`SplitBoard::pick`]).
    #[inline]
    pub fn has_work(&self) -> bool {
        self.available.load(Ordering::Relaxed) > 0
    }

    /// Offers a split point and wakes waiting helpers.
    pub fn publish(&self, sp: &Arc<SplitPoint>) {
        let mut p = self.points.lock();
        p.push(Arc::clone(sp));
        self.available.store(p.len(), Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Takes a split point off offer.
    pub fn withdraw(&self, sp: &Arc<SplitPoint>) {
        let mut p = self.points.lock();
        p.retain(|x| !Arc::ptr_eq(x, sp));
        self.available.store(p.len(), Ordering::Relaxed);
    }

    /// Joins, among every open split point of every owner, the one with the most remaining depth
    /// that still has moves (the biggest subtrees first, as DTS chooses; ties: nearer the root).
    pub fn pick(&self) -> Option<Arc<SplitPoint>> {
        if !self.has_work() {
            return None;
        }
        let p = self.points.lock();
        let mut best: Option<&Arc<SplitPoint>> = None;
        for sp in p.iter() {
            let better =
                best.is_none_or(|b| (sp.depth, -(sp.ply as i64)) > (b.depth, -(b.ply as i64)));
            if better && sp.moves_left() > 0 && !sp.is_aborted() {
                best = Some(sp);
            }
        }
        let sp = Arc::clone(best?);
        drop(p);
        if sp.try_enter() {
            Some(sp)
        } else {
            None
        }
    }

    /// An idle thread waits (at most `timeout`) for a split point to be offered; while it waits it
    /// counts as idle, which is what makes YBW owners offer work.
    pub fn wait_for_work(&self, timeout: Duration) {
        let mut p = self.points.lock();
        self.idle.fetch_add(1, Ordering::Relaxed);
        self.wake.wait_for(&mut p, timeout);
        self.idle.fetch_sub(1, Ordering::Relaxed);
    }

    /// A split point below `ancestor` (created by one of its helpers) that still has moves, for an
    /// owner waiting on its helpers to help them ("helpful master").
    pub fn pick_below(&self, ancestor: &Arc<SplitPoint>) -> Option<Arc<SplitPoint>> {
        if !self.has_work() {
            return None;
        }
        let p = self.points.lock();
        let found = p
            .iter()
            .filter(|sp| !Arc::ptr_eq(sp, ancestor) && sp.descends_from(ancestor))
            .filter(|sp| sp.moves_left() > 0 && !sp.is_aborted())
            .min_by_key(|sp| sp.ply)
            .cloned();
        drop(p);
        let sp = found?;
        if sp.try_enter() {
            Some(sp)
        } else {
            None
        }
    }

    /// Wakes every waiting helper (at the end of a search).
    pub fn wake_all(&self) {
        let _p = self.points.lock();
        self.wake.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse() {
        for m in [SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid] {
            assert_eq!(SmpMode::parse(m.name()), Some(m));
        }
        assert_eq!(SmpMode::parse("DTS"), None);
        let lazy = SplitBoard::new(SmpMode::Lazy, 4, 2);
        assert!(!lazy.wanted(10, 10));
        let hybrid = SplitBoard::new(SmpMode::Hybrid, 4, 2);
        assert!(hybrid.wanted(2, 3) && !hybrid.wanted(1, 3));
        // Hybrid offers split points near the root only.
        assert!(hybrid.wanted(8, 8 + HYBRID_MARGIN) && !hybrid.wanted(7, 8 + HYBRID_MARGIN));
        assert!(!SplitBoard::new(SmpMode::Hybrid, 1, 2).wanted(10, 10));
        // A wider margin offers split points deeper in the tree, never below the split depth.
        let wide = SplitBoard::new(SmpMode::Hybrid, 4, 8).with_hybrid_margin(5);
        assert!(wide.wanted(15, 20) && !wide.wanted(14, 20) && !wide.wanted(7, 10));
        let zero = SplitBoard::new(SmpMode::Hybrid, 4, 2).with_hybrid_margin(-3);
        assert!(zero.wanted(20, 20) && !zero.wanted(19, 20));
    }
}
