//! The NNUE trainer (`trine-nnue`): it fits the network of `docs/nnue.md` — 768 inputs per
//! perspective → a shared hidden layer of H ("the accumulator") → SCReLU → one output from both
//! perspectives' activations, side to move first, through one of B output layers chosen by the
//! number of pieces (`--buckets`, 1 by default) — to `trine datagen` data, and writes it in the
//! engine's quantised file format. Positions are loaded once, in parallel, into compact sparse
//! samples (feature indices of both perspectives, score and result from the side to move's view);
//! training is mini-batch Adam on the mean squared error between `sigmoid(K · cp / 400)` and
//! `lambda · result + (1 − lambda) · sigmoid(K · score / 400)`, each batch's gradient computed in
//! parallel with per-thread buffers, with early stopping on a validation set held out by game.
//!
//! | module | role |
//! |---|---|
//! | [`features`] | the 768 input features of a position, per perspective, and the king buckets |
//! | [`data`] | encoding the loaded data into a compact [`data::Dataset`] |
//! | [`model`] | the float network: forward pass, loss, and the backward pass of one position |
//! | [`mod@train`] | the Adam loop: batches in parallel, validation, learning-rate drops, early stop |
//! | [`export`] | the quantised file format: writer, reader, and its integer inference |
//! | [`cli`] | the `trine-nnue` command line |

pub mod cli;
pub mod data;
pub mod export;
pub mod features;
pub mod model;
pub mod train;

pub use data::{Dataset, Entry, Loaded};
pub use export::Quantised;
pub use features::{KingBuckets, INPUTS};
pub use model::Network;
pub use train::{train, Config, Outcome};

use crate::rng::Rng;

/// The generator behind the trainer's initial weights and shuffles for `seed`: [`Rng`] from `seed`
/// with the trainer's own salt, so that the trainer's draws differ from the other tools' under the
/// same seed.
pub fn seeded_rng(seed: u64) -> Rng {
    Rng::new(seed ^ 0x5DEE_CE66_D1CE_4E5B)
}

/// Centipawns per unit of the network's raw output (`SCALE` of the file format).
pub const SCALE: u32 = 400;
/// Quantisation factor of the feature layer (W1, b1).
pub const QA: i32 = 255;
/// Quantisation factor of the output weights (w2).
pub const QB: i32 = 64;
/// Every weight is kept within ±`CLIP` so that each quantised value fits an `i16`.
pub const CLIP: f32 = 1.98;
