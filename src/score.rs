//! Scores: centipawns from the side to move's view, mate scores counted in plies from the root
//! (mate in `n` plies scores [`MATE`]` - n`), tablebase wins just below the mates (a win the
//! tables prove at ply `n` scores [`TB_WIN`]` - n`), and their conversion to and from the
//! transposition table, which counts mate and tablebase distances from the stored node instead.

/// Deepest ply the search reaches (array sizes); mate distances never exceed it.
pub const MAX_PLY: usize = 128;
/// Score of mate at the root (mate in `n` plies scores `MATE - n`).
pub const MATE: i32 = 32000;
/// Larger than any score.
pub const INF: i32 = 32500;
/// Scores at or beyond this magnitude are mates.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;

/// Score for being mated at `ply`.
#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Score of a tablebase win proved at the root (a win proved at ply `n` scores `TB_WIN - n`):
/// below every mate, above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this magnitude are decisive: tablebase wins or losses, or mates. The band
/// is twice [`MAX_PLY`] deep, as the mates', so that a stored distance read back at another ply
/// stays inside it.
pub const TB_BOUND: i32 = TB_WIN - 2 * MAX_PLY as i32;

/// Score of a tablebase win proved at `ply`.
#[inline]
pub fn tb_win_in(ply: usize) -> i32 {
    TB_WIN - ply as i32
}

/// True for decisive scores (either side): a tablebase win or loss, or a mate. Pruning that
/// trusts margins leaves them alone, as it leaves mates alone.
#[inline]
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= TB_BOUND
}

/// True for mate scores (either side).
#[inline]
pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Moves to mate (UCI `score mate N`: positive when we mate, negative when we are mated).
pub fn mate_moves(score: i32) -> i32 {
    if score > 0 {
        (MATE - score + 1) / 2
    } else {
        -(MATE + score) / 2
    }
}

/// True when `score` mates the opponent in at most `moves` moves (`go mate`): any mate found
/// when `moves` is beyond every reachable mate distance, never a score that is not a mate.
pub fn mates_within(score: i32, moves: u32) -> bool {
    score >= MATE_BOUND && i64::from(mate_moves(score)) <= i64::from(moves)
}

/// Converts a score from the search (mate or tablebase distance from the root) to a stored score
/// (from the node).
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i16 {
    let s = if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
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
    if s >= TB_BOUND {
        s - ply as i32
    } else if s <= -TB_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// The static evaluation a search node stores with its entry: `eval`, or 0 when the side to move is
/// in check (such a node has no static evaluation); [`crate::tt::stored_eval`] reads it back.
#[inline]
pub fn eval_to_tt(in_check: bool, eval: i32) -> i16 {
    if in_check {
        0
    } else {
        eval.clamp(-MATE, MATE) as i16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        let root_score = MATE - 7; // mate in 7 plies from the root
        let stored = score_to_tt(root_score, 3); // the node is 3 plies down: mate in 4 from it
        assert_eq!(i32::from(stored), MATE - 4);
        assert_eq!(score_from_tt(stored, 5), MATE - 9);
        assert_eq!(score_from_tt(score_to_tt(-MATE + 6, 2), 2), -MATE + 6);
        assert_eq!(score_from_tt(score_to_tt(123, 9), 1), 123);
    }

    #[test]
    fn tablebase_scores_are_stored_relative_to_the_node_and_stay_in_their_band() {
        // A win the tables prove 9 plies from the root, stored at ply 4: 5 plies from the node.
        let stored = score_to_tt(tb_win_in(9), 4);
        assert_eq!(i32::from(stored), tb_win_in(5));
        assert_eq!(score_from_tt(stored, 6), tb_win_in(11));
        assert_eq!(
            score_from_tt(score_to_tt(-tb_win_in(7), 3), 3),
            -tb_win_in(7)
        );
        // The deepest probe read back at the deepest ply is still decisive and not a mate.
        let far = score_from_tt(score_to_tt(tb_win_in(MAX_PLY), 0), MAX_PLY);
        assert!(is_decisive(far) && !is_mate(far), "{far}");
        assert!(is_decisive(-far) && !is_mate(-far));
        // Every evaluation (the network keeps to ±20,000) is below the band.
        assert!(!is_decisive(20_000) && !is_decisive(-20_000));
        assert!(is_decisive(MATE - 1) && is_decisive(-MATE + 3));
        assert!(TB_WIN < MATE_BOUND && !is_mate(TB_WIN));
    }

    #[test]
    fn mate_limits_take_any_number_of_moves() {
        assert!(mates_within(MATE - 1, 1));
        assert!(!mates_within(MATE - 3, 1));
        assert!(mates_within(MATE - 3, 2));
        assert!(!mates_within(MATE - 1, 0));
        for moves in [1000, 16_000, 1 << 30, u32::MAX] {
            assert!(mates_within(MATE - 1, moves), "{moves}");
            assert!(mates_within(MATE_BOUND, moves), "{moves}");
            for score in [-MATE + 2, -500, 0, 500, 20_000, MATE_BOUND - 1] {
                assert!(!mates_within(score, moves), "{score} {moves}");
            }
        }
        // Where mate distances can reach, the same as `score >= MATE - 2 · moves`.
        for moves in 0..=MAX_PLY as u32 {
            for score in -INF..=INF {
                let plain = score >= MATE - 2 * moves as i32;
                assert_eq!(mates_within(score, moves), plain, "{score} {moves}");
            }
        }
    }

    #[test]
    fn stored_evaluations_are_clamped_and_zero_in_check() {
        assert_eq!(eval_to_tt(false, -37), -37);
        assert_eq!(eval_to_tt(true, 250), 0);
        assert_eq!(i32::from(eval_to_tt(false, 3 * MATE)), MATE);
        assert_eq!(i32::from(eval_to_tt(false, -3 * MATE)), -MATE);
    }
}
