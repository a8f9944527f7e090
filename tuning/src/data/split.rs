//! The training/validation split, by game.

use crate::rng::Rng;

/// Decides, reproducibly, which positions go to the validation set: whole games at a time, so that
/// validation positions are not the neighbours of training positions in the same game. The data
/// has no game ids, but `trine datagen` writes each game's positions together and in order, so a
/// line starts a new game when its result differs from the previous line's or its move number is
/// lower (see [`super::Loaded::read`]); a hash of (seed, game number across all files) compared
/// with `fraction` decides: the game number's draw of the generator ([`Rng::nth`]).
#[derive(Clone, Copy, Debug)]
pub struct Split {
    /// Fraction of positions held out, 0..1.
    pub fraction: f64,
    /// Seed of the hash.
    pub seed: u64,
}

impl Split {
    /// Nothing held out.
    pub const NONE: Split = Split {
        fraction: 0.0,
        seed: 0,
    };

    /// Whether game number `game` (counted across all files) is held out.
    pub fn is_validation(&self, game: u64) -> bool {
        let z = Rng::nth(self.seed, game);
        (z as f64) < self.fraction * 18_446_744_073_709_551_616.0
    }
}
