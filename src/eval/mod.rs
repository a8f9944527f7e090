//! Static evaluation: a tapered (midgame/endgame) sum of material and piece-square terms plus a
//! bishop-pair bonus and a tempo bonus, from the side to move's point of view. Every weight lives in
//! one [`EvalParams`] struct ([`params`]) so a tuner can read and write them.

pub mod params;

use shakmaty::{Bitboard, Chess, Color, Position, Role, Square};

pub use params::{EvalParams, DEFAULT_PARAMS};

/// Game phase weight of each role (pawn, knight, bishop, rook, queen, king); 24 = all pieces on.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// Phase of the opening position.
pub const MAX_PHASE: i32 = 24;

/// A midgame/endgame pair of scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Midgame value.
    pub mg: i32,
    /// Endgame value.
    pub eg: i32,
}

impl Score {
    fn add(&mut self, mg: i32, eg: i32) {
        self.mg += mg;
        self.eg += eg;
    }
}

/// Square index as seen from `color`'s side (white's table read upside down for black).
#[inline]
fn relative(sq: Square, color: Color) -> usize {
    match color {
        Color::White => usize::from(sq),
        Color::Black => usize::from(sq) ^ 56,
    }
}

/// Evaluates `pos` from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Chess) -> i32 {
    evaluate_with(pos, &DEFAULT_PARAMS)
}

/// Evaluates with explicit parameters (the tuner's entry point).
pub fn evaluate_with(pos: &Chess, p: &EvalParams) -> i32 {
    let board = pos.board();
    let mut total = Score::default();
    let mut phase = 0;
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        let ours = board.by_color(color);
        let mut side = Score::default();
        for role in Role::ALL {
            let r = role as usize - 1;
            let pieces: Bitboard = board.by_role(role) & ours;
            for sq in pieces {
                let i = relative(sq, color);
                side.add(
                    p.material_mg[r] + p.pst_mg[r][i],
                    p.material_eg[r] + p.pst_eg[r][i],
                );
                phase += PHASE_WEIGHT[r];
            }
        }
        if (board.bishops() & ours).count() >= 2 {
            side.add(p.bishop_pair.mg, p.bishop_pair.eg);
        }
        total.add(sign * side.mg, sign * side.eg);
    }
    let phase = phase.min(MAX_PHASE);
    let blended = (total.mg * phase + total.eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let stm = if pos.turn() == Color::White {
        blended
    } else {
        -blended
    };
    stm + p.tempo
}

/// Piece values used by move ordering and SEE (midgame material).
pub const SEE_VALUE: [i32; 7] = [0, 100, 320, 330, 500, 950, 20000];

/// SEE/MVV value of a role.
#[inline]
pub fn see_value(role: Role) -> i32 {
    SEE_VALUE[role as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{fen::Fen, CastlingMode};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// Mirrors a FEN vertically and swaps colours.
    fn flip(fen: &str) -> String {
        let parts: Vec<&str> = fen.split_whitespace().collect();
        let board: Vec<String> = parts[0]
            .split('/')
            .rev()
            .map(|rank| {
                rank.chars()
                    .map(|c| {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    })
                    .collect()
            })
            .collect();
        let turn = if parts[1] == "w" { "b" } else { "w" };
        format!("{} {} - - 0 1", board.join("/"), turn)
    }

    #[test]
    fn colour_flip_symmetry() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        ] {
            assert_eq!(evaluate(&pos(fen)), evaluate(&pos(&flip(fen))), "{fen}");
        }
    }

    #[test]
    fn material_matters() {
        let up_a_queen = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
        assert!(evaluate(&up_a_queen) > 700);
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
        assert!(evaluate(&start).abs() < 50);
    }
}
