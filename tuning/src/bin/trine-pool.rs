//! `trine-pool`: pools finished `trine-match` runs between the same two engines and prints
//! each run's and the pooled Elo (see `trine-pool --help`). Exit status 0 on success, 1 when
//! an input cannot be read or the runs are not between the same engines, 2 on bad flags.

use clap::Parser;
use std::path::PathBuf;
use trine_tuning::matches::pool::{parse_ptnml, parse_summary, report, MatchCounts};

/// Adds up the pair counts of several trine-match runs and reports the pooled Elo.
#[derive(Parser, Debug)]
#[command(
    name = "trine-pool",
    version,
    about = "Pools trine-match runs between the same two engines: reads each run's final \
             summary (or pair counts), prints a table with each run and the pooled Elo \
             (95 %, pentanomial, the formula trine-match prints)"
)]
struct Cli {
    /// Output of trine-match runs (the last summary block of each file is read).
    files: Vec<PathBuf>,
    /// Pair counts LL-LD-DD-WD-WW of a run (as in trine-match's Ptnml line), from the first
    /// engine's point of view; may be repeated.
    #[arg(long, value_name = "LL-LD-DD-WD-WW")]
    ptnml: Vec<String>,
}

fn read_all(cli: &Cli) -> Result<Vec<MatchCounts>, String> {
    let mut runs = Vec::new();
    for f in &cli.files {
        let text =
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        runs.push(parse_summary(&f.display().to_string(), &text)?);
    }
    for p in &cli.ptnml {
        runs.push(parse_ptnml(p)?);
    }
    Ok(runs)
}

fn main() {
    let cli = Cli::parse();
    match read_all(&cli).and_then(|runs| report(&runs)) {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
        }
        Err(e) => {
            eprintln!("trine-pool: {e}");
            std::process::exit(1);
        }
    }
}
