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

/// Most pieces a board holds ([`crate::board::Board::from_fen`] refuses more), so most features
/// one perspective has.
pub const MAX_PIECES: usize = crate::board::MAX_PIECES;

/// The feature rows that take `old` to `new` for each of `N` perspectives, given as (perspective,
/// its king-bucket offset): on each square of `squares` (those where the boards differ), the old
/// piece's row (if any) is written to `subs` and the new piece's (if any) to `adds`, one array a
/// perspective. Returns how many rows of each were written (the same for every perspective).
#[inline(always)]
pub fn diff<const N: usize>(
    old: &Board,
    new: &Board,
    squares: Bitboard,
    views: [(Color, usize); N],
    subs: &mut [[u16; MAX_PIECES]; N],
    adds: &mut [[u16; MAX_PIECES]; N],
) -> (usize, usize) {
    let (mut ns, mut na) = (0, 0);
    for sq in squares {
        if let Some(p) = old.piece_at(sq) {
            for (subs, &(view, offset)) in subs.iter_mut().zip(&views) {
                subs[ns] = (offset + index(view, p.color, p.role, sq)) as u16;
            }
            ns += 1;
        }
        if let Some(p) = new.piece_at(sq) {
            for (adds, &(view, offset)) in adds.iter_mut().zip(&views) {
                adds[na] = (offset + index(view, p.color, p.role, sq)) as u16;
            }
            na += 1;
        }
    }
    (ns, na)
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

    #[test]
    fn a_diff_lists_each_view_s_rows_of_the_pieces_that_left_and_arrived() {
        let before = Board::default();
        let mut after = before.clone();
        // 1. e4 d5 2. exd5: the white pawn leaves e2, the black one d7, and d5 changes hands.
        after.discard_piece_at(Square::E2);
        after.discard_piece_at(Square::D7);
        after.set_piece_at(Square::D5, Color::White.pawn());
        let squares = changed_squares(&before, &after);
        assert_eq!(
            squares,
            Bitboard::from(Square::E2) | Square::D7 | Square::D5
        );
        let views = [(Color::White, 0), (Color::Black, INPUTS)];
        let (mut subs, mut adds) = ([[0; MAX_PIECES]; 2], [[0; MAX_PIECES]; 2]);
        let (ns, na) = diff(&before, &after, squares, views, &mut subs, &mut adds);
        assert_eq!((ns, na), (2, 1));
        for (k, (view, offset)) in views.into_iter().enumerate() {
            let row = |c: Color, sq| (offset + index(view, c, Role::Pawn, sq)) as u16;
            let mut left = subs[k][..ns].to_vec();
            left.sort_unstable();
            let mut expected = vec![row(Color::White, Square::E2), row(Color::Black, Square::D7)];
            expected.sort_unstable();
            assert_eq!(left, expected, "{view:?}");
            assert_eq!(adds[k][..na], [row(Color::White, Square::D5)], "{view:?}");
        }
    }
}
