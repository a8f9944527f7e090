//! Formatting of the engine's UCI output (`info`, `bestmove`, `info string`). Every line goes out
//! through [`emit`], which is [`crate::console::line()`]: one locked, flushed write per line, so lines
//! from the search thread and the input thread never interleave, and a closed stdout is ignored.

use shakmaty::Move;

use crate::board::{castling_mode, move_to_uci};
use crate::score::{is_mate, mate_moves};
use crate::search::{LineReport, Reporter, SearchTotals};
use crate::tt::Bound;

/// The search's [`Reporter`] in the UCI loop: `info` lines, `bestmove` and errors on stdout.
#[derive(Debug)]
pub struct UciReporter {
    /// Castling notation (`UCI_Chess960`).
    pub chess960: bool,
}

impl Reporter for UciReporter {
    fn line(&self, line: &LineReport<'_>) {
        emit(&format_info(line, self.chess960));
    }

    fn totals(&self, totals: &SearchTotals) {
        emit(&format_totals(totals));
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>, in_check: bool) {
        if best.is_none() {
            let score = if in_check { "mate 0" } else { "cp 0" };
            emit(&format!("info depth 0 score {score}"));
        }
        emit(&format_bestmove(best, ponder, self.chess960));
    }

    fn error(&self, message: &str) {
        error(message);
    }
}

/// `cp N` or `mate N`.
pub fn format_score(score: i32) -> String {
    if is_mate(score) {
        format!("mate {}", mate_moves(score))
    } else {
        format!("cp {score}")
    }
}

/// Moves separated by spaces.
pub fn format_line(moves: &[Move], chess960: bool) -> String {
    let mode = castling_mode(chess960);
    moves
        .iter()
        .map(|&m| move_to_uci(m, mode))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One `info depth ...` line.
pub fn format_info(i: &LineReport<'_>, chess960: bool) -> String {
    let bound = match i.bound {
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
        _ => "",
    };
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {}{} {}",
        i.depth,
        i.seldepth.max(i.depth),
        i.multipv,
        format_score(i.score),
        bound,
        format_counts(&i.totals)
    );
    if !i.pv.is_empty() {
        s.push_str(" pv ");
        s.push_str(&format_line(i.pv, chess960));
    }
    s
}

/// The `info` line of a search's totals, sent just before `bestmove`: the nodes and time of the
/// whole search, where the last `info depth` line counts only up to the last finished iteration.
pub fn format_totals(t: &SearchTotals) -> String {
    format!("info {}", format_counts(t))
}

/// `nodes N nps X hashfull H tbhits T time MS`, the counts every `info` line of a search carries.
fn format_counts(t: &SearchTotals) -> String {
    format!(
        "nodes {} nps {} hashfull {} tbhits {} time {}",
        t.nodes,
        t.nodes * 1000 / t.time_ms.max(1),
        t.hashfull,
        t.tbhits,
        t.time_ms
    )
}

/// `bestmove X [ponder Y]`, or `bestmove 0000` when there is no legal move.
pub fn format_bestmove(best: Option<Move>, ponder: Option<Move>, chess960: bool) -> String {
    let mode = castling_mode(chess960);
    match (best, ponder) {
        (Some(b), Some(p)) => format!(
            "bestmove {} ponder {}",
            move_to_uci(b, mode),
            move_to_uci(p, mode)
        ),
        (Some(b), None) => format!("bestmove {}", move_to_uci(b, mode)),
        (None, _) => "bestmove 0000".to_string(),
    }
}

/// Writes one line to stdout and flushes it; a closed stdout (the GUI went away) is ignored.
pub use crate::console::line as emit;

/// `info string error: ...`
pub fn error(msg: &str) {
    emit(&format!("info string error: {msg}"));
}

/// `info string ...`
pub fn message(msg: &str) {
    emit(&format!("info string {msg}"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;

    #[test]
    fn scores() {
        assert_eq!(format_score(35), "cp 35");
        assert_eq!(format_score(MATE - 1), "mate 1");
        assert_eq!(format_score(MATE - 3), "mate 2");
        assert_eq!(format_score(-MATE + 2), "mate -1");
        assert_eq!(format_bestmove(None, None, false), "bestmove 0000");
        // Tablebase wins and losses are centipawns beyond every evaluation, not mates.
        assert_eq!(format_score(crate::score::tb_win_in(1)), "cp 31742");
        assert_eq!(format_score(-crate::score::tb_win_in(3)), "cp -31740");
    }

    #[test]
    fn info_and_totals_lines_carry_tbhits() {
        let line = LineReport {
            depth: 7,
            seldepth: 9,
            multipv: 1,
            score: 12,
            bound: Bound::Exact,
            totals: SearchTotals {
                nodes: 5000,
                time_ms: 10,
                hashfull: 3,
                tbhits: 42,
            },
            pv: &[],
        };
        assert_eq!(
            format_info(&line, false),
            "info depth 7 seldepth 9 multipv 1 score cp 12 nodes 5000 nps 500000 hashfull 3 \
             tbhits 42 time 10"
        );
        let totals = SearchTotals {
            nodes: 9000,
            time_ms: 4,
            hashfull: 5,
            tbhits: 7,
        };
        assert_eq!(
            format_totals(&totals),
            "info nodes 9000 nps 2250000 hashfull 5 tbhits 7 time 4"
        );
        let zero = SearchTotals::default();
        assert_eq!(
            format_totals(&zero),
            "info nodes 0 nps 0 hashfull 0 tbhits 0 time 0"
        );
    }
}
