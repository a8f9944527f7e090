//! Split points (Young Brothers Wait / DTS): created only where the rest of a node is ALL work, so that
//! every remaining move must be searched anyway:
//! - at an expected ALL-node after its first move, or before it when the TT already holds an upper
//!   bound for the node (Cray Blitz's iterated search: the last iteration proved it ALL);
//! - at a PV node (the root included) after its first move: every later move is searched with a
//!   zero window and expected to fail low;
//! - at a CUT-node once its candidate cutoff moves have all failed (it is re-predicted ALL); never
//!   while one is left.
//!
//! The owner publishes the position, the window and the plans of the remaining moves; helpers take
//! moves with an atomic fetch-add, search them and report back under a small mutex. At a PV split
//! point a move that beats alpha is re-searched with the full window and raises alpha for every
//! thread there. A fail-high sets the cutoff flag, which every thread working below the split point
//! (at any depth of nesting) polls, so all of them stop at once and the owner returns the fail-high
//! score as a lower bound.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam::utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use shakmaty::Move;

use crate::board::Board;
use crate::search::{MovePlan, NodeType};

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

/// Why a node offered a split point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitKind {
    /// An expected ALL-node, after its first move.
    All,
    /// An expected ALL-node that the TT proved ALL, before its first move.
    TtAll,
    /// A CUT-node whose candidate cutoff moves all failed (re-predicted ALL).
    Cut,
    /// A PV node below the root, after its first move.
    Pv,
    /// The root, after its first move.
    Root,
}

impl SplitKind {
    /// Whether a node below the root may split before its move number `index` (0-based, moves
    /// searched so far), and why: an expected ALL-node after its first move (before it when
    /// `tt_all`, the TT proving it ALL), a PV node after its first move, a CUT-node only once
    /// `only_non_candidates_left` (no candidate cutoff move is left). `zero_window` is the node's
    /// window; ALL- and CUT-nodes split only with a zero window.
    pub fn decide(
        expected: NodeType,
        zero_window: bool,
        index: usize,
        tt_all: bool,
        only_non_candidates_left: bool,
    ) -> Option<SplitKind> {
        match expected {
            NodeType::Pv => (index >= 1).then_some(SplitKind::Pv),
            NodeType::All if zero_window && index >= 1 => Some(SplitKind::All),
            NodeType::All if zero_window && tt_all => Some(SplitKind::TtAll),
            NodeType::Cut if zero_window && index >= 1 && only_non_candidates_left => {
                Some(SplitKind::Cut)
            }
            _ => None,
        }
    }

    /// True for the kinds that search with an open window (a move that beats alpha is re-searched
    /// with the full window and its PV kept).
    pub fn is_pv(self) -> bool {
        matches!(self, SplitKind::Pv | SplitKind::Root)
    }
}

/// Where and how a split point is offered (everything but its moves).
#[derive(Clone)]
pub struct SplitSpec {
    /// Position at the split node.
    pub board: Board,
    /// Repetition keys up to and including the split node.
    pub keys: Vec<u64>,
    /// Ply of the split node.
    pub ply: usize,
    /// Remaining depth at the split node.
    pub depth: i32,
    /// Lower end of the window when the split point opens.
    pub alpha: i32,
    /// Upper end of the window.
    pub beta: i32,
    /// Depth of the root iteration the owner was in (bounds check extensions).
    pub root_depth: i32,
    /// Best score so far (the moves searched before the split).
    pub best: i32,
    /// Why the node splits.
    pub kind: SplitKind,
}

struct State {
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
    /// Upper bound of the window.
    pub beta: i32,
    /// Depth of the root iteration the owner was in (bounds check extensions).
    pub root_depth: i32,
    /// Why the node split.
    pub kind: SplitKind,
    /// Lower end of the window: raised by every move that beats it (PV split points only; a
    /// zero-window split point fails high instead).
    alpha: CachePadded<AtomicI32>,
    parent: Option<Arc<SplitPoint>>,
    /// Read at every node below the split point: kept off the lines that change as moves are
    /// handed out and reported.
    cutoff: CachePadded<AtomicBool>,
    moves: Box<[MovePlan]>,
    next: CachePadded<AtomicUsize>,
    state: CachePadded<Mutex<State>>,
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
    /// A split point over `moves` (the plans of the moves left), below `parent`.
    pub fn new(
        spec: SplitSpec,
        parent: Option<Arc<SplitPoint>>,
        moves: Vec<MovePlan>,
    ) -> SplitPoint {
        SplitPoint {
            board: spec.board,
            keys: spec.keys,
            ply: spec.ply,
            depth: spec.depth,
            beta: spec.beta,
            root_depth: spec.root_depth,
            kind: spec.kind,
            alpha: CachePadded::new(AtomicI32::new(spec.alpha)),
            parent,
            cutoff: CachePadded::new(AtomicBool::new(false)),
            moves: moves.into_boxed_slice(),
            next: CachePadded::new(AtomicUsize::new(0)),
            state: CachePadded::new(Mutex::new(State {
                helpers: 0,
                closed: false,
                best: spec.best,
                best_move: None,
                best_pv: Vec::new(),
            })),
            finished: Condvar::new(),
        }
    }

    /// The current lower end of the window (the alpha every new move is searched against).
    #[inline]
    pub fn alpha(&self) -> i32 {
        self.alpha.load(Ordering::Acquire)
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

    /// The next move to search, with its plan, if any remain and no cutoff happened (a lock-free
    /// fetch-add on the index of the next move).
    pub fn next_move(&self) -> Option<MovePlan> {
        if self.is_aborted() {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::AcqRel);
        self.moves.get(i).copied()
    }

    /// Moves not yet handed out.
    #[inline]
    pub fn moves_left(&self) -> usize {
        self.moves
            .len()
            .saturating_sub(self.next.load(Ordering::Acquire))
    }

    /// Reports a searched move's score and the child's PV: a score above alpha makes it the best
    /// move (and, at a PV split point, raises alpha); a fail-high raises the cutoff flag.
    pub fn report(&self, m: Move, score: i32, child_pv: &[Move]) {
        let mut s = self.state.lock();
        if score > s.best {
            s.best = score;
            if score > self.alpha() {
                s.best_move = Some(m);
                s.best_pv.clear();
                s.best_pv.push(m);
                s.best_pv.extend_from_slice(child_pv);
                if self.kind.is_pv() && score < self.beta {
                    self.alpha.store(score, Ordering::Release);
                }
            }
        }
        if score >= self.beta {
            self.cutoff.store(true, Ordering::Release);
        }
    }

    /// A helper asks to join; refused once the owner has closed the split point or nothing is left.
    pub fn try_enter(&self) -> bool {
        let mut s = self.state.lock();
        if s.closed || self.moves_left() == 0 || self.is_aborted() {
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
    /// Tests only: the next helper (any thread but the master) to take a move at a split point panics.
    #[cfg(test)]
    pub inject_panic: AtomicBool,
}

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
            #[cfg(test)]
            inject_panic: AtomicBool::new(false),
        }
    }

    /// Tests only: panics once when [`SplitBoard::inject_panic`] is set (a helper dying mid-search).
    #[cfg(test)]
    pub fn maybe_inject_panic(&self) {
        if self.inject_panic.swap(false, Ordering::AcqRel) {
            panic!("injected panic at a split point");
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

/// Parallel-search counters of one thread, summed over threads for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmpStats {
    /// Split points this thread created.
    pub splits_created: u64,
    /// Split points created, by [`SplitKind`] (`All`, `TtAll`, `Cut`, `Pv`, `Root`).
    pub splits_by_kind: [u64; 5],
    /// Smallest remaining depth of a split point this thread created (0: none created).
    pub shallowest_split: u32,
    /// Split points this thread joined as a helper.
    pub splits_joined: u64,
    /// Split points ended by a fail-high.
    pub splits_aborted: u64,
    /// Split points whose merged result contradicted its bound (a cutoff below beta, or a score
    /// at or above beta without a cutoff): always 0 in a correct search, counted so that tests
    /// check it inside real searches.
    pub split_bound_errors: u64,
    /// Time helpers spent waiting for work, microseconds.
    pub idle_us: u64,
    /// Time owners spent waiting for their helpers to finish, microseconds.
    pub owner_wait_us: u64,
}

impl SmpStats {
    /// Counts a split point created at remaining `depth`.
    pub fn count_split(&mut self, kind: SplitKind, depth: i32) {
        self.splits_created += 1;
        self.splits_by_kind[kind as usize] += 1;
        let d = depth.max(1) as u32;
        if self.shallowest_split == 0 || d < self.shallowest_split {
            self.shallowest_split = d;
        }
    }

    /// Adds another thread's counters.
    pub fn merge(&mut self, o: &SmpStats) {
        self.splits_created += o.splits_created;
        for (a, b) in self.splits_by_kind.iter_mut().zip(o.splits_by_kind) {
            *a += b;
        }
        if o.shallowest_split != 0
            && (self.shallowest_split == 0 || o.shallowest_split < self.shallowest_split)
        {
            self.shallowest_split = o.shallowest_split;
        }
        self.splits_joined += o.splits_joined;
        self.splits_aborted += o.splits_aborted;
        self.split_bound_errors += o.split_bound_errors;
        self.idle_us += o.idle_us;
        self.owner_wait_us += o.owner_wait_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let spec = SplitSpec {
            board,
            keys: Vec::new(),
            ply: 3,
            depth: 6,
            alpha: -10,
            beta: -9,
            root_depth: 8,
            best: -50,
            kind: SplitKind::All,
        };
        Arc::new(SplitPoint::new(spec, parent, moves))
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
        assert!(r.best <= sp.alpha());
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
    fn splits_happen_only_where_the_rest_of_the_node_is_all_work() {
        use NodeType::{All, Cut, Pv};
        // A CUT-node never splits while a candidate cutoff move is left, nor before its first move.
        assert_eq!(SplitKind::decide(Cut, true, 1, false, false), None);
        assert_eq!(SplitKind::decide(Cut, true, 5, true, false), None);
        assert_eq!(SplitKind::decide(Cut, true, 0, true, true), None);
        assert_eq!(
            SplitKind::decide(Cut, true, 3, false, true),
            Some(SplitKind::Cut)
        );
        // An ALL-node splits after its first move, or before it when the TT proved it ALL.
        assert_eq!(SplitKind::decide(All, true, 0, false, false), None);
        assert_eq!(
            SplitKind::decide(All, true, 0, true, false),
            Some(SplitKind::TtAll)
        );
        assert_eq!(
            SplitKind::decide(All, true, 1, false, false),
            Some(SplitKind::All)
        );
        // ALL- and CUT-nodes split only with a zero window.
        assert_eq!(SplitKind::decide(All, false, 2, true, true), None);
        assert_eq!(SplitKind::decide(Cut, false, 2, false, true), None);
        // A PV node splits after its first move, never before.
        assert_eq!(SplitKind::decide(Pv, false, 0, true, true), None);
        assert_eq!(
            SplitKind::decide(Pv, false, 1, false, false),
            Some(SplitKind::Pv)
        );
        assert!(SplitKind::Pv.is_pv() && SplitKind::Root.is_pv() && !SplitKind::All.is_pv());
    }

    #[test]
    fn a_pv_split_point_raises_alpha_for_everyone_and_keeps_the_best_line() {
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
        let spec = SplitSpec {
            board,
            keys: Vec::new(),
            ply: 0,
            depth: 6,
            alpha: 10,
            beta: 100,
            root_depth: 6,
            best: 10,
            kind: SplitKind::Root,
        };
        let sp = SplitPoint::new(spec, None, moves);
        let a = sp.next_move().unwrap().mv;
        let b = sp.next_move().unwrap().mv;
        let c = sp.next_move().unwrap().mv;
        sp.report(a, 5, &[]);
        assert_eq!(sp.alpha(), 10, "a fail-low leaves alpha");
        sp.report(b, 40, &[a]);
        assert_eq!(
            sp.alpha(),
            40,
            "a better move raises alpha for every thread"
        );
        sp.report(c, 30, &[]);
        assert_eq!(sp.alpha(), 40);
        let r = sp.close_and_wait();
        assert!(!r.cutoff);
        assert_eq!((r.best, r.best_move), (40, Some(b)));
        assert_eq!(r.best_pv, vec![b, a]);
        assert_eq!(sp.moves_left(), 17);
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
