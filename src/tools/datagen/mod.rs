//! `trine datagen`: self-play training data for a Texel tuner.
//!
//! N games are played in parallel over a rayon pool, each single-threaded with its own table
//! ([`game`]); every game's quiet positions become `<FEN> | <score> | <result>` lines ([`record`])
//! that are appended to the output file in one write, flushed, when the game ends, so an
//! interrupted run keeps every finished game. Progress goes to stderr, the summary to stdout.

pub mod game;
pub mod record;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rayon::prelude::*;

pub use game::{play_game, GameSettings, PlayedGame};
pub use record::{format_line, parse_line, DataLine, GameResult};

/// Seconds between progress lines on stderr.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// `trine datagen`'s arguments.
#[derive(clap::Args, Debug)]
pub struct DatagenArgs {
    /// Games to play.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Node budget of every move.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// Output file (appended to; created if missing).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Games played at once, one thread each (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Seed of the random openings (game i's opening depends only on the seed and i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies from the start position.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub random_plies: u32,
    /// Hash table per game, MB.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hash: u32,
    /// Both sides' evaluation: `<built-in>` (the network in the binary), `<empty>`
    /// (hand-written) or a network file (docs/nnue.md).
    #[arg(long, default_value = crate::nnue::DEFAULT_EVAL_FILE)]
    pub evalfile: String,
}

/// Runs `trine datagen`: plays the games with progress on stderr and prints the summary line;
/// an unusable `--evalfile` or a failed run is `error: ...` on stderr and exit status 1.
pub fn run_cli(args: DatagenArgs) -> ExitCode {
    let network = match super::load_network(&args.evalfile) {
        Ok(n) => n,
        Err(code) => return code,
    };
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        |t| t as usize,
    );
    let cfg = Config {
        games: args.games,
        threads,
        out: args.out,
        progress: true,
        game: GameSettings {
            nodes: args.nodes,
            random_plies: args.random_plies,
            hash_mb: args.hash as usize,
            seed: args.seed,
            network,
        },
    };
    match run(&cfg) {
        Ok(summary) => {
            crate::outln!("{}", summary.line());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A datagen run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Games to play.
    pub games: u64,
    /// Worker threads (one game each at a time).
    pub threads: usize,
    /// Output file (appended to; created if missing).
    pub out: PathBuf,
    /// Print progress lines on stderr.
    pub progress: bool,
    /// Node budget, random plies, table size and seed of every game.
    pub game: GameSettings,
}

/// Totals of a run (so far).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Games finished.
    pub games: u64,
    /// Positions written.
    pub positions: u64,
    /// Games won by white.
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games won by black.
    pub black_wins: u64,
}

impl Totals {
    fn add(&mut self, g: &PlayedGame) {
        self.games += 1;
        self.positions += g.lines.len() as u64;
        match g.result {
            GameResult::WhiteWin => self.white_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWin => self.black_wins += 1,
        }
    }
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct Summary {
    /// What was played and written.
    pub totals: Totals,
    /// Wall time.
    pub elapsed: Duration,
}

impl Summary {
    /// `datagen: G games, P positions (W white wins, D draws, L black wins), T s, X positions/s`.
    pub fn line(&self) -> String {
        let t = &self.totals;
        let secs = self.elapsed.as_secs_f64();
        format!(
            "datagen: {} games, {} positions ({} white wins, {} draws, {} black wins), {:.1} s, {:.0} positions/s",
            t.games,
            t.positions,
            t.white_wins,
            t.draws,
            t.black_wins,
            secs,
            t.positions as f64 / secs.max(1e-3)
        )
    }
}

/// The one writer every game goes through.
struct Output {
    file: File,
    totals: Totals,
    last_report: Instant,
}

/// Plays the games and appends their positions to `cfg.out`. An unopenable or unwritable file, a
/// table that cannot be allocated or a thread pool that cannot be built is an error (games already
/// written stay in the file).
pub fn run(cfg: &Config) -> Result<Summary, String> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&cfg.out)
        .map_err(|e| format!("cannot open {} for appending: {e}", cfg.out.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .stack_size(crate::threads::SEARCH_STACK_BYTES)
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", cfg.threads))?;
    let start = Instant::now();
    let output = Mutex::new(Output {
        file,
        totals: Totals::default(),
        last_report: start,
    });
    let played = pool.install(|| {
        (0..cfg.games).into_par_iter().try_for_each(|index| {
            let g = play_game(&cfg.game, index)?;
            let mut out = output.lock();
            write_game(&mut out.file, &g)
                .map_err(|e| format!("cannot write {}: {e}", cfg.out.display()))?;
            out.totals.add(&g);
            if cfg.progress && out.last_report.elapsed() >= PROGRESS_EVERY {
                out.last_report = Instant::now();
                eprintln!("{}", progress_line(&out.totals, cfg.games, start.elapsed()));
            }
            Ok::<(), String>(())
        })
    });
    let totals = output.into_inner().totals;
    played?;
    Ok(Summary {
        totals,
        elapsed: start.elapsed(),
    })
}

/// Writes one game's lines in a single write and flushes them.
fn write_game(file: &mut File, g: &PlayedGame) -> std::io::Result<()> {
    if g.lines.is_empty() {
        return Ok(());
    }
    let mut text = g.lines.join("\n");
    text.push('\n');
    file.write_all(text.as_bytes())?;
    file.flush()
}

fn progress_line(t: &Totals, games: u64, elapsed: Duration) -> String {
    format!(
        "datagen: {}/{} games, {} positions, {:.0} positions/s, W/D/L {}/{}/{}",
        t.games,
        games,
        t.positions,
        t.positions as f64 / elapsed.as_secs_f64().max(1e-3),
        t.white_wins,
        t.draws,
        t.black_wins
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_format() {
        let s = Summary {
            totals: Totals {
                games: 20,
                positions: 1500,
                white_wins: 7,
                draws: 9,
                black_wins: 4,
            },
            elapsed: Duration::from_millis(12_500),
        };
        assert_eq!(
            s.line(),
            "datagen: 20 games, 1500 positions (7 white wins, 9 draws, 4 black wins), 12.5 s, 120 positions/s"
        );
    }

    #[test]
    fn totals_count_results() {
        let mut t = Totals::default();
        for (n, result) in [
            (3, GameResult::WhiteWin),
            (0, GameResult::Draw),
            (2, GameResult::BlackWin),
        ] {
            t.add(&PlayedGame {
                lines: vec![String::new(); n],
                result,
                plies: 50,
            });
        }
        assert_eq!(
            t,
            Totals {
                games: 3,
                positions: 5,
                white_wins: 1,
                draws: 1,
                black_wins: 1
            }
        );
    }
}
