//! How the move loop searches one move, decided once and shared by the serial loop and the split
//! points: whether the move is pruned (late-move, futility, history and SEE pruning), the child's
//! depth (check extension), its late-move reduction and its expected node type. A split point
//! carries the plans of its remaining moves, so a helper prunes and reduces exactly as the owner
//! would have.

use shakmaty::{Bitboard, Move, Position};

use super::movepick::{is_killer_score, quiet_target_is_safe, see};
use super::node_type::NodeType;
use super::params as p;
use super::Searcher;
use crate::board::{Board, CheckSquares};
use crate::score::TB_BOUND;

/// One move's search plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovePlan {
    /// The move.
    pub mv: Move,
    /// Depth of the child search: the node's depth less one, plus the check extension.
    pub depth: i32,
    /// Plies taken off `depth` for the first, zero-window search (late-move reduction).
    pub reduction: i32,
    /// Expected type of the child node.
    pub child: NodeType,
    /// Neither a capture nor a promotion.
    pub quiet: bool,
}

/// What pruning and reductions read about the node whose moves are planned.
pub struct NodeFrame<'a> {
    /// The node's position.
    pub board: &'a Board,
    /// Remaining depth (after internal iterative reduction).
    pub depth: i32,
    /// Distance from the root.
    pub ply: usize,
    /// Expected node type.
    pub expected: NodeType,
    /// Side to move is in check.
    pub in_check: bool,
    /// Static evaluation (meaningless when in check).
    pub static_eval: i32,
    /// The static evaluation stands above that of two plies before ([`Searcher::improving`]).
    pub improving: bool,
    /// Squares the opponent attacks (the history's threat index).
    pub threats: Bitboard,
    /// What a move needs to give check ([`Board::gives_check_by`]).
    pub checks: CheckSquares,
}

/// Where the move loop stands when a move is planned.
#[derive(Clone, Copy, Debug)]
pub struct LoopState {
    /// Moves searched (or planned) before this one.
    pub index: usize,
    /// Quiet moves among them.
    pub quiet_count: usize,
    /// The window's lower end.
    pub alpha: i32,
    /// The best score so far.
    pub best: i32,
}

impl Searcher {
    /// The plan for `m` (picker score `order`) as the move the node's loop takes in state `at`;
    /// `None` when the move is pruned.
    #[inline]
    pub fn plan_move(&self, f: &NodeFrame, m: Move, order: i32, at: LoopState) -> Option<MovePlan> {
        let LoopState {
            index,
            quiet_count,
            alpha,
            best,
        } = at;
        let pos = f.board.pos();
        let pv_node = f.expected == NodeType::Pv;
        let quiet = !m.is_capture() && !m.is_promotion();
        // Pruning needs only whether the move checks; a pruned move is never played.
        let gives_check = f.board.gives_check_by(m, &f.checks);
        let depth = f.depth;
        // A move that gives check is never pruned, quiet or not (checking captures since
        // e6d36e6: +13.9 Elo at 2+0.02).
        if f.ply > 0 && !f.in_check && !gives_check && index > 0 && best > -TB_BOUND {
            if quiet {
                // Late-move pruning (after half as many quiet moves when the position is not
                // improving) and futility pruning of quiet moves.
                if !pv_node
                    && depth <= p::LMP_DEPTH()
                    && quiet_count as i32
                        >= (p::LMP_BASE() + depth * depth) / (2 - i32::from(f.improving))
                {
                    return None;
                }
                if !pv_node
                    && depth <= p::FUTILITY_DEPTH()
                    && f.static_eval + p::FUTILITY_BASE() + p::FUTILITY_MARGIN() * depth <= alpha
                {
                    return None;
                }
                // History pruning: a quiet move that has failed often here is skipped near the
                // leaves (killers kept).
                if !pv_node
                    && depth <= p::HIST_PRUNE_DEPTH()
                    && !is_killer_score(order)
                    && self.history.score(pos.turn(), f.threats, m)
                        < -p::HIST_PRUNE_MARGIN() * depth
                {
                    return None;
                }
                // A quiet move's SEE is at most 0 and the margin below 0: a safe target keeps it.
                if depth <= 8
                    && !quiet_target_is_safe(pos, f.threats, m)
                    && see(pos, m) < p::SEE_QUIET() * depth
                {
                    return None;
                }
            } else if depth <= 6 && see(pos, m) < p::SEE_NOISY() * depth * depth {
                return None;
            }
        }
        let extension = i32::from(gives_check && (f.ply as i32) < 2 * self.root_depth);
        let new_depth = depth - 1 + extension;
        // Late-move reductions: more at expected CUT-nodes and where the position is not
        // improving, less at PV-nodes, for killers and for moves with a good history.
        let mut r = 0;
        if index > 0 && depth >= 3 && quiet && !f.in_check && !gives_check {
            r = p::lmr_reduction(depth, index + 1);
            r += i32::from(f.expected == NodeType::Cut);
            r += i32::from(!f.improving);
            r -= i32::from(pv_node);
            r -= i32::from(is_killer_score(order));
            // The history term rounds to the nearest ply: from half a step it acts.
            let h = self.history.score(pos.turn(), f.threats, m);
            let step = p::LMR_HISTORY_STEP();
            r -= (h + step / 2).div_euclid(step);
            r = r.clamp(0, (new_depth - 1).max(0));
        }
        Some(MovePlan {
            mv: m,
            depth: new_depth,
            reduction: r,
            child: f.expected.child(index),
            quiet,
        })
    }

    /// Searches a move after the first with the zero window (`alpha`, `alpha` + 1), reduced as
    /// planned and re-searched at full depth when the reduced search beats `alpha`. `child` is the
    /// position after the move, `ply` the parent's.
    #[inline]
    pub fn search_late(&mut self, child: &Board, alpha: i32, plan: &MovePlan, ply: usize) -> i32 {
        let reduced = plan.depth - plan.reduction;
        let mut s = -self.alphabeta(child, -alpha - 1, -alpha, reduced, ply + 1, plan.child);
        if plan.reduction > 0 && s > alpha && !self.stopped {
            s = -self.alphabeta(child, -alpha - 1, -alpha, plan.depth, ply + 1, plan.child);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::{Move, MoveList, Position};

    use super::*;
    use crate::search::history::bonus;
    use crate::search::{SearchControl, SearchLimits};
    use crate::tt::Table;

    fn at(index: usize, quiet_count: usize, alpha: i32, best: i32) -> LoopState {
        LoopState {
            index,
            quiet_count,
            alpha,
            best,
        }
    }

    fn searcher() -> Searcher {
        let tt = Arc::new(Table::new(1).unwrap());
        let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        let mut s = Searcher::new(0, tt, ctl);
        s.root_depth = 10;
        s
    }

    fn frame(board: &Board, depth: i32, expected: NodeType, static_eval: i32) -> NodeFrame<'_> {
        NodeFrame {
            board,
            depth,
            ply: 3,
            expected,
            in_check: false,
            static_eval,
            improving: true,
            threats: board.attacked_by(!board.turn()),
            checks: board.check_squares(),
        }
    }

    fn find(board: &Board, uci: &str) -> Move {
        let moves: MoveList = board.pos().legal_moves();
        moves
            .into_iter()
            .find(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string() == uci)
            .expect("legal move")
    }

    #[test]
    fn late_quiet_moves_are_reduced_and_the_first_move_never_is() {
        let s = searcher();
        let b = Board::startpos();
        let f = frame(&b, 8, NodeType::All, 0);
        let m = find(&b, "a2a3");
        let first = s.plan_move(&f, m, 0, at(0, 0, -1, -TB_BOUND)).unwrap();
        assert_eq!((first.depth, first.reduction), (7, 0));
        let late = s.plan_move(&f, m, 0, at(20, 19, -1, 0)).unwrap();
        assert!(late.reduction > 0 && late.reduction < late.depth);
        assert!(late.quiet);
        assert_eq!(late.child, NodeType::Cut);
        // An expected CUT-node reduces one ply more than an ALL-node.
        let cut = s
            .plan_move(&frame(&b, 8, NodeType::Cut, 0), m, 0, at(20, 19, -1, 0))
            .unwrap();
        assert_eq!(cut.reduction, late.reduction + 1);
    }

    #[test]
    fn futility_and_late_move_pruning_drop_quiet_moves_at_low_depth() {
        let s = searcher();
        let b = Board::startpos();
        let m = find(&b, "a2a3");
        // Far below alpha at depth 2: futile.
        assert!(s
            .plan_move(&frame(&b, 2, NodeType::All, -2000), m, 0, at(1, 0, 0, -100))
            .is_none());
        // The same move at an even score, early in the list, is searched.
        assert!(s
            .plan_move(&frame(&b, 2, NodeType::All, 0), m, 0, at(1, 0, 0, -100))
            .is_some());
        // After many quiet moves at depth 2: late-move pruned.
        assert!(s
            .plan_move(&frame(&b, 2, NodeType::All, 0), m, 0, at(30, 30, 0, -100))
            .is_none());
        // Never at a PV node, and never before a score is known (a mate or a tablebase loss
        // is no score to prune against).
        assert!(s
            .plan_move(
                &frame(&b, 2, NodeType::Pv, -2000),
                m,
                0,
                at(30, 30, 0, -100)
            )
            .is_some());
        assert!(s
            .plan_move(
                &frame(&b, 2, NodeType::All, 0),
                m,
                0,
                at(30, 30, 0, -TB_BOUND)
            )
            .is_some());
        assert!(s
            .plan_move(
                &frame(&b, 2, NodeType::All, 0),
                m,
                0,
                at(30, 30, 0, -crate::score::tb_win_in(9))
            )
            .is_some());
    }

    #[test]
    fn the_history_term_takes_a_ply_for_each_6144_rounded() {
        let mut s = searcher();
        let b = Board::startpos();
        let f = frame(&b, 8, NodeType::All, 0);
        let (good, bad) = (find(&b, "a2a3"), find(&b, "h2h3"));
        let plain = s.plan_move(&f, good, 0, at(20, 19, -1, 0)).unwrap();
        assert!(plain.reduction > 0 && plain.reduction + 1 < plain.depth - 1);
        // A depth-12 cutoff gives 3,712, at least 3,072: a ply less (and a ply more for the
        // moves it refuted), where `history / 8192` rounded took nothing off.
        assert_eq!(bonus(12), 3712);
        s.history
            .update_cutoff(b.turn(), f.threats, 3, 12, good, &[bad]);
        let reduced = |m| s.plan_move(&f, m, 0, at(20, 19, -1, 0)).unwrap().reduction;
        assert_eq!(reduced(good), plain.reduction - 1);
        assert_eq!(reduced(bad), plain.reduction + 1);
    }

    #[test]
    fn quiet_moves_with_a_bad_history_are_pruned_near_the_leaves() {
        let mut s = searcher();
        let b = Board::startpos();
        let (good, bad) = (find(&b, "a2a3"), find(&b, "h2h3"));
        let f = frame(&b, 2, NodeType::All, 0);
        // Early in the list, at an even score: neither late-move nor futility pruned.
        assert!(s.plan_move(&f, bad, 0, at(1, 1, 0, -100)).is_some());
        // Three depth-13 cutoffs by `good` leave `bad` below -2048 per ply at depth 2.
        for _ in 0..3 {
            s.history
                .update_cutoff(b.turn(), f.threats, 3, 13, good, &[bad]);
        }
        assert!(s.history.score(b.turn(), f.threats, bad) < -p::HIST_PRUNE_MARGIN() * 2);
        assert!(s.plan_move(&f, bad, 0, at(1, 1, 0, -100)).is_none());
        assert!(s.plan_move(&f, good, 0, at(1, 1, 0, -100)).is_some());
        // Not at a PV node, not above the pruning depth, not for a killer, not for the first move.
        assert!(s
            .plan_move(&frame(&b, 2, NodeType::Pv, 0), bad, 0, at(1, 1, 0, -100))
            .is_some());
        let deep = p::HIST_PRUNE_DEPTH() + 1;
        assert!(s
            .plan_move(
                &frame(&b, deep, NodeType::All, 0),
                bad,
                0,
                at(1, 1, 0, -100)
            )
            .is_some());
        let killer_order = 1_000_000;
        assert!(is_killer_score(killer_order));
        assert!(s
            .plan_move(&f, bad, killer_order, at(1, 1, 0, -100))
            .is_some());
        assert!(s.plan_move(&f, bad, 0, at(0, 0, 0, -100)).is_some());
        // Nor before the node has a score to prune against.
        assert!(s.plan_move(&f, bad, 0, at(1, 1, 0, -TB_BOUND)).is_some());
    }

    #[test]
    fn a_position_that_is_not_improving_is_reduced_and_pruned_more() {
        let s = searcher();
        let b = Board::startpos();
        let m = find(&b, "a2a3");
        let with = |depth, improving| NodeFrame {
            improving,
            ..frame(&b, depth, NodeType::All, 0)
        };
        let reduction = |f: &NodeFrame| s.plan_move(f, m, 0, at(20, 19, -1, 0)).unwrap().reduction;
        assert_eq!(reduction(&with(8, false)), reduction(&with(8, true)) + 1);
        // Late-move pruning at depth 3: after 3 + 3 * 3 = 12 quiet moves, or 6 when the
        // position is not improving.
        let searched = |improving, quiets: usize| {
            s.plan_move(&with(3, improving), m, 0, at(quiets + 1, quiets, 0, -100))
                .is_some()
        };
        assert!(searched(true, 11) && !searched(true, 12));
        assert!(searched(false, 5) && !searched(false, 6));
    }

    #[test]
    fn improving_compares_with_two_plies_before_and_trusts_the_root() {
        let mut s = searcher();
        s.set_static_eval(3, 40);
        s.set_static_eval(4, -300);
        assert!(s.improving(5, 41));
        assert!(!s.improving(5, 40) && !s.improving(5, -100));
        assert_eq!(s.static_evals_at(4), [40, -300]);
        // Two plies after a node in check (`-MATE`), and near the root, it counts as improving.
        s.set_static_eval(6, -crate::score::MATE);
        assert!(s.improving(8, -5000));
        assert!(s.improving(0, -5000) && s.improving(1, -5000));
    }

    #[test]
    fn checks_are_extended_and_not_reduced() {
        let s = searcher();
        let b = Board::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", false).unwrap();
        let check = s
            .plan_move(
                &frame(&b, 8, NodeType::All, 0),
                find(&b, "a1a8"),
                0,
                at(20, 19, -1, 0),
            )
            .unwrap();
        assert_eq!((check.depth, check.reduction), (8, 0));
    }

    #[test]
    fn losing_captures_are_see_pruned_unless_they_give_check() {
        let s = searcher();
        // Qxd5 loses the queen for a pawn: pruned at low depth.
        let b = Board::from_fen("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", false).unwrap();
        let m = find(&b, "d1d5");
        assert!(s
            .plan_move(&frame(&b, 2, NodeType::All, 0), m, 0, at(1, 0, 0, -100))
            .is_none());
        // Qxd7+ loses it too, but gives check: searched, and extended.
        let b = Board::from_fen("4k3/3p4/8/8/8/8/8/3QK3 w - - 0 1", false).unwrap();
        let m = find(&b, "d1d7");
        let plan = s
            .plan_move(&frame(&b, 2, NodeType::All, 0), m, 0, at(1, 0, 0, -100))
            .unwrap();
        assert_eq!(plan.depth, 2);
    }
}
