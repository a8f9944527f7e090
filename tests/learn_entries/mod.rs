//! Learn-file entries for the tests and benchmarks that fill a learn file from outside the
//! engine (`tests/learning.rs` uses it as `mod learn_entries;`, `benches/learn.rs` by path).

use std::collections::HashSet;

use shakmaty::{Chess, Position};

use trine::board::full_key;
use trine::learn::{LearnEntry, Origin};
use trine::rng::Rng;

/// `n` entries of distinct positions from seeded random games.
pub fn entries(n: usize, seed: u64) -> Vec<LearnEntry> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Chess::default();
        for ply in 0..120u16 {
            let moves = pos.legal_moves();
            if moves.is_empty() || out.len() == n {
                break;
            }
            let m = moves[rng.below(moves.len())];
            if seen.insert(full_key(&pos)) {
                let score = rng.below(800) as i16 - 400;
                let depth = rng.below(24) as u8 + 1;
                out.push(LearnEntry::from_position(
                    &pos,
                    depth,
                    score,
                    Some(m),
                    ply,
                    Origin::Search,
                ));
            }
            pos.play_unchecked(m);
        }
    }
    out
}
