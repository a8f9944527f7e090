//! The `trine-tune` command line: flags, loading (with timing and the malformed-line count),
//! the run, the summary of the largest changes, and writing `weights_source` to a file or stdout.
//! Progress and the summary go to stderr, so stdout carries only the weights when `--out` is not
//! given.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use trine::eval::params::{unit_name, weights_source, LEN, S};
use trine::eval::DEFAULT_PARAMS;

use super::data::Loaded;
use super::optimise::group;
use super::report::{changes_text, header, largest_changes, parse_weights_source, read_table};
use super::tune::{tune, Config};
use crate::data::Split;

/// Texel tuning of Trine's evaluation weights on `<FEN> | <score> | <result>` data (as written
/// by `trine datagen`): full-batch Adam on the mean squared error between the sigmoid of the
/// evaluation and `lambda · result + (1 − lambda) · sigmoid(score)`.
#[derive(Parser, Debug, Clone)]
#[command(name = "trine-tune", version)]
pub struct Args {
    /// Data file (repeatable).
    #[arg(
        long = "data",
        value_name = "FILE",
        required_unless_present = "list_groups"
    )]
    pub data: Vec<PathBuf>,
    /// Print every weight group (label, first index, number of weight pairs), one per line on
    /// stdout, and exit.
    #[arg(long)]
    pub list_groups: bool,
    /// Most epochs (full-batch Adam steps).
    #[arg(long, default_value_t = 300)]
    pub epochs: usize,
    /// Adam step size, centipawns.
    #[arg(long, default_value_t = 1.0)]
    pub lr: f64,
    /// Weight of the game result in the target (the rest: the sigmoid of the search score).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// Use this sigmoid scale instead of fitting it: `1 / (1 + exp(-K · eval / 400))`.
    #[arg(long)]
    pub k: Option<f64>,
    /// Write the weights source here (normally src/eval/weights.rs); default stdout.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Keep a group of weights as it is (repeatable; a label of `params::GROUPS`: material, pst,
    /// mobility_knight, ..., bishop_pair, tempo).
    #[arg(long, value_name = "GROUP", num_args = 1..)]
    pub freeze: Vec<String>,
    /// Tune only these groups (repeatable): every other group is frozen, as with `--freeze`.
    #[arg(long, value_name = "GROUP", num_args = 1..)]
    pub only: Vec<String>,
    /// Fraction of the positions held out for early stopping.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Stop after this many epochs without a better validation error.
    #[arg(long, default_value_t = 30)]
    pub patience: usize,
    /// Print the errors every this many epochs.
    #[arg(long, default_value_t = 10)]
    pub report_every: usize,
    /// Penalty `L2 · Σ (w − w_start)²` on moving away from the starting weights (per
    /// centipawn²; 0 = none): keeps rarely seen weights near where they start.
    #[arg(long, default_value_t = 0.0)]
    pub l2: f64,
    /// Seed of the training/validation split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start from the weights in this file (a weights.rs) instead of the engine's.
    #[arg(long, value_name = "PATH")]
    pub start: Option<PathBuf>,
    /// Multiply the midgame weights of one group of the starting table by a factor before tuning
    /// (repeatable; `GROUP=FACTOR`, e.g. `king_danger=1.5`; rounded half to even). With
    /// `--epochs 0` the scaled table is written as it is; the header records the scaling.
    #[arg(long = "scale-mg", value_name = "GROUP=FACTOR")]
    pub scale_mg: Vec<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Runs `trine-tune`.
pub fn run(args: Args) -> Result<(), String> {
    if args.list_groups {
        for &(label, first, len) in trine::eval::params::GROUPS {
            println!("{label} {first} {len}");
        }
        return Ok(());
    }
    if !(0.0..1.0).contains(&args.validation) {
        return Err(format!("--validation {} is not in 0..1", args.validation));
    }
    use_threads(args.threads)?;
    let (mut start, mut start_note): ([S; LEN], String) = match &args.start {
        Some(p) => {
            let src = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let table = read_table(&src).map_err(|e| format!("{}: {e}", p.display()))?;
            (table, format!("Starting weights: {}", p.display()))
        }
        None => {
            if let Some(out) = &args.out {
                check_not_stale(out)?;
            }
            (
                DEFAULT_PARAMS.w,
                "Starting weights: the engine's".to_string(),
            )
        }
    };
    for spec in &args.scale_mg {
        let (label, factor) = parse_scale(spec)?;
        scale_midgame(&mut start, &label, factor)?;
        start_note.push_str(&format!(", midgame `{label}` x{factor}"));
    }
    start_note.push_str(".\n");
    let cfg = Config {
        epochs: args.epochs,
        lr: args.lr,
        lambda: args.lambda,
        k: args.k,
        freeze: frozen_groups(&args.freeze, &args.only)?,
        patience: args.patience,
        report_every: args.report_every,
        l2: args.l2,
    };
    // Reject a bad group before the (long) load.
    super::optimise::trainable(&cfg.freeze)?;

    let t = Instant::now();
    let split = Split {
        fraction: args.validation,
        seed: args.seed,
    };
    let mut loaded = Loaded::load(&args.data, split).map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let stats = &loaded.stats;
    eprintln!(
        "loaded {} positions of {} games ({} training, {} validation, {} terms) from {} lines \
         in {secs:.1} s ({:.0} positions/s); {} malformed lines skipped",
        stats.positions,
        stats.games,
        loaded.train.len(),
        loaded.validation.len(),
        loaded.train.term_count() + loaded.validation.term_count(),
        stats.lines,
        stats.positions as f64 / secs.max(1e-9),
        stats.malformed
    );
    for e in &stats.examples {
        eprintln!("  malformed: {e}");
    }

    let outcome = tune(
        &mut loaded.train,
        &mut loaded.validation,
        &start,
        &cfg,
        &mut |line| eprintln!("{line}"),
    )?;
    eprintln!(
        "{} epochs in {:.1} s: {:.3e} positions x epochs per second",
        outcome.epochs_run,
        outcome.seconds,
        outcome.speed(loaded.train.len())
    );

    let files: Vec<String> = args.data.iter().map(|p| p.display().to_string()).collect();
    let head = header(
        &files,
        &loaded.stats,
        loaded.train.len(),
        loaded.validation.len(),
        &cfg,
        &outcome,
    );
    let head = start_note + &head;
    eprint!("{head}");
    let table = outcome.table();
    eprintln!("largest changes ({}):", unit_name());
    eprint!("{}", changes_text(&largest_changes(&start, &table, 20)));

    let source = weights_source(&table, head.trim_end());
    match &args.out {
        Some(p) => {
            std::fs::write(p, source).map_err(|e| format!("{}: {e}", p.display()))?;
            eprintln!("wrote {}", p.display());
        }
        None => trine::console::text(&source),
    }
    Ok(())
}

/// Refuses to start from the engine's built-in weights and write them over an engine weights file
/// (`.../src/eval/weights.rs`) that holds a different table: this `trine-tune` was then built
/// before the file last changed (a stale build), and its fit would start from old weights, in
/// the units they had then, or with the terms it had then. Other output paths, and files that do
/// not parse as weights source, pass.
/// Sizes rayon's global pool to `threads` (at least 1) when given; all cores otherwise. Shared by
/// both tuners' command lines.
pub fn use_threads(threads: Option<usize>) -> Result<(), String> {
    if let Some(t) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t.max(1))
            .build_global()
            .map_err(|e| format!("thread pool: {e}"))?;
    }
    Ok(())
}

fn check_not_stale(out: &std::path::Path) -> Result<(), String> {
    if !out.ends_with("src/eval/weights.rs") {
        return Ok(());
    }
    let Ok(src) = std::fs::read_to_string(out) else {
        return Ok(());
    };
    // A table of another length (a term added or removed since this build) is stale too.
    match parse_weights_source(&src) {
        Ok(pairs) if !pairs.is_empty() && pairs[..] != DEFAULT_PARAMS.w[..] => Err(format!(
            "{} holds other weights than this trine-tune was built with (a stale build?): \
             rebuild it (`cargo build --release --workspace`), or start from that file with \
             `--start {}`; nothing was written",
            out.display(),
            out.display()
        )),
        _ => Ok(()),
    }
}

/// The groups to freeze: those of `--freeze`, and with `--only`, every group not named there.
fn frozen_groups(freeze: &[String], only: &[String]) -> Result<Vec<String>, String> {
    for label in only {
        group(label)?;
    }
    let mut frozen = freeze.to_vec();
    if !only.is_empty() {
        frozen.extend(
            trine::eval::params::GROUPS
                .iter()
                .map(|g| g.0)
                .filter(|label| !only.iter().any(|o| o == label))
                .map(str::to_string),
        );
    }
    Ok(frozen)
}

/// `GROUP=FACTOR` of `--scale-mg`.
fn parse_scale(spec: &str) -> Result<(String, f64), String> {
    let bad = || format!("--scale-mg {spec}: expected GROUP=FACTOR, e.g. king_danger=1.5");
    let (label, factor) = spec.split_once('=').ok_or_else(bad)?;
    let factor: f64 = factor.trim().parse().map_err(|_| bad())?;
    if !factor.is_finite() {
        return Err(bad());
    }
    Ok((label.trim().to_string(), factor))
}

/// Multiplies the midgame weights of group `label` of `table` by `factor`, rounding half to even.
fn scale_midgame(table: &mut [S; LEN], label: &str, factor: f64) -> Result<(), String> {
    let (start, len) = group(label)?;
    for w in &mut table[start..start + len] {
        w.mg = (f64::from(w.mg) * factor).round_ties_even() as i32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use trine::eval::params::{BISHOP_PAIR, KING_DANGER, KING_DANGER_CAP};

    #[test]
    fn scaling_touches_only_the_midgame_of_the_named_group() {
        let mut t = DEFAULT_PARAMS.w;
        scale_midgame(&mut t, "king_danger", 1.5).unwrap();
        let kd = KING_DANGER..KING_DANGER + KING_DANGER_CAP as usize + 1;
        for (i, (after, before)) in t.iter().zip(DEFAULT_PARAMS.w).enumerate() {
            if kd.contains(&i) {
                assert_eq!(after.eg, before.eg);
                assert_eq!(
                    after.mg,
                    (f64::from(before.mg) * 1.5).round_ties_even() as i32
                );
            } else {
                assert_eq!(*after, before, "weight {i} changed");
            }
        }
        // Half to even: 3 x 1.5 = 4.5 rounds to 4, 5 x 1.5 = 7.5 to 8.
        let mut t = DEFAULT_PARAMS.w;
        t[BISHOP_PAIR].mg = 3;
        scale_midgame(&mut t, "bishop_pair", 1.5).unwrap();
        assert_eq!(t[BISHOP_PAIR].mg, 4);
        t[BISHOP_PAIR].mg = 5;
        scale_midgame(&mut t, "bishop_pair", 1.5).unwrap();
        assert_eq!(t[BISHOP_PAIR].mg, 8);
        assert!(scale_midgame(&mut t, "nonsense", 2.0).is_err());
    }

    #[test]
    fn scale_specs_parse_or_say_why_not() {
        assert_eq!(
            parse_scale("king_danger=1.5").unwrap(),
            ("king_danger".to_string(), 1.5)
        );
        for bad in ["king_danger", "king_danger=x", "=", "king_danger=inf"] {
            assert!(parse_scale(bad).is_err(), "{bad}");
        }
    }
}
