//! Transposition table: the one table all search threads share ([`table`]), its packed entry
//! format ([`entry`]), and mate-score adjustment between "distance from root" and "distance from node".

pub mod entry;
pub mod table;

pub use entry::{Bound, EntryData, PackedMove};
pub use table::Table;

use crate::search::{MATE, MATE_BOUND};

/// Converts a score from the search (mate distance from the root) to a stored score (from the node).
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i16 {
    let s = if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    };
    s.clamp(-MATE, MATE) as i16
}

/// Converts a stored score back to the search's convention at `ply`.
#[inline]
pub fn score_from_tt(score: i16, ply: usize) -> i32 {
    let s = i32::from(score);
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}
