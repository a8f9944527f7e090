//! King shelter and pawn storm: for each king, its own pawns in front of it and the enemy pawns
//! coming at it (by rank, with a correction by file: the king's own file or not, and the distance
//! to the edge), pawnless flanks, open files and the distance to its nearest own pawn. These terms
//! read only the pawns and the two king squares, so the pawn hash table
//! ([`super::pawns::cached`]) keeps their score beside the pawn structure's and recomputes it only
//! when a king has moved.

use shakmaty::{Bitboard, Color, Square};

use super::params::{
    KING_OPEN_FILE, KING_PAWNLESS_FLANK, KING_PAWN_DISTANCE, KING_SEMI_OPEN_FILE, PAWN_STORM,
    PAWN_STORM_BLOCKED, SHELTER, SHELTER_FILE, STORM_FILE,
};
use super::pawns::{edge_distance, file_mask, relative_rank, stop_square};
use super::Acc;

/// The files of the king's flank, by the king's file: a-d, c-f or e-h.
const KING_FLANK: [u64; 8] = {
    const A: u64 = 0x0101_0101_0101_0101;
    let (queenside, centre, kingside) = (A * 0x0F, A * 0x3C, A * 0xF0);
    [
        queenside, queenside, queenside, centre, centre, kingside, kingside, kingside,
    ]
};

/// The squares at each king distance (0..=7) from each square.
const KING_RINGS: [[u64; 8]; 64] = {
    let mut t = [[0u64; 8]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let d = Square::new(a).distance(Square::new(b));
            t[a as usize][d as usize] |= 1 << b;
            b += 1;
        }
        a += 1;
    }
    t
};

/// Adds both kings' shelter, storm, flank and file terms to `acc`; `kings[0]` is white's king.
pub fn evaluate<A: Acc>(pawns: [Bitboard; 2], kings: [Option<Square>; 2], acc: &mut A) {
    let all_pawns = pawns[0] | pawns[1];
    for color in Color::ALL {
        let c = usize::from(color == Color::Black);
        let white = color == Color::White;
        let Some(k) = kings[c] else {
            continue;
        };
        let (ours, theirs) = (pawns[c], pawns[1 - c]);
        let kf = usize::from(k) % 8;
        // Squares on our king's rank and ahead of it (from our side), and strictly ahead.
        let kr = usize::from(k) / 8;
        let (level_or_ahead, ahead) = if white {
            (!0u64 << (8 * kr), (!0u64 << (8 * kr)) << 8)
        } else {
            (!0u64 >> (8 * (7 - kr)), (!0u64 >> (8 * (7 - kr))) >> 8)
        };
        // The pawn of `set` nearest our back rank (lowest square for white, highest for black).
        let nearest = |set: u64| {
            let set = Bitboard(set);
            if white {
                set.first()
            } else {
                set.last()
            }
        };
        for f in kf.clamp(1, 6) - 1..=kf.clamp(1, 6) + 1 {
            let file = file_mask(f);
            // 8 per file from the edge; the shelter adds 32 on the king's own file.
            let edge = 8 * edge_distance(f);
            let shelter = nearest(ours.0 & file & level_or_ahead);
            let rank = shelter.map_or(0, |p| relative_rank(p, color));
            acc.add(white, SHELTER + rank, 1);
            acc.add(
                white,
                SHELTER_FILE + 32 * usize::from(f == kf) + edge + rank,
                1,
            );
            match nearest(theirs.0 & file & ahead) {
                None => {
                    acc.add(white, PAWN_STORM, 1);
                    acc.add(white, STORM_FILE + edge, 1);
                }
                Some(p) => {
                    let blocked = stop_square(p, !white).is_some_and(|s| ours.contains(s));
                    let group = if blocked {
                        PAWN_STORM_BLOCKED
                    } else {
                        PAWN_STORM
                    };
                    let rank = relative_rank(p, color);
                    acc.add(white, group + rank, 1);
                    acc.add(
                        white,
                        STORM_FILE + 32 * usize::from(blocked) + edge + rank,
                        1,
                    );
                }
            }
        }
        if ours.any() {
            let rings = &KING_RINGS[usize::from(k)];
            let d = (1..8).find(|&d| ours.0 & rings[d] != 0).unwrap_or(7);
            acc.add(white, KING_PAWN_DISTANCE + d, 1);
        }
        if all_pawns.0 & KING_FLANK[kf] == 0 {
            acc.add(white, KING_PAWNLESS_FLANK, 1);
        }
        let file = file_mask(kf);
        if all_pawns.0 & file == 0 {
            acc.add(white, KING_OPEN_FILE, 1);
        } else if ours.0 & file == 0 {
            acc.add(white, KING_SEMI_OPEN_FILE, 1);
        }
    }
}
