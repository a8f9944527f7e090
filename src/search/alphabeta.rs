//! Principal variation search. Every node carries its expected [`NodeType`] (PV nodes are searched
//! with an open window, CUT and ALL nodes with a zero window); the outcome is counted against the
//! prediction. TT cutoffs happen at non-PV nodes, and at PV nodes only for a proven result in a
//! search of 2 threads or more (a mate or tablebase bound at least as deep, see [`crate::tt::cutoff`]),
//! so a PV line is cut short only there. With Syzygy tables, a node the probe rules select is
//! scored from them ([`crate::syzygy::probe`]), after the TT probe and before any pruning. Selectivity
//! (constants in [`super::params`]): internal iterative reduction, reverse futility pruning,
//! razoring, null-move pruning at expected CUT-nodes and singular extensions (with multi-cut) here;
//! each move's late-move, futility, history and SEE pruning, check extension and late-move
//! reduction come from [`super::moveplan`], which split points share.

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Position};

use super::movepick::{MovePicker, SortKeys};
use super::moveplan::{LoopState, MovePlan, NodeFrame};
use super::node_type::{NodeType, Outcome};
use super::params as p;
use super::Searcher;
use crate::board::Board;
use crate::score::{
    eval_to_tt, is_decisive, mated_in, score_from_tt, score_to_tt, MATE, MAX_PLY, TB_BOUND,
};
use crate::search::smp::{SplitKind, SplitSpec};
use crate::tt::{self, Bound, NewEntry, PackedMove};

/// Plies added to the depth of a TT entry that stores a tablebase score (as Stockfish): the tables'
/// answer is worth more than any search of the node.
const TB_DEPTH_BONUS: i32 = 6;

/// True if the side to move has a piece other than pawns and king (null move is unsafe otherwise).
#[inline]
fn has_pieces(pos: &shakmaty::Chess) -> bool {
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    (ours & !board.pawns() & !board.kings()).any()
}

impl Searcher {
    /// Searches `b` at `ply` to `depth` plies with window (`alpha`, `beta`), expected type `expected`.
    /// Returns a fail-soft score; 0 when stopped (callers discard it). Every node that is not
    /// stopped counts its outcome against the prediction, those that return early (TT cutoff,
    /// pruning, draw) included; the searches that leave a singular move out count nothing.
    pub fn alphabeta(
        &mut self,
        b: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        expected: NodeType,
    ) -> i32 {
        if depth <= 0 {
            self.pv.clear(ply);
            // A draw by rule or repetition ends the line here too: quiescence must not play on
            // from it (a PV past the game's end).
            if ply > 0
                && (b.is_rule_draw() || self.is_repetition(b.key(), b.pos().halfmoves(), ply))
            {
                return 0;
            }
            return self.qsearch(b, alpha, beta, ply);
        }
        let score = self.node(b, alpha, beta, depth, ply, expected);
        if !self.stopped && self.excluded(ply).is_none() {
            self.stats.record(expected, Outcome::of(score, alpha, beta));
        }
        score
    }

    /// The node of [`Searcher::alphabeta`] above the horizon.
    #[inline(always)]
    fn node(
        &mut self,
        b: &Board,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        expected: NodeType,
    ) -> i32 {
        let pv_node = expected == NodeType::Pv;
        self.pv.clear(ply);
        if self.should_stop() {
            return 0;
        }
        self.nodes += 1;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        let pos = b.pos();
        if ply > 0 {
            if b.is_rule_draw() || self.is_repetition(b.key(), pos.halfmoves(), ply) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluate(pos, ply);
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
        // A singular-extension search of this node without its TT move: the entry is about the
        // whole node, so it neither cuts off nor orders here.
        let excluded = self.excluded(ply);
        let mut tt_move = PackedMove::NONE;
        if let Some(e) = entry.filter(|_| excluded.is_none()) {
            tt_move = e.mv;
            if let Some(s) = tt::cutoff(
                &e,
                depth,
                ply,
                alpha,
                beta,
                pv_node,
                self.splits.threads >= tt::PROVEN_PV_THREADS,
            ) {
                return s;
            }
        }

        let in_check = b.in_check();
        // The raw evaluation goes into the TT; the search prunes with the corrected one.
        let (raw_eval, static_eval) = if in_check {
            (-MATE, -MATE)
        } else {
            let raw = entry
                .and_then(|e| tt::stored_eval(&e))
                .unwrap_or_else(|| self.evaluate(pos, ply));
            (raw, self.correction.apply(pos, raw))
        };
        self.set_static_eval(ply, static_eval);
        let improving = !in_check && self.improving(ply, static_eval);

        // Tablebases: a position the tables know, reached by a capture or a pawn move, is scored
        // from them (see `crate::syzygy::probe`). A draw, or a bound that decides the window, ends
        // the node; otherwise a PV node searches on with the bound as a floor (a win: mates
        // score higher) or a ceiling (a loss).
        let mut tb_floor = None;
        let mut tb_ceiling = None;
        if ply > 0 && excluded.is_none() {
            if let Some((score, bound)) = self.probe_tablebases(pos, depth, ply) {
                let decides = match bound {
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                    _ => true,
                };
                if decides {
                    self.tt.store(
                        key,
                        NewEntry {
                            mv: PackedMove::NONE,
                            score: score_to_tt(score, ply),
                            eval: eval_to_tt(in_check, raw_eval),
                            depth: (depth + TB_DEPTH_BONUS).clamp(0, MAX_PLY as i32 - 1) as u8,
                            bound,
                            pinned: false,
                        },
                    );
                    return score;
                }
                if pv_node {
                    if bound == Bound::Lower {
                        tb_floor = Some(score);
                    } else {
                        tb_ceiling = Some(score);
                    }
                }
            }
        }

        // Internal iterative reduction: a node the TT knows nothing about is searched a ply less.
        if depth >= p::IIR_DEPTH() && tt_move.is_none() && !in_check && excluded.is_none() {
            depth -= 1;
        }
        if !pv_node && !in_check && ply > 0 && !is_decisive(beta) && excluded.is_none() {
            // Reverse futility: far above beta with little depth left, assume it holds (a ply's
            // margin less when the position is improving).
            if depth <= p::RFP_DEPTH()
                && static_eval - p::RFP_MARGIN() * (depth - i32::from(improving)) >= beta
            {
                return static_eval;
            }
            // Razoring: far below alpha with little depth left, ask quiescence whether anything
            // tactical saves the node; if not, it fails low.
            if depth <= p::RAZOR_DEPTH() && static_eval + p::RAZOR_MARGIN() * depth <= alpha {
                let s = self.qsearch_probed(b, alpha, alpha + 1, ply, entry, Some(raw_eval));
                if self.stopped {
                    return 0;
                }
                if s <= alpha {
                    return s;
                }
            }
            // Null move, tried where a cutoff is expected: the null move should fail high, so the
            // node after it, the opponent's, is expected to fail low: an ALL-node.
            if expected == NodeType::Cut
                && depth >= p::NMP_DEPTH()
                && static_eval >= beta
                && !self.after_null(ply)
                && has_pieces(pos)
            {
                if let Some(null) = b.play_null() {
                    // Deeper the further the static eval stands above beta.
                    let r = p::NMP_BASE()
                        + depth / p::NMP_DIVISOR()
                        + ((static_eval - beta) / p::NMP_EVAL_DIVISOR()).min(p::NMP_EVAL_MAX());
                    self.keys.push(key);
                    self.set_after_null(ply + 1, true);
                    let s = -self.alphabeta(
                        &null,
                        -beta,
                        -beta + 1,
                        depth - 1 - r,
                        ply + 1,
                        NodeType::All,
                    );
                    self.set_after_null(ply + 1, false);
                    self.keys.pop();
                    if self.stopped {
                        return 0;
                    }
                    if s >= beta {
                        return if s >= TB_BOUND { beta } else { s };
                    }
                }
            }
        }

        let mut moves: MoveList = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { 0 };
        }
        // Singular extension: when the TT move's lower bound is so far above every other move that
        // a reduced search without it fails low against a margin below that bound, the TT move
        // is extended a ply; when even the others reach beta, the node is cut (multi-cut).
        let mut singular = false;
        if let Some(e) = entry.filter(|e| {
            ply > 0
                && excluded.is_none()
                && depth >= p::SE_DEPTH()
                && !e.pinned
                && matches!(e.bound, Bound::Lower | Bound::Exact)
                && i32::from(e.depth) >= depth - 3
                && (ply as i32) < 2 * self.root_depth
        }) {
            let tt_score = score_from_tt(e.score, ply);
            let tt_mv = moves.iter().copied().find(|&m| tt_move.matches(m));
            if let (Some(m), true) = (tt_mv, !is_decisive(tt_score)) {
                let s_beta = tt_score - p::SE_MARGIN() * depth;
                self.set_excluded(ply, Some(m));
                let s = self.alphabeta(b, s_beta - 1, s_beta, (depth - 1) / 2, ply, NodeType::All);
                self.set_excluded(ply, None);
                if self.stopped {
                    return 0;
                }
                if s < s_beta {
                    singular = true;
                    self.singular += 1;
                } else if s_beta >= beta {
                    return s_beta;
                }
            }
        }
        let mut keys = SortKeys::new();
        let mut picker = MovePicker::new(b, &mut moves, &mut keys, tt_move, &self.history, ply);
        let threats = picker.threats();
        self.history.clear_killers(ply + 1);

        let alpha_orig = alpha;
        let mut best = -MATE;
        if let Some(floor) = tb_floor {
            best = floor;
            alpha = alpha.max(floor);
        }
        let mut best_move: Option<Move> = None;
        // The first 64 quiet moves searched (an `ArrayVec`: nothing written until a move is).
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut index = 0usize;
        self.keys.push(key);
        let frame = NodeFrame {
            board: b,
            depth,
            ply,
            expected,
            in_check,
            static_eval,
            improving,
            threats,
            checks: b.check_squares(),
        };
        // The TT proves the node ALL (an upper bound at most two plies short, from an earlier
        // iteration, Cray Blitz's "iterated search"): it may split before its first move.
        let tt_all = expected == NodeType::All
            && excluded.is_none()
            && entry.is_some_and(|e| {
                e.bound == Bound::Upper
                    && i32::from(e.depth) >= depth - 2
                    && score_from_tt(e.score, ply) <= alpha
            });
        loop {
            // Split where the rest of the node is ALL work (see `smp::split_point`): every remaining
            // move must be searched, so helpers can take them without waiting.
            if !picker.is_exhausted() && self.splits.wanted(depth, self.root_depth) {
                let kind = SplitKind::decide(
                    expected,
                    beta - alpha == 1,
                    index,
                    tt_all,
                    picker.only_non_candidates_left(),
                );
                if let Some(kind) = kind {
                    // The rest of the moves are planned here, as the serial loop would have:
                    // pruned moves are left out, the rest keep their reductions and child types.
                    let mut rest: Vec<MovePlan> = Vec::with_capacity(picker.len());
                    let (mut i, mut q) = (index, quiets_tried.len());
                    while let Some((m, order)) = picker.next_move() {
                        if excluded == Some(m) {
                            continue;
                        }
                        let at = LoopState {
                            index: i,
                            quiet_count: q,
                            alpha,
                            best,
                        };
                        if let Some(plan) = self.plan_move(&frame, m, order, at) {
                            i += 1;
                            if plan.quiet && q < quiets_tried.capacity() {
                                q += 1;
                            }
                            rest.push(plan);
                        }
                    }
                    if rest.is_empty() {
                        break;
                    }
                    let spec = SplitSpec {
                        board: b.clone(),
                        keys: self.keys.clone(),
                        ply,
                        depth,
                        alpha,
                        beta,
                        root_depth: self.root_depth,
                        best,
                        kind,
                        evals: self.static_evals_at(ply),
                    };
                    let r = self.split(spec, rest);
                    if self.stopped {
                        self.keys.pop();
                        return 0;
                    }
                    if r.best > best {
                        best = r.best;
                        if r.best > alpha {
                            best_move = r.best_move;
                        }
                    }
                    if let Some(m) = r.best_move.filter(|m| r.cutoff && !m.is_capture()) {
                        self.history
                            .update_cutoff(pos.turn(), threats, ply, depth, m, &[]);
                        self.history.set_counter(b.last_slot(), m);
                    }
                    break;
                }
            }
            let Some((m, order)) = picker.next_move() else {
                break;
            };
            if excluded == Some(m) {
                continue;
            }
            let at = LoopState {
                index,
                quiet_count: quiets_tried.len(),
                alpha,
                best,
            };
            let Some(mut plan) = self.plan_move(&frame, m, order, at) else {
                continue;
            };
            if singular && tt_move.matches(m) {
                plan.depth = depth;
            }
            let quiet = plan.quiet;
            let child = b.play(m);
            let score = if index == 0 {
                -self.alphabeta(&child, -beta, -alpha, plan.depth, ply + 1, plan.child)
            } else {
                let mut s = self.search_late(&child, alpha, &plan, ply);
                if pv_node && s > alpha && s < beta && !self.stopped {
                    // The scout failed high inside the window: re-search as a PV node.
                    s = -self.alphabeta(&child, -beta, -alpha, plan.depth, ply + 1, NodeType::Pv);
                }
                s
            };
            index += 1;
            if self.stopped {
                self.keys.pop();
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.pv.update(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            self.history.update_cutoff(
                                pos.turn(),
                                threats,
                                ply,
                                depth,
                                m,
                                &quiets_tried,
                            );
                            self.history.set_counter(b.last_slot(), m);
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            if quiet && !quiets_tried.is_full() {
                quiets_tried.push(m);
            }
        }
        self.keys.pop();
        if let Some(ceiling) = tb_ceiling {
            best = best.min(ceiling);
        }

        let outcome = Outcome::of(best, alpha_orig, beta);
        if excluded.is_some() {
            // Only a bound on the other moves: not an entry to store.
            return best;
        }
        let bound = match outcome {
            Outcome::FailHigh => Bound::Lower,
            Outcome::Exact => Bound::Exact,
            Outcome::FailLow => Bound::Upper,
        };
        // The search's score says which way the evaluation erred, when its bound points that way
        // and no capture or promotion decided it.
        if !in_check
            && !is_decisive(best)
            && best_move.is_none_or(|m| !m.is_capture() && !m.is_promotion())
            && match bound {
                Bound::Lower => best > static_eval,
                Bound::Upper => best < static_eval,
                _ => true,
            }
        {
            self.correction.update(pos, depth, raw_eval, best);
        }
        self.tt.store(
            key,
            NewEntry {
                mv: best_move.map_or(PackedMove::NONE, PackedMove::new),
                score: score_to_tt(best, ply),
                eval: eval_to_tt(in_check, raw_eval),
                depth: depth.clamp(0, 255) as u8,
                bound,
                pinned: false,
            },
        );
        best
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::{MoveList, Position};

    use super::*;
    use crate::board::Game;
    use crate::score::{INF, MATE_BOUND};
    use crate::search::iterate::SearchParams;
    use crate::search::{SearchControl, SearchLimits};
    use crate::tt::Table;

    fn searcher(depth: Option<u32>) -> Searcher {
        let tt = Arc::new(Table::new(4).unwrap());
        let limits = SearchLimits {
            depth,
            ..SearchLimits::default()
        };
        let ctl = Arc::new(SearchControl::new(limits, 1, false));
        let mut s = Searcher::new(0, tt, ctl);
        s.root_depth = 10;
        s
    }

    #[test]
    fn an_excluded_move_search_skips_the_move_and_stores_nothing() {
        // Black is in check from the rook on h8 and has one legal move, Kxh8.
        let b = Board::from_fen("6kR/8/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
        let moves: MoveList = b.pos().legal_moves();
        assert_eq!(moves.len(), 1);
        let mut s = searcher(None);
        s.excluded[1] = Some(moves[0]);
        // Without its only move the node has nothing to search: the lowest score, no entry.
        let without = s.alphabeta(&b, -1, 0, 4, 1, NodeType::All);
        assert_eq!(without, -MATE);
        assert!(s.tt.probe(b.key()).is_none());
        s.excluded[1] = None;
        let with = s.alphabeta(&b, -1, 0, 4, 1, NodeType::All);
        assert!(with > -MATE_BOUND);
        assert!(s.tt.probe(b.key()).is_some());
    }

    #[test]
    fn nodes_that_return_early_are_counted_against_their_prediction() {
        // Every move but a capture reaches 100 half-moves: the children return the draw at once.
        let fen = "7k/8/8/8/8/8/R7/4K3 w - - 99 80";
        let game = Game::new(Board::from_fen(fen, false).unwrap());
        let mut s = searcher(Some(2));
        s.iterate(&game, &SearchParams::default());
        let moves = game.board.pos().legal_moves().len() as u64;
        // The root at depths 1 and 2, and every child at depth 2, each a draw that returns before
        // its move loop (and a checking move's child, extended, at depth 1 too). Before early
        // returns were counted, only the roots were.
        assert!(s.stats.total() >= 2 + moves, "{moves} moves: {:?}", s.stats);
    }

    #[test]
    fn a_repetition_at_the_horizon_is_a_draw_with_no_line_after_it() {
        // White is a rook up and can take the a3 pawn, but the position repeats one four plies
        // back on the search path: the line ends here, quiescence plays no capture.
        let b = Board::from_fen("k7/8/8/8/8/p6R/P7/K7 w - - 8 40", false).unwrap();
        let mut s = searcher(None);
        s.keys = vec![b.key(), 1, 2, 3];
        let score = s.alphabeta(&b, -INF, INF, 0, 5, NodeType::Pv);
        assert_eq!(score, 0);
        assert!(s.pv.line(5).is_empty(), "{:?}", s.pv.line(5));
        // Without the repetition, quiescence scores the material and takes the pawn.
        s.keys = vec![1, 2, 3, 4];
        assert!(s.alphabeta(&b, -INF, INF, 0, 5, NodeType::Pv) > 300);
        let line = s.pv.line(5);
        assert!(line.first().is_some_and(|m| m.is_capture()), "{line:?}");
    }

    #[test]
    fn tablebase_probes_score_the_positions_they_know_and_are_counted() {
        // KQvKN is not in the test tables, but Qxh1 leads to KQvK, which is.
        let fen = "8/8/8/4k3/8/8/8/KQ5n w - - 0 1";
        let game = Game::new(Board::from_fen(fen, false).unwrap());
        let tables = crate::syzygy::testutil::test_tables();
        let params = SearchParams {
            syzygy: crate::syzygy::Probing::new(tables, 1, 7, true, false),
            ..SearchParams::default()
        };
        let mut s = searcher(Some(6));
        let r = s.iterate(&game, &params);
        let score = r.lines[0].score;
        assert_eq!(score, crate::score::tb_win_in(1), "the win one ply away");
        let best = r.best_move.unwrap();
        assert_eq!(
            best.to_uci(shakmaty::CastlingMode::Standard).to_string(),
            "b1h1"
        );
        assert!(s.tbhits > 0);
        // The position after the capture is in the TT with the tables' verdict (a loss for
        // the side to move there), stored relative to that node.
        let after = game.board.play(best);
        let e =
            s.tt.probe(after.key())
                .expect("an entry for the probed position");
        assert!(is_decisive(score_from_tt(e.score, 1)) && score_from_tt(e.score, 1) < 0);
        // Without tables the same search only sees the material.
        let mut s = searcher(Some(6));
        let r = s.iterate(&game, &SearchParams::default());
        assert!(!is_decisive(r.lines[0].score), "{}", r.lines[0].score);
        assert_eq!(s.tbhits, 0);
    }

    #[test]
    fn singular_extensions_fire_and_leave_no_move_excluded() {
        // A middlegame where recaptures leave one move far better than the rest.
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
        let game = Game::new(Board::from_fen(fen, false).unwrap());
        let mut s = searcher(Some(12));
        let r = s.iterate(&game, &SearchParams::default());
        assert!(r.best_move.is_some());
        assert!(s.singular > 0, "no singular extension at depth 12");
        assert!(s.excluded.iter().all(Option::is_none));
    }
}
