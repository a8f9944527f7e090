//! The `trine` command line: no subcommand runs the UCI loop; `bench`, `perft`, `datagen` and the
//! others are tools ([`trine::tools`]).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use trine::tools::{bench, datagen, learn, perft, scale};
use trine::uci;

#[derive(Parser)]
#[command(
    name = "trine",
    version,
    about = "Trine, a multi-core UCI chess engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Fixed-depth search of the bench positions; last line `<nodes> nodes <nps> nps`.
    Bench(bench::BenchArgs),
    /// Thread-scaling benchmark: time-to-depth, speedup, nps, overhead, splits, per thread count.
    Scale(scale::ScaleArgs),
    /// Move-generation check: an EPD suite (`--epd FILE --max-depth N`) or divide (`--fen FEN --depth N`).
    Perft(perft::PerftArgs),
    /// Print the OpenBench SPSA input lines (`name, int, value, min, max, c_end, r_end`) of the
    /// search parameters; build with `--features tune` to make them UCI options.
    Spsa,
    /// Position learning file: `stats`, `show`, `export`, `import FILE.epd`, `clear` (`--file F`).
    Learn(learn::LearnArgs),
    /// Self-play training data for a Texel tuner: quiet positions as `<FEN> | <score> | <result>`
    /// lines (white's view), appended to FILE game by game.
    Datagen(datagen::DatagenArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            uci::run_loop();
            ExitCode::SUCCESS
        }
        Some(Cmd::Bench(args)) => bench::run_cli(args),
        Some(Cmd::Scale(args)) => scale::run_cli(args),
        Some(Cmd::Perft(args)) => perft::run_cli(args),
        Some(Cmd::Learn(args)) => learn::run_cli(args),
        Some(Cmd::Datagen(args)) => datagen::run_cli(args),
        Some(Cmd::Spsa) => {
            for line in trine::search::params::spsa_lines() {
                trine::outln!("{line}");
            }
            ExitCode::SUCCESS
        }
    }
}
