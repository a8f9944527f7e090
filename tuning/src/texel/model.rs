//! The tuner's model of the evaluation: the weight table as a flat `f64` vector (weight `i`'s
//! midgame value at `2i`, endgame value at `2i + 1`), the evaluation of a traced position from it
//! (exactly the engine's formula, in floating point), the win-probability sigmoid, and the mean
//! squared error with its gradient, computed full-batch in parallel (per-thread dense gradient
//! vectors, summed at the end).

use rayon::prelude::*;
use trine::eval::params::{LEN, S, UNIT};

use super::data::Dataset;

/// Number of tuned parameters: a midgame and an endgame value per weight.
pub const PARAMS: usize = 2 * LEN;

/// Positions per parallel task (keeps the number of per-thread gradient vectors small).
const MIN_TASK: usize = 4096;

/// The weight table as `f64`s in centipawns, `[mg0, eg0, mg1, eg1, ...]` (the table holds
/// [`UNIT`]s, quarter centipawns).
pub fn from_table(w: &[S; LEN]) -> Vec<f64> {
    let unit = f64::from(UNIT);
    w.iter()
        .flat_map(|s| [f64::from(s.mg) / unit, f64::from(s.eg) / unit])
        .collect()
}

/// Rounds centipawn `f64` weights back to the engine's integer table of [`UNIT`]s.
pub fn to_table(w: &[f64]) -> [S; LEN] {
    assert_eq!(w.len(), PARAMS, "expected {PARAMS} parameters");
    let unit = f64::from(UNIT);
    std::array::from_fn(|i| S {
        mg: (w[2 * i] * unit).round() as i32,
        eg: (w[2 * i + 1] * unit).round() as i32,
    })
}

/// White's expected score for an evaluation `eval` (centipawns, white's view):
/// `1 / (1 + exp(−k · eval / 400))`.
#[inline]
pub fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval / 400.0).exp())
}

/// Evaluation of position `i` (white's view, centipawns) with weights `w`:
/// `rho_mg · Σ count·mg + rho_eg · Σ count·eg`.
#[inline]
pub fn evaluate(data: &Dataset, i: usize, w: &[f64]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for t in data.terms(i) {
        let c = f64::from(t.count);
        let at = 2 * usize::from(t.index);
        mg += c * w[at];
        eg += c * w[at + 1];
    }
    let (rho_mg, rho_eg) = data.rho(i);
    mg * rho_mg + eg * rho_eg
}

/// What an error is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// The training targets (see `Dataset::set_targets`).
    Targets,
    /// The game results alone (used to fit K).
    Results,
}

/// Mean squared error of `sigmoid(k, eval)` against the targets or the results (0 for no data).
pub fn error(data: &Dataset, w: &[f64], k: f64, against: Against) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = (0..data.len())
        .into_par_iter()
        .with_min_len(MIN_TASK)
        .map(|i| {
            let y = match against {
                Against::Targets => data.target(i),
                Against::Results => data.result(i),
            };
            let d = sigmoid(k, evaluate(data, i, w)) - y;
            d * d
        })
        .sum();
    sum / data.len() as f64
}

/// Mean squared error against the targets and its gradient with respect to every parameter.
pub fn gradient(data: &Dataset, w: &[f64], k: f64) -> (f64, Vec<f64>) {
    if data.is_empty() {
        return (0.0, vec![0.0; PARAMS]);
    }
    let (sum, mut grad) = (0..data.len())
        .into_par_iter()
        .with_min_len(MIN_TASK)
        .fold(
            || (0.0f64, vec![0.0f64; PARAMS]),
            |(mut sum, mut g), i| {
                let p = sigmoid(k, evaluate(data, i, w));
                let d = p - data.target(i);
                sum += d * d;
                // d/dw (p − y)² = 2 (p − y) · p (1 − p) · k / 400 · d eval / dw
                let scale = 2.0 * d * p * (1.0 - p) * k / 400.0;
                let (rho_mg, rho_eg) = data.rho(i);
                let (gm, ge) = (scale * rho_mg, scale * rho_eg);
                for t in data.terms(i) {
                    let c = f64::from(t.count);
                    let at = 2 * usize::from(t.index);
                    g[at] += gm * c;
                    g[at + 1] += ge * c;
                }
                (sum, g)
            },
        )
        .reduce(
            || (0.0, vec![0.0; PARAMS]),
            |(s1, mut g1), (s2, g2)| {
                g1.iter_mut().zip(&g2).for_each(|(a, b)| *a += b);
                (s1 + s2, g1)
            },
        );
    let n = data.len() as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    (sum / n, grad)
}
