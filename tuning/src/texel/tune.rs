//! One tuning run: fit K (unless given), set the targets, then full-batch Adam epochs with the
//! training and validation error measured for every epoch's weights, early stopping when the
//! validation error has not improved for `patience` epochs, and the best-validation weights kept.
//! An optional L2 penalty pulls every weight toward its starting value, so that weights the data
//! rarely sees (a king on the eighth rank in the midgame) stay where they were instead of following
//! Adam's per-weight normalised steps into noise.

use std::time::Instant;

use trine::eval::params::{LEN, S};

use super::data::Dataset;
use super::model::{self, error, from_table, gradient, Against};
use super::optimise::{fit_k, trainable, Adam};

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Most Adam steps (full passes over the training set).
    pub epochs: usize,
    /// Adam step size, centipawns.
    pub lr: f64,
    /// Weight of the game result in the target (the rest is the sigmoid of the search score).
    pub lambda: f64,
    /// The sigmoid scale; `None` fits it to the results with the starting weights.
    pub k: Option<f64>,
    /// Group labels whose weights stay as they are.
    pub freeze: Vec<String>,
    /// Stop after this many epochs without a better validation error.
    pub patience: usize,
    /// Print a progress line every this many epochs.
    pub report_every: usize,
    /// Strength of the penalty `l2 · Σ (w − w_start)²` added to the training error (per
    /// centipawn²; 0 = none). The errors reported and used for early stopping exclude it.
    pub l2: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            epochs: 300,
            lr: 1.0,
            lambda: 0.5,
            k: None,
            freeze: Vec::new(),
            patience: 30,
            report_every: 10,
            l2: 0.0,
        }
    }
}

/// What a run found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The sigmoid scale used.
    pub k: f64,
    /// Mean squared error of the starting weights against the game results (with `k`).
    pub result_error: f64,
    /// The starting weights.
    pub start: Vec<f64>,
    /// The weights with the best validation error (training error if there is no validation set).
    pub best: Vec<f64>,
    /// Adam steps taken before the best weights (0: the starting weights were best).
    pub best_epoch: usize,
    /// Adam steps taken.
    pub epochs_run: usize,
    /// Training error (against the targets) of the starting weights and of the best weights
    /// rounded to integers (what gets written).
    pub train_error: (f64, f64),
    /// Validation error, likewise (`None` without a validation set).
    pub validation_error: Option<(f64, f64)>,
    /// Seconds spent in the epochs (gradient, step and validation passes).
    pub seconds: f64,
}

impl Outcome {
    /// The best weights rounded to the engine's integers.
    pub fn table(&self) -> [S; LEN] {
        model::to_table(&self.best)
    }

    /// Training positions × epochs per second.
    pub fn speed(&self, train_positions: usize) -> f64 {
        train_positions as f64 * self.epochs_run as f64 / self.seconds.max(1e-9)
    }
}

/// Tunes `start` on `train`, stopping early on `validation`; progress lines go to `log`.
pub fn tune(
    train: &mut Dataset,
    validation: &mut Dataset,
    start: &[S; LEN],
    cfg: &Config,
    log: &mut dyn FnMut(&str),
) -> Result<Outcome, String> {
    if train.is_empty() {
        return Err("no training positions".into());
    }
    if !(0.0..=1.0).contains(&cfg.lambda) {
        return Err(format!("lambda {} is not in 0..=1", cfg.lambda));
    }
    if !(cfg.l2 >= 0.0 && cfg.l2.is_finite()) {
        return Err(format!("l2 {} is not a finite number >= 0", cfg.l2));
    }
    let mask = trainable(&cfg.freeze)?;
    let w0 = from_table(start);
    let (k, result_error) = match cfg.k {
        Some(k) => (k, error(train, &w0, k, Against::Results)),
        None => {
            let t = Instant::now();
            let (k, e) = fit_k(train, &w0);
            log(&format!(
                "K = {k:.4}: error of the current weights against the results {e:.6} ({:.1} s)",
                t.elapsed().as_secs_f64()
            ));
            (k, e)
        }
    };
    train.set_targets(k, cfg.lambda);
    validation.set_targets(k, cfg.lambda);
    let has_validation = !validation.is_empty();

    let started = Instant::now();
    let mut w = w0.clone();
    let mut adam = Adam::new(w.len(), cfg.lr);
    let mut best = w.clone();
    let mut best_metric = f64::INFINITY;
    let mut best_epoch = 0;
    let mut first: Option<(f64, f64)> = None;
    let mut epoch = 0;
    loop {
        // The errors of the weights after `epoch` steps.
        let (train_err, grad) = if epoch < cfg.epochs {
            let (e, mut g) = gradient(train, &w, k);
            if cfg.l2 > 0.0 {
                for ((g, &w), &w0) in g.iter_mut().zip(&w).zip(&w0) {
                    *g += 2.0 * cfg.l2 * (w - w0);
                }
            }
            (e, g)
        } else {
            (error(train, &w, k, Against::Targets), Vec::new())
        };
        let valid_err = if has_validation {
            error(validation, &w, k, Against::Targets)
        } else {
            train_err
        };
        first.get_or_insert((train_err, valid_err));
        if valid_err < best_metric {
            best_metric = valid_err;
            best.copy_from_slice(&w);
            best_epoch = epoch;
        }
        let stop = epoch >= cfg.epochs || epoch - best_epoch > cfg.patience;
        if epoch % cfg.report_every.max(1) == 0 || stop {
            let valid = if has_validation {
                format!("  validation {valid_err:.6}")
            } else {
                String::new()
            };
            log(&format!(
                "epoch {epoch:4}  train {train_err:.6}{valid}  (best at {best_epoch}, {:.1} s)",
                started.elapsed().as_secs_f64()
            ));
        }
        if stop {
            if epoch < cfg.epochs {
                log(&format!(
                    "stopped early: no better {} error for {} epochs",
                    if has_validation {
                        "validation"
                    } else {
                        "training"
                    },
                    cfg.patience
                ));
            }
            break;
        }
        adam.step(&mut w, &grad, &mask);
        epoch += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    let first = first.expect("at least one evaluation");
    // The errors reported "after" are those of the rounded weights that get written.
    let rounded = from_table(&model::to_table(&best));
    let train_after = error(train, &rounded, k, Against::Targets);
    let valid_after = error(validation, &rounded, k, Against::Targets);
    Ok(Outcome {
        k,
        result_error,
        start: w0,
        best,
        best_epoch,
        epochs_run: epoch,
        train_error: (first.0, train_after),
        validation_error: has_validation.then_some((first.1, valid_after)),
        seconds,
    })
}
