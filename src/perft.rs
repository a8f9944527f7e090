//! Perft: move-generation verification by exhaustive leaf counting, with the
//! root moves spread over rayon's thread pool. The UCI `perft` command divides
//! with it; the EPD suite checker behind `trine perft` is
//! [`crate::tools::perft`].

use rayon::prelude::*;
use shakmaty::{CastlingMode, Chess, Position};

use crate::cancel::Cancel;

/// Counts leaf nodes at `depth` plies (depth 0 = 1). Uses bulk counting at
/// depth 1 (`legal_moves().len()`). Single-threaded.
#[must_use]
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// Same as [`perft`], with the root moves split across rayon's pool.
#[must_use]
pub fn perft_parallel(pos: &Chess, depth: u32) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    pos.legal_moves()
        .par_iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// [`perft`] that gives up (`None`) once `cancel` is set; checked at every node 3 or more plies
/// from the leaves, which costs nothing measurable.
#[must_use]
pub fn perft_until(pos: &Chess, depth: u32, cancel: &Cancel) -> Option<u64> {
    if depth < 3 {
        return Some(perft(pos, depth));
    }
    if cancel.is_cancelled() {
        return None;
    }
    let mut total = 0;
    for &m in &pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        total += perft_until(&child, depth - 1, cancel)?;
    }
    Some(total)
}

/// Divide: for each legal root move, its UCI text in the given castling
/// `mode` and the number of leaves `depth` plies below the root (that is,
/// `perft(child, depth - 1)`); sorted by move text. The root moves are
/// counted in parallel on rayon's pool. At depth 0 there are no root moves
/// to divide by, so the result is empty.
#[must_use]
pub fn divide(pos: &Chess, depth: u32, mode: CastlingMode) -> Vec<(String, u64)> {
    divide_until(pos, depth, mode, &Cancel::new()).unwrap_or_default()
}

/// [`divide`] that gives up (`None`) once `cancel` is set.
#[must_use]
pub fn divide_until(
    pos: &Chess,
    depth: u32,
    mode: CastlingMode,
    cancel: &Cancel,
) -> Option<Vec<(String, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    let mut lines: Vec<(String, u64)> = pos
        .legal_moves()
        .par_iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let n = perft_until(&child, depth - 1, cancel)?;
            Some((m.to_uci(mode).to_string(), n))
        })
        .collect::<Option<_>>()?;
    lines.sort();
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal position")
    }

    #[test]
    fn start_position_counts() {
        let pos = Chess::default();
        assert_eq!(perft(&pos, 0), 1);
        assert_eq!(perft(&pos, 1), 20);
        assert_eq!(perft(&pos, 2), 400);
        assert_eq!(perft(&pos, 3), 8902);
        assert_eq!(perft(&pos, 4), 197_281);
    }

    #[test]
    fn parallel_matches_serial() {
        let pos = Chess::default();
        for depth in 0..=4 {
            assert_eq!(perft_parallel(&pos, depth), perft(&pos, depth));
        }
    }

    #[test]
    fn kiwipete_depth_3() {
        let pos = position(KIWIPETE);
        assert_eq!(perft(&pos, 3), 97_862);
        assert_eq!(perft_parallel(&pos, 3), 97_862);
    }

    #[test]
    fn divide_sums_to_perft() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            KIWIPETE,
        ] {
            let pos = position(fen);
            for depth in 1..=3 {
                let lines = divide(&pos, depth, CastlingMode::Standard);
                assert_eq!(lines.len(), pos.legal_moves().len());
                assert!(lines.windows(2).all(|w| w[0].0 < w[1].0), "sorted");
                let sum: u64 = lines.iter().map(|(_, n)| n).sum();
                assert_eq!(sum, perft(&pos, depth), "{fen} depth {depth}");
            }
        }
        let start = divide(&Chess::default(), 3, CastlingMode::Standard);
        assert!(start.contains(&("e2e4".to_string(), 600)));
        assert!(divide(&Chess::default(), 0, CastlingMode::Standard).is_empty());
    }

    #[test]
    fn a_cancelled_perft_gives_up_and_an_uncancelled_one_counts() {
        let pos = position(KIWIPETE);
        let cancel = Cancel::new();
        assert_eq!(perft_until(&pos, 3, &cancel), Some(97_862));
        cancel.cancel();
        assert_eq!(perft_until(&pos, 3, &cancel), None);
        assert_eq!(
            perft_until(&pos, 2, &cancel),
            Some(2_039),
            "too shallow to look"
        );
        assert_eq!(divide_until(&pos, 4, CastlingMode::Standard, &cancel), None);
    }

    #[test]
    fn divide_castling_notation() {
        let pos = position("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let standard = divide(&pos, 1, CastlingMode::Standard);
        assert!(standard.iter().any(|(m, _)| m == "e1g1"));
        let chess960 = divide(&pos, 1, CastlingMode::Chess960);
        assert!(chess960.iter().any(|(m, _)| m == "e1h1"));
    }
}
