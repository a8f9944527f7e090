//! What a run writes and prints: the header of the generated `src/eval/weights.rs`, the list of
//! the largest weight changes, and a reader for the `s(mg, eg)` pairs of a weights source (to
//! start from a file, and to check that a written table round-trips).

use std::fmt::Write as _;

use trine::eval::params::{name, LEN, S};

use super::tune::{Config, Outcome};
use crate::data::LoadStats;

/// Header lines of the generated weights file: data, positions, K, lambda (and l2 if used), epochs,
/// errors.
pub fn header(
    files: &[String],
    stats: &LoadStats,
    train_positions: usize,
    validation_positions: usize,
    cfg: &Config,
    outcome: &Outcome,
) -> String {
    let mut h = String::new();
    let _ = writeln!(h, "Tuned by trine-tune on {}:", files.join(", "));
    let _ = writeln!(
        h,
        "{} positions ({} training, {} validation; {} malformed lines skipped).",
        stats.positions, train_positions, validation_positions, stats.malformed
    );
    let _ = writeln!(
        h,
        "K = {:.4} (starting error against the results {:.6}), lambda = {}, lr = {}{}.",
        outcome.k,
        outcome.result_error,
        cfg.lambda,
        cfg.lr,
        if cfg.l2 > 0.0 {
            format!(", l2 = {:e}", cfg.l2)
        } else {
            String::new()
        }
    );
    // In backticks, so that rustdoc does not read `material[king]` as a link.
    let frozen: Vec<String> = std::iter::once("material[king]")
        .chain(cfg.freeze.iter().map(String::as_str))
        .map(|g| format!("`{g}`"))
        .collect();
    let frozen = frozen.join(", ");
    let _ = writeln!(
        h,
        "Epochs {} of {} (best weights after {}); frozen: {frozen}.",
        outcome.epochs_run, cfg.epochs, outcome.best_epoch
    );
    let _ = write!(
        h,
        "Training error {:.6} -> {:.6}",
        outcome.train_error.0, outcome.train_error.1
    );
    match outcome.validation_error {
        Some((a, b)) => {
            let _ = writeln!(h, ", validation error {a:.6} -> {b:.6}.");
        }
        None => h.push_str(", no validation set.\n"),
    }
    h
}

/// The `n` weights that changed most (by the larger of the midgame and endgame change):
/// (index, before, after).
pub fn largest_changes(before: &[S; LEN], after: &[S; LEN], n: usize) -> Vec<(usize, S, S)> {
    let mut changed: Vec<(usize, S, S)> = (0..LEN)
        .filter(|&i| before[i] != after[i])
        .map(|i| (i, before[i], after[i]))
        .collect();
    let size = |&(_, b, a): &(usize, S, S)| (a.mg - b.mg).abs().max((a.eg - b.eg).abs());
    changed.sort_by_key(|c| (std::cmp::Reverse(size(c)), c.0));
    changed.truncate(n);
    changed
}

/// Printable lines for [`largest_changes`], e.g. `bishop_pair  (30, 50) -> (41, 62)`.
pub fn changes_text(changes: &[(usize, S, S)]) -> String {
    let mut out = String::new();
    for &(i, b, a) in changes {
        let _ = writeln!(
            out,
            "  {:<34} ({:5}, {:5}) -> ({:5}, {:5})   {:+5} {:+5}",
            name(i),
            b.mg,
            b.eg,
            a.mg,
            a.eg,
            a.mg - b.mg,
            a.eg - b.eg
        );
    }
    out
}

/// Every `s(mg, eg)` pair of a weights source, in order (comments skipped).
pub fn parse_weights_source(src: &str) -> Result<Vec<S>, String> {
    let mut pairs = Vec::new();
    for (no, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("s(") {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + 2..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let close = after
                .find(')')
                .ok_or_else(|| format!("line {}: unclosed 's('", no + 1))?;
            let values: Vec<&str> = after[..close].split(',').map(str::trim).collect();
            let [mg, eg] = values[..] else {
                return Err(format!("line {}: expected s(mg, eg)", no + 1));
            };
            let parse = |v: &str| {
                v.parse::<i32>()
                    .map_err(|_| format!("line {}: '{v}' is not an integer", no + 1))
            };
            pairs.push(S {
                mg: parse(mg)?,
                eg: parse(eg)?,
            });
            rest = &after[close + 1..];
        }
    }
    Ok(pairs)
}

/// The weight table of a weights source (exactly `LEN` pairs).
pub fn read_table(src: &str) -> Result<[S; LEN], String> {
    let pairs = parse_weights_source(src)?;
    pairs
        .try_into()
        .map_err(|v: Vec<S>| format!("expected {LEN} s(mg, eg) pairs, found {}", v.len()))
}
