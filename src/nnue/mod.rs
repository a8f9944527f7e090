//! The neural evaluation (NNUE), an alternative to the hand-written [`crate::eval`]: a network
//! read from a file ([`network`], format in docs/nnue.md) over 768 piece-square features per side
//! ([`features`]), evaluated incrementally by each search thread ([`accumulator`]). The engine
//! uses it once `EvalFile` names a network; `trine-nnue` (tuning crate) trains one.

pub mod accumulator;
pub mod features;
pub mod network;

pub use accumulator::Evaluator;
pub use network::Network;

#[cfg(test)]
mod tests;
