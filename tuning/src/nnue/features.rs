//! The network's inputs: one feature per (colour relative to the perspective, role, square), 768
//! per perspective. A perspective sees its own pieces in the first half and on its own ranks:
//! `idx = 384 · (colour ≠ perspective) + 64 · (role − 1) + (perspective = white ? sq : sq ^ 56)`
//! (see `docs/nnue.md`).

use shakmaty::{Board, Color, Piece, Square};

/// Features per perspective.
pub const INPUTS: usize = trine::nnue::features::INPUTS;
/// Most active features of one perspective (pieces on a legal board).
pub const MAX_ACTIVE: usize = 32;

/// A network's king buckets: how many, and the bucket of each king square on the perspective's
/// own ranks (the engine's file format, version 3, stores both). A perspective's features are
/// rows `INPUTS · bucket + index` of W1, the bucket picked by the perspective's own king.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingBuckets {
    /// Number of buckets K (1: no king buckets).
    pub count: usize,
    /// The bucket of each relative king square (a1 = 0 … h8 = 63), each below `count`.
    pub map: [u8; 64],
}

/// The own king's features: `384 · 0 + 64 · (6 − 1) + square`.
const OWN_KING: std::ops::Range<u16> = 320..384;

impl KingBuckets {
    /// One bucket: every king square shares one block of W1 (format versions 1 and 2).
    pub const NONE: KingBuckets = KingBuckets {
        count: 1,
        map: [0; 64],
    };

    /// The trainer's layouts (`--king-buckets`), by the king's square on its own ranks: 1 (none);
    /// 4 (ranks 1–2 or 3–8, files a–d or e–h); 8 (on the first rank files a–b, c–d, e–f and g–h,
    /// then ranks 2 and 3–8 each split into files a–d and e–h).
    pub fn layout(count: usize) -> Result<KingBuckets, String> {
        let bucket = |sq: usize| -> usize {
            let (file, rank) = (sq % 8, sq / 8);
            match count {
                4 => 2 * usize::from(rank >= 2) + usize::from(file >= 4),
                8 => match rank {
                    0 => file / 2,
                    1 => 4 + usize::from(file >= 4),
                    _ => 6 + usize::from(file >= 4),
                },
                _ => 0,
            }
        };
        if ![1, 4, 8].contains(&count) {
            return Err(format!("king bucket count {count} is not 1, 4 or 8"));
        }
        Ok(KingBuckets {
            count,
            map: std::array::from_fn(|sq| bucket(sq) as u8),
        })
    }

    /// The first W1 row of the perspective whose active features are `features` (its own king's
    /// feature gives the square): `INPUTS ·` its bucket; 0 with one bucket or no king.
    #[inline]
    pub fn row_offset(&self, features: &[u16]) -> usize {
        if self.count == 1 {
            return 0;
        }
        features
            .iter()
            .find(|f| OWN_KING.contains(f))
            .map_or(0, |&f| {
                INPUTS * usize::from(self.map[usize::from(f - OWN_KING.start)])
            })
    }
}

/// Index of `piece` on `sq` seen from `perspective`: the engine's own indexing
/// (`trine::nnue::features::index`), so trainer and engine cannot disagree.
#[inline]
pub fn index(perspective: Color, piece: Piece, sq: Square) -> u16 {
    trine::nnue::features::index(perspective, piece.color, piece.role, sq) as u16
}

/// Appends the active features of `board` seen from `perspective` to `out`, in square order.
pub fn push_active(board: &Board, perspective: Color, out: &mut Vec<u16>) {
    out.extend(
        board
            .iter()
            .map(|(sq, piece)| index(perspective, piece, sq)),
    );
}

/// The active features of `board` seen from `perspective`, in square order.
pub fn active(board: &Board, perspective: Color) -> Vec<u16> {
    let mut out = Vec::with_capacity(MAX_ACTIVE);
    push_active(board, perspective, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn king_buckets_follow_the_documented_layouts_and_the_engines_offsets() {
        use Square::{A1, A8, C1, D2, E1, E2, H1, H3};
        assert!(KingBuckets::layout(3).is_err() && KingBuckets::layout(0).is_err());
        assert_eq!(KingBuckets::layout(1).unwrap(), KingBuckets::NONE);
        let eight = KingBuckets::layout(8).unwrap();
        let squares = [A1, C1, E1, H1, D2, E2, A8, H3];
        for (bucket, sq) in squares.into_iter().enumerate() {
            assert_eq!(usize::from(eight.map[sq as usize]), bucket, "{sq}");
        }
        let four = KingBuckets::layout(4).unwrap();
        assert_eq!(
            [Square::B2, Square::G1, Square::C3, Square::E8].map(|s| four.map[s as usize]),
            [0, 1, 2, 3]
        );
        // The trainer's row offset of a feature list is the engine's offset of the board, from
        // either perspective (Black's king on g8 is on its own g1).
        let fen: shakmaty::fen::Fen = "6k1/5ppp/8/8/8/8/PP6/2K5 b - - 0 1".parse().unwrap();
        let pos: shakmaty::Chess = fen.into_position(shakmaty::CastlingMode::Standard).unwrap();
        for p in [Color::White, Color::Black] {
            let offset = eight.row_offset(&active(pos.board(), p));
            assert_eq!(
                offset,
                trine::nnue::features::king_offset(&eight.map, pos.board(), p)
            );
            assert_eq!(KingBuckets::NONE.row_offset(&active(pos.board(), p)), 0);
        }
        assert_eq!(eight.row_offset(&active(pos.board(), Color::White)), INPUTS);
        assert_eq!(
            eight.row_offset(&active(pos.board(), Color::Black)),
            3 * INPUTS
        );
    }
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, Role};

    fn sorted(mut v: Vec<u16>) -> Vec<u16> {
        v.sort_unstable();
        v
    }

    #[test]
    fn a_known_piece_has_a_known_index() {
        let king = Piece {
            color: Color::White,
            role: Role::King,
        };
        assert_eq!(index(Color::White, king, Square::E1), 324);
        assert_eq!(index(Color::Black, king, Square::E1), 384 + 320 + (4 ^ 56));
        assert_eq!(index(Color::Black, king, Square::E1), 764);
        let pawn = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        // Black's pawn on a7 is "ours" on the second rank from black's side: a2 = 8.
        assert_eq!(index(Color::Black, pawn, Square::A7), 8);
        assert_eq!(index(Color::White, pawn, Square::A7), 384 + 48);
    }

    #[test]
    fn the_start_position_looks_the_same_to_the_side_to_move_after_a_colour_flip() {
        let start = Chess::default();
        let white = sorted(active(start.board(), Color::White));
        assert_eq!(white.len(), 32);
        // The colour-flipped start position: the board mirrored, colours swapped, black to move.
        let fen: Fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
            .parse()
            .unwrap();
        let flipped: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let mirrored = start.to_setup(EnPassantMode::Legal).into_mirrored();
        assert_eq!(mirrored.board, flipped.board().clone());
        assert_eq!(mirrored.turn, Color::Black);
        assert_eq!(white, sorted(active(flipped.board(), Color::Black)));
        // And the other perspective of each too (the start position is symmetric, so this is
        // also black's view of the original).
        assert_eq!(
            sorted(active(start.board(), Color::Black)),
            sorted(active(flipped.board(), Color::White))
        );
    }

    #[test]
    fn a_lopsided_position_maps_between_perspectives() {
        // Each piece's index from one perspective equals its colour-flipped twin's from the other.
        let fen: Fen = "4k3/8/3q4/8/2N5/8/5PPP/6K1 w - - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        setup.mirror();
        let flipped: Chess = setup.position(CastlingMode::Standard).unwrap();
        assert_eq!(
            sorted(active(pos.board(), Color::White)),
            sorted(active(flipped.board(), Color::Black))
        );
        assert_eq!(
            sorted(active(pos.board(), Color::Black)),
            sorted(active(flipped.board(), Color::White))
        );
        assert_ne!(
            sorted(active(pos.board(), Color::White)),
            sorted(active(pos.board(), Color::Black))
        );
    }
}
