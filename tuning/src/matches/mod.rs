//! The match runner (`trine-match`): plays two UCI engines against each other and reports the
//! result. The folder is `matches` because `match` is a Rust keyword.
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
//! | [`pool`] | pooling finished matches (`trine-pool`) |
//! | [`stats`] | Elo, confidence intervals, LOS, SPRT |

pub mod adjudication;
pub mod cli;
pub mod engine;
pub mod game;
pub mod openings;
pub mod pgn;
pub mod pool;
pub mod runner;
pub mod stats;
pub mod tc;
