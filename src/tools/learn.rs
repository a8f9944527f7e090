//! `trine learn`: look at and edit a learn file ([`crate::learn`]) from the command line —
//! `stats`, `show`, `export` (EPD), `import` (EPD), `clear` and `resize`.
//!
//! Exit status: 0 on success; 1 when `import` rejected some lines (the good ones are still
//! stored) or `show`/`export` met an entry whose position cannot be rebuilt; 2 on file errors
//! (unreadable or unwritable paths, a learn file this Trine must not use). A damaged learn file
//! that was moved aside is reported on stderr.

use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::RangedU64ValueParser;
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};

use crate::board::move_to_uci;
use crate::learn::{
    export_epd, import_epd, LearnFile, LearnTable, LoadStatus, Origin, Stamp, FORMAT_VERSION,
    MAX_CAPACITY,
};
use crate::score::{is_mate, mate_moves};

/// `trine learn <command> --file FILE [--capacity N]`.
#[derive(clap::Args, Debug)]
pub struct LearnArgs {
    /// What to do with the learn file.
    #[command(subcommand)]
    pub command: LearnCommand,
}

/// The `trine learn` commands.
#[derive(clap::Subcommand, Debug)]
pub enum LearnCommand {
    /// Counts by origin and depth; the last line is `<N> entries`.
    Stats(FileArgs),
    /// One line per entry, oldest first: FEN, best move (UCI), score, depth, game ply, origin.
    Show(FileArgs),
    /// Writes the entries as EPD (`bm`, `ce`, `dm`, `acd`, `c0`), to stdout or `--out`.
    Export {
        /// The learn file.
        #[command(flatten)]
        file: FileArgs,
        /// Output file (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Adds the positions of an EPD file (`ce` required; `bm` SAN or UCI; `acd`, `c0` optional).
    Import {
        /// The learn file.
        #[command(flatten)]
        file: FileArgs,
        /// The EPD file to read.
        epd: PathBuf,
    },
    /// Empties the learn file.
    Clear(FileArgs),
    /// Sets the file's capacity, larger or smaller (shrinking drops the oldest search entries
    /// first, then the oldest imported and human ones).
    Resize {
        /// The learn file.
        #[command(flatten)]
        file: FileArgs,
        /// The new capacity.
        #[arg(value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_CAPACITY as u64))]
        entries: usize,
    },
}

/// The learn file every command works on.
#[derive(clap::Args, Debug)]
pub struct FileArgs {
    /// Path of the learn file.
    #[arg(long)]
    pub file: PathBuf,
    /// Capacity of a new file (default 65536), or the least an existing one grows to on a write
    /// (it never shrinks it: see `resize`).
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_CAPACITY as u64))]
    pub capacity: Option<usize>,
    /// The evaluation whose scores the file holds: `<built-in>` (the network in the binary),
    /// `<empty>` (hand-written) or a network file; a file for another evaluation is refused.
    #[arg(long, default_value = crate::nnue::DEFAULT_EVAL_FILE)]
    pub evalfile: String,
}

impl FileArgs {
    fn open(&self) -> Result<LearnFile, Box<dyn Error>> {
        let net = crate::nnue::resolve(&self.evalfile)?;
        let file = match self.capacity {
            Some(n) => LearnFile::new(&self.file, n),
            None => LearnFile::at(&self.file),
        };
        Ok(file.with_eval(crate::nnue::eval_version(net.as_ref())))
    }
}

/// Runs one `trine learn` command.
pub fn run_cli(args: LearnArgs) -> ExitCode {
    let result = match args.command {
        LearnCommand::Stats(f) => stats(&f),
        LearnCommand::Show(f) => show(&f),
        LearnCommand::Export { file, out } => export(&file, out.as_deref()),
        LearnCommand::Import { file, epd } => import(&file, &epd),
        LearnCommand::Clear(f) => clear(&f),
        LearnCommand::Resize { file, entries } => resize(&file, entries),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn report_quarantine(moved_to: &Path, reason: &str) {
    eprintln!(
        "warning: the learn file was damaged ({reason}); it was kept as {} and a new one started",
        moved_to.display()
    );
}

/// Loads the table, reporting a quarantined file on stderr.
fn load(file: &LearnFile) -> Result<LearnTable, Box<dyn Error>> {
    let (table, status) = file.load()?;
    if let LoadStatus::Quarantined { moved_to, reason } = &status {
        report_quarantine(moved_to, reason);
    }
    Ok(table)
}

fn score_text(score: i16) -> String {
    let s = i32::from(score);
    if is_mate(s) {
        format!("mate {}", mate_moves(s))
    } else {
        format!("cp {s}")
    }
}

fn stats(f: &FileArgs) -> Result<ExitCode, Box<dyn Error>> {
    let file = f.open()?;
    let snapshot = file.load_snapshot()?;
    if let LoadStatus::Quarantined { moved_to, reason } = &snapshot.status {
        report_quarantine(moved_to, reason);
    }
    let generation = match snapshot.stamp {
        Some(Stamp::Header { generation, .. }) => generation,
        _ => 0,
    };
    let table = snapshot.table;
    let count = |o: Origin| table.entries().filter(|e| e.origin == o).count();
    crate::outln!(
        "learn file {} (format {FORMAT_VERSION}, eval {}, capacity {}, generation {generation})",
        f.file.display(),
        file.eval(),
        table.capacity()
    );
    crate::outln!(
        "origin: {} search, {} imported, {} human",
        count(Origin::Search),
        count(Origin::Imported),
        count(Origin::Human)
    );
    let depths: Vec<u32> = table.entries().map(|e| u32::from(e.depth)).collect();
    match (depths.iter().min(), depths.iter().max()) {
        (Some(lo), Some(hi)) => {
            let mean = f64::from(depths.iter().sum::<u32>()) / depths.len() as f64;
            crate::outln!("depth: {lo}..{hi}, mean {mean:.1}");
        }
        _ => crate::outln!("depth: -"),
    }
    let mates = table
        .entries()
        .filter(|e| is_mate(i32::from(e.score)))
        .count();
    let with_move = table.entries().filter(|e| e.best_move != 0).count();
    crate::outln!("{mates} mate scores, {with_move} with a best move");
    crate::outln!("{} entries", table.len());
    Ok(ExitCode::SUCCESS)
}

fn show(f: &FileArgs) -> Result<ExitCode, Box<dyn Error>> {
    let table = load(&f.open()?)?;
    let mut bad = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for e in table.entries() {
        let pos = match e.position() {
            Ok(p) => p,
            Err(err) => {
                eprintln!("error: {err}");
                bad += 1;
                continue;
            }
        };
        let mv = e.best_move_in(&pos).map_or_else(
            || "0000".to_string(),
            |m| move_to_uci(m, pos.castles().mode()),
        );
        let line = format!(
            "{} | {mv} | {} | depth {} | ply {} | {}",
            Fen::from_position(&pos, EnPassantMode::Legal),
            score_text(e.score),
            e.depth,
            e.game_ply,
            e.origin
        );
        if writeln!(out, "{line}").is_err() {
            break; // stdout closed (e.g. piped into `head`)
        }
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn export(f: &FileArgs, out: Option<&Path>) -> Result<ExitCode, Box<dyn Error>> {
    let table = load(&f.open()?)?;
    let (text, errors) = export_epd(table.entries());
    for e in &errors {
        eprintln!("error: {e}");
    }
    match out {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => {
            // A closed stdout is the reader's choice, not an error worth a message.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn import(f: &FileArgs, epd: &Path) -> Result<ExitCode, Box<dyn Error>> {
    let bytes = std::fs::read(epd).map_err(|e| format!("cannot read {}: {e}", epd.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let (entries, rejected) = import_epd(&text).map_err(|e| format!("{}: {e}", epd.display()))?;
    for r in &rejected {
        eprintln!("{r}");
    }
    let report = f.open()?.store_report(&entries)?;
    if let Some((moved_to, reason)) = &report.quarantined {
        report_quarantine(moved_to, reason);
    }
    crate::outln!(
        "{} positions imported, {} lines rejected; the learn file holds {} entries",
        entries.len(),
        rejected.len(),
        report.entries
    );
    Ok(if rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn clear(f: &FileArgs) -> Result<ExitCode, Box<dyn Error>> {
    let report = f.open()?.clear_report()?;
    if let Some((moved_to, reason)) = &report.quarantined {
        report_quarantine(moved_to, reason);
    }
    crate::outln!("cleared {}", f.file.display());
    Ok(ExitCode::SUCCESS)
}

fn resize(f: &FileArgs, capacity: usize) -> Result<ExitCode, Box<dyn Error>> {
    let report = f.open()?.resize(capacity)?;
    if let Some((moved_to, reason)) = &report.quarantined {
        report_quarantine(moved_to, reason);
    }
    crate::outln!(
        "{}: capacity {}, {} entries",
        f.file.display(),
        report.capacity,
        report.entries
    );
    Ok(ExitCode::SUCCESS)
}
