//! The network's input features: one per (colour relative to a perspective, role, square), 768 per
//! perspective and king bucket, indexed as docs/nnue.md fixes. A network with king buckets has a
//! block of 768 rows per bucket; a perspective's king square (on its own ranks) picks the block.

use shakmaty::{Bitboard, Board, Color, Role, Square};

/// Features per perspective and king bucket.
pub const INPUTS: usize = 768;

/// The square `sq` as `perspective` sees it: Black's view is flipped vertically, so that each side
/// sees its pieces on its own ranks.
#[inline(always)]
pub fn relative(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

/// The first feature of `perspective`'s king bucket on `board`: `INPUTS ·` the bucket that
/// `king_map` gives the perspective's king square (on its own ranks), 0 without a king.
#[inline(always)]
pub fn king_offset(king_map: &[u8; 64], board: &Board, perspective: Color) -> usize {
    board.king_of(perspective).map_or(0, |k| {
        INPUTS * usize::from(king_map[relative(perspective, k)])
    })
}

/// Index of the feature "piece of colour `piece`, role `role` on `sq`" seen from `perspective`:
/// the perspective's own pieces come first, and Black's view is flipped vertically so that each
/// side sees its pieces on its own ranks.
#[inline(always)]
pub fn index(perspective: Color, piece: Color, role: Role, sq: Square) -> usize {
    384 * usize::from(piece != perspective) + 64 * (role as usize - 1) + relative(perspective, sq)
}

/// The squares whose content (empty, or a piece of some colour and role) differs between two
/// boards.
#[inline(always)]
pub fn changed_squares(a: &Board, b: &Board) -> Bitboard {
    let mut s = a.white() ^ b.white();
    for r in Role::ALL {
        s |= a.by_role(r) ^ b.by_role(r);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_the_documented_layout() {
        assert_eq!(
            index(Color::White, Color::White, Role::King, Square::E1),
            324
        );
        assert_eq!(
            index(Color::Black, Color::White, Role::King, Square::E1),
            764
        );
        assert_eq!(index(Color::Black, Color::Black, Role::Pawn, Square::A7), 8);
        assert_eq!(
            index(Color::White, Color::Black, Role::Pawn, Square::A7),
            384 + 48
        );
        let mut seen = [false; INPUTS];
        for p in Color::ALL {
            for c in Color::ALL {
                for r in Role::ALL {
                    for sq in Square::ALL {
                        if p == Color::White {
                            let i = index(p, c, r, sq);
                            assert!(!seen[i]);
                            seen[i] = true;
                        }
                        assert!(index(p, c, r, sq) < INPUTS);
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
