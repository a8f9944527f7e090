//! Principal variation search. Every node carries its expected [`NodeType`] (PV nodes are searched
//! with an open window, CUT and ALL nodes with a zero window); the outcome is counted against the
//! prediction. TT cutoffs happen at non-PV nodes only, so PV lines are never cut short.

use shakmaty::{Move, MoveList, Position};

use super::movepick::MovePicker;
use super::node_type::{NodeType, Outcome};
use super::{mated_in, Searcher, MATE, MAX_PLY};
use crate::board::Board;
use crate::eval::evaluate;
use crate::tt::{score_from_tt, score_to_tt, Bound, PackedMove};

impl Searcher {
    /// Searches `b` at `ply` to `depth` plies with window (`alpha`, `beta`), expected type `expected`.
    /// Returns a fail-soft score; 0 when stopped (callers discard it).
    pub fn alphabeta(
        &mut self,
        b: &Board,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        expected: NodeType,
    ) -> i32 {
        let pv_node = expected == NodeType::Pv;
        self.pv.clear(ply);
        if depth <= 0 {
            return self.qsearch(b, alpha, beta, ply);
        }
        if self.should_stop() {
            return 0;
        }
        self.nodes += 1;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        let pos = b.pos();
        if ply > 0 {
            if b.is_rule_draw() || self.is_repetition(b.key(), pos.halfmoves()) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return evaluate(pos);
            }
            // Mate-distance pruning: no line from here can beat a mate already found nearer the root.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        let key = b.key();
        let entry = self.tt.probe(key);
        let mut tt_move = PackedMove::NONE;
        if let Some(e) = entry {
            tt_move = e.mv;
            if !pv_node && i32::from(e.depth) >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                    Bound::None => false,
                };
                if cut {
                    return s;
                }
            }
        }

        let in_check = b.in_check();
        let static_eval = match entry {
            Some(e) if !in_check => i32::from(e.eval),
            _ if in_check => -MATE,
            _ => evaluate(pos),
        };

        let moves: MoveList = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { 0 };
        }
        let mut picker = MovePicker::new(pos, moves, tt_move, &self.history, ply);
        self.history.clear_killers(ply + 1);

        let alpha_orig = alpha;
        let mut best = -MATE;
        let mut best_move: Option<Move> = None;
        let mut quiets_tried: [Option<Move>; 64] = [None; 64];
        let mut quiet_count = 0usize;
        let mut index = 0usize;
        self.keys.push(key);
        while let Some((m, _)) = picker.next_move() {
            let child = b.play(m);
            let extension = i32::from(child.in_check() && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            let child_type = expected.child(index);
            let score = if index == 0 {
                -self.alphabeta(&child, -beta, -alpha, new_depth, ply + 1, child_type)
            } else {
                let mut s =
                    -self.alphabeta(&child, -alpha - 1, -alpha, new_depth, ply + 1, child_type);
                if pv_node && s > alpha && s < beta && !self.stopped {
                    // The scout failed high inside the window: re-search as a PV node.
                    s = -self.alphabeta(&child, -beta, -alpha, new_depth, ply + 1, NodeType::Pv);
                }
                s
            };
            index += 1;
            if self.stopped {
                self.keys.pop();
                return 0;
            }
            let quiet = !m.is_capture() && !m.is_promotion();
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.pv.update(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            let tried: MoveList = quiets_tried[..quiet_count]
                                .iter()
                                .flatten()
                                .copied()
                                .collect();
                            self.history
                                .update_cutoff(pos.turn(), ply, depth, m, &tried);
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = Some(m);
                quiet_count += 1;
            }
            // Young Brothers Wait: the eldest brother is searched and did not cut off; at an
            // expected ALL-node every younger brother must be searched too, so offer them to helpers.
            // A CUT-node whose candidate cutoff moves (TT move, good captures, killers) all failed is
            // re-predicted as an ALL-node (Kannan's rule) and may split from then on; a CUT-node
            // never splits while a likely cutoff move is still to come.
            if beta - alpha == 1
                && !picker.is_exhausted()
                && self.splits.wanted(depth)
                && (expected == NodeType::All
                    || (expected == NodeType::Cut && picker.only_non_candidates_left()))
            {
                let mut rest: Vec<Move> = Vec::with_capacity(picker.len());
                while let Some((m, _)) = picker.next_move() {
                    rest.push(m);
                }
                let Some(r) = self.split(b, alpha, beta, depth, ply, best, rest) else {
                    self.keys.pop();
                    return 0;
                };
                if r.best > best {
                    best = r.best;
                    if r.best > alpha {
                        best_move = r.best_move;
                    }
                }
                if let Some(m) = r.best_move.filter(|m| r.cutoff && !m.is_capture()) {
                    self.history.update_cutoff(pos.turn(), ply, depth, m, &[]);
                }
                break;
            }
        }
        self.keys.pop();

        let outcome = if best >= beta {
            Outcome::FailHigh
        } else if best > alpha_orig {
            Outcome::Exact
        } else {
            Outcome::FailLow
        };
        self.stats.record(expected, outcome);
        let bound = match outcome {
            Outcome::FailHigh => Bound::Lower,
            Outcome::Exact => Bound::Exact,
            Outcome::FailLow => Bound::Upper,
        };
        let eval_store = if in_check { 0 } else { static_eval };
        self.tt.store(
            key,
            best_move.map_or(PackedMove::NONE, PackedMove::new),
            score_to_tt(best, ply),
            eval_store.clamp(-MATE, MATE) as i16,
            depth.clamp(0, 255) as u8,
            bound,
            false,
        );
        best
    }
}
