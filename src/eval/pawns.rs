//! Pawn structure: passed, candidate passed, isolated, doubled, backward and connected pawns
//! (phalanxes and the number of defending pawns on top; isolated and backward pawns once more when
//! no enemy pawn stands ahead on their file, and corrected by file and by rank), computed from the
//! two pawn bitboards alone and cached per thread in a small pawn hash table keyed by those
//! bitboards (an exact key: no collisions). The passers found here are also handed to the terms
//! that need the rest of the board (blocked passers, king distances, complexity).

use std::cell::RefCell;

use shakmaty::{Bitboard, Color, Square};

use super::params::{
    BACKWARD, BACKWARD_RANK, CANDIDATE_PASSER, CONNECTED, DOUBLED, ISOLATED, ISOLATED_FILE, PASSED,
    PAWN_SUPPORTERS, PHALANX, S, WEAK_UNOPPOSED,
};
use super::Acc;

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// All squares of file `f`.
pub const fn file_mask(f: usize) -> u64 {
    FILE_A << f
}

/// The files beside file `f`.
pub const fn adjacent_files(f: usize) -> u64 {
    let left = if f > 0 { file_mask(f - 1) } else { 0 };
    let right = if f < 7 { file_mask(f + 1) } else { 0 };
    left | right
}

/// How far file `f` is from the board's edge: a/h = 0 … d/e = 3.
pub fn edge_distance(f: usize) -> usize {
    f.min(7 - f)
}

/// Ranks strictly ahead of `rank` for white (`white` true) or black.
const fn ahead(white: bool, rank: usize) -> u64 {
    if white {
        if rank >= 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        }
    } else if rank == 0 {
        0
    } else {
        (1u64 << (8 * rank)) - 1
    }
}

const fn square_masks(kind: u8) -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let (f, r) = (sq % 8, sq / 8);
            let fwd = ahead(c == 0, r);
            t[c][sq] = match kind {
                // Squares a pawn must not meet an enemy pawn on to be passed.
                0 => fwd & (file_mask(f) | adjacent_files(f)),
                // The file ahead of the pawn.
                1 => fwd & file_mask(f),
                // Adjacent files, this rank and behind (where supporting pawns stand).
                _ => !fwd & adjacent_files(f),
            };
            sq += 1;
        }
        c += 1;
    }
    t
}

/// Passed-pawn span per colour (0 = white) and square.
pub const PASSED_SPAN: [[u64; 64]; 2] = square_masks(0);
/// The file ahead of a square per colour.
pub const FRONT_FILE: [[u64; 64]; 2] = square_masks(1);
const SUPPORT_SPAN: [[u64; 64]; 2] = square_masks(2);

pub use crate::board::pawn_attacks;

/// The squares one step ahead of `color`'s pawns in `pawns` (occupied or not).
#[inline]
pub fn pawn_pushes(color: Color, pawns: Bitboard) -> Bitboard {
    Bitboard(match color {
        Color::White => pawns.0 << 8,
        Color::Black => pawns.0 >> 8,
    })
}

/// Rank of `sq` from `color`'s side (0 = own back rank).
#[inline]
pub fn relative_rank(sq: Square, color: Color) -> usize {
    let r = usize::from(sq) / 8;
    match color {
        Color::White => r,
        Color::Black => 7 - r,
    }
}

/// The square in front of a pawn on `sq` (white's pawns move up the board); `None` on the last
/// rank.
#[inline]
pub fn stop_square(sq: Square, white: bool) -> Option<Square> {
    if white {
        sq.offset(8)
    } else {
        sq.offset(-8)
    }
}

/// Adds the pawn-structure terms of both sides to `acc`; returns each side's passers
/// (index 0 = white).
pub fn evaluate<A: Acc>(
    white_pawns: Bitboard,
    black_pawns: Bitboard,
    acc: &mut A,
) -> [Bitboard; 2] {
    let mut passers = [Bitboard(0); 2];
    for color in Color::ALL {
        let (ours, theirs) = match color {
            Color::White => (white_pawns, black_pawns),
            Color::Black => (black_pawns, white_pawns),
        };
        let white = color == Color::White;
        let c = usize::from(!white);
        let our_attacks = pawn_attacks(color, ours);
        let their_attacks = pawn_attacks(!color, theirs);
        for sq in ours {
            let i = usize::from(sq);
            let f = i % 8;
            let rank = relative_rank(sq, color);
            let front = FRONT_FILE[c][i];
            let unopposed = front & theirs.0 == 0;
            let doubled = front & ours.0 != 0;
            if PASSED_SPAN[c][i] & theirs.0 == 0 && !doubled {
                acc.add(white, PASSED + rank, 1);
                passers[c].add(sq);
            } else if unopposed
                && !doubled
                && (SUPPORT_SPAN[c][i] & ours.0).count_ones()
                    >= (PASSED_SPAN[c][i] & theirs.0).count_ones()
            {
                acc.add(white, CANDIDATE_PASSER + rank, 1);
            }
            if doubled {
                acc.add(white, DOUBLED, 1);
            }
            if adjacent_files(f) & ours.0 == 0 {
                acc.add(white, ISOLATED, 1);
                acc.add(white, ISOLATED_FILE + edge_distance(f), 1);
                if unopposed {
                    acc.add(white, WEAK_UNOPPOSED, 1);
                }
            } else if SUPPORT_SPAN[c][i] & ours.0 == 0
                && stop_square(sq, white).is_some_and(|stop| their_attacks.contains(stop))
            {
                acc.add(white, BACKWARD, 1);
                acc.add(white, BACKWARD_RANK + rank, 1);
                if unopposed {
                    acc.add(white, WEAK_UNOPPOSED + 1, 1);
                }
            }
            let phalanx = adjacent_files(f) & (0xFFu64 << (8 * (i / 8))) & ours.0 != 0;
            if phalanx || our_attacks.contains(sq) {
                acc.add(white, CONNECTED + rank, 1);
            }
            if phalanx {
                acc.add(white, PHALANX + rank, 1);
            }
            let supporters = (shakmaty::attacks::pawn_attacks(!color, sq) & ours).count();
            if supporters > 0 {
                acc.add(white, PAWN_SUPPORTERS, supporters as i32);
            }
        }
    }
    passers
}

#[derive(Clone, Copy, Default)]
struct Entry {
    white: u64,
    black: u64,
    score: S,
    passers: [Bitboard; 2],
    /// The king squares `shelter` was computed for ([`king_key`]).
    kings: u16,
    /// The [`super::shelter`] terms for those kings.
    shelter: S,
}

/// Both king squares in one number (64 stands for a missing king).
#[inline]
fn king_key(kings: [Option<Square>; 2]) -> u16 {
    let sq = |k: Option<Square>| k.map_or(64, |s| u16::from(s as u8));
    (sq(kings[0]) << 7) | sq(kings[1])
}

/// Entries in each thread's pawn hash table (a power of two).
const ENTRIES: usize = 1 << 14;

/// A thread's pawn hash table: pawn-structure score and passers by pawn bitboards, with the
/// king shelter score of the last king squares seen with that structure.
pub struct PawnTable {
    entries: Box<[Entry]>,
}

impl PawnTable {
    fn new() -> PawnTable {
        let mut entries = vec![Entry::default(); ENTRIES].into_boxed_slice();
        // Slot 0's all-zero key would match a position without pawns before it is ever stored.
        for e in entries.iter_mut() {
            e.white = u64::MAX;
        }
        PawnTable { entries }
    }

    #[inline]
    fn slot(white: Bitboard, black: Bitboard) -> usize {
        (crate::board::pawn_hash(white, black) >> (64 - ENTRIES.trailing_zeros())) as usize
    }
}

thread_local! {
    static TABLE: RefCell<PawnTable> = RefCell::new(PawnTable::new());
}

/// Pawn-structure plus king-shelter score (white's view) and passers with the engine's weights,
/// from this thread's pawn hash table when the structure (and, for the shelter, the king squares)
/// was seen before.
pub fn cached(
    white_pawns: Bitboard,
    black_pawns: Bitboard,
    kings: [Option<Square>; 2],
    w: &[i64; super::params::LEN],
) -> (S, [Bitboard; 2]) {
    TABLE.with_borrow_mut(|t| {
        let slot = PawnTable::slot(white_pawns, black_pawns);
        let e = &mut t.entries[slot];
        let key = king_key(kings);
        if e.white != white_pawns.0 || e.black != black_pawns.0 {
            let mut sum = super::Sum::new(w);
            let passers = evaluate(white_pawns, black_pawns, &mut sum);
            *e = Entry {
                white: white_pawns.0,
                black: black_pawns.0,
                score: sum.score(),
                passers,
                kings: u16::MAX,
                shelter: S::default(),
            };
        }
        if e.kings != key {
            let mut sum = super::Sum::new(w);
            super::shelter::evaluate([white_pawns, black_pawns], kings, &mut sum);
            e.kings = key;
            e.shelter = sum.score();
        }
        let total = S {
            mg: e.score.mg + e.shelter.mg,
            eg: e.score.eg + e.shelter.eg,
        };
        (total, e.passers)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Coeffs;
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

    fn terms(fen: &str) -> (Coeffs, [Bitboard; 2]) {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let b = pos.board();
        let mut c = Coeffs::new();
        let p = evaluate(b.pawns() & b.white(), b.pawns() & b.black(), &mut c);
        (c, p)
    }

    #[test]
    fn structure_terms_are_found() {
        // White a2 b3 d4 d5 h4, black e7 g7.
        let (c, p) = terms("4k3/4p1p1/8/3P4/3P3P/1P6/P7/4K3 w - - 0 1");
        assert_eq!(
            p[0],
            Bitboard::from_square(Square::A2) | Bitboard::from_square(Square::B3)
        );
        assert!(p[1].is_empty(), "d4/d5 and h4 stop e7 and g7");
        assert_eq!(c.get(DOUBLED), 1, "d4 has d5 ahead");
        assert_eq!(c.get(ISOLATED), 3 - 2, "d4 d5 h4 against e7 g7");
        assert_eq!(c.get(ISOLATED_FILE + 3), 2 - 1, "d4 d5 against e7");
        assert_eq!(c.get(ISOLATED_FILE), 1, "h4");
        assert_eq!(c.get(ISOLATED_FILE + 1), -1, "g7");
        assert_eq!(c.get(CONNECTED + 2), 1, "a2 defends b3");
        assert_eq!(c.get(PASSED + 1) + c.get(PASSED + 2), 2);
        let (c, p) = terms("4k3/6p1/8/3P4/8/8/8/4K3 w - - 0 1");
        assert_eq!(p[0], Bitboard::from_square(Square::D5));
        assert_eq!(p[1], Bitboard::from_square(Square::G7));
        assert_eq!(c.get(PASSED + 4), 1);
        assert_eq!(c.get(PASSED + 1), -1, "black's g7 is on its second rank");
        // e3 cannot be supported (d4 is ahead) and f5 attacks e4: backward.
        let (c, _) = terms("4k3/8/8/5p2/3P4/4P3/8/4K3 w - - 0 1");
        assert_eq!(c.get(BACKWARD), 1);
        assert_eq!(c.get(BACKWARD_RANK + 2), 1, "e3 is on white's third rank");
    }

    #[test]
    fn cache_agrees_with_a_fresh_computation() {
        let w = &crate::eval::PACKED;
        let wp = Bitboard(0x0000_0000_1824_C300);
        let bp = Bitboard(0x00C3_2418_0000_0000);
        // The same structure with the kings on g1/g8, then on c1/g8 (only the shelter changes),
        // then back: each lookup must equal a fresh computation.
        for kings in [
            [Some(Square::G1), Some(Square::G8)],
            [Some(Square::C1), Some(Square::G8)],
            [Some(Square::G1), Some(Square::G8)],
        ] {
            let mut sum = crate::eval::Sum::new(w);
            let passers = evaluate(wp, bp, &mut sum);
            crate::eval::shelter::evaluate([wp, bp], kings, &mut sum);
            for _ in 0..2 {
                let (score, p) = cached(wp, bp, kings, w);
                assert_eq!(score, sum.score());
                assert_eq!(p, passers);
            }
        }
    }
}
