//! The neural evaluation (NNUE), an alternative to the hand-written [`crate::eval`]: a network
//! read from a file ([`network`], format in docs/nnue.md) over 768 piece-square features per side
//! and king bucket ([`features`]), evaluated incrementally by each search thread
//! ([`accumulator`], with a cache of accumulators per king bucket, `refresh_cache.rs`) through
//! vector kernels chosen for the CPU at run time (`simd.rs`). The engine uses it once `EvalFile`
//! names a network; `trine-nnue` (tuning crate) trains one.

pub mod accumulator;
pub mod features;
mod lanes;
pub mod network;
mod refresh_cache;
mod simd;

pub use accumulator::Evaluator;
pub use network::Network;

#[cfg(test)]
mod tests;

use std::sync::{Arc, LazyLock};

/// `EvalFile` value (and `--evalfile` argument) naming the network built into the binary.
pub const BUILT_IN: &str = "<built-in>";
/// `EvalFile` value naming the hand-written evaluation.
pub const HAND_WRITTEN: &str = "<empty>";
/// The evaluation the engine and its tools use unless told otherwise.
pub const DEFAULT_EVAL_FILE: &str = BUILT_IN;

/// The bytes of the built-in network, `nets/default.nnue`.
static BUILT_IN_BYTES: &[u8] =
    include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.nnue"));

static BUILT_IN_NET: LazyLock<Arc<Network>> = LazyLock::new(|| {
    Arc::new(Network::from_bytes(BUILT_IN_BYTES).expect("nets/default.nnue is a valid network"))
});

/// The network built into the binary (one shared copy).
pub fn built_in() -> Arc<Network> {
    Arc::clone(&BUILT_IN_NET)
}

/// The evaluation an `EvalFile` value names: [`BUILT_IN`], a network file's path, or `None` for
/// the hand-written evaluation ([`HAND_WRITTEN`], an empty value, `none` or `<none>`). The error
/// says why a file cannot be used.
pub fn resolve(value: &str) -> Result<Option<Arc<Network>>, String> {
    let v = value.trim();
    if v.is_empty()
        || v == HAND_WRITTEN
        || v.eq_ignore_ascii_case("none")
        || v.eq_ignore_ascii_case("<none>")
    {
        Ok(None)
    } else if v.eq_ignore_ascii_case(BUILT_IN) {
        Ok(Some(built_in()))
    } else {
        Network::load(std::path::Path::new(v)).map(|n| Some(Arc::new(n)))
    }
}

/// The network of the default evaluation ([`DEFAULT_EVAL_FILE`]); `None` if that is the
/// hand-written one.
pub fn default_network() -> Option<Arc<Network>> {
    resolve(DEFAULT_EVAL_FILE).expect("the default evaluation is built in")
}

/// Version of an evaluation, as learn files record it: the network's fingerprint, or the
/// hand-written evaluation's [`crate::eval::VERSION`].
pub fn eval_version(net: Option<&Arc<Network>>) -> u32 {
    net.map_or(crate::eval::VERSION, |n| n.fingerprint())
}
