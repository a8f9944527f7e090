//! The network's inputs: one feature per (colour relative to the perspective, role, square), 768
//! per perspective. A perspective sees its own pieces in the first half and on its own ranks:
//! `idx = 384 · (colour ≠ perspective) + 64 · (role − 1) + (perspective = white ? sq : sq ^ 56)`
//! (see `docs/nnue.md`).

use shakmaty::{Board, Color, Piece, Square};

/// Features per perspective.
pub const INPUTS: usize = trine::nnue::features::INPUTS;
/// Most active features of one perspective (pieces on a legal board).
pub const MAX_ACTIVE: usize = 32;

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
