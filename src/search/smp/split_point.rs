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
//!
//! An owner with no move left to hand out and no split point below its own to help at takes up a
//! move a helper is still searching and searches it too (the TT shares their work; the first score
//! reported stands, a second one for the same move is another bound for it). Once every move has a
//! score the owner abandons the split point: the threads still below it stop as they would at a
//! cutoff, but the result is not a fail-high.

use std::sync::atomic::{AtomicI32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use crossbeam::utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use shakmaty::Move;

use crate::board::Board;
use crate::search::history::History;
use crate::search::{MovePlan, NodeType};

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
    /// Static evaluations at the split node's parent and at the split node
    /// ([`crate::search::Searcher::static_evals_at`]).
    pub evals: [i32; 2],
}

struct State {
    helpers: usize,
    closed: bool,
    /// Per move, whether a score for it has been reported.
    reported: Vec<bool>,
    /// Per move, whether the owner has taken it up beside the helper searching it.
    shadowed: Vec<bool>,
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
    /// Static evaluations at the split node's parent and at the split node.
    pub evals: [i32; 2],
    /// Lower end of the window: raised by every move that beats it (PV split points only; a
    /// zero-window split point fails high instead).
    alpha: CachePadded<AtomicI32>,
    parent: Option<Arc<SplitPoint>>,
    /// [`CUTOFF`] and [`ABANDONED`] bits, read at every node below the split point: kept off the
    /// lines that change as moves are handed out and reported.
    stop: CachePadded<AtomicU8>,
    moves: Box<[MovePlan]>,
    next: CachePadded<AtomicUsize>,
    state: CachePadded<Mutex<State>>,
    finished: Condvar,
    /// The owner's killers and history when it split, for the helpers that join (read only).
    history: Option<Box<History>>,
}

/// A move failed high: every thread working at or below the split point stops.
const CUTOFF: u8 = 1;
/// Every move has a score (the owner searched the last ones again beside their helpers): the
/// helpers still working at or below the split point stop, their work is no longer needed.
const ABANDONED: u8 = 2;

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
            evals: spec.evals,
            alpha: CachePadded::new(AtomicI32::new(spec.alpha)),
            parent,
            stop: CachePadded::new(AtomicU8::new(0)),
            state: CachePadded::new(Mutex::new(State {
                helpers: 0,
                closed: false,
                reported: vec![false; moves.len()],
                shadowed: vec![false; moves.len()],
                best: spec.best,
                best_move: None,
                best_pv: Vec::new(),
            })),
            moves: moves.into_boxed_slice(),
            next: CachePadded::new(AtomicUsize::new(0)),
            finished: Condvar::new(),
            history: None,
        }
    }

    /// The same split point carrying a snapshot of its owner's killers and history.
    pub fn with_history(mut self, history: &History) -> SplitPoint {
        self.history = Some(Box::new(history.clone()));
        self
    }

    /// The owner's killers and history when it split, if it left a snapshot.
    pub fn history(&self) -> Option<&History> {
        self.history.as_deref()
    }

    /// The current lower end of the window (the alpha every new move is searched against).
    #[inline]
    pub fn alpha(&self) -> i32 {
        self.alpha.load(Ordering::Acquire)
    }

    /// True when this split point or any split point above it has failed high or was abandoned:
    /// work below is void.
    #[inline]
    pub fn is_aborted(&self) -> bool {
        let mut sp = self;
        loop {
            if sp.stop.load(Ordering::Relaxed) != 0 {
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

    /// For the owner once no move is left to hand out: the first move a helper took and has not
    /// reported yet, which the owner has not taken up before, marked as taken up now. `None`
    /// when there is none (or the split point was aborted).
    pub fn unfinished_move(&self) -> Option<MovePlan> {
        if self.is_aborted() {
            return None;
        }
        let handed_out = self.next.load(Ordering::Acquire).min(self.moves.len());
        let mut s = self.state.lock();
        let i = (0..handed_out).find(|&i| !s.reported[i] && !s.shadowed[i])?;
        s.shadowed[i] = true;
        Some(self.moves[i])
    }

    /// True when every move has been handed out and has a score.
    pub fn all_reported(&self) -> bool {
        self.moves_left() == 0 && self.state.lock().reported.iter().all(|&r| r)
    }

    /// The owner has a score for every move: the helpers still searching here stop.
    pub fn abandon(&self) {
        self.stop.fetch_or(ABANDONED, Ordering::AcqRel);
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
        if let Some(i) = self.moves.iter().position(|p| p.mv == m) {
            s.reported[i] = true;
        }
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
            self.stop.fetch_or(CUTOFF, Ordering::AcqRel);
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
            cutoff: self.stop.load(Ordering::Acquire) & CUTOFF != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::smp::{SmpMode, SplitBoard};
    use shakmaty::Position;
    use std::time::Duration;

    /// Plans of every legal move of `board`, searched to depth 5 as expected CUT-nodes.
    fn plans(board: &Board) -> Vec<MovePlan> {
        board
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
            .collect()
    }

    fn split_point(parent: Option<Arc<SplitPoint>>) -> Arc<SplitPoint> {
        let board = Board::startpos();
        let moves = plans(&board);
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
            evals: [0, 0],
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
    fn an_owner_takes_up_each_unreported_move_once_and_abandons_when_all_have_scores() {
        let sp = split_point(None);
        let below = split_point(Some(Arc::clone(&sp)));
        assert!(sp.try_enter());
        // Nothing handed out yet: nothing to take up, and not every move has a score.
        assert!(sp.unfinished_move().is_none());
        assert!(!sp.all_reported());
        // A helper takes the first move; the owner takes and reports the rest.
        let first = sp.next_move().unwrap();
        let mut n = 0;
        while let Some(plan) = sp.next_move() {
            sp.report(plan.mv, -30 - n, &[]);
            n += 1;
        }
        assert_eq!(sp.moves_left(), 0);
        assert!(!sp.all_reported(), "the helper's move has no score yet");
        // The owner takes up the helper's move, once.
        let shadow = sp.unfinished_move().expect("the helper's move");
        assert_eq!(shadow.mv, first.mv);
        assert!(sp.unfinished_move().is_none());
        // The owner's score arrives first: every move has one, and abandoning stops the helper
        // (and everything below) without reporting a fail-high.
        sp.report(shadow.mv, -25, &[]);
        assert!(sp.all_reported());
        assert!(!sp.is_aborted());
        sp.abandon();
        assert!(sp.is_aborted() && below.is_aborted());
        assert!(sp.unfinished_move().is_none());
        // The helper's late score for the same move is a second bound for it; the best stays
        // an upper bound with no best move.
        sp.report(first.mv, -28, &[]);
        sp.leave();
        let r = sp.close_and_wait();
        assert!(!r.cutoff, "an abandoned split point did not fail high");
        assert_eq!(r.best, -25);
        assert!(r.best <= sp.alpha());
        assert_eq!(r.best_move, None);
    }

    #[test]
    fn a_cutoff_leaves_nothing_to_take_up() {
        let sp = split_point(None);
        let a = sp.next_move().unwrap();
        let b = sp.next_move().unwrap();
        sp.report(a.mv, 5, &[]);
        assert!(sp.is_aborted());
        assert!(sp.unfinished_move().is_none(), "{:?} is void", b.mv);
        assert!(sp.close_and_wait().cutoff);
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
        let moves = plans(&board);
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
            evals: [0, 0],
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
}
