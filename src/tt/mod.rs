//! Transposition table: the one table all search threads share ([`table`]), its packed entry
//! format ([`entry`]), and what an entry proves for a node ([`cutoff`], [`stored_eval`]); the
//! mate-score adjustment between "distance from root" and "distance from node" is in
//! [`crate::score`].

pub mod entry;
pub mod table;

pub use entry::{Bound, EntryData, NewEntry, PackedMove};
pub use table::Table;

use crate::score::{is_decisive, score_from_tt};

/// Threads from which a PV node takes a TT cutoff for a proven result (see [`cutoff`]). With two
/// threads or more, a helper's deeper mate bounds lift the master's scouts over alpha, and each
/// such move is searched again as a PV node that cannot see the mate at its depth: in a won
/// ending the re-searches multiply (king and rook against king, `trine scale --threads 2 --depth
/// 24`: up to 40 s and more at 2 threads where one thread takes about 1 s; 0.2-0.4 s with the
/// cutoff). One thread has no deeper bounds to read, and there the rule measured -10.1 Elo
/// (docs/scaling.md, "A runaway search in a won ending"), so one thread searches without it.
pub const PROVEN_PV_THREADS: usize = 2;

/// The score a TT entry proves for a node searched to `depth` at `ply` with window (`alpha`, `beta`),
/// if it proves one. Ordinary entries cut off at non-PV nodes only (so PV lines are never cut short),
/// except, when `proven_ends_pv` (the search runs on [`PROVEN_PV_THREADS`] threads or more), a proven
/// result (a mate or tablebase score) from a search at least as deep.
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
    proven_ends_pv: bool,
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
    let s = score_from_tt(e.score, ply);
    if pv_node {
        // With 2 threads or more, a proven result (a mate or tablebase win or loss, from a search
        // at least as deep) ends a PV node too: searched again as a PV node, a deeper thread's mate
        // bound would be out of reach at this depth, and every sibling whose scout the TT lifts
        // over alpha would be re-searched in vain (in a won ending, a blow-up of PV nodes). A
        // bound is taken only where it moves the window's edge it proves.
        let proven = proven_ends_pv
            && is_decisive(s)
            && match e.bound {
                Bound::Exact => true,
                Bound::Lower => s > 0 && s > alpha,
                Bound::Upper => s < 0 && s < beta,
                Bound::None => false,
            };
        return proven.then_some(s);
    }
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
        assert_eq!(cutoff(&lower, 5, 3, 10, 40, false, true), Some(50));
        assert_eq!(
            cutoff(&lower, 6, 3, 10, 40, false, true),
            None,
            "too shallow"
        );
        assert_eq!(
            cutoff(&lower, 5, 3, 10, 60, false, true),
            None,
            "below beta"
        );
        assert_eq!(
            cutoff(&lower, 5, 3, 10, 40, true, true),
            None,
            "a bound that is not a proven result: never at PV nodes"
        );
        let upper = entry(-5, 0, 5, Bound::Upper, false);
        assert_eq!(cutoff(&upper, 4, 3, 0, 1, false, true), Some(-5));
        let exact = entry(30, 0, 9, Bound::Exact, false);
        assert_eq!(
            cutoff(&exact, 5, 3, 10, 40, true, true),
            None,
            "exact, not decisive"
        );
        assert_eq!(cutoff(&exact, 5, 3, 10, 40, false, true), Some(30));
        let learned = entry(-160, -120, 9, Bound::Exact, true);
        assert_eq!(
            cutoff(&learned, 2, 2, -100, 50, true, true),
            Some(-120),
            "upper bound below alpha"
        );
        assert_eq!(
            cutoff(&learned, 2, 2, -300, -200, true, true),
            Some(-160),
            "lower bound above beta"
        );
        assert_eq!(
            cutoff(&learned, 2, 2, -150, -130, false, true),
            None,
            "window straddles"
        );
        assert_eq!(stored_eval(&learned), None);
        assert_eq!(stored_eval(&lower), Some(0));
    }

    #[test]
    fn proven_results_end_pv_nodes_where_they_move_the_window() {
        use crate::score::{mated_in, score_to_tt, MATE};
        // Mate in 5 plies from a node at ply 3: stored relative to the node, read back as MATE - 8.
        let mate = MATE - 8;
        let stored = score_to_tt(mate, 3);
        let win = entry(stored, 0, 12, Bound::Lower, false);
        assert_eq!(
            cutoff(&win, 9, 3, 500, crate::score::INF, true, true),
            Some(mate)
        );
        assert_eq!(
            cutoff(&win, 9, 3, 500, crate::score::INF, true, false),
            None,
            "few threads: never at PV nodes"
        );
        assert_eq!(
            cutoff(&win, 9, 3, 500, 501, false, false),
            Some(mate),
            "a non-PV node's cutoff, as before"
        );
        assert_eq!(
            cutoff(&win, 13, 3, 500, crate::score::INF, true, true),
            None,
            "too shallow"
        );
        assert_eq!(
            cutoff(&win, 9, 3, mate, crate::score::INF, true, true),
            None,
            "a lower bound at alpha proves nothing new"
        );
        let loss = entry(score_to_tt(mated_in(7), 3), 0, 12, Bound::Upper, false);
        assert_eq!(
            cutoff(&loss, 9, 3, -crate::score::INF, -500, true, true),
            Some(mated_in(7))
        );
        assert_eq!(
            cutoff(&loss, 9, 3, -crate::score::INF, mated_in(7), true, true),
            None,
            "an upper bound at beta proves nothing new"
        );
        // A lower bound on a loss or an upper bound on a win is no proof.
        let weak = entry(score_to_tt(mated_in(7), 3), 0, 12, Bound::Lower, false);
        assert_eq!(cutoff(&weak, 9, 3, -crate::score::INF, 0, true, true), None);
        let weak = entry(stored, 0, 12, Bound::Upper, false);
        assert_eq!(cutoff(&weak, 9, 3, 0, crate::score::INF, true, true), None);
        let exact = entry(stored, 0, 12, Bound::Exact, false);
        assert_eq!(cutoff(&exact, 9, 3, 0, 100, true, true), Some(mate));
    }
}
