//! The Texel tuner of Trine's evaluation (`trine-tune`). The evaluation is linear in one table of
//! midgame/endgame weights (`trine::eval::params`), and `trine::eval::trace` gives every
//! position's feature counts, so the tuner loads `<FEN> | <score> | <result>` positions once,
//! keeps their sparse counts, and fits all weights at once: it fits the sigmoid scale K to the
//! game results with the current weights, then runs full-batch Adam on the mean squared error
//! between `sigmoid(K · eval)` and `lambda · result + (1 − lambda) · sigmoid(K · score)`, stops
//! early on a held-out validation set, and writes the table back as `src/eval/weights.rs`.
//!
//! | module | role |
//! |---|---|
//! | [`data`] | tracing the loaded data into a compact sparse [`data::Dataset`] |
//! | [`model`] | evaluation from traces with `f64` weights, sigmoid, error and its gradient |
//! | [`optimise`] | fitting K, Adam, which parameters are frozen |
//! | [`mod@tune`] | one run: K, targets, epochs, early stopping |
//! | [`report`] | the generated file's header, the largest changes, reading a weights source |
//! | [`cli`] | the `trine-tune` command line |

pub mod cli;
pub mod data;
pub mod model;
pub mod optimise;
pub mod report;
pub mod tune;

pub use data::{Dataset, Loaded};
pub use model::{sigmoid, PARAMS};
pub use tune::{tune, Config, Outcome};
