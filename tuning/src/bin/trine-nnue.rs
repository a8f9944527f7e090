//! `trine-nnue`: trains Trine's NNUE evaluation network (see `trine_tuning::nnue` and
//! `docs/nnue.md`).

use clap::Parser;
use trine_tuning::nnue::cli::{run, Args};

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("trine-nnue: {e}");
        std::process::exit(1);
    }
}
