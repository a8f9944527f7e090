//! The searcher's side of the split points: owning one (publish the remaining moves, search them
//! alongside the helpers, wait for them, merge the best result and its PV), and helping at someone
//! else's. Joining and owning go through guards whose drop always leaves or withdraws, so a thread
//! that panics never leaves an owner waiting or a dead split point on offer.

use std::sync::Arc;

use super::{SmpMode, SplitBoard, SplitPoint, SplitResult, SplitSpec};
use crate::search::control::SearchControl;
use crate::search::{MovePlan, NodeType, Searcher};
use crate::tt::Table;

/// Thread id given to the side searcher that helps at split points (it publishes no node count of
/// its own; its nodes are added to its thread's count).
pub const WORKER_ID: usize = usize::MAX;

impl Searcher {
    /// Points this searcher (and its split-point helper, if it needs one) at a new search.
    pub fn prepare(&mut self, tt: &Arc<Table>, ctl: &Arc<SearchControl>, splits: &Arc<SplitBoard>) {
        self.tt = Arc::clone(tt);
        self.ctl = Arc::clone(ctl);
        self.splits = Arc::clone(splits);
        self.nodes = 0;
        self.tbhits = 0;
        self.stats = Default::default();
        self.smp = Default::default();
        self.current_sp = None;
        self.stopped = false;
        let wants_worker = self.id != 0
            && self.id != WORKER_ID
            && splits.threads > 1
            && splits.mode == SmpMode::Hybrid;
        if wants_worker {
            let w = self.sp_worker.get_or_insert_with(|| {
                Box::new(Searcher::new(WORKER_ID, Arc::clone(tt), Arc::clone(ctl)))
            });
            w.prepare(tt, ctl, splits);
        } else {
            self.sp_worker = None;
        }
    }

    /// Lets go of the search's table (the side searcher's too) by pointing at `placeholder`, so
    /// that a `Hash` change can free the old table before it allocates the new one; and of the
    /// search's tablebases, so that a `SyzygyPath` change closes the old files.
    pub fn release_table(&mut self, placeholder: &Arc<Table>) {
        self.tt = Arc::clone(placeholder);
        self.current_sp = None;
        self.syzygy = None;
        if let Some(w) = self.sp_worker.as_mut() {
            w.release_table(placeholder);
        }
    }

    /// Forgets killers, history and the eval correction (new game), the side searcher's included.
    pub fn clear_history(&mut self) {
        self.history.clear();
        self.correction.clear();
        if let Some(w) = self.sp_worker.as_mut() {
            w.history.clear();
            w.correction.clear();
        }
    }

    /// Adds the side searcher's counters into this one's (end of a search).
    pub fn absorb_worker(&mut self) {
        if let Some(w) = self.sp_worker.as_mut() {
            self.nodes += w.nodes;
            self.tbhits += w.tbhits;
            self.stats.merge(&w.stats);
            self.smp.merge(&w.smp);
            w.nodes = 0;
            w.tbhits = 0;
            w.stats = Default::default();
            w.smp = Default::default();
        }
    }

    /// A Lazy SMP helper pauses its own search to help at an offered split point.
    pub fn help_at_split_point(&mut self) {
        let Some(sp) = self.splits.pick() else {
            return;
        };
        let joined = Joined(sp);
        let Some(mut w) = self.sp_worker.take() else {
            return;
        };
        w.smp.splits_joined += 1;
        w.take_history(&joined.0);
        w.work_at(&joined.0);
        drop(joined);
        self.nodes += w.nodes;
        self.tbhits += w.tbhits;
        w.nodes = 0;
        w.tbhits = 0;
        self.sp_worker = Some(w);
    }

    /// Joins the best open split point (see [`SplitBoard::pick`]) and helps there until its moves
    /// run out; false when none could be joined.
    pub fn join_split_point(&mut self) -> bool {
        let Some(sp) = self.splits.pick() else {
            return false;
        };
        let joined = Joined(sp);
        self.smp.splits_joined += 1;
        self.take_history(&joined.0);
        self.work_at(&joined.0);
        true
    }

    /// A helper joining `sp` orders its moves with the owner's killers and history, when the
    /// owner left a snapshot (`ybw`): the owner searched the tree above and beside the split
    /// point, the helper only what it was handed.
    fn take_history(&mut self, sp: &SplitPoint) {
        if let Some(h) = sp.history() {
            self.history.copy_from(h);
        }
    }

    /// Helps at `sp` (already entered) until its moves run out, it fails high, or the search stops.
    pub fn work_at(&mut self, sp: &Arc<SplitPoint>) {
        self.keys.clear();
        self.keys.extend_from_slice(&sp.keys);
        self.set_static_evals_at(sp.ply, sp.evals);
        self.root_depth = sp.root_depth;
        self.can_stop = true;
        self.stopped = self.ctl.stopped();
        let previous = self.current_sp.replace(Arc::clone(sp));
        self.split_loop(sp);
        self.current_sp = previous;
        self.stopped = self.ctl.stopped();
    }

    /// The owner of a split point helps at `below` (a split point under its own) without losing its
    /// place: the key stack and split-point chain are saved and restored around the work.
    fn help_below(&mut self, below: Arc<SplitPoint>) {
        let joined = Joined(below);
        let keys = self.keys.clone();
        let root_depth = self.root_depth;
        let current = self.current_sp.clone();
        let stopped = self.stopped;
        self.smp.splits_joined += 1;
        self.work_at(&joined.0);
        drop(joined);
        self.keys = keys;
        self.root_depth = root_depth;
        self.current_sp = current;
        self.stopped = stopped || self.ctl.stopped();
    }

    /// Takes moves from `sp` and searches them as the owner planned them: a zero-window search at
    /// the split point's current alpha (reduced, re-searched at full depth when the reduced search
    /// beats alpha); at a PV split point a move that beats alpha is re-searched with the full
    /// window. Reports each score with the child's PV.
    fn split_loop(&mut self, sp: &SplitPoint) {
        while let Some(plan) = sp.next_move() {
            #[cfg(test)]
            if self.id != 0 {
                self.splits.maybe_inject_panic();
            }
            if !self.search_at(sp, &plan) {
                break;
            }
        }
    }

    /// Searches one move of `sp` as planned and reports its score; false when the search stopped.
    fn search_at(&mut self, sp: &SplitPoint, plan: &MovePlan) -> bool {
        let child = sp.board.play(plan.mv);
        let alpha = sp.alpha();
        let mut score = self.search_late(&child, alpha, plan, sp.ply);
        if sp.kind.is_pv() && score > alpha && score < sp.beta && !self.stopped {
            let alpha = sp.alpha();
            score = -self.alphabeta(
                &child,
                -sp.beta,
                -alpha,
                plan.depth,
                sp.ply + 1,
                NodeType::Pv,
            );
        }
        if self.stopped {
            return false;
        }
        sp.report(plan.mv, score, &self.pv.line(sp.ply + 1));
        true
    }

    /// The owner's part: offers `moves` (the plans of the moves left) at the node `spec`
    /// describes, searches them together with whoever joins, and returns the merged result of
    /// the moves searched to the end. The PV row of the node is set to the best line when a move
    /// beat alpha, and left as it was otherwise. When the search was stopped (or a split point
    /// above this one failed high) `self.stopped` is set and the moves not searched to the end
    /// are missing from the result.
    pub fn split(&mut self, spec: SplitSpec, moves: Vec<MovePlan>) -> SplitResult {
        let ply = spec.ply;
        self.smp.count_split(spec.kind, spec.depth);
        let mut sp = SplitPoint::new(spec, self.current_sp.clone(), moves);
        // A YBW helper has no iteration of its own to train its tables: it starts from the
        // owner's. (In `hybrid` the snapshot measured -17 Elo, paired, -52 .. +17: not used.)
        if self.splits.mode == SmpMode::Ybw {
            sp = sp.with_history(&self.history);
        }
        let sp = Arc::new(sp);
        let splits = Arc::clone(&self.splits);
        let offer = Offered {
            board: Arc::clone(&splits),
            sp: Arc::clone(&sp),
        };
        splits.publish(&sp);
        let previous = self.current_sp.replace(Arc::clone(&sp));
        self.split_loop(&sp);
        drop(offer);
        // Helpful master: while helpers are still busy here, help at split points they create;
        // with none to help at, search a move a helper is still on beside it (the TT shares the
        // work, whichever finishes first gives the score), and once every move has a score,
        // call the helpers off.
        while sp.helpers() > 0 && !self.ctl.stopped() && !self.stopped {
            if let Some(below) = splits.pick_below(&sp) {
                self.help_below(below);
            } else if let Some(plan) = sp.unfinished_move() {
                self.smp.moves_shadowed += 1;
                self.search_at(&sp, &plan);
            } else if sp.all_reported() {
                sp.abandon();
                break;
            } else {
                let t = std::time::Instant::now();
                splits.wait_for_work(std::time::Duration::from_micros(200));
                self.smp.owner_wait_us += t.elapsed().as_micros() as u64;
            }
        }
        self.current_sp = previous;
        let result = sp.close_and_wait();
        if result.cutoff {
            self.smp.splits_aborted += 1;
        }
        if result.cutoff != (result.best >= sp.beta) {
            self.smp.split_bound_errors += 1;
        }
        // A stop caused only by this split point's own fail-high is not a stop for the owner.
        let above_aborted = self.current_sp.as_ref().is_some_and(|p| p.is_aborted());
        if self.stopped && !self.ctl.stopped() && !above_aborted {
            self.stopped = false;
        }
        if result.best_move.is_some() {
            self.pv.set(ply, &result.best_pv);
        }
        result
    }
}

/// A helper's membership of a split point: dropping it (also while unwinding from a panic) leaves,
/// so the owner never waits for a thread that is gone.
struct Joined(Arc<SplitPoint>);

impl Drop for Joined {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// An owner's offer of a split point: dropping it (also while unwinding) withdraws the split point
/// from the board and closes it to new helpers.
struct Offered {
    board: Arc<SplitBoard>,
    sp: Arc<SplitPoint>,
}

impl Drop for Offered {
    fn drop(&mut self) {
        self.board.withdraw(&self.sp);
        self.sp.close();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::{Bitboard, Color, Move, Role, Square};

    use super::*;
    use crate::search::{SearchControl, SearchLimits};
    use crate::tt::Table;

    #[test]
    fn clear_history_also_clears_the_side_searcher() {
        let tt = Arc::new(Table::new(1).unwrap());
        let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 2, false));
        let mut s = Searcher::new(1, Arc::clone(&tt), Arc::clone(&ctl));
        s.sp_worker = Some(Box::new(Searcher::new(WORKER_ID, tt, ctl)));
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        s.history
            .update_cutoff(Color::White, Bitboard::EMPTY, 2, 10, m, &[]);
        let w = s.sp_worker.as_mut().unwrap();
        w.history
            .update_cutoff(Color::White, Bitboard::EMPTY, 2, 10, m, &[]);
        assert!(w.history.score(Color::White, Bitboard::EMPTY, m) > 0);
        s.clear_history();
        assert_eq!(s.history.score(Color::White, Bitboard::EMPTY, m), 0);
        let w = s.sp_worker.as_ref().unwrap();
        assert_eq!(w.history.score(Color::White, Bitboard::EMPTY, m), 0);
    }

    #[test]
    fn a_helper_joining_a_split_point_takes_the_owners_history_killers_and_evals() {
        use crate::board::Board;
        use crate::search::history::History;
        use crate::search::smp::SplitKind;
        use shakmaty::Position;

        let tt = Arc::new(Table::new(1).unwrap());
        let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 2, false));
        let splits = Arc::new(SplitBoard::new(SmpMode::Ybw, 2, 1));
        let mut helper = Searcher::new(1, Arc::clone(&tt), Arc::clone(&ctl));
        helper.prepare(&tt, &ctl, &splits);
        // A move no search from the start position rewards or punishes: a black knight on a1.
        let odd = Move::Normal {
            role: Role::Knight,
            from: Square::A1,
            capture: None,
            to: Square::B3,
            promotion: None,
        };
        let mut owner = History::new();
        owner.update_cutoff(Color::Black, Bitboard::EMPTY, 60, 10, odd, &[]);
        let owners_score = owner.score(Color::Black, Bitboard::EMPTY, odd);
        assert!(owners_score > 0);
        assert_eq!(helper.history.score(Color::Black, Bitboard::EMPTY, odd), 0);

        let board = Board::startpos();
        let moves: Vec<MovePlan> = board
            .pos()
            .legal_moves()
            .into_iter()
            .map(|mv| MovePlan {
                mv,
                depth: 1,
                reduction: 0,
                child: NodeType::Cut,
                quiet: true,
            })
            .collect();
        let spec = SplitSpec {
            board,
            keys: Vec::new(),
            ply: 1,
            depth: 2,
            alpha: -30_000,
            beta: -29_999,
            root_depth: 2,
            best: -30_000,
            kind: SplitKind::All,
            evals: [35, -20],
        };
        let sp = Arc::new(SplitPoint::new(spec, None, moves).with_history(&owner));
        splits.publish(&sp);
        assert!(helper.join_split_point());
        assert_eq!(
            helper.history.score(Color::Black, Bitboard::EMPTY, odd),
            owners_score
        );
        assert_eq!(helper.history.killers(60), owner.killers(60));
        // The split node's children and grandchildren judge `improving` by the owner's evals.
        assert_eq!(helper.static_evals_at(1), [35, -20]);
    }
}
