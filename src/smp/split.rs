//! Split points (Young Brothers Wait / DTS): created only at expected ALL-nodes, after the first move
//! has been searched, where every remaining move must be searched anyway. The owner publishes the
//! position, the zero window and the remaining moves under a `parking_lot` mutex; helpers take moves
//! one at a time, search them with the shared window and report back. A fail-high sets the cutoff
//! flag, which every thread working below the split point (at any depth of nesting) polls, so all of
//! them stop at once and the owner returns the fail-high score as a lower bound.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use shakmaty::Move;

use crate::board::Board;
use crate::search::MovePlan;

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

struct State {
    moves: Vec<MovePlan>,
    next: usize,
    helpers: usize,
    closed: bool,
    best: i32,
    best_move: Option<Move>,
    best_pv: Vec<Move>,
}

/// One split point.
pub struct SplitPoint {
    /// Position at the split node.
    pub board: Board,
    /// Repetition keys up to and including the split node.
    pub keys: Vec<u64>,
    /// Ply of the split node.
    pub ply: usize,
    /// Remaining depth at the split node.
    pub depth: i32,
    /// The (zero) window of the split node.
    pub alpha: i32,
    /// Upper bound of the window.
    pub beta: i32,
    /// Depth of the root iteration the owner was in (bounds check extensions).
    pub root_depth: i32,
    parent: Option<Arc<SplitPoint>>,
    cutoff: AtomicBool,
    state: Mutex<State>,
    finished: Condvar,
}

/// What the owner gets back.
#[derive(Clone, Debug)]
pub struct SplitResult {
    /// Best score over the moves searched at the split point.
    pub best: i32,
    /// Its move, when it exceeded alpha.
    pub best_move: Option<Move>,
    /// That move followed by the child's PV.
    pub best_pv: Vec<Move>,
    /// True when a move failed high.
    pub cutoff: bool,
}

impl SplitPoint {
    /// A split point over `moves` (the plans of the moves left after the eldest brother).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        board: Board,
        keys: Vec<u64>,
        ply: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        root_depth: i32,
        best: i32,
        parent: Option<Arc<SplitPoint>>,
        moves: Vec<MovePlan>,
    ) -> SplitPoint {
        SplitPoint {
            board,
            keys,
            ply,
            depth,
            alpha,
            beta,
            root_depth,
            parent,
            cutoff: AtomicBool::new(false),
            state: Mutex::new(State {
                moves,
                next: 0,
                helpers: 0,
                closed: false,
                best,
                best_move: None,
                best_pv: Vec::new(),
            }),
            finished: Condvar::new(),
        }
    }

    /// True when this split point or any split point above it has failed high: work below is void.
    #[inline]
    pub fn is_aborted(&self) -> bool {
        let mut sp = self;
        loop {
            if sp.cutoff.load(Ordering::Relaxed) {
                return true;
            }
            match &sp.parent {
                Some(p) => sp = p,
                None => return false,
            }
        }
    }

    /// True if `ancestor` is this split point or one above it.
    pub fn descends_from(&self, ancestor: &Arc<SplitPoint>) -> bool {
        let mut sp = self;
        loop {
            if std::ptr::eq(sp, Arc::as_ptr(ancestor)) {
                return true;
            }
            match &sp.parent {
                Some(p) => sp = p,
                None => return false,
            }
        }
    }

    /// Helpers currently inside.
    pub fn helpers(&self) -> usize {
        self.state.lock().helpers
    }

    /// Stops new helpers from joining (the owner has run out of moves to take).
    pub fn close(&self) {
        self.state.lock().closed = true;
    }

    /// The next move to search, with its plan, if any remain and no cutoff happened.
    pub fn next_move(&self) -> Option<MovePlan> {
        if self.is_aborted() {
            return None;
        }
        let mut s = self.state.lock();
        let m = s.moves.get(s.next).copied();
        if m.is_some() {
            s.next += 1;
        }
        m
    }

    /// Moves not yet handed out.
    pub fn moves_left(&self) -> usize {
        let s = self.state.lock();
        s.moves.len() - s.next
    }

    /// Reports a searched move's score and the child's PV; a fail-high raises the cutoff flag.
    pub fn report(&self, m: Move, score: i32, child_pv: &[Move]) {
        let mut s = self.state.lock();
        if score > s.best {
            s.best = score;
            if score > self.alpha {
                s.best_move = Some(m);
                s.best_pv.clear();
                s.best_pv.push(m);
                s.best_pv.extend_from_slice(child_pv);
            }
        }
        if score >= self.beta {
            self.cutoff.store(true, Ordering::Release);
        }
    }

    /// A helper asks to join; refused once the owner has closed the split point or nothing is left.
    pub fn try_enter(&self) -> bool {
        let mut s = self.state.lock();
        if s.closed || s.next >= s.moves.len() || self.is_aborted() {
            return false;
        }
        s.helpers += 1;
        true
    }

    /// A helper is done here.
    pub fn leave(&self) {
        let mut s = self.state.lock();
        s.helpers -= 1;
        if s.helpers == 0 {
            self.finished.notify_all();
        }
    }

    /// The owner: no more helpers may join; wait until the ones inside have left, then the result.
    pub fn close_and_wait(&self) -> SplitResult {
        let mut s = self.state.lock();
        s.closed = true;
        while s.helpers > 0 {
            self.finished.wait(&mut s);
        }
        SplitResult {
            best: s.best,
            best_move: s.best_move,
            best_pv: std::mem::take(&mut s.best_pv),
            cutoff: self.cutoff.load(Ordering::Acquire),
        }
    }
}

/// The split points on offer in one search, and the threads waiting for one.
pub struct SplitBoard {
    points: Mutex<Vec<Arc<SplitPoint>>>,
    wake: Condvar,
    available: AtomicUsize,
    idle: AtomicUsize,
    /// Scheme in use.
    pub mode: SmpMode,
    /// Threads in the search.
    pub threads: usize,
    /// Smallest remaining depth at which a split point is created.
    pub min_depth: i32,
}

/// Default smallest split depth.
pub const MIN_SPLIT_DEPTH: i32 = 8;

impl SplitBoard {
    /// A board for a search with `threads` threads in `mode`.
    pub fn new(mode: SmpMode, threads: usize, min_depth: i32) -> SplitBoard {
        SplitBoard {
            points: Mutex::new(Vec::new()),
            wake: Condvar::new(),
            available: AtomicUsize::new(0),
            idle: AtomicUsize::new(0),
            mode,
            threads,
            min_depth,
        }
    }

    /// Should a node of remaining `depth` offer a split point now?
    #[inline]
    pub fn wanted(&self, depth: i32) -> bool {
        if self.threads < 2 || depth < self.min_depth {
            return false;
        }
        match self.mode {
            SmpMode::Lazy => false,
            SmpMode::Ybw => self.idle.load(Ordering::Relaxed) > 0,
            SmpMode::Hybrid => true,
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

    /// Joins the split point nearest the root that still has moves (biggest subtrees first).
    pub fn pick(&self) -> Option<Arc<SplitPoint>> {
        if !self.has_work() {
            return None;
        }
        let p = self.points.lock();
        let mut best: Option<&Arc<SplitPoint>> = None;
        for sp in p.iter() {
            if best.is_none_or(|b| sp.ply < b.ply) && sp.moves_left() > 0 && !sp.is_aborted() {
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

/// Parallel-search counters of one thread, summed over threads for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmpStats {
    /// Split points this thread created.
    pub splits_created: u64,
    /// Split points this thread joined as a helper.
    pub splits_joined: u64,
    /// Split points ended by a fail-high.
    pub splits_aborted: u64,
    /// Time helpers spent waiting for work, microseconds.
    pub idle_us: u64,
    /// Time owners spent waiting for their helpers to finish, microseconds.
    pub owner_wait_us: u64,
}

impl SmpStats {
    /// Adds another thread's counters.
    pub fn merge(&mut self, o: &SmpStats) {
        self.splits_created += o.splits_created;
        self.splits_joined += o.splits_joined;
        self.splits_aborted += o.splits_aborted;
        self.idle_us += o.idle_us;
        self.owner_wait_us += o.owner_wait_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::NodeType;
    use shakmaty::Position;

    fn split_point(parent: Option<Arc<SplitPoint>>) -> Arc<SplitPoint> {
        let board = Board::startpos();
        let moves: Vec<MovePlan> = board
            .pos()
            .legal_moves()
            .into_iter()
            .map(|mv| MovePlan {
                mv,
                depth: 5,
                reduction: 0,
                child: NodeType::Cut,
                quiet: true,
            })
            .collect();
        Arc::new(SplitPoint::new(
            board,
            Vec::new(),
            3,
            6,
            -10,
            -9,
            8,
            -50,
            parent,
            moves,
        ))
    }

    #[test]
    fn a_helpers_fail_high_aborts_everyone_and_the_bound_is_right() {
        let sp = split_point(None);
        let below = split_point(Some(Arc::clone(&sp)));
        assert!(below.descends_from(&sp) && !sp.descends_from(&below));
        let board = SplitBoard::new(SmpMode::Ybw, 3, 1);
        board.publish(&sp);
        // Two helpers join; the owner keeps working too.
        let h1 = board.pick().expect("joinable");
        let h2 = board.pick().expect("joinable");
        assert_eq!(sp.helpers(), 2);
        // Both helpers take their move before either reports: a fail-high reported first would
        // (rightly) leave nothing for the other to take.
        let a = h1.next_move().expect("a move for the first helper").mv;
        let b = h2.next_move().expect("a move for the second helper").mv;
        std::thread::scope(|s| {
            s.spawn(|| h1.report(a, -30, &[]));
            s.spawn(|| h2.report(b, 25, &[b]));
        });
        assert_ne!(a, b);
        // The fail-high stops every thread working here and below, and no move is handed out any more.
        assert!(sp.is_aborted() && below.is_aborted());
        assert!(sp.next_move().is_none() && below.next_move().is_none());
        assert!(!sp.try_enter());
        h1.leave();
        h2.leave();
        board.withdraw(&sp);
        let r = sp.close_and_wait();
        assert!(r.cutoff);
        assert_eq!(r.best, 25);
        assert!(
            r.best >= sp.beta,
            "a fail-high is returned as a lower bound >= beta"
        );
        assert_eq!(r.best_move, Some(b));
        assert_eq!(r.best_pv, vec![b, b]);
        assert!(board.pick().is_none());
    }

    #[test]
    fn without_a_cutoff_the_best_score_below_alpha_is_an_upper_bound() {
        let sp = split_point(None);
        let mut n = 0;
        while let Some(plan) = sp.next_move() {
            sp.report(plan.mv, -20 - n, &[]);
            n += 1;
        }
        assert_eq!(n, 20);
        let r = sp.close_and_wait();
        assert!(!r.cutoff);
        assert_eq!(r.best, -20);
        assert!(r.best <= sp.alpha);
        assert_eq!(r.best_move, None);
    }

    #[test]
    fn owners_wait_for_their_helpers() {
        let sp = split_point(None);
        assert!(sp.try_enter());
        let sp2 = Arc::clone(&sp);
        let helper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            let m = sp2.next_move().unwrap().mv;
            sp2.report(m, -15, &[]);
            sp2.leave();
        });
        let r = sp.close_and_wait();
        helper.join().unwrap();
        assert_eq!(sp.helpers(), 0);
        assert_eq!(r.best, -15);
    }

    #[test]
    fn modes_parse() {
        for m in [SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid] {
            assert_eq!(SmpMode::parse(m.name()), Some(m));
        }
        assert_eq!(SmpMode::parse("DTS"), None);
        let lazy = SplitBoard::new(SmpMode::Lazy, 4, 2);
        assert!(!lazy.wanted(10));
        let hybrid = SplitBoard::new(SmpMode::Hybrid, 4, 2);
        assert!(hybrid.wanted(2) && !hybrid.wanted(1));
        assert!(!SplitBoard::new(SmpMode::Hybrid, 1, 2).wanted(10));
    }
}
