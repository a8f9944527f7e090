//! `trine bench` on the command line: [`crate::bench`] with the evaluation `--evalfile` names.

use std::process::ExitCode;

use crate::bench::DEFAULT_DEPTH;

/// `trine bench`'s arguments.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search depth.
    #[arg(long, default_value_t = DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Also print the node-type prediction statistics.
    #[arg(long)]
    pub stats: bool,
    /// Evaluation: `<built-in>` (the network in the binary), `<empty>` (hand-written) or a
    /// network file (docs/nnue.md).
    #[arg(long, default_value = crate::nnue::DEFAULT_EVAL_FILE)]
    pub evalfile: String,
    /// Accepted (and ignored) for OpenBench's `bench <hash> <threads> <depth>` style callers.
    #[arg(hide = true)]
    pub rest: Vec<String>,
}

/// Runs `trine bench`; a network file that cannot be used is `error: ...` on stderr and exit
/// status 1.
pub fn run_cli(args: BenchArgs) -> ExitCode {
    let network = match super::load_network(&args.evalfile) {
        Ok(n) => n,
        Err(code) => return code,
    };
    crate::bench::run(args.depth, args.stats, network.as_ref());
    ExitCode::SUCCESS
}
