//! The command-line tools behind `trine <command>`: each module holds its command's arguments
//! (`clap`) and its `run_cli`, and uses the engine; the engine never uses them.
//!
//! * [`bench`](mod@bench): `trine bench` ([`crate::bench`] with `--evalfile`);
//! * [`perft`]: `trine perft`, the EPD perft-suite checker and divide;
//! * [`scale`]: `trine scale`, the thread-scaling benchmark (progress bar, CSV, SVG plot);
//! * [`learn`]: `trine learn`, looking at and editing a learn file;
//! * [`datagen`]: `trine datagen`, self-play training data for a Texel tuner.

pub mod bench;
pub mod datagen;
pub mod learn;
pub mod perft;
pub mod scale;

use std::process::ExitCode;
use std::sync::Arc;

use crate::nnue::Network;

/// The network `--evalfile` names (`None`: the hand-written evaluation); a file that cannot be
/// used is `error: ...` on stderr and exit status 1.
pub fn load_network(value: &str) -> Result<Option<Arc<Network>>, ExitCode> {
    match crate::nnue::resolve(value) {
        Ok(n) => Ok(n),
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}
