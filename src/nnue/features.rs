//! The network's input features: one per (colour relative to a perspective, role, square), 768 per
//! perspective, indexed as docs/nnue.md fixes.

use shakmaty::{Color, Role, Square};

/// Features per perspective.
pub const INPUTS: usize = 768;

/// Index of the feature "piece of colour `piece`, role `role` on `sq`" seen from `perspective`:
/// the perspective's own pieces come first, and Black's view is flipped vertically so that each
/// side sees its pieces on its own ranks.
#[inline(always)]
pub fn index(perspective: Color, piece: Color, role: Role, sq: Square) -> usize {
    let s = match perspective {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    };
    384 * usize::from(piece != perspective) + 64 * (role as usize - 1) + s
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
