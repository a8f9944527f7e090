//! Quiescence search: at the horizon, only captures and promotions are searched (losing captures by
//! SEE are skipped), with the static evaluation as a stand-pat bound; in check, every evasion is
//! searched so that mates at the horizon are seen.

use shakmaty::{MoveList, Position};

use super::movepick::{see_non_negative, MovePicker, SortKeys};
use super::tactical::captures_and_promotions;
use super::Searcher;
use crate::board::Board;
use crate::score::{eval_to_tt, mated_in, score_to_tt, MATE, MAX_PLY};
use crate::tt::{self, Bound, EntryData, NewEntry, PackedMove};

impl Searcher {
    /// Quiescence search of `b` at `ply` with window (`alpha`, `beta`); fail-soft.
    pub fn qsearch(&mut self, b: &Board, alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.should_stop() {
            return 0;
        }
        self.nodes += 1;
        self.pv.clear(ply);
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(b.pos(), ply);
        }
        // The fifty-move rule ends the game here (unless this is mate), so no capture may follow:
        // a line that went on would be a PV past the end of the game.
        if b.pos().halfmoves() >= 100 && !b.pos().is_checkmate() {
            return 0;
        }
        let entry = self.tt.probe(b.key());
        self.qsearch_probed(b, alpha, beta, ply, entry, None)
    }

    /// The quiescence search of a node that is already counted, whose PV slot is cleared and whose
    /// TT entry is `entry`; `raw_eval`, when the caller has it, is its uncorrected static
    /// evaluation (the node must not be in check). Razoring calls this for the node it is
    /// razoring, so that the node is counted, probed and evaluated once.
    pub(super) fn qsearch_probed(
        &mut self,
        b: &Board,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        entry: Option<EntryData>,
        raw_eval: Option<i32>,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let pos = b.pos();
        let key = b.key();
        let mut tt_move = PackedMove::NONE;
        if let Some(e) = entry {
            tt_move = e.mv;
            if let Some(s) = tt::cutoff(&e, 0, ply, alpha, beta, pv_node, false) {
                return s;
            }
        }
        let in_check = b.in_check();
        let alpha_orig = alpha;
        // The raw evaluation goes into the TT, the corrected one is the stand-pat score.
        let raw;
        let mut best;
        if in_check {
            raw = -MATE;
            best = mated_in(ply);
        } else {
            raw = raw_eval
                .or_else(|| entry.and_then(|e| tt::stored_eval(&e)))
                .unwrap_or_else(|| self.evaluate(pos, ply));
            let stand_pat = self.correction.apply(pos, raw);
            if stand_pat >= beta {
                if entry.is_none() {
                    self.tt.store(
                        key,
                        NewEntry {
                            mv: PackedMove::NONE,
                            score: score_to_tt(stand_pat, ply),
                            eval: raw as i16,
                            depth: 0,
                            bound: Bound::Lower,
                            pinned: false,
                        },
                    );
                }
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        let mut moves: MoveList;
        let mut keys = SortKeys::new();
        let mut picker = if in_check {
            moves = pos.legal_moves();
            if moves.is_empty() {
                return mated_in(ply);
            }
            MovePicker::new(b, &mut moves, &mut keys, tt_move, &self.history, ply)
        } else {
            moves = MoveList::new();
            captures_and_promotions(pos, &mut moves);
            MovePicker::tactical(&mut moves, &mut keys, tt_move)
        };
        let mut best_move = None;
        while let Some((m, _)) = picker.next_move() {
            if !in_check && !see_non_negative(pos, m) {
                continue;
            }
            let child = b.play(m);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
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
                        break;
                    }
                    alpha = score;
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig && pv_node {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            NewEntry {
                mv: best_move.map_or(PackedMove::NONE, PackedMove::new),
                score: score_to_tt(best, ply),
                eval: eval_to_tt(in_check, raw),
                depth: 0,
                bound,
                pinned: false,
            },
        );
        best
    }
}
