//! Trine: a multi-core UCI chess engine.
//!
//! Module map (see README.md). The engine: [`board`] (position + incremental Zobrist key + game
//! history), [`eval`] (tapered evaluation), [`nnue`] (the network evaluation), [`score`] (mate
//! scores and their form in the table), [`tt`] (shared lock-free transposition table),
//! [`search`] (iterative deepening, PVS with expected node types, quiescence, triangular PV
//! table, and its parallel part `search::smp`: Lazy SMP and split points where a node's rest is
//! ALL work; it reports through `search::Reporter`), [`threads`] (the pool that runs the
//! searchers: start, stop, wait), [`syzygy`] (Syzygy endgame tablebases: loading, the search's
//! probes, the root moves they keep), [`learn`]
//! (position learning: the learn file and when to store and load it), [`time`] (time
//! management), [`uci`] (protocol), [`bench`](mod@bench) (the bench positions and run) and
//! [`perft`] (leaf counts) for the `bench` and `perft` commands, which [`cancel`] stops, [`rng`] (the workspace's one
//! random-number generator), [`console`] (stdout that never
//! panics on a closed pipe). The command-line tools (`trine bench`, `perft`, `scale`, `learn`,
//! `datagen`) are in [`tools`], which uses the engine and is never used by it.

pub mod bench;
pub mod board;
pub mod cancel;
pub mod console;
pub mod eval;
pub mod learn;
pub mod nnue;
pub mod perft;
pub mod rng;
pub mod score;
pub mod search;
pub mod syzygy;
pub mod threads;
pub mod time;
pub mod tools;
pub mod tt;
pub mod uci;
