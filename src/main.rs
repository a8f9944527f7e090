//! The `trine` command line: no subcommand runs the UCI loop; `bench` and `perft` are tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use trine::{bench, board::Board, perft, uci};

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
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// Also print the node-type prediction statistics.
        #[arg(long)]
        stats: bool,
        /// Accepted (and ignored) for OpenBench's `bench <hash> <threads> <depth>` style callers.
        #[arg(hide = true)]
        rest: Vec<String>,
    },
    /// Move-generation check: an EPD suite (`--epd FILE --max-depth N`) or divide (`--fen FEN --depth N`).
    Perft {
        /// EPD file with `;D1 n ;D2 n ...` counts.
        #[arg(long, conflicts_with = "fen")]
        epd: Option<std::path::PathBuf>,
        /// Deepest depth to check from the EPD file.
        #[arg(long, default_value_t = 4)]
        max_depth: u32,
        /// Position to divide.
        #[arg(long)]
        fen: Option<String>,
        /// Divide depth.
        #[arg(long, default_value_t = 1)]
        depth: u32,
        /// Chess960 castling (Shredder/X-FEN) in FENs and king-takes-rook move output.
        #[arg(long)]
        chess960: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            uci::run_loop();
            ExitCode::SUCCESS
        }
        Some(Cmd::Bench { depth, stats, .. }) => {
            bench::run(depth, stats);
            ExitCode::SUCCESS
        }
        Some(Cmd::Perft {
            epd,
            max_depth,
            fen,
            depth,
            chess960,
        }) => run_perft(epd, max_depth, fen, depth, chess960),
    }
}

fn run_perft(
    epd: Option<std::path::PathBuf>,
    max_depth: u32,
    fen: Option<String>,
    depth: u32,
    chess960: bool,
) -> ExitCode {
    if let Some(path) = epd {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let cases = match perft::parse_suite(&text) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let report = perft::check_suite(&cases, max_depth, chess960);
        for f in &report.failures {
            println!("{f}");
        }
        println!("{} passed, {} failed", report.passed, report.failed);
        return if report.failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let fen = fen
        .unwrap_or_else(|| "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string());
    let board = match Board::from_fen(&fen, chess960) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mode = trine::board::castling_mode(chess960);
    let mut total = 0;
    for (m, n) in perft::divide(board.pos(), depth, mode) {
        println!("{m}: {n}");
        total += n;
    }
    println!();
    println!("Nodes searched: {total}");
    ExitCode::SUCCESS
}
