//! `trine scale`: the thread-scaling benchmark. Every position is searched to a fixed depth at every
//! thread count in each parallel mode, each search with a fresh TT and no killers or history from
//! the one before (or, with `--game`, the positions of one game in turn, each row keeping its
//! table and history from one to the next as an engine does in a game); the table reports
//! time-to-depth (geometric mean), speedup, nps and its scaling, total nodes (search overhead),
//! split points and node-type prediction accuracy; CSV and an SVG plot of speedup against
//! threads are written too.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::board::{Board, Game};
use crate::search::iterate::SearchParams;
use crate::search::smp::{SmpMode, SmpStats};
use crate::search::{NodeStats, SearchLimits};
use crate::threads::{Job, Pool, SearchSpec};
use crate::time::TimeBudget;
use crate::tt::Table;

/// `trine scale`'s arguments.
#[derive(clap::Args, Debug)]
pub struct ScaleArgs {
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 2])]
    pub threads: Vec<usize>,
    /// Depth every search completes.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// EPD/FEN file of positions (default: 13 of the bench positions).
    #[arg(long)]
    pub positions: Option<PathBuf>,
    /// lazy, ybw, hybrid, a comma-separated list of them (measured in that order) or all.
    #[arg(long, default_value = "all")]
    pub mode: String,
    /// Hash per search, MB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Smallest remaining depth at which a node offers a split point (ybw, hybrid).
    #[arg(long, default_value_t = crate::search::smp::MIN_SPLIT_DEPTH,
          value_parser = clap::value_parser!(i32).range(1..=64))]
    pub split_depth: i32,
    /// hybrid: how many plies below the root (in remaining depth) split points are offered.
    #[arg(long, default_value_t = crate::search::smp::HYBRID_MARGIN,
          value_parser = clap::value_parser!(i32).range(0..=64))]
    pub hybrid_margin: i32,
    /// Stop a search after this many seconds (0: never); a search stopped so ends short of
    /// the depth, and its row is not a measurement.
    #[arg(long, default_value_t = 0)]
    pub search_limit_s: u64,
    /// Search every position with every mode and thread count back to back (one thread first),
    /// so that a change in the machine's speed during the run reaches every row alike.
    #[arg(long)]
    pub interleave: bool,
    /// Measure everything this many times; a row's time-to-depth is the geometric mean over
    /// every search of every round.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// The positions are one game's, in order: each row keeps its table, killers and history
    /// from one position to the next (they are cleared at the start of each round), as an
    /// engine does from move to move in a game.
    #[arg(long)]
    pub game: bool,
    /// CSV output file.
    #[arg(long, default_value = "scale.csv")]
    pub csv: PathBuf,
    /// SVG plot of speedup vs. threads.
    #[arg(long, default_value = "scale.svg")]
    pub svg: PathBuf,
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct ScaleConfig {
    /// Thread counts, e.g. 1, 2, 4, 8.
    pub threads: Vec<usize>,
    /// Iteration depth each search completes.
    pub depth: u32,
    /// Positions (FEN).
    pub positions: Vec<String>,
    /// Parallel schemes to compare.
    pub modes: Vec<SmpMode>,
    /// TT size per run, MiB.
    pub hash_mb: usize,
    /// Smallest split depth.
    pub split_depth: i32,
    /// `hybrid`'s margin below the root.
    pub hybrid_margin: i32,
    /// Wall-time bound of one search in seconds (`None`: none).
    pub search_limit_s: Option<u64>,
    /// Every position searched by every row back to back (one thread first), instead of row by
    /// row.
    pub interleave: bool,
    /// Times the whole measurement is repeated (at least 1).
    pub rounds: u32,
    /// The positions follow one another in a game: tables and history are kept between them
    /// (each row has its own), cleared only at the start of a round.
    pub game: bool,
    /// Show a progress bar on stderr, and a line there for each search and each row as it ends.
    pub progress: bool,
}

impl ScaleConfig {
    /// Times the measurement is repeated: `rounds`, at least once.
    pub fn round_count(&self) -> u32 {
        self.rounds.max(1)
    }
}

/// One line of the table.
#[derive(Clone, Debug)]
pub struct ScaleRow {
    /// Scheme.
    pub mode: SmpMode,
    /// Threads.
    pub threads: usize,
    /// Geometric mean of the time to finish the depth, ms.
    pub ttd_ms: f64,
    /// Time-to-depth speedup over one thread.
    pub speedup: f64,
    /// Nodes per second over all positions.
    pub nps: f64,
    /// nps over the one-thread nps.
    pub nps_scaling: f64,
    /// Nodes over all positions.
    pub nodes: u64,
    /// Nodes relative to one thread (search overhead).
    pub node_ratio: f64,
    /// Split-point counters.
    pub smp: SmpStats,
    /// Node-type statistics.
    pub stats: NodeStats,
    /// Searches that ended before the depth (stopped by `--search-limit-s` or by a thread's
    /// error): their times are not times to the depth, so a row with any is not a measurement.
    pub short: usize,
}

/// Positions used when no file is given: a varied dozen from the bench set.
pub fn default_positions() -> Vec<String> {
    crate::bench::POSITIONS
        .iter()
        .step_by(4)
        .map(|s| s.to_string())
        .collect()
}

/// Reads positions from an EPD/FEN file (first four to six fields of each non-empty line).
pub fn read_positions(path: &PathBuf) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split(';').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().take(6).collect();
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields.join(" ")
        } else {
            format!(
                "{} 0 1",
                fields.iter().take(4).copied().collect::<Vec<_>>().join(" ")
            )
        };
        let board = Board::from_fen(&fen, false)
            .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        // No search to a depth there: every search is to reach the depth it is timed to.
        if shakmaty::Position::legal_moves(board.pos()).is_empty() {
            return Err(format!(
                "{}:{}: no legal moves (checkmate or stalemate)",
                path.display(),
                i + 1
            ));
        }
        out.push(fen);
    }
    if out.is_empty() {
        return Err(format!("{}: no positions", path.display()));
    }
    Ok(out)
}

#[derive(Clone, Default)]
struct Measure {
    ttd_ms: Vec<f64>,
    nodes: u64,
    time_ms: f64,
    smp: SmpStats,
    stats: NodeStats,
    short: usize,
}

impl Measure {
    /// Time-to-depth: the geometric mean over the searches, ms.
    fn ttd(&self) -> f64 {
        geomean(&self.ttd_ms)
    }

    /// Nodes per second over all searches.
    fn nps(&self) -> f64 {
        self.nodes as f64 / (self.time_ms / 1000.0).max(1e-9)
    }
}

/// Every position searched by one mode and thread count, `cfg.rounds` times.
fn measure(
    cfg: &ScaleConfig,
    mode: SmpMode,
    threads: usize,
    bar: &ProgressBar,
) -> Result<Measure, String> {
    let pool = Pool::new(threads)?;
    let tt = Arc::new(Table::new(cfg.hash_mb)?);
    let mut m = Measure::default();
    for _ in 0..cfg.round_count() {
        for (i, fen) in cfg.positions.iter().enumerate() {
            search_once(cfg, &pool, &tt, (mode, threads), (i, fen), &mut m, bar)?;
        }
    }
    Ok(m)
}

/// One search of position `index` (`fen`) to the depth with `mode` on `threads` threads of
/// `pool`, timed and added to `m`.
fn search_once(
    cfg: &ScaleConfig,
    pool: &Pool,
    tt: &Arc<Table>,
    (mode, threads): (SmpMode, usize),
    (index, fen): (usize, &String),
    m: &mut Measure,
    bar: &ProgressBar,
) -> Result<(), String> {
    let board = Board::from_fen(fen, false)?;
    // Each search starts afresh, as `trine bench`'s do: an empty table and no killers or
    // history from the search before; in a game only its first position does, and the others
    // start from what the searches before left, as a `go` after `position` does.
    if cfg.game && index > 0 {
        tt.new_search();
    } else {
        tt.clear();
        pool.run(Arc::new(Job::clear_history(Arc::clone(tt), threads, mode)));
    }
    let limits = SearchLimits {
        depth: Some(cfg.depth),
        time: TimeBudget {
            soft_ms: None,
            hard_ms: cfg.search_limit_s.map(|s| s.saturating_mul(1000)),
        },
        ..SearchLimits::default()
    };
    let job = Arc::new(Job::search(SearchSpec {
        game: Game::new(board),
        params: SearchParams::default(),
        limits,
        waiting: false,
        tt: Arc::clone(tt),
        threads,
        mode,
        min_split_depth: cfg.split_depth,
        hybrid_margin: cfg.hybrid_margin,
    }));
    let start = Instant::now();
    let outcome = pool.run(job);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    m.ttd_ms.push(ms.max(0.001));
    // A search that ended before the depth (its time bound, or a thread's error) did not
    // measure the time to the depth.
    let reached = outcome.result.as_ref().map_or(0, |r| r.depth);
    if reached < cfg.depth.min(crate::search::MAX_DEPTH) {
        m.short += 1;
    }
    if cfg.progress {
        // Each search as it ends: a position that runs long shows in the log.
        let line = format!(
            "position {} {} threads {threads} ms {ms:.0} nodes {} depth {reached}{}",
            index + 1,
            mode.name(),
            outcome.nodes,
            outcome
                .errors
                .iter()
                .map(|e| format!(" error: {e}"))
                .collect::<String>()
        );
        bar.suspend(|| eprintln!("{line}"));
    }
    m.time_ms += ms;
    m.nodes += outcome.nodes;
    m.smp.merge(&outcome.smp);
    m.stats.merge(&outcome.stats);
    bar.inc(1);
    Ok(())
}

fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len().max(1) as f64).exp()
}

/// One measured row for stderr: mode, threads, time-to-depth, nodes, nps and, once the
/// one-thread baseline is measured, the speedup and nps scaling against it.
fn progress_line(mode: SmpMode, threads: usize, m: &Measure, base: Option<&Measure>) -> String {
    let ttd = m.ttd();
    let nps = m.nps();
    let mut line = format!(
        "row {} threads {threads} ttd_ms {ttd:.1} nodes {} knps {:.0}",
        mode.name(),
        m.nodes,
        nps / 1000.0
    );
    if let Some(b) = base {
        line += &format!(" speedup {:.2} nps_x {:.2}", b.ttd() / ttd, nps / b.nps());
    }
    if m.short > 0 {
        line += &format!(" short {}", m.short);
    }
    line
}

/// A measured row before it is set against one thread: mode, threads and what was measured.
type Measured = (SmpMode, usize, Measure);

/// Row by row, in `cfg`'s order (one thread measured once, with the first mode); returns the
/// rows and the one-thread measure (measured at the end when no row has one thread).
fn run_grouped(cfg: &ScaleConfig, bar: &ProgressBar) -> Result<(Vec<Measured>, Measure), String> {
    let mut rows = Vec::new();
    let mut base: Option<Measure> = None;
    for &mode in &cfg.modes {
        for &threads in &cfg.threads {
            bar.set_message(format!("({} threads, {})", threads, mode.name()));
            // One thread is the same search in every mode: measure it once.
            let m = if threads == 1 {
                if base.is_none() {
                    base = Some(measure(cfg, mode, 1, bar)?);
                } else {
                    bar.inc(cfg.round_count() as u64 * cfg.positions.len() as u64);
                }
                base.clone().expect("measured")
            } else {
                measure(cfg, mode, threads, bar)?
            };
            if cfg.progress {
                // Each row as soon as it is measured, so that a run cut short keeps its rows.
                let line = progress_line(mode, threads, &m, base.as_ref());
                bar.suspend(|| eprintln!("{line}"));
            }
            rows.push((mode, threads, m));
        }
    }
    let base = match base {
        Some(b) => b,
        None => measure(cfg, cfg.modes[0], 1, &ProgressBar::hidden())?,
    };
    Ok((rows, base))
}

/// Where a row's searches run when rows take turns: a thread pool and a table. Rows of one
/// thread count share a pool, and every row the one table, which each search clears; in a game
/// (`--game`) each row has its own of both, since it carries its table and history from one
/// position to the next.
struct Lane {
    pool: usize,
    tt: Arc<Table>,
}

/// The pools and the lanes of the one-thread measure and of each row (`None` for rows of one
/// thread, which take the one-thread measure).
type Lanes = (Vec<Pool>, Lane, Vec<Option<Lane>>);

/// Starts the pools and tables that `rows` (and the one-thread measure) search with when rows
/// take turns.
fn interleaved_lanes(cfg: &ScaleConfig, rows: &[Measured]) -> Result<Lanes, String> {
    // Without `--game` every row clears the one table before each search.
    let shared = if cfg.game {
        None
    } else {
        Some(Arc::new(Table::new(cfg.hash_mb)?))
    };
    let mut pools: Vec<Pool> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut lane = |threads: usize| -> Result<Lane, String> {
        let pool = match counts.iter().position(|&t| t == threads) {
            Some(i) if !cfg.game => i,
            _ => {
                pools.push(Pool::new(threads)?);
                counts.push(threads);
                pools.len() - 1
            }
        };
        let tt = match &shared {
            Some(t) => Arc::clone(t),
            None => Arc::new(Table::new(cfg.hash_mb)?),
        };
        Ok(Lane { pool, tt })
    };
    let base = lane(1)?;
    let lanes = rows
        .iter()
        .map(|r| (r.1 > 1).then(|| lane(r.1)).transpose())
        .collect::<Result<Vec<_>, _>>()?;
    Ok((pools, base, lanes))
}

/// Position by position: every position is searched by one thread, then by every mode and
/// thread count of `cfg` in its order, before the next position; the rows (streamed after each
/// round) are in `cfg`'s order. Returns the rows and the one-thread measure.
fn run_interleaved(
    cfg: &ScaleConfig,
    bar: &ProgressBar,
) -> Result<(Vec<Measured>, Measure), String> {
    // Every row in `cfg`'s order; those of one thread take the one-thread measure at the end.
    let mut rows: Vec<Measured> = cfg
        .modes
        .iter()
        .flat_map(|&mode| {
            cfg.threads
                .iter()
                .map(move |&t| (mode, t, Measure::default()))
        })
        .collect();
    let (pools, base_lane, lanes) = interleaved_lanes(cfg, &rows)?;
    let mut base = Measure::default();
    for round in 0..cfg.round_count() {
        bar.set_message(format!("(round {} of {})", round + 1, cfg.round_count()));
        for (i, fen) in cfg.positions.iter().enumerate() {
            search_once(
                cfg,
                &pools[base_lane.pool],
                &base_lane.tt,
                (cfg.modes[0], 1),
                (i, fen),
                &mut base,
                bar,
            )?;
            for ((mode, threads, m), lane) in rows.iter_mut().zip(&lanes) {
                let Some(lane) = lane else { continue };
                search_once(
                    cfg,
                    &pools[lane.pool],
                    &lane.tt,
                    (*mode, *threads),
                    (i, fen),
                    m,
                    bar,
                )?;
            }
        }
        if cfg.progress {
            // The rows so far after each round, so that a run cut short keeps them.
            for (mode, threads, m) in rows.iter().filter(|r| r.1 > 1) {
                let line = progress_line(*mode, *threads, m, Some(&base));
                bar.suspend(|| eprintln!("{line}"));
            }
        }
    }
    for row in rows.iter_mut().filter(|r| r.1 == 1) {
        row.2 = base.clone();
    }
    Ok((rows, base))
}

/// Runs the whole measurement.
pub fn run(cfg: &ScaleConfig) -> Result<Vec<ScaleRow>, String> {
    let searches = if cfg.interleave {
        let many = cfg.threads.iter().filter(|&&t| t > 1).count() * cfg.modes.len();
        1 + many
    } else {
        cfg.modes.len() * cfg.threads.len()
    };
    let total = (searches * cfg.positions.len()) as u64 * cfg.round_count() as u64;
    let bar = if cfg.progress {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} searches, {elapsed} elapsed, ~{eta} left {msg}",
        )
        .map_err(|e| e.to_string())?,
    );
    let (rows, b) = if cfg.interleave {
        run_interleaved(cfg, &bar)?
    } else {
        run_grouped(cfg, &bar)?
    };
    bar.finish_and_clear();
    let base_ttd = b.ttd();
    let base_nps = b.nps();
    Ok(rows
        .into_iter()
        .map(|(mode, threads, m)| {
            let ttd = m.ttd();
            let nps = m.nps();
            ScaleRow {
                mode,
                threads,
                ttd_ms: ttd,
                speedup: base_ttd / ttd,
                nps,
                nps_scaling: nps / base_nps,
                nodes: m.nodes,
                node_ratio: m.nodes as f64 / b.nodes.max(1) as f64,
                smp: m.smp,
                stats: m.stats,
                short: m.short,
            }
        })
        .collect())
}

/// The table printed to stdout, for the measurement `cfg` describes.
pub fn format_table(rows: &[ScaleRow], cfg: &ScaleConfig) -> String {
    let mut s = String::new();
    let (depth, positions, rounds) = (cfg.depth, cfg.positions.len(), cfg.round_count());
    let order = if cfg.interleave {
        "interleaved"
    } else {
        "row by row"
    };
    let tables = if cfg.game {
        "one game: TT and history kept from position to position"
    } else {
        "fresh TT and history per search"
    };
    let _ = writeln!(
        s,
        "thread scaling: {positions} positions, depth {depth}, {rounds} round(s) {order}, {tables}"
    );
    let _ = writeln!(
        s,
        "{:<7}{:>8}{:>12}{:>9}{:>11}{:>9}{:>13}{:>8}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}",
        "mode",
        "threads",
        "ttd ms",
        "speedup",
        "knps",
        "nps x",
        "nodes",
        "nodes x",
        "splits",
        "joined",
        "aborted",
        "idle ms",
        "wait ms",
        "type ok"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<7}{:>8}{:>12.1}{:>9.2}{:>11.0}{:>9.2}{:>13}{:>8.2}{:>9}{:>9}{:>9}{:>9}{:>9}{:>8.1}%",
            r.mode.name(),
            r.threads,
            r.ttd_ms,
            r.speedup,
            r.nps / 1000.0,
            r.nps_scaling,
            r.nodes,
            r.node_ratio,
            r.smp.splits_created,
            r.smp.splits_joined,
            r.smp.splits_aborted,
            r.smp.idle_us / 1000,
            r.smp.owner_wait_us / 1000,
            100.0 * r.stats.accuracy()
        );
    }
    for r in rows.iter().filter(|r| r.short > 0) {
        let _ = writeln!(
            s,
            "not a measurement: {} with {} threads, {} of {} searches ended before depth {depth}",
            r.mode.name(),
            r.threads,
            r.short,
            positions * rounds as usize
        );
    }
    s
}

/// CSV with a header line.
pub fn format_csv(rows: &[ScaleRow]) -> String {
    let mut s = String::from(
        "mode,threads,ttd_ms,speedup,nps,nps_scaling,nodes,node_ratio,splits_created,splits_joined,splits_aborted,idle_ms,owner_wait_ms,type_accuracy,splits_all,splits_tt_all,splits_cut,splits_pv,splits_root,shallowest_split,moves_shadowed,short\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{:.3},{:.4},{:.0},{:.4},{},{:.4},{},{},{},{},{},{:.4},{},{},{},{},{},{},{},{}",
            r.mode.name(),
            r.threads,
            r.ttd_ms,
            r.speedup,
            r.nps,
            r.nps_scaling,
            r.nodes,
            r.node_ratio,
            r.smp.splits_created,
            r.smp.splits_joined,
            r.smp.splits_aborted,
            r.smp.idle_us / 1000,
            r.smp.owner_wait_us / 1000,
            r.stats.accuracy(),
            r.smp.splits_by_kind[0],
            r.smp.splits_by_kind[1],
            r.smp.splits_by_kind[2],
            r.smp.splits_by_kind[3],
            r.smp.splits_by_kind[4],
            r.smp.shallowest_split,
            r.smp.moves_shadowed,
            r.short
        );
    }
    s
}

/// Writes the speedup-vs-threads plot (one line per mode, plus the ideal diagonal).
pub fn write_svg(rows: &[ScaleRow], path: &PathBuf) -> Result<(), String> {
    use plotters::prelude::*;
    let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1) as f64;
    let max_speedup = rows.iter().map(|r| r.speedup).fold(max_threads, f64::max);
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Trine: time-to-depth speedup", ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_threads * 1.05, 0.0..max_speedup * 1.05)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("speedup")
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (max_threads, max_threads)],
            BLACK.mix(0.3),
        ))
        .map_err(|e| e.to_string())?
        .label("ideal");
    let colours = [RED, BLUE, GREEN];
    for (i, mode) in [SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid]
        .iter()
        .enumerate()
    {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.mode == *mode)
            .map(|r| (r.threads as f64, r.speedup))
            .collect();
        if pts.is_empty() {
            continue;
        }
        let colour = colours[i];
        chart
            .draw_series(LineSeries::new(pts, colour.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(mode.name())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// The modes `--mode` names: one, a comma-separated list (in that order, no repeats) or `all`.
pub fn parse_modes(text: &str) -> Option<Vec<SmpMode>> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Some(vec![SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid]);
    }
    let mut modes = Vec::new();
    for part in text.split(',') {
        let m = SmpMode::parse(part.trim())?;
        if modes.contains(&m) {
            return None;
        }
        modes.push(m);
    }
    Some(modes)
}

/// Runs `trine scale`: measures, prints the table and the node-type statistics of the most
/// threads per mode, and writes the CSV and SVG files. Bad arguments are exit status 2, a
/// failed run or an unwritable output file 1.
pub fn run_cli(args: ScaleArgs) -> ExitCode {
    let ScaleArgs {
        threads,
        depth,
        positions,
        mode,
        hash,
        split_depth,
        hybrid_margin,
        search_limit_s,
        interleave,
        rounds,
        game,
        csv,
        svg,
    } = args;
    let modes = match parse_modes(&mode) {
        Some(m) => m,
        None => {
            eprintln!(
                "error: --mode must be lazy, ybw, hybrid, a comma-separated list of them or all, \
                 not '{mode}'"
            );
            return ExitCode::from(2);
        }
    };
    if threads.is_empty() || threads.iter().any(|&t| t == 0 || t > 1024) {
        eprintln!("error: --threads takes counts between 1 and 1024");
        return ExitCode::from(2);
    }
    let positions = match positions {
        Some(path) => match read_positions(&path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => default_positions(),
    };
    let cfg = ScaleConfig {
        threads,
        depth,
        positions,
        modes,
        hash_mb: hash,
        split_depth,
        hybrid_margin,
        search_limit_s: (search_limit_s > 0).then_some(search_limit_s),
        interleave,
        rounds,
        game,
        progress: true,
    };
    let rows = match run(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    crate::console::text(&format_table(&rows, &cfg));
    for mode in &cfg.modes {
        if let Some(r) = rows
            .iter()
            .filter(|r| r.mode == *mode)
            .max_by_key(|r| r.threads)
        {
            crate::outln!(
                "\nnode types, {} with {} threads:\n{}",
                mode.name(),
                r.threads,
                r.stats
            );
        }
    }
    if let Err(e) = std::fs::write(&csv, format_csv(&rows)) {
        eprintln!("error: cannot write {}: {e}", csv.display());
        return ExitCode::FAILURE;
    }
    if let Err(e) = write_svg(&rows, &svg) {
        eprintln!("error: cannot write {}: {e}", svg.display());
        return ExitCode::FAILURE;
    }
    crate::outln!("\nwrote {} and {}", csv.display(), svg.display());
    // One thread is measured once and repeated in every mode's table: count it once.
    let short: usize = rows
        .iter()
        .filter(|r| r.threads > 1 || r.mode == cfg.modes[0])
        .map(|r| r.short)
        .sum();
    if short > 0 {
        eprintln!(
            "error: {short} searches ended before depth {depth} (their `position` lines on stderr give the depth each reached and any thread error)"
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_lists_keep_their_order_and_refuse_repeats_and_unknown_names() {
        use SmpMode::*;
        assert_eq!(parse_modes("all"), Some(vec![Lazy, Ybw, Hybrid]));
        assert_eq!(parse_modes("ybw"), Some(vec![Ybw]));
        assert_eq!(parse_modes("hybrid, lazy"), Some(vec![Hybrid, Lazy]));
        assert_eq!(
            parse_modes("hybrid,lazy,ybw"),
            Some(vec![Hybrid, Lazy, Ybw])
        );
        for bad in ["", "lazy,lazy", "lazy,", "fast", "all,lazy"] {
            assert_eq!(parse_modes(bad), None, "{bad:?}");
        }
    }
}
