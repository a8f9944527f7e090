//! The thread-scaling harness under `cargo bench --bench scaling`: the same measurement as
//! `trine scale`, at a small depth so that it finishes in about a minute on two cores. Set
//! `TRINE_SCALE_DEPTH` and `TRINE_SCALE_THREADS` (e.g. `1,2,4,8`) for a larger run.

use trine::search::smp::SmpMode;
use trine::tools::scale::{default_positions, format_table, run, ScaleConfig};

fn main() {
    let depth = std::env::var("TRINE_SCALE_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(7);
    let threads: Vec<usize> = std::env::var("TRINE_SCALE_THREADS")
        .ok()
        .map(|t| t.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2]);
    let cfg = ScaleConfig {
        threads,
        depth,
        positions: default_positions(),
        modes: vec![SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid],
        hash_mb: 64,
        split_depth: trine::search::smp::MIN_SPLIT_DEPTH,
        hybrid_margin: trine::search::smp::HYBRID_MARGIN,
        search_limit_s: None,
        interleave: true,
        rounds: 1,
        game: false,
        progress: false,
    };
    match run(&cfg) {
        Ok(rows) => print!("{}", format_table(&rows, &cfg)),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
