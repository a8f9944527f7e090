//! The searcher's side of Young Brothers Wait: owning a split point at an expected ALL-node (publish
//! the remaining moves, search them alongside the helpers, wait for them, merge the best result and
//! its PV), and helping at someone else's split point.

use std::sync::Arc;

use super::{MovePlan, Searcher};
use crate::board::Board;
use crate::search::control::SearchControl;
use crate::smp::split::{SplitBoard, SplitResult};
use crate::smp::SplitPoint;
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
        self.stats = Default::default();
        self.smp = Default::default();
        self.current_sp = None;
        self.stopped = false;
        let wants_worker = self.id != 0
            && self.id != WORKER_ID
            && splits.threads > 1
            && splits.mode == crate::smp::SmpMode::Hybrid;
        if wants_worker {
            let w = self.sp_worker.get_or_insert_with(|| {
                Box::new(Searcher::new(WORKER_ID, Arc::clone(tt), Arc::clone(ctl)))
            });
            w.prepare(tt, ctl, splits);
        } else {
            self.sp_worker = None;
        }
    }

    /// Forgets killers and history (new game), the side searcher's included.
    pub fn clear_history(&mut self) {
        self.history.clear();
        if let Some(w) = self.sp_worker.as_mut() {
            w.history.clear();
        }
    }

    /// Adds the side searcher's counters into this one's (end of a search).
    pub fn absorb_worker(&mut self) {
        if let Some(w) = self.sp_worker.as_mut() {
            self.nodes += w.nodes;
            self.stats.merge(&w.stats);
            self.smp.merge(&w.smp);
            w.nodes = 0;
            w.stats = Default::default();
            w.smp = Default::default();
        }
    }

    /// A Lazy SMP helper pauses its own search to help at an offered split point.
    pub fn help_at_split_point(&mut self) {
        let Some(sp) = self.splits.pick() else {
            return;
        };
        let Some(mut w) = self.sp_worker.take() else {
            sp.leave();
            return;
        };
        w.smp.splits_joined += 1;
        w.work_at(&sp);
        sp.leave();
        self.nodes += w.nodes;
        w.nodes = 0;
        self.sp_worker = Some(w);
    }

    /// Helps at `sp` (already entered) until its moves run out, it fails high, or the search stops.
    pub fn work_at(&mut self, sp: &Arc<SplitPoint>) {
        self.keys.clear();
        self.keys.extend_from_slice(&sp.keys);
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
    fn help_below(&mut self, below: &Arc<SplitPoint>) {
        let keys = self.keys.clone();
        let root_depth = self.root_depth;
        let current = self.current_sp.clone();
        let stopped = self.stopped;
        self.smp.splits_joined += 1;
        self.work_at(below);
        below.leave();
        self.keys = keys;
        self.root_depth = root_depth;
        self.current_sp = current;
        self.stopped = stopped || self.ctl.stopped();
    }

    /// Takes moves from `sp` and searches them with its zero window as the owner planned them
    /// (reduced, re-searched when the reduced search fails high), reporting each score.
    fn split_loop(&mut self, sp: &SplitPoint) {
        while let Some(plan) = sp.next_move() {
            let child = sp.board.play(plan.mv);
            let score = self.search_late(&child, sp.alpha, &plan, sp.ply);
            if self.stopped {
                break;
            }
            sp.report(plan.mv, score, &self.pv.line(sp.ply + 1));
        }
    }

    /// The owner's part: offers `moves` (the younger brothers' plans) at this expected ALL-node, searches
    /// them together with whoever joins, and returns the merged result; `None` when the search was
    /// stopped (or a split point above this one failed high).
    #[allow(clippy::too_many_arguments)]
    pub fn split(
        &mut self,
        b: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        best: i32,
        moves: Vec<MovePlan>,
    ) -> Option<SplitResult> {
        let sp = Arc::new(SplitPoint::new(
            b.clone(),
            self.keys.clone(),
            ply,
            depth,
            alpha,
            beta,
            self.root_depth,
            best,
            self.current_sp.clone(),
            moves,
        ));
        self.splits.publish(&sp);
        self.smp.splits_created += 1;
        let previous = self.current_sp.replace(Arc::clone(&sp));
        self.split_loop(&sp);
        self.current_sp = previous;
        self.splits.withdraw(&sp);
        sp.close();
        // Helpful master: while helpers are still busy here, help at split points they create.
        while sp.helpers() > 0 && !self.ctl.stopped() {
            if let Some(below) = self.splits.pick_below(&sp) {
                self.help_below(&below);
            } else {
                let t = std::time::Instant::now();
                self.splits
                    .wait_for_work(std::time::Duration::from_micros(200));
                self.smp.owner_wait_us += t.elapsed().as_micros() as u64;
            }
        }
        let result = sp.close_and_wait();
        if result.cutoff {
            self.smp.splits_aborted += 1;
        }
        // A stop caused only by this split point's own fail-high is not a stop for the owner.
        let above_aborted = self.current_sp.as_ref().is_some_and(|p| p.is_aborted());
        if self.stopped && !self.ctl.stopped() && !above_aborted {
            self.stopped = false;
        }
        if self.stopped {
            None
        } else {
            self.pv.set(ply, &result.best_pv);
            Some(result)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::{Color, Move, Role, Square};

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
        s.history.update_cutoff(Color::White, 2, 10, m, &[]);
        let w = s.sp_worker.as_mut().unwrap();
        w.history.update_cutoff(Color::White, 2, 10, m, &[]);
        assert!(w.history.score(Color::White, m) > 0);
        s.clear_history();
        assert_eq!(s.history.score(Color::White, m), 0);
        let w = s.sp_worker.as_ref().unwrap();
        assert_eq!(w.history.score(Color::White, m), 0);
    }
}
