//! Packing of one transposition-table entry into a 64-bit data word.
//!
//! ```text
//!  63      59 58 57 56 55  48 47            32 31            16 15             0
//! +----------+--+--+--------+----------------+----------------+----------------+
//! |generation|pn|bd| depth  |   static eval  |  score (i16)   |  move (16 bit) |
//! +----------+--+--+--------+----------------+----------------+----------------+
//!   5 bits   1  2     8 bits     16 bits          16 bits          16 bits
//! ```
//! (`bd` is the 2-bit bound at bits 56..58, `pn` the "pinned" flag at bit 58 for entries that the
//! replacement scheme must keep, e.g. learned positions; generation is bits 59..64, 32 generations.)
//! The move is `from | to << 6 | promotion << 12` (promotion: 0 none, 2 knight .. 5 queen, shakmaty's
//! role numbering); castling is stored king-square to rook-square, as shakmaty represents it.

use shakmaty::{Move, Role, Square};

/// The bound a stored score is, which is also the node type the search found:
/// exact = PV-node, lower = CUT-node (fail-high), upper = ALL-node (fail-low).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Empty slot (never returned by a probe).
    None = 0,
    /// Score is exact (PV-node).
    Exact = 1,
    /// Score is a lower bound (CUT-node: a move reached beta).
    Lower = 2,
    /// Score is an upper bound (ALL-node: no move exceeded alpha).
    Upper = 3,
}

impl Bound {
    fn from_bits(bits: u64) -> Bound {
        match bits & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => Bound::None,
        }
    }
}

/// A 16-bit move as stored in the table; [`PackedMove::NONE`] is "no move".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(pub u16);

impl PackedMove {
    /// No move.
    pub const NONE: PackedMove = PackedMove(0);

    /// Packs a move (drops, which standard chess has none of, pack as NONE).
    pub fn new(m: Move) -> PackedMove {
        let Some(from) = m.from() else {
            return PackedMove::NONE;
        };
        PackedMove::of(from, m.to(), m.promotion())
    }

    /// Packs the move from `from` to `to` (the rook's square for castling), promoting to
    /// `promotion`: never [`PackedMove::NONE`], as `from` and `to` differ.
    #[inline(always)]
    pub fn of(from: Square, to: Square, promotion: Option<Role>) -> PackedMove {
        let promo = promotion.map_or(0, |r| r as u16);
        PackedMove(u16::from(from) | (u16::from(to) << 6) | (promo << 12))
    }

    /// True for "no move".
    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    /// Origin square.
    pub fn from(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    /// Target square (the rook's square for castling).
    pub fn to(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63))
    }

    /// True if `m` is the move this packs (the way to check a stored move against the legal moves).
    #[inline]
    pub fn matches(self, m: Move) -> bool {
        !self.is_none() && PackedMove::new(m) == self
    }

    /// The promotion role, if any.
    pub fn promotion(self) -> Option<Role> {
        match (self.0 >> 12) & 7 {
            2 => Some(Role::Knight),
            3 => Some(Role::Bishop),
            4 => Some(Role::Rook),
            5 => Some(Role::Queen),
            _ => None,
        }
    }
}

/// One entry, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryData {
    /// Best or refutation move.
    pub mv: PackedMove,
    /// Score, ply-adjusted for mates (distance from this node).
    pub score: i16,
    /// Static evaluation of the position.
    pub eval: i16,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// Bound type = node type found.
    pub bound: Bound,
    /// Replacement must not evict this entry (learned positions).
    pub pinned: bool,
    /// Search generation (5 bits) for aging.
    pub generation: u8,
}

/// What a store writes: an entry's fields but the generation, which the table adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewEntry {
    /// Best or refutation move ([`PackedMove::NONE`] keeps the move already stored for the key).
    pub mv: PackedMove,
    /// Score, ply-adjusted for mates (distance from this node).
    pub score: i16,
    /// Static evaluation of the position.
    pub eval: i16,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// Bound type = node type found.
    pub bound: Bound,
    /// Replacement must not evict this entry (learned positions).
    pub pinned: bool,
}

impl NewEntry {
    /// The entry as stored in search generation `generation`.
    #[inline]
    pub fn at(self, generation: u8) -> EntryData {
        EntryData {
            mv: self.mv,
            score: self.score,
            eval: self.eval,
            depth: self.depth,
            bound: self.bound,
            pinned: self.pinned,
            generation,
        }
    }
}

const MOVE_SHIFT: u32 = 0;
const SCORE_SHIFT: u32 = 16;
const EVAL_SHIFT: u32 = 32;
const DEPTH_SHIFT: u32 = 48;
const BOUND_SHIFT: u32 = 56;
const PINNED_SHIFT: u32 = 58;
const GEN_SHIFT: u32 = 59;
/// Number of distinct generations (5 bits).
pub const GENERATIONS: u8 = 32;

impl EntryData {
    /// Packs into the data word.
    #[inline]
    pub fn pack(self) -> u64 {
        (u64::from(self.mv.0) << MOVE_SHIFT)
            | (u64::from(self.score as u16) << SCORE_SHIFT)
            | (u64::from(self.eval as u16) << EVAL_SHIFT)
            | (u64::from(self.depth) << DEPTH_SHIFT)
            | ((self.bound as u64) << BOUND_SHIFT)
            | (u64::from(self.pinned) << PINNED_SHIFT)
            | (u64::from(self.generation & (GENERATIONS - 1)) << GEN_SHIFT)
    }

    /// Unpacks a data word.
    #[inline]
    pub fn unpack(word: u64) -> EntryData {
        EntryData {
            mv: PackedMove((word >> MOVE_SHIFT) as u16),
            score: (word >> SCORE_SHIFT) as u16 as i16,
            eval: (word >> EVAL_SHIFT) as u16 as i16,
            depth: (word >> DEPTH_SHIFT) as u8,
            bound: Bound::from_bits(word >> BOUND_SHIFT),
            pinned: (word >> PINNED_SHIFT) & 1 == 1,
            generation: ((word >> GEN_SHIFT) & u64::from(GENERATIONS - 1)) as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_roundtrip() {
        let m = Move::Normal {
            role: Role::Pawn,
            from: Square::E7,
            capture: Some(Role::Rook),
            to: Square::F8,
            promotion: Some(Role::Queen),
        };
        for &(score, eval, depth, bound, pinned, generation) in &[
            (-32000i16, 32000i16, 0u8, Bound::Exact, false, 0u8),
            (31900, -5, 255, Bound::Lower, true, 31),
            (0, 0, 17, Bound::Upper, false, 9),
        ] {
            let e = EntryData {
                mv: PackedMove::new(m),
                score,
                eval,
                depth,
                bound,
                pinned,
                generation,
            };
            assert_eq!(EntryData::unpack(e.pack()), e);
        }
        let pm = PackedMove::new(m);
        assert_eq!(pm.from(), Square::E7);
        assert_eq!(pm.to(), Square::F8);
        assert_eq!(pm.promotion(), Some(Role::Queen));
        assert!(pm.matches(m));
        let castle = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        assert!(PackedMove::new(castle).matches(castle));
        assert!(!PackedMove::new(castle).matches(m));
    }
}
