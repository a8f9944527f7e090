//! Correction history: how far the search's score has stood from the static evaluation in
//! positions with the same pawns. One table per thread, indexed by the side to move and a hash of
//! the two sides' pawns, each slot an exponential average of `search score − raw eval` (in
//! 1/[`GRAIN`] centipawns). The corrected evaluation drives the search's pruning; the TT keeps the
//! raw one.

use shakmaty::{Chess, Color, Position};

use super::params as p;
use crate::board::pawn_hash;

/// Slots per side to move.
const SLOTS: usize = 16_384;
/// Fixed-point scale of a slot.
const GRAIN: i32 = 128;
/// The denominator of a node's weight (`CORR_WEIGHT_MAX` in [`super::params`] is the numerator's
/// cap).
const WEIGHT_SCALE: i32 = 128;

/// The pawn-structure correction of one thread.
#[derive(Clone)]
pub struct Correction {
    table: Vec<i16>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction::new()
    }
}

/// The slot of `pos`: side to move, then the top bits of its [`pawn_hash`].
#[inline]
fn slot(pos: &Chess) -> usize {
    let board = pos.board();
    let pawns = board.pawns();
    let h = pawn_hash(pawns & board.white(), pawns & board.black());
    let side = usize::from(pos.turn() == Color::Black);
    side * SLOTS + (h >> (64 - SLOTS.trailing_zeros())) as usize
}

impl Correction {
    /// A table of zeros.
    pub fn new() -> Correction {
        Correction {
            table: vec![0; 2 * SLOTS],
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|v| *v = 0);
    }

    /// `raw`, the static evaluation of `pos`, corrected.
    #[inline]
    pub fn apply(&self, pos: &Chess, raw: i32) -> i32 {
        raw + i32::from(self.table[slot(pos)]) / GRAIN
    }

    /// A search of `pos` to `depth` scored `score` where the raw evaluation said `raw`.
    #[inline]
    pub fn update(&mut self, pos: &Chess, depth: i32, raw: i32, score: i32) {
        let limit = p::CORR_LIMIT();
        let error = (score - raw).clamp(-limit, limit) * GRAIN;
        let w = (depth + 1).clamp(1, p::CORR_WEIGHT_MAX());
        let v = &mut self.table[slot(pos)];
        let next = (i32::from(*v) * (WEIGHT_SCALE - w) + error * w) / WEIGHT_SCALE;
        *v = next.clamp(-limit * GRAIN, limit * GRAIN) as i16;
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    use super::*;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn errors_move_the_slot_of_the_same_pawns_and_side_only() {
        let mut c = Correction::new();
        let a = pos("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        let same_pawns = pos("r3k3/pp6/8/8/8/8/PP6/4K2R w - - 0 1");
        let other_side = pos("4k3/pp6/8/8/8/8/PP6/4K3 b - - 0 1");
        let other_pawns = pos("4k3/p7/8/8/8/8/PP6/4K3 w - - 0 1");
        assert_eq!(c.apply(&a, 10), 10);
        for _ in 0..200 {
            c.update(&a, 12, 10, 60);
        }
        // The average reaches most of the +50 error, and no further.
        let corrected = c.apply(&same_pawns, 10);
        assert!((55..=60).contains(&corrected), "{corrected}");
        assert_eq!(c.apply(&other_side, 10), 10);
        assert_eq!(c.apply(&other_pawns, 10), 10);
        // Errors beyond the limit count as the limit (the average stops a step short of it).
        for _ in 0..400 {
            c.update(&a, 12, 0, 5000);
        }
        let limit = p::CORR_LIMIT();
        assert!((limit - 2..=limit).contains(&c.apply(&a, 0)));
        c.clear();
        assert_eq!(c.apply(&a, 0), 0);
    }
}
