//! Iterative deepening at the root: aspiration windows around the previous score, MultiPV (each line
//! searched with the lines before it excluded), `searchmoves`, mate and soft-time limits, the `info`
//! reports of the master thread, and the PV completed from the TT where a line ends early.

use std::sync::Arc;

use shakmaty::{Move, Position};

use super::node_type::{NodeType, Outcome};
use super::{LineReport, MovePlan, Reporter, SearchTotals, Searcher, MAX_DEPTH};
use crate::board::{Board, Game};
use crate::score::{eval_to_tt, is_decisive, is_mate, mates_within, score_to_tt, INF, MAX_PLY};
use crate::search::smp::{SplitKind, SplitSpec};
use crate::tt::{Bound, NewEntry, PackedMove};

/// One principal variation from the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootLine {
    /// Score from the root side's view.
    pub score: i32,
    /// The line, legal from the root.
    pub pv: Vec<Move>,
}

/// What a search returns.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play (`None`: no legal move).
    pub best_move: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    /// The lines of the last completed iteration (MultiPV order).
    pub lines: Vec<RootLine>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched by this thread.
    pub nodes: u64,
    /// Score of the first line at each completed iteration, in order.
    pub scores: Vec<i32>,
}

/// Per-search options that are not limits.
#[derive(Clone, Debug)]
pub struct SearchParams {
    /// Number of lines to report.
    pub multipv: usize,
    /// Root moves to consider (empty = all).
    pub searchmoves: Vec<Move>,
    /// Where the master reports its lines and its move (UCI); `None`: nothing is reported
    /// (bench, scale, datagen, and every helper thread).
    pub reporter: Option<Arc<dyn Reporter>>,
    /// The network to evaluate with (`EvalFile`); `None`: the hand-written evaluation. The
    /// default is the engine's default evaluation ([`crate::nnue::DEFAULT_EVAL_FILE`]).
    pub network: Option<Arc<crate::nnue::Network>>,
    /// The tablebases the search probes below the root and its `Syzygy*` rules; `None`: no
    /// probing (no `SyzygyPath`, `UCI_Chess960`, or a root the tables already ranked).
    pub syzygy: Option<crate::syzygy::Probing>,
    /// What the tables said about the root, when it is in them: `searchmoves` then holds only
    /// the moves of the best rank, and their lines report the tables' score.
    pub root_tb: Option<Arc<crate::syzygy::RootTablebase>>,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            multipv: 1,
            searchmoves: Vec::new(),
            reporter: None,
            network: crate::nnue::default_network(),
            syzygy: None,
            root_tb: None,
        }
    }
}

impl Searcher {
    /// Runs iterative deepening on `game`'s current position until a limit or the stop flag.
    pub fn iterate(&mut self, game: &Game, params: &SearchParams) -> SearchResult {
        let root = &game.board;
        self.set_network(params.network.as_ref());
        self.set_tablebases(params.syzygy.as_ref());
        self.nodes = 0;
        // The root's probes are the master's (every thread is handed the same ranked moves).
        self.tbhits = match &params.root_tb {
            Some(r) if self.id == 0 => r.probes,
            _ => 0,
        };
        self.singular = 0;
        self.stopped = false;
        self.keys.clear();
        self.keys.extend_from_slice(&game.history);
        let mut root_moves: Vec<Move> = root.pos().legal_moves().into_iter().collect();
        if !params.searchmoves.is_empty() {
            root_moves.retain(|m| params.searchmoves.contains(m));
        }
        let mut result = SearchResult {
            best_move: None,
            ponder: None,
            lines: Vec::new(),
            depth: 0,
            nodes: 0,
            scores: Vec::new(),
        };
        if root_moves.is_empty() {
            return result;
        }
        // The depth limit is the master's: helpers search on past it, filling the TT with deeper
        // entries, until the master's last iteration ends the search (a helper that stopped at
        // the limit would leave its core idle while the master finishes).
        let max_depth = match self.ctl.limits.depth {
            Some(d) if self.id == 0 => d.clamp(1, MAX_DEPTH),
            _ => MAX_DEPTH,
        };
        let multipv = params.multipv.clamp(1, root_moves.len());
        let mut lines: Vec<RootLine> = Vec::new();
        let mut timer = crate::time::IterationTimer::default();

        for depth in 1..=max_depth {
            if crate::search::smp::lazy::skip_depth(self.id, depth) && depth < max_depth {
                continue;
            }
            self.root_depth = depth as i32;
            self.seldepth = 0;
            self.can_stop = depth > 1;
            let mut new_lines: Vec<RootLine> = Vec::with_capacity(multipv);
            // The best line this iteration has proved so far (a root move that failed high or
            // beat the window's alpha), kept in case the search stops before the iteration ends.
            let mut proved: Option<RootLine> = None;
            for pv_idx in 0..multipv {
                let prev = lines.get(pv_idx).map(|l| l.score);
                let mut delta = super::params::ASPIRATION();
                let (mut alpha, mut beta) = match prev {
                    Some(s) if depth >= 4 && !is_decisive(s) => (s - delta, s + delta),
                    _ => (-INF, INF),
                };
                loop {
                    let score = self.search_root(root, &mut root_moves, pv_idx, alpha, beta, depth);
                    // The PV row holds a line only when a root move finished above alpha.
                    if multipv == 1 && (score >= beta || self.stopped) {
                        let pv = self.pv.line(0);
                        if !pv.is_empty() {
                            proved = Some(RootLine { score, pv });
                        }
                    }
                    if self.stopped {
                        break;
                    }
                    if score <= alpha {
                        if params.reporter.is_some() && pv_idx == 0 {
                            self.report_bound(depth, pv_idx, alpha, Bound::Upper, params);
                        }
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INF);
                    } else if score >= beta {
                        if params.reporter.is_some() && pv_idx == 0 {
                            self.report_bound(depth, pv_idx, beta, Bound::Lower, params);
                        }
                        beta = (score + delta).min(INF);
                    } else {
                        let mut pv = self.pv.line(0);
                        self.extend_pv_from_tt(root, &mut pv, depth as usize);
                        new_lines.push(RootLine { score, pv });
                        break;
                    }
                    delta += delta / 2 + 5;
                    if delta > 1000 {
                        alpha = -INF;
                        beta = INF;
                    }
                }
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                if let Some(line) = proved {
                    self.keep_proved_line(root, depth, line, &mut lines, params);
                }
                break;
            }
            // Each line was searched with the lines before it excluded, and a later line can come
            // back with the higher score (a search is not perfectly consistent): report the lines,
            // and order the root moves for the next iteration, best score first (a stable sort, so
            // ties keep the earlier line first). The root move of line `i` is `root_moves[i]`.
            let mut ranked: Vec<(RootLine, Move)> = new_lines
                .into_iter()
                .zip(root_moves.iter().copied())
                .collect();
            ranked.sort_by_key(|(line, _)| std::cmp::Reverse(line.score));
            for (slot, &(_, m)) in root_moves.iter_mut().zip(&ranked) {
                *slot = m;
            }
            lines = ranked.into_iter().map(|(line, _)| line).collect();
            result.depth = depth;
            result.scores.push(lines[0].score);
            if params.reporter.is_some() {
                for (i, line) in lines.iter().enumerate() {
                    self.report_line(depth, i, line, Bound::Exact, params);
                }
            } else {
                // A thread that reports nothing (a helper) still publishes its counts once an
                // iteration, for the reporting thread's lines.
                self.publish_counts();
            }
            if self.id != 0 {
                // Helpers never decide when the search ends.
                continue;
            }
            let best = lines[0].score;
            if let Some(m) = self.ctl.limits.mate {
                if mates_within(best, m) {
                    break;
                }
            }
            timer.record(lines[0].pv.first().copied());
            if self
                .ctl
                .past_soft_limit(timer.new_iteration_percent(&result.scores))
            {
                break;
            }
            if self.ctl.stopped() {
                break;
            }
        }
        self.publish_counts();
        result.nodes = self.nodes;
        if let Some(first) = lines.first() {
            result.best_move = first.pv.first().copied();
            result.ponder = first.pv.get(1).copied();
            if result.ponder.is_none() {
                if let Some(m) = result.best_move {
                    result.ponder = self.tt_move_in(&root.play(m));
                }
            }
        }
        if result.best_move.is_none() {
            result.best_move = root_moves.first().copied();
        }
        result.lines = lines;
        result
    }

    /// Searches the root moves `root_moves[pv_idx..]` (the earlier ones belong to earlier MultiPV
    /// lines); the best move is moved to `pv_idx`.
    fn search_root(
        &mut self,
        root: &Board,
        root_moves: &mut [Move],
        pv_idx: usize,
        mut alpha: i32,
        beta: i32,
        depth: u32,
    ) -> i32 {
        self.pv.clear(0);
        self.history.clear_killers(1);
        self.nodes += 1;
        let alpha_orig = alpha;
        let depth = depth as i32;
        let mut best = -INF;
        let mut best_index = None;
        self.keys.push(root.key());
        for (i, &m) in root_moves.iter().enumerate().skip(pv_idx) {
            // After the first move every other root move is searched with a zero window and
            // expected to fail low: the root is the biggest and surest split point there is.
            if i > pv_idx && self.splits.wanted(depth, self.root_depth) {
                let rest: Vec<MovePlan> = (i..root_moves.len())
                    .map(|k| {
                        let mv = root_moves[k];
                        MovePlan {
                            mv,
                            depth: depth - 1 + i32::from(root.gives_check(mv)),
                            reduction: 0,
                            child: NodeType::Pv.child(k - pv_idx),
                            quiet: !mv.is_capture() && !mv.is_promotion(),
                        }
                    })
                    .collect();
                let spec = SplitSpec {
                    board: root.clone(),
                    keys: self.keys.clone(),
                    ply: 0,
                    depth,
                    alpha,
                    beta,
                    root_depth: depth,
                    best,
                    kind: SplitKind::Root,
                    evals: self.static_evals_at(0),
                };
                let r = self.split(spec, rest);
                if r.best > best {
                    best = r.best;
                    if r.best > alpha {
                        best_index = root_moves.iter().position(|&x| Some(x) == r.best_move);
                    }
                }
                if self.stopped {
                    // The moves searched to the end count, as in a search without a split.
                    self.keys.pop();
                    return best;
                }
                break;
            }
            let child = root.play(m);
            let new_depth = depth - 1 + i32::from(child.in_check());
            let child_type = NodeType::Pv.child(i - pv_idx);
            let score = if i == pv_idx {
                -self.alphabeta(&child, -beta, -alpha, new_depth, 1, child_type)
            } else {
                let mut s = -self.alphabeta(&child, -alpha - 1, -alpha, new_depth, 1, child_type);
                if s > alpha && s < beta && !self.stopped {
                    s = -self.alphabeta(&child, -beta, -alpha, new_depth, 1, NodeType::Pv);
                }
                s
            };
            if self.stopped {
                self.keys.pop();
                return best;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_index = Some(i);
                    self.pv.update(0, m);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        self.keys.pop();
        if let Some(bi) = best_index {
            root_moves[pv_idx..=bi].rotate_right(1);
        }
        let outcome = Outcome::of(best, alpha_orig, beta);
        self.stats.record(NodeType::Pv, outcome);
        if pv_idx == 0 {
            let bound = match outcome {
                Outcome::FailHigh => Bound::Lower,
                Outcome::Exact => Bound::Exact,
                Outcome::FailLow => Bound::Upper,
            };
            let mv = best_index.map_or(PackedMove::NONE, |_| PackedMove::new(root_moves[pv_idx]));
            let static_eval = self.evaluate(root.pos(), 0);
            self.tt.store(
                root.key(),
                NewEntry {
                    mv,
                    score: score_to_tt(best, 0),
                    // The static evaluation, as every other node stores it: a later search that
                    // meets this position below its root (analysis stepping back a move) reads it.
                    eval: eval_to_tt(root.in_check(), static_eval),
                    depth: depth.clamp(0, 255) as u8,
                    bound,
                    pinned: false,
                },
            );
        }
        best
    }

    /// A search stopped in the middle of an iteration: a root move that this iteration already
    /// proved better than the last iteration's best (it failed high, or beat the best move's
    /// score) replaces that line, reported as a lower bound, the root's other moves not all
    /// searched. The same move keeps the last finished iteration's line.
    fn keep_proved_line(
        &self,
        root: &Board,
        depth: u32,
        mut line: RootLine,
        lines: &mut Vec<RootLine>,
        params: &SearchParams,
    ) {
        if lines.first().and_then(|l| l.pv.first()) == line.pv.first() {
            return;
        }
        self.extend_pv_from_tt(root, &mut line.pv, depth as usize);
        self.report_line(depth, 0, &line, Bound::Lower, params);
        *lines = vec![line];
    }

    /// The TT's move for `b`, if the table has one and it is legal there.
    pub fn tt_move_in(&self, b: &Board) -> Option<Move> {
        let e = self.tt.probe(b.key())?;
        if e.mv.is_none() {
            return None;
        }
        b.pos().legal_moves().into_iter().find(|&m| e.mv.matches(m))
    }

    /// Completes a PV that ended early (seed 002): follows TT moves, each checked legal, until the
    /// line is `target` moves long, the game ends, or a position repeats.
    pub fn extend_pv_from_tt(&self, root: &Board, pv: &mut Vec<Move>, target: usize) {
        let mut b = root.clone();
        let mut seen: Vec<u64> = self.keys.clone();
        for &m in pv.iter() {
            seen.push(b.key());
            b = b.play(m);
        }
        while pv.len() < target.min(MAX_PLY) {
            if b.is_rule_draw() || seen.contains(&b.key()) {
                break;
            }
            let Some(m) = self.tt_move_in(&b) else {
                break;
            };
            pv.push(m);
            seen.push(b.key());
            b = b.play(m);
        }
    }

    /// Reports `line` as line `pv_idx` of depth `depth`, with the node counts of every thread
    /// (this one's published first, so that they are never behind the line).
    fn report_line(
        &self,
        depth: u32,
        pv_idx: usize,
        line: &RootLine,
        bound: Bound,
        params: &SearchParams,
    ) {
        let Some(reporter) = &params.reporter else {
            return;
        };
        self.publish_counts();
        // A root in the tables reports their score, unless the search found a mate.
        let score = match &params.root_tb {
            Some(tb) if bound == Bound::Exact && !is_mate(line.score) => tb.score,
            _ => line.score,
        };
        reporter.line(&LineReport {
            depth,
            seldepth: self.seldepth as u32,
            multipv: pv_idx + 1,
            score,
            bound,
            totals: SearchTotals {
                nodes: self.ctl.total_nodes(),
                time_ms: self.ctl.elapsed_ms(),
                hashfull: self.tt.hashfull(),
                tbhits: self.ctl.total_tbhits(),
            },
            pv: &line.pv,
        });
    }

    fn report_bound(
        &self,
        depth: u32,
        pv_idx: usize,
        score: i32,
        bound: Bound,
        params: &SearchParams,
    ) {
        if self.ctl.elapsed_ms() < 1000 {
            return;
        }
        let pv = self.pv.line(0);
        let line = RootLine { score, pv };
        self.report_line(depth, pv_idx, &line, bound, params);
    }
}

#[cfg(test)]
mod tests {
    use parking_lot::Mutex;

    use super::*;
    use crate::search::{SearchControl, SearchLimits};
    use crate::tt::Table;

    /// A reported line: its depth, bound, first move, and the nodes searched when it came.
    type Reported = (u32, Bound, Move, u64);

    #[derive(Debug, Default)]
    struct Lines(Mutex<Vec<Reported>>);

    impl Reporter for Lines {
        fn line(&self, line: &LineReport<'_>) {
            let nodes = line.totals.nodes;
            self.0
                .lock()
                .push((line.depth, line.bound, line.pv[0], nodes));
        }
        fn totals(&self, _: &SearchTotals) {}
        fn best_move(&self, _: Option<Move>, _: Option<Move>, _: bool) {}
        fn error(&self, _: &str) {}
    }

    /// One thread, a fresh table: the same position searches the same nodes in the same order
    /// whatever the limit.
    fn search(
        game: &Game,
        depth: Option<u32>,
        nodes: Option<u64>,
    ) -> (SearchResult, Vec<Reported>) {
        let tt = Arc::new(Table::new(4).unwrap());
        let limits = SearchLimits {
            depth,
            nodes,
            ..SearchLimits::default()
        };
        let ctl = Arc::new(SearchControl::new(limits, 1, false));
        let mut s = Searcher::new(0, tt, ctl);
        let lines = Arc::new(Lines::default());
        let params = SearchParams {
            reporter: Some(lines.clone()),
            ..SearchParams::default()
        };
        let r = s.iterate(game, &params);
        let reported = lines.0.lock().clone();
        (r, reported)
    }

    #[test]
    fn a_search_stopped_mid_iteration_plays_a_new_best_move_it_already_proved() {
        let mut new_moves_played = 0;
        for fen in &crate::bench::POSITIONS[..12] {
            let game = Game::new(Board::from_fen(fen, false).unwrap());
            let (_, lines) = search(&game, Some(9), None);
            let finished: Vec<Reported> =
                lines.into_iter().filter(|l| l.1 == Bound::Exact).collect();
            // Each iteration whose best move differs from the one before it: stop the same
            // search at node counts inside that iteration.
            for pair in finished
                .windows(2)
                .filter(|p| p[0].0 >= 3 && p[0].2 != p[1].2)
            {
                let (depth, _, old, before) = pair[0];
                let (_, _, new, after) = pair[1];
                for k in 1..16 {
                    let limit = before + (after - before) * k / 16;
                    let (r, lines) = search(&game, None, Some(limit));
                    if r.depth != depth {
                        continue;
                    }
                    let best = r.best_move.unwrap();
                    assert_eq!(r.lines[0].pv[0], best, "{fen}");
                    if best == old {
                        continue;
                    }
                    // A move other than the finished iteration's: proved inside the next one,
                    // and reported as that iteration's lower bound before the search ended.
                    let last = *lines.last().unwrap();
                    assert_eq!(
                        (last.0, last.1, last.2),
                        (depth + 1, Bound::Lower, best),
                        "{fen}"
                    );
                    if best == new {
                        new_moves_played += 1;
                    }
                }
            }
        }
        assert!(
            new_moves_played > 0,
            "no stopped search played the next iteration's move"
        );
    }
}
