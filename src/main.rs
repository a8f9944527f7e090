//! The `trine` command line: no subcommand runs the UCI loop; `bench`, `perft`, `datagen` and the
//! others are tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use trine::{bench, board::Board, datagen, perft, scale, smp::SmpMode, uci};

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
        /// Evaluation: `<built-in>` (the network in the binary), `<empty>` (hand-written) or a
        /// network file (docs/nnue.md).
        #[arg(long, default_value = trine::nnue::DEFAULT_EVAL_FILE)]
        evalfile: String,
        /// Accepted (and ignored) for OpenBench's `bench <hash> <threads> <depth>` style callers.
        #[arg(hide = true)]
        rest: Vec<String>,
    },
    /// Thread-scaling benchmark: time-to-depth, speedup, nps, overhead, splits, per thread count.
    Scale {
        /// Thread counts, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 2])]
        threads: Vec<usize>,
        /// Depth every search completes.
        #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// EPD/FEN file of positions (default: 13 of the bench positions).
        #[arg(long)]
        positions: Option<std::path::PathBuf>,
        /// lazy, ybw, hybrid or all.
        #[arg(long, default_value = "all")]
        mode: String,
        /// Hash per search, MB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// CSV output file.
        #[arg(long, default_value = "scale.csv")]
        csv: std::path::PathBuf,
        /// SVG plot of speedup vs. threads.
        #[arg(long, default_value = "scale.svg")]
        svg: std::path::PathBuf,
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
    /// Print the OpenBench SPSA input lines (`name, int, value, min, max, c_end, r_end`) of the
    /// search parameters; build with `--features tune` to make them UCI options.
    Spsa,
    /// Position learning file: `stats`, `show`, `export`, `import FILE.epd`, `clear` (`--file F`).
    Learn(trine::learn_cli::LearnArgs),
    /// Self-play training data for a Texel tuner: quiet positions as `<FEN> | <score> | <result>`
    /// lines (white's view), appended to FILE game by game.
    Datagen {
        /// Games to play.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        games: u64,
        /// Node budget of every move.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: u64,
        /// Output file (appended to; created if missing).
        #[arg(long, value_name = "FILE")]
        out: std::path::PathBuf,
        /// Games played at once, one thread each (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// Seed of the random openings (game i's opening depends only on the seed and i).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Random plies from the start position.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=100))]
        random_plies: u32,
        /// Hash table per game, MB.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4096))]
        hash: u32,
        /// Both sides' evaluation: `<built-in>` (the network in the binary), `<empty>`
        /// (hand-written) or a network file (docs/nnue.md).
        #[arg(long, default_value = trine::nnue::DEFAULT_EVAL_FILE)]
        evalfile: String,
    },
}

/// The network `--evalfile` names (`None`: the hand-written evaluation); a file that cannot be
/// used is `error: ...` on stderr.
fn load_network(value: &str) -> Result<Option<std::sync::Arc<trine::nnue::Network>>, ExitCode> {
    match trine::nnue::resolve(value) {
        Ok(n) => Ok(n),
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            uci::run_loop();
            ExitCode::SUCCESS
        }
        Some(Cmd::Bench {
            depth,
            stats,
            evalfile,
            ..
        }) => {
            let network = match load_network(&evalfile) {
                Ok(n) => n,
                Err(code) => return code,
            };
            bench::run(depth, stats, network.as_ref());
            ExitCode::SUCCESS
        }
        Some(Cmd::Scale {
            threads,
            depth,
            positions,
            mode,
            hash,
            csv,
            svg,
        }) => run_scale(threads, depth, positions, &mode, hash, csv, svg),
        Some(Cmd::Perft {
            epd,
            max_depth,
            fen,
            depth,
            chess960,
        }) => run_perft(epd, max_depth, fen, depth, chess960),
        Some(Cmd::Learn(args)) => trine::learn_cli::run(args),
        Some(Cmd::Datagen {
            games,
            nodes,
            out,
            threads,
            seed,
            random_plies,
            hash,
            evalfile,
        }) => {
            let network = match load_network(&evalfile) {
                Ok(n) => n,
                Err(code) => return code,
            };
            let threads = threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, usize::from),
                |t| t as usize,
            );
            let cfg = datagen::Config {
                games,
                threads,
                out,
                progress: true,
                game: datagen::GameSettings {
                    nodes,
                    random_plies,
                    hash_mb: hash as usize,
                    seed,
                    network,
                },
            };
            match datagen::run(&cfg) {
                Ok(summary) => {
                    trine::outln!("{}", summary.line());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Cmd::Spsa) => {
            for line in trine::search::params::spsa_lines() {
                trine::outln!("{line}");
            }
            ExitCode::SUCCESS
        }
    }
}

fn run_scale(
    threads: Vec<usize>,
    depth: u32,
    positions: Option<std::path::PathBuf>,
    mode: &str,
    hash: usize,
    csv: std::path::PathBuf,
    svg: std::path::PathBuf,
) -> ExitCode {
    let modes = if mode.eq_ignore_ascii_case("all") {
        vec![SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid]
    } else {
        match SmpMode::parse(mode) {
            Some(m) => vec![m],
            None => {
                eprintln!("error: --mode must be lazy, ybw, hybrid or all, not '{mode}'");
                return ExitCode::from(2);
            }
        }
    };
    if threads.is_empty() || threads.iter().any(|&t| t == 0 || t > 1024) {
        eprintln!("error: --threads takes counts between 1 and 1024");
        return ExitCode::from(2);
    }
    let positions = match positions {
        Some(path) => match scale::read_positions(&path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => scale::default_positions(),
    };
    let cfg = scale::ScaleConfig {
        threads,
        depth,
        positions,
        modes,
        hash_mb: hash,
        progress: true,
    };
    let rows = match scale::run(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    trine::console::text(&scale::format_table(&rows, depth, cfg.positions.len()));
    for mode in &cfg.modes {
        if let Some(r) = rows
            .iter()
            .filter(|r| r.mode == *mode)
            .max_by_key(|r| r.threads)
        {
            trine::outln!(
                "\nnode types, {} with {} threads:\n{}",
                mode.name(),
                r.threads,
                r.stats
            );
        }
    }
    if let Err(e) = std::fs::write(&csv, scale::format_csv(&rows)) {
        eprintln!("error: cannot write {}: {e}", csv.display());
        return ExitCode::FAILURE;
    }
    if let Err(e) = scale::write_svg(&rows, &svg) {
        eprintln!("error: cannot write {}: {e}", svg.display());
        return ExitCode::FAILURE;
    }
    trine::outln!("\nwrote {} and {}", csv.display(), svg.display());
    ExitCode::SUCCESS
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
            trine::outln!("{f}");
        }
        trine::outln!("{} passed, {} failed", report.passed, report.failed);
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
        trine::outln!("{m}: {n}");
        total += n;
    }
    trine::outln!();
    trine::outln!("Nodes searched: {total}");
    ExitCode::SUCCESS
}
