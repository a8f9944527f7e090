//! `trine-tune`: Texel tuning of Trine's evaluation weights (see `trine_tuning::texel`).

use clap::Parser;
use trine_tuning::texel::cli::{run, Args};

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("trine-tune: {e}");
        std::process::exit(1);
    }
}
