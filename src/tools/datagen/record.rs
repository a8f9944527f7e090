//! One training position: the `<FEN> | <score> | <result>` line (written and parsed here, so a tuner
//! can use the same code) and the test for a "quiet" position worth recording.

use std::fmt;

use shakmaty::{fen::Fen, CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use crate::score::is_mate;
use crate::search::movepick::see;

/// A game's result from white's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// 1-0.
    WhiteWin,
    /// 1/2-1/2.
    Draw,
    /// 0-1.
    BlackWin,
}

impl GameResult {
    /// The result for a winner (`None`: a draw).
    pub fn from_winner(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::White) => GameResult::WhiteWin,
            Some(Color::Black) => GameResult::BlackWin,
            None => GameResult::Draw,
        }
    }

    /// White's score: `1.0`, `0.5` or `0.0`, as written in the data file.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWin => "1.0",
            GameResult::Draw => "0.5",
            GameResult::BlackWin => "0.0",
        }
    }

    /// Parses `1.0`, `0.5` or `0.0`.
    pub fn parse(text: &str) -> Option<GameResult> {
        match text {
            "1.0" => Some(GameResult::WhiteWin),
            "0.5" => Some(GameResult::Draw),
            "0.0" => Some(GameResult::BlackWin),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One parsed line of a data file.
#[derive(Clone, Debug)]
pub struct DataLine {
    /// The position (always legal: the parser refuses anything else).
    pub pos: Chess,
    /// Search score in centipawns, white's point of view.
    pub score: i32,
    /// The game's result, white's point of view.
    pub result: GameResult,
}

/// The FEN of a position (en-passant square only when the capture is legal).
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// `<FEN> | <score> | <result>` (no newline); `white_score` is from white's point of view.
pub fn format_line(pos: &Chess, white_score: i32, result: GameResult) -> String {
    format!("{} | {} | {}", fen_of(pos), white_score, result)
}

/// Parses a line written by [`format_line`]; the FEN must be a legal standard-chess position.
pub fn parse_line(line: &str) -> Result<DataLine, String> {
    let parts: Vec<&str> = line.trim().split('|').map(str::trim).collect();
    let [fen, score, result] = parts[..] else {
        return Err(format!(
            "expected '<FEN> | <score> | <result>', got '{line}'"
        ));
    };
    let fen: Fen = fen
        .parse()
        .map_err(|e| format!("invalid FEN '{fen}': {e}"))?;
    let pos: Chess = fen
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("illegal position: {e}"))?;
    let score = score
        .parse()
        .map_err(|_| format!("score '{score}' is not an integer"))?;
    let result = GameResult::parse(result)
        .ok_or_else(|| format!("result '{result}' is not 1.0, 0.5 or 0.0"))?;
    Ok(DataLine { pos, score, result })
}

/// True if the side to move has a capture that wins material by SEE.
pub fn has_winning_capture(pos: &Chess) -> bool {
    pos.capture_moves().into_iter().any(|m| see(pos, m) > 0)
}

/// A position worth recording: the side to move is not in check, the best move is neither a capture
/// nor a promotion, the score is not a mate score, and no capture wins material by SEE.
pub fn is_quiet(pos: &Chess, best: Move, score: i32) -> bool {
    !pos.is_check()
        && !best.is_capture()
        && !best.is_promotion()
        && !is_mate(score)
        && !has_winning_capture(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{parse_uci_move, Board};
    use crate::score::MATE;

    fn pos(fen: &str) -> Chess {
        Board::from_fen(fen, false).unwrap().pos().clone()
    }

    #[test]
    fn lines_round_trip() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/8/1p4p1/p1p2k1p/P2n1P1P/4K1P1/1P6/6R1 b - - 6 59",
        ];
        for (i, fen) in fens.iter().enumerate() {
            let p = pos(fen);
            for (score, result) in [
                (0, GameResult::Draw),
                (-317, GameResult::BlackWin),
                (1234, GameResult::WhiteWin),
            ] {
                let line = format_line(&p, score, result);
                let back = parse_line(&line).unwrap();
                assert_eq!(fen_of(&back.pos), *fen, "case {i}");
                assert_eq!((back.score, back.result), (score, result));
                assert_eq!(format_line(&back.pos, back.score, back.result), line);
            }
        }
        let p = pos(fens[1]);
        assert_eq!(
            format_line(&p, -25, GameResult::WhiteWin),
            format!("{} | -25 | 1.0", fens[1])
        );
    }

    #[test]
    fn bad_lines_are_errors() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        for bad in [
            String::new(),
            format!("{start} | 12"),
            format!("{start} | 12 | 1.0 | x"),
            format!("{start} | 1.5 | 1.0"),
            format!("{start} | 12 | 1"),
            format!("{start} | 12 | 0.25"),
            "not a fen | 0 | 0.5".to_string(),
            "8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5".to_string(),
            // The side not to move is in check.
            "4k3/8/8/8/8/8/8/4RK2 w - - 0 1 | 0 | 0.5".to_string(),
        ] {
            assert!(parse_line(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn quiet_positions() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let e4 = parse_uci_move(&start, "e2e4").unwrap();
        assert!(is_quiet(&start, e4, 20));
        assert!(!is_quiet(&start, e4, MATE - 5));
        assert!(!is_quiet(&start, e4, -MATE + 8));
        // White can win a hanging knight on e5.
        let hanging = pos("rnbqkb1r/pppppppp/8/4n3/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1");
        assert!(has_winning_capture(&hanging));
        let a3 = parse_uci_move(&hanging, "a2a3").unwrap();
        assert!(!is_quiet(&hanging, a3, 0));
        // An equal trade (pawn takes defended pawn) is not a winning capture.
        let trade = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert!(!has_winning_capture(&trade));
        let exd5 = parse_uci_move(&trade, "e4d5").unwrap();
        assert!(!is_quiet(&trade, exd5, 0));
        let d3 = parse_uci_move(&trade, "d2d3").unwrap();
        assert!(is_quiet(&trade, d3, 0));
        // In check.
        let check = pos("rnbqkbnr/ppppp1pp/5p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2");
        let g6 = parse_uci_move(&check, "g7g6").unwrap();
        assert!(!is_quiet(&check, g6, 0));
        // A promotion.
        let promo = pos("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        let a8 = parse_uci_move(&promo, "a7a8q").unwrap();
        assert!(!is_quiet(&promo, a8, 900));
    }
}
