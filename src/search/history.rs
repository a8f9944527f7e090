//! Move-ordering memory owned by one thread: killer moves per ply, a butterfly history table
//! updated with gravity so that values stay bounded, and a counter-move table (the quiet move that
//! last refuted a move, by that move's colour, piece and target square). The butterfly table is
//! indexed by side, from and to square, and by threats: whether the opponent attacks the from
//! square and the to square in the position the move is made from, so that a move that saves an
//! attacked man and one that walks into an attack are scored apart from the same move elsewhere.

use shakmaty::{Bitboard, Color, Move, Square};

use crate::score::MAX_PLY;
use crate::tt::PackedMove;

/// Upper bound of the absolute history value.
pub const HISTORY_MAX: i32 = 16384;

/// Killers and history for one thread.
#[derive(Clone)]
pub struct History {
    killers: [[PackedMove; 2]; MAX_PLY + 2],
    /// `i16` (the values stay within ±[`HISTORY_MAX`]): 64 KB, half the `i32` table's cache.
    butterfly: Vec<i16>,
    /// Per [`crate::board::Board::last_slot`], the quiet move that last refuted that move.
    counters: Vec<PackedMove>,
}

/// Slots of the counter-move table, one per value of the last move's slot (0: no previous move).
const COUNTER_SLOTS: usize = crate::board::LAST_SLOTS;

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

/// History bonus of a cutoff at `depth` (the malus of the quiet moves tried before it):
/// `16·d² + 128·(d − 1)` up to depth 13 (400 at depth 3, 4,240 at depth 13, against a bound of
/// [`HISTORY_MAX`]), a flat 32 deeper: the shape Ethereal used, taken as it is, not tuned here.
/// With steps this size gravity makes the table follow the recent search; the `d²` (at most
/// 1,200) it replaced took about 1,800 depth-3 cutoffs to bring a slot 63 % of the way to the
/// bound (16,384 / 9 steps of gravity). The larger values also make the late-move reduction's
/// history term (`history / LMR_HISTORY_STEP`, 6,144, rounded to the nearest ply: ±1 from ±3,072)
/// act.
#[inline]
pub fn bonus(depth: i32) -> i32 {
    if depth > 13 {
        32
    } else {
        16 * depth * depth + 128 * (depth - 1).max(0)
    }
}

/// Butterfly slots: side, from square attacked, to square attacked, from, to.
const BUTTERFLY_SLOTS: usize = 2 * 2 * 2 * 64 * 64;

/// The butterfly slot of `m` for `color`, `threats` the squares the opponent attacks.
#[inline]
fn index(color: Color, threats: Bitboard, m: Move) -> usize {
    index_of(color, threats, m.from().unwrap_or(m.to()), m.to())
}

/// The butterfly slot of the move from `from` to `to`.
#[inline(always)]
fn index_of(color: Color, threats: Bitboard, from: Square, to: Square) -> usize {
    let slice = (color as usize) * 4
        + usize::from(threats.contains(from)) * 2
        + usize::from(threats.contains(to));
    slice * 4096 + usize::from(from) * 64 + usize::from(to)
}

impl History {
    /// Empty tables.
    pub fn new() -> History {
        History {
            killers: [[PackedMove::NONE; 2]; MAX_PLY + 2],
            butterfly: vec![0; BUTTERFLY_SLOTS],
            counters: vec![PackedMove::NONE; COUNTER_SLOTS],
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.killers = [[PackedMove::NONE; 2]; MAX_PLY + 2];
        self.butterfly.iter_mut().for_each(|v| *v = 0);
        self.counters.iter_mut().for_each(|c| *c = PackedMove::NONE);
    }

    /// Takes over `other`'s killers and history (a helper joining a split point starts from its
    /// owner's tables); no allocation.
    pub fn copy_from(&mut self, other: &History) {
        self.killers = other.killers;
        self.butterfly.copy_from_slice(&other.butterfly);
        self.counters.copy_from_slice(&other.counters);
    }

    /// The counter-move of the move in `slot` ([`crate::board::Board::last_slot`]).
    #[inline]
    pub fn counter(&self, slot: usize) -> PackedMove {
        self.counters.get(slot).copied().unwrap_or(PackedMove::NONE)
    }

    /// The quiet move `m` refuted the move in `slot` (0, no previous move, keeps nothing).
    #[inline]
    pub fn set_counter(&mut self, slot: usize, m: Move) {
        if slot != 0 && slot < COUNTER_SLOTS {
            self.counters[slot] = PackedMove::new(m);
        }
    }

    /// The two killer moves of `ply`.
    #[inline]
    pub fn killers(&self, ply: usize) -> [PackedMove; 2] {
        self.killers[ply.min(MAX_PLY + 1)]
    }

    /// Clears the killers of `ply` (done for the children's ply when entering a node).
    #[inline]
    pub fn clear_killers(&mut self, ply: usize) {
        self.killers[ply.min(MAX_PLY + 1)] = [PackedMove::NONE; 2];
    }

    /// History score of a quiet move, `threats` the squares the opponent attacks.
    #[inline]
    pub fn score(&self, color: Color, threats: Bitboard, m: Move) -> i32 {
        i32::from(self.butterfly[index(color, threats, m)])
    }

    /// [`History::score`] of the quiet move from `from` to `to`.
    #[inline]
    pub fn score_of(&self, color: Color, threats: Bitboard, from: Square, to: Square) -> i32 {
        i32::from(self.butterfly[index_of(color, threats, from, to)])
    }

    /// A quiet move caused a beta cutoff at `depth`: make it a killer and reward it; penalise the
    /// quiet moves tried before it. `threats`: the squares the opponent attacks.
    pub fn update_cutoff(
        &mut self,
        color: Color,
        threats: Bitboard,
        ply: usize,
        depth: i32,
        best: Move,
        tried: &[Move],
    ) {
        let k = &mut self.killers[ply.min(MAX_PLY + 1)];
        let packed = PackedMove::new(best);
        if k[0] != packed {
            k[1] = k[0];
            k[0] = packed;
        }
        let bonus = bonus(depth);
        self.add(index(color, threats, best), bonus);
        for &m in tried {
            if m != best {
                self.add(index(color, threats, m), -bonus);
            }
        }
    }

    #[inline]
    fn add(&mut self, slot: usize, bonus: i32) {
        let v = &mut self.butterfly[slot];
        let old = i32::from(*v);
        // Gravity: the closer to the bound, the smaller the step; the result stays within
        // ±HISTORY_MAX, so it fits the `i16`.
        *v = (old + bonus - old * bonus.abs() / HISTORY_MAX) as i16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    /// No square attacked.
    const NONE: Bitboard = Bitboard::EMPTY;

    fn knight(from: Square, to: Square) -> Move {
        Move::Normal {
            role: Role::Knight,
            from,
            capture: None,
            to,
            promotion: None,
        }
    }

    #[test]
    fn counter_moves_are_kept_per_slot_copied_and_cleared() {
        let mut h = History::new();
        let a = knight(Square::G1, Square::F3);
        h.set_counter(0, a);
        assert_eq!(h.counter(0), PackedMove::NONE, "slot 0 is no previous move");
        h.set_counter(17, a);
        assert_eq!(h.counter(17), PackedMove::new(a));
        assert_eq!(h.counter(18), PackedMove::NONE);
        assert_eq!(h.counter(COUNTER_SLOTS + 5), PackedMove::NONE);
        let mut copy = History::new();
        copy.copy_from(&h);
        assert_eq!(copy.counter(17), PackedMove::new(a));
        h.clear();
        assert_eq!(h.counter(17), PackedMove::NONE);
    }

    #[test]
    fn threatened_from_and_to_squares_keep_separate_scores() {
        let mut h = History::new();
        let a = knight(Square::G1, Square::F3);
        let from = Bitboard::from_square(Square::G1);
        let to = Bitboard::from_square(Square::F3);
        h.update_cutoff(Color::White, from, 0, 8, a, &[]);
        assert_eq!(h.score(Color::White, from, a), bonus(8));
        // Other attacked squares do not matter, only the move's two.
        assert_eq!(h.score(Color::White, from | Square::A8, a), bonus(8));
        for other in [NONE, to, from | to] {
            assert_eq!(h.score(Color::White, other, a), 0, "{other:?}");
        }
        h.update_cutoff(Color::White, to, 0, 8, a, &[]);
        assert_eq!(h.score(Color::White, to, a), bonus(8));
        assert_eq!(h.score(Color::White, from | to, a), 0);
        assert_eq!(h.score(Color::White, NONE, a), 0);
    }

    #[test]
    fn cutoffs_make_killers_and_bounded_history() {
        let mut h = History::new();
        let a = knight(Square::G1, Square::F3);
        let b = knight(Square::B1, Square::C3);
        for _ in 0..1000 {
            h.update_cutoff(Color::White, NONE, 3, 20, a, &[b, a]);
        }
        assert_eq!(h.killers(3)[0], PackedMove::new(a));
        assert!(
            h.score(Color::White, NONE, a) > 0 && h.score(Color::White, NONE, a) <= HISTORY_MAX
        );
        assert!(
            h.score(Color::White, NONE, b) < 0 && h.score(Color::White, NONE, b) >= -HISTORY_MAX
        );
        assert_eq!(h.score(Color::Black, NONE, a), 0);
    }

    #[test]
    fn bonus_grows_to_depth_13_then_drops_and_one_deep_cutoff_moves_the_table() {
        assert_eq!(bonus(1), 16);
        assert_eq!(bonus(3), 400);
        assert_eq!(bonus(13), 4240);
        assert_eq!(bonus(14), 32);
        assert!((1..13).all(|d| bonus(d) < bonus(d + 1)));
        let mut h = History::new();
        let a = knight(Square::G1, Square::F3);
        h.update_cutoff(Color::White, NONE, 0, 8, a, &[]);
        assert_eq!(h.score(Color::White, NONE, a), bonus(8));
        // Gravity: the same bonus again adds less than the first time.
        h.update_cutoff(Color::White, NONE, 0, 8, a, &[]);
        assert!(h.score(Color::White, NONE, a) < 2 * bonus(8));
    }
}
