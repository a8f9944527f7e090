//! Opening books: the start positions a match is played from, read from EPD files (one
//! position a line) or PGN files (the moves of each game), and put in a reproducible random
//! order on request.

mod epd;
mod pgn;

pub use epd::parse_epd;
pub use pgn::parse_pgn;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};
use std::path::Path;

/// One opening: a start position and the book moves played from it.
#[derive(Clone, Debug)]
pub struct Opening {
    /// FEN of the start position; `None` for the standard initial position.
    pub fen: Option<String>,
    /// The start position.
    pub start: Chess,
    /// Book moves played from the start position, all legal.
    pub moves: Vec<Move>,
}

impl Opening {
    /// An opening that starts at `start` (its FEN is recorded unless it is the standard
    /// initial position with no counters changed).
    pub fn from_position(start: Chess, moves: Vec<Move>) -> Self {
        let fen = Fen::from_position(&start, EnPassantMode::Legal).to_string();
        let standard = Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string();
        Self {
            fen: (fen != standard).then_some(fen),
            start,
            moves,
        }
    }

    /// The position after the book moves.
    pub fn final_position(&self) -> Chess {
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos.play_unchecked(*m);
        }
        pos
    }

    /// The book moves in UCI notation (standard castling, `e1g1`).
    pub fn uci_moves(&self) -> Vec<String> {
        self.moves
            .iter()
            .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
            .collect()
    }
}

/// Reads an opening file; the format is chosen by the extension (`.pgn` is PGN, anything
/// else EPD). For PGN, `plies` limits how many moves of each game are used.
pub fn load(path: &Path, plies: Option<usize>) -> Result<Vec<Opening>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let is_pgn = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let openings = if is_pgn {
        parse_pgn(&text, plies)
    } else {
        parse_epd(&text)
    }
    .map_err(|e| format!("{}: {e}", path.display()))?;
    if openings.is_empty() {
        return Err(format!("{}: no openings found", path.display()));
    }
    Ok(openings)
}

/// SplitMix64 (the engine's [`trine::tools::datagen::game::Rng`]) with an unbiased `below`, for
/// reproducible shuffles.
#[derive(Clone, Debug)]
pub struct SplitMix64(trine::tools::datagen::game::Rng);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(trine::tools::datagen::game::Rng::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`n > 0`), by rejection so every value is equally likely.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }
}

/// Fisher–Yates shuffle driven by `seed`: the same seed gives the same order.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_a_reproducible_permutation() {
        let mut a: Vec<u32> = (0..100).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..100).collect::<Vec<_>>());
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        let mut c: Vec<u32> = (0..100).collect();
        shuffle(&mut c, 8);
        assert_ne!(a, c);
    }

    #[test]
    fn standard_start_has_no_fen() {
        let o = Opening::from_position(Chess::default(), Vec::new());
        assert_eq!(o.fen, None);
        assert!(o.uci_moves().is_empty());
    }
}
