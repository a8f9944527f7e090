//! `trine-tuning`: the tools for measuring and tuning Trine's strength. Its binary `trine-match` plays
//! two UCI engines against each other — openings in pairs with colours reversed, several
//! games at once, every move checked by shakmaty, time forfeits, crashes and hangs detected
//! without ever blocking — writes PGN, and reports Elo with a 95 % interval from the
//! pentanomial distribution of game pairs and a pentanomial SPRT. Its binary `trine-tune` is the
//! Texel tuner of the evaluation weights ([`texel`]), and `trine-nnue` trains the NNUE network
//! ([`nnue`]).
//!
//! | module | role |
//! |---|---|
//! | [`cli`] | command-line flags → [`runner::MatchConfig`] |
//! | [`runner`] | worker threads, result collection, progress and summary |
//! | [`game`] | one game: rules, clocks, legality, engine failures |
//! | [`engine`] | engine processes and the UCI conversation |
//! | [`tc`] | time controls, clocks and `go` commands |
//! | [`adjudication`] | resign and draw adjudication |
//! | [`openings`] | EPD and PGN opening readers, shuffling |
//! | [`pgn`] | PGN output |
//! | [`stats`] | Elo, confidence intervals, LOS, SPRT |
//! | [`texel`] | the Texel tuner: data, model, Adam, `src/eval/weights.rs` output |
//! | [`nnue`] | the NNUE trainer (`trine-nnue`): data, float network, Adam, quantised file |

pub mod adjudication;
pub mod cli;
pub mod engine;
pub mod game;
pub mod nnue;
pub mod openings;
pub mod pgn;
pub mod runner;
pub mod stats;
pub mod tc;
pub mod texel;
