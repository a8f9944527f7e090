//! Trine: a multi-core UCI chess engine.
//!
//! Module map (see README.md): [`board`] (position + incremental Zobrist key + game history),
//! [`eval`] (tapered evaluation), [`score`] (mate scores and their form in the table), [`tt`] (shared lock-free transposition table), [`search`]
//! (iterative deepening, PVS with expected node types, quiescence, triangular PV table),
//! [`smp`] (thread pool, Lazy SMP, split points at expected ALL-nodes), [`time`] (time
//! management), [`uci`] (protocol), [`bench`](mod@bench), [`perft`] and [`datagen`] (tools),
//! [`console`] (stdout that never panics on a closed pipe).

pub mod bench;
pub mod board;
pub mod console;
pub mod datagen;
pub mod eval;
pub mod learn;
pub mod learn_cli;
pub mod nnue;
pub mod perft;
pub mod scale;
pub mod score;
pub mod search;
pub mod smp;
pub mod time;
pub mod tt;
pub mod uci;
