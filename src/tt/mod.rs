//! Transposition table: the one table all search threads share ([`table`]), its packed entry
//! format ([`entry`]), and what an entry proves for a node ([`cutoff`], [`stored_eval`]); the
//! mate-score adjustment between "distance from root" and "distance from node" is in
//! [`crate::score`].

pub mod entry;
pub mod table;

pub use entry::{Bound, EntryData, NewEntry, PackedMove};
pub use table::Table;

use crate::score::score_from_tt;

/// The score a TT entry proves for a node searched to `depth` at `ply` with window (`alpha`, `beta`),
/// if it proves one. Ordinary entries cut off at non-PV nodes only (so PV lines are never cut short).
/// Learned (pinned) entries hold a window — lower bound in `score`, upper bound in `eval` — and cut off
/// at any node where the window lies entirely outside (`alpha`, `beta`): such a cutoff is a bound, never
/// an exact score, so it cannot end a PV either.
#[inline]
pub fn cutoff(
    e: &EntryData,
    depth: i32,
    ply: usize,
    alpha: i32,
    beta: i32,
    pv_node: bool,
) -> Option<i32> {
    if i32::from(e.depth) < depth {
        return None;
    }
    if e.pinned {
        let lower = score_from_tt(e.score, ply);
        let upper = score_from_tt(e.eval, ply);
        return if lower >= beta {
            Some(lower)
        } else if upper <= alpha {
            Some(upper)
        } else {
            None
        };
    }
    if pv_node {
        return None;
    }
    let s = score_from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
        Bound::None => false,
    };
    cut.then_some(s)
}

/// The static evaluation stored with an entry (learned entries carry a bound there instead).
#[inline]
pub fn stored_eval(e: &EntryData) -> Option<i32> {
    (!e.pinned).then_some(i32::from(e.eval))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(score: i16, eval: i16, depth: u8, bound: Bound, pinned: bool) -> EntryData {
        EntryData {
            mv: PackedMove::NONE,
            score,
            eval,
            depth,
            bound,
            pinned,
            generation: 0,
        }
    }

    #[test]
    fn cutoffs_respect_bounds_depth_and_pv() {
        let lower = entry(50, 0, 5, Bound::Lower, false);
        assert_eq!(cutoff(&lower, 5, 3, 10, 40, false), Some(50));
        assert_eq!(cutoff(&lower, 6, 3, 10, 40, false), None, "too shallow");
        assert_eq!(cutoff(&lower, 5, 3, 10, 60, false), None, "below beta");
        assert_eq!(
            cutoff(&lower, 5, 3, 10, 40, true),
            None,
            "never at PV nodes"
        );
        let upper = entry(-5, 0, 5, Bound::Upper, false);
        assert_eq!(cutoff(&upper, 4, 3, 0, 1, false), Some(-5));
        let learned = entry(-160, -120, 9, Bound::Exact, true);
        assert_eq!(
            cutoff(&learned, 2, 2, -100, 50, true),
            Some(-120),
            "upper bound below alpha"
        );
        assert_eq!(
            cutoff(&learned, 2, 2, -300, -200, true),
            Some(-160),
            "lower bound above beta"
        );
        assert_eq!(
            cutoff(&learned, 2, 2, -150, -130, false),
            None,
            "window straddles"
        );
        assert_eq!(stored_eval(&learned), None);
        assert_eq!(stored_eval(&lower), Some(0));
    }
}
