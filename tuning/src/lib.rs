//! `trine-tuning`: the tools for measuring and tuning Trine's strength, one folder per tool. Its
//! binary `trine-match` plays two UCI engines against each other — openings in pairs with colours
//! reversed, several games at once, every move checked by shakmaty, time forfeits, crashes and
//! hangs detected without ever blocking — writes PGN, and reports Elo with a 95 % interval from
//! the pentanomial distribution of game pairs and a pentanomial SPRT ([`mod@matches`]). Its binary
//! `trine-tune` is the Texel tuner of the evaluation weights ([`texel`]), and `trine-nnue` trains
//! the NNUE network ([`nnue`]).
//!
//! | module | role |
//! |---|---|
//! | [`mod@matches`] | the match runner (`trine-match`): engines, games, openings, PGN, Elo and SPRT |
//! | [`data`] | the training data both trainers read: parsing, loading in parallel, the split |
//! | [`texel`] | the Texel tuner (`trine-tune`): data, model, Adam, `src/eval/weights.rs` output |
//! | [`nnue`] | the NNUE trainer (`trine-nnue`): data, float network, Adam, quantised file |
//! | [`rng`] | the one pseudo-random generator, the engine's SplitMix64 |

pub mod data;
pub mod matches;
pub mod nnue;
pub mod rng;
pub mod texel;
