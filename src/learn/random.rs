//! Learn entries from seeded random games, for the tests and benchmarks that need many distinct
//! positions with legal best moves (the unit tests, `tests/learning.rs`, `benches/learn.rs`).

use std::collections::HashSet;

use shakmaty::{Chess, Position};

use super::{LearnEntry, Origin};
use crate::board::full_key;
use crate::rng::Rng;

/// How long the random games run and what the entries drawn from them hold.
#[derive(Clone, Copy, Debug)]
pub struct RandomGames {
    /// Plies per game before a new game starts.
    pub plies: u16,
    /// Scores are drawn from `-score_span .. score_span`.
    pub score_span: i16,
    /// Depths are drawn from `1 ..= max_depth`.
    pub max_depth: u8,
}

/// Long games, wide scores and deep entries: enough distinct positions to fill a learn file.
pub const LONG_GAMES: RandomGames = RandomGames {
    plies: 120,
    score_span: 400,
    max_depth: 24,
};

/// `n` entries of distinct positions (by full key) from random games seeded with `seed`, each
/// with the random move played from it as its best move; the same arguments give the same
/// entries.
pub fn random_entries(n: usize, seed: u64, games: RandomGames) -> Vec<LearnEntry> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Chess::default();
        for ply in 0..games.plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            if seen.insert(full_key(&pos)) {
                let span = i32::from(games.score_span);
                let score = (rng.below(2 * span as usize) as i32 - span) as i16;
                let depth = rng.below(usize::from(games.max_depth)) as u8 + 1;
                out.push(LearnEntry::from_position(
                    &pos,
                    depth,
                    score,
                    Some(m),
                    ply,
                    Origin::Search,
                ));
                if out.len() == n {
                    break;
                }
            }
            pos.play_unchecked(m);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_distinct_bounded_and_repeatable() {
        let es = random_entries(500, 7, LONG_GAMES);
        assert_eq!(es.len(), 500);
        let keys: HashSet<u64> = es.iter().map(|e| e.key).collect();
        assert_eq!(keys.len(), 500);
        assert!(es.iter().all(|e| (-400..400).contains(&e.score)));
        assert!(es.iter().all(|e| (1..=24).contains(&e.depth)));
        let again: Vec<u64> = random_entries(500, 7, LONG_GAMES)
            .iter()
            .map(|e| e.key)
            .collect();
        assert_eq!(again, es.iter().map(|e| e.key).collect::<Vec<_>>());
    }
}
