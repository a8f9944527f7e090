//! How a game ended: the winner (if any), the kind of ending as the PGN `Termination` tag
//! names it, and the detailed reason written as a PGN comment and in progress lines.

use shakmaty::Color;

/// The kind of ending of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The same position occurred a third time.
    Repetition,
    /// A hundred plies without capture or pawn move.
    FiftyMoves,
    /// Neither side can mate.
    InsufficientMaterial,
    /// An engine used more than its clock plus the margin.
    TimeForfeit,
    /// An engine sent an illegal or unparsable `bestmove`.
    IllegalMove,
    /// An engine exited, crashed or closed its pipes.
    Disconnect,
    /// An engine stopped answering (`readyok` or `bestmove` never came).
    Stall,
    /// Adjudicated by the resign rule.
    ResignAdjudication,
    /// Adjudicated by the draw rule.
    DrawAdjudication,
    /// Adjudicated a draw at the move limit.
    MaxMoves,
}

impl Termination {
    /// The PGN `Termination` tag value.
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Checkmate
            | Termination::Stalemate
            | Termination::Repetition
            | Termination::FiftyMoves
            | Termination::InsufficientMaterial => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Disconnect | Termination::Stall => "abandoned",
            Termination::ResignAdjudication
            | Termination::DrawAdjudication
            | Termination::MaxMoves => "adjudication",
        }
    }

    /// A short lower-case label for summaries.
    pub fn label(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Repetition => "threefold repetition",
            Termination::FiftyMoves => "fifty-move rule",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Disconnect => "crash/disconnect",
            Termination::Stall => "stall",
            Termination::ResignAdjudication => "resign adjudication",
            Termination::DrawAdjudication => "draw adjudication",
            Termination::MaxMoves => "max moves",
        }
    }

    /// Whether the ending is an engine failure charged to the loser.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Termination::TimeForfeit
                | Termination::IllegalMove
                | Termination::Disconnect
                | Termination::Stall
        )
    }
}

/// The result of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The winning colour, `None` for a draw.
    pub winner: Option<Color>,
    /// How the game ended.
    pub termination: Termination,
    /// The detailed reason, e.g. "Black loses on time (used 1305 ms of 1200 ms + 100 ms)".
    pub reason: String,
}

impl GameResult {
    /// A decisive result.
    pub fn win(winner: Color, termination: Termination, reason: impl Into<String>) -> Self {
        Self {
            winner: Some(winner),
            termination,
            reason: reason.into(),
        }
    }

    /// A draw.
    pub fn draw(termination: Termination, reason: impl Into<String>) -> Self {
        Self {
            winner: None,
            termination,
            reason: reason.into(),
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pgn_result(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// "White" or "Black".
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_results() {
        assert_eq!(Termination::Stall.pgn_tag(), "abandoned");
        assert_eq!(Termination::Disconnect.pgn_tag(), "abandoned");
        assert_eq!(Termination::TimeForfeit.pgn_tag(), "time forfeit");
        assert_eq!(Termination::MaxMoves.pgn_tag(), "adjudication");
        assert!(Termination::IllegalMove.is_failure());
        assert!(!Termination::ResignAdjudication.is_failure());
        let r = GameResult::win(Color::Black, Termination::Checkmate, "Black mates");
        assert_eq!(r.pgn_result(), "0-1");
        assert_eq!(
            GameResult::draw(Termination::Stalemate, "").pgn_result(),
            "1/2-1/2"
        );
    }
}
