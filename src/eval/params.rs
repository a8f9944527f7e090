//! The evaluation's weights, all in one struct: material and piece-square tables (midgame and
//! endgame, from white's side, a1 = index 0), bishop pair and tempo. The default tables are built
//! from simple shape rules (advance pawns, centralise minor pieces and the endgame king, keep the
//! midgame king home) and are the starting point that tuning replaces.

use super::Score;

/// Every evaluation weight.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalParams {
    /// Material, midgame, by role (pawn..king).
    pub material_mg: [i32; 6],
    /// Material, endgame, by role.
    pub material_eg: [i32; 6],
    /// Piece-square bonuses, midgame, by role and square (white's view).
    pub pst_mg: [[i32; 64]; 6],
    /// Piece-square bonuses, endgame.
    pub pst_eg: [[i32; 64]; 6],
    /// Bonus for owning two or more bishops.
    pub bishop_pair: Score,
    /// Bonus for the side to move.
    pub tempo: i32,
}

const fn abs(x: i32) -> i32 {
    if x < 0 {
        -x
    } else {
        x
    }
}

/// Distance from the centre in a 0..=6 scale (0 for d4/e4/d5/e5, 6 for the corners).
const fn centre_distance(sq: usize) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let df = if file < 4 { 3 - file } else { file - 4 };
    let dr = if rank < 4 { 3 - rank } else { rank - 4 };
    df + dr
}

const fn table(role: usize, endgame: bool) -> [i32; 64] {
    let mut t = [0i32; 64];
    let mut sq = 0;
    while sq < 64 {
        let file = (sq % 8) as i32;
        let rank = (sq / 8) as i32;
        let centre = centre_distance(sq);
        t[sq] = match role {
            // Pawns: push, especially the centre pawns in the midgame; passers-to-be in the endgame.
            0 => {
                if rank == 0 || rank == 7 {
                    0
                } else if endgame {
                    [0, 0, 5, 12, 25, 45, 80, 0][rank as usize]
                } else {
                    let central = if file == 3 || file == 4 { 8 } else { 0 };
                    [0, 0, 2, 6, 12, 22, 45, 0][rank as usize] + central * (rank >= 3) as i32
                        - 6 * (rank == 1 && central > 0) as i32
                }
            }
            // Knights: strongly centralised.
            1 => 24 - 8 * centre,
            // Bishops: mildly centralised.
            2 => 12 - 4 * centre,
            // Rooks: seventh rank and central files in the midgame.
            3 => {
                if endgame {
                    0
                } else {
                    (if rank == 6 { 15 } else { 0 }) + 4 - abs(2 * file - 7) / 2
                }
            }
            // Queens: a little central.
            4 => 6 - 2 * centre,
            // King: home and castled in the midgame, central in the endgame.
            _ => {
                if endgame {
                    28 - 8 * centre
                } else {
                    let shelter = if file <= 2 || file >= 5 { 15 } else { 0 };
                    shelter - 25 * rank
                }
            }
        };
        sq += 1;
    }
    t
}

const fn tables(endgame: bool) -> [[i32; 64]; 6] {
    [
        table(0, endgame),
        table(1, endgame),
        table(2, endgame),
        table(3, endgame),
        table(4, endgame),
        table(5, endgame),
    ]
}

/// The weights the engine plays with.
pub const DEFAULT_PARAMS: EvalParams = EvalParams {
    material_mg: [100, 320, 330, 480, 950, 0],
    material_eg: [120, 300, 320, 530, 1000, 0],
    pst_mg: tables(false),
    pst_eg: tables(true),
    bishop_pair: Score { mg: 30, eg: 50 },
    tempo: 10,
};
