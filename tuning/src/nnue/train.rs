//! One training run: mini-batch Adam over shuffled training positions, each batch's gradient
//! computed in parallel (the batch is split across the rayon threads; each thread accumulates into
//! its own dense gradient buffer and scratch space, kept for the whole run, and the buffers are
//! summed inside the Adam update), every weight (every output bucket's too: Adam's moments and the
//! clip run over the whole parameter vector) clipped to ±[`CLIP`] after each step, the learning
//! rate multiplied by `lr_drop` every `drop_every` epochs, and early stopping on the validation
//! loss: the best network is kept and handed to the caller whenever it improves.

use std::time::Instant;

use rayon::prelude::*;

use super::data::Dataset;
use super::features::KingBuckets;
use super::model::{check_buckets, check_hidden, param_count, Network, Scratch};
use super::seeded_rng;
use super::CLIP;

/// Settings of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Hidden size H (a multiple of 8 in 8..=4096).
    pub hidden: usize,
    /// Output buckets B (1..=16): the output layer used for a position is chosen by its piece
    /// count (docs/nnue.md).
    pub buckets: usize,
    /// King buckets: the block of feature weights used for a perspective is chosen by its own
    /// king's square (docs/nnue.md).
    pub kings: KingBuckets,
    /// Most epochs.
    pub epochs: usize,
    /// Positions per mini-batch.
    pub batch: usize,
    /// Adam's starting step size.
    pub lr: f32,
    /// Factor applied to the step size every `drop_every` epochs.
    pub lr_drop: f32,
    /// Epochs between step-size drops.
    pub drop_every: usize,
    /// Sigmoid scale K: probabilities are `sigmoid(K · cp / 400)`.
    pub k: f32,
    /// Weight of the game result in the target (the rest: the sigmoid of the search score).
    pub lambda: f32,
    /// Stop after this many epochs without a better validation loss (0: never).
    pub patience: usize,
    /// Seed of the initial weights and the shuffles.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hidden: 128,
            buckets: 1,
            kings: KingBuckets::NONE,
            epochs: 24,
            batch: 16384,
            lr: 0.001,
            lr_drop: 0.3,
            drop_every: 8,
            k: 2.2,
            lambda: 0.1,
            patience: 6,
            seed: 1,
        }
    }
}

impl Config {
    /// Checks the settings.
    pub fn check(&self) -> Result<(), String> {
        check_hidden(self.hidden)?;
        check_buckets(self.buckets)?;
        if self.batch == 0 {
            return Err("the batch size must be positive".into());
        }
        if self.drop_every == 0 {
            return Err("--drop-every must be positive".into());
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return Err(format!("learning rate {} is not positive", self.lr));
        }
        if !(self.lr_drop > 0.0 && self.lr_drop <= 1.0) {
            return Err(format!(
                "learning-rate drop {} is not in (0, 1]",
                self.lr_drop
            ));
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return Err(format!("lambda {} is not in 0..=1", self.lambda));
        }
        if !(self.k > 0.0 && self.k.is_finite()) {
            return Err(format!("K {} is not positive", self.k));
        }
        Ok(())
    }

    /// The step size of epoch `epoch` (1-based).
    pub fn lr_at(&self, epoch: usize) -> f32 {
        self.lr
            * self
                .lr_drop
                .powi(((epoch.max(1) - 1) / self.drop_every) as i32)
    }
}

/// What one epoch did (epoch 0: the starting network, before any step).
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// Epoch number, from 1 (0 for the starting network).
    pub epoch: usize,
    /// Mean training loss over the epoch's batches (NaN at epoch 0).
    pub train_loss: f64,
    /// Validation loss after the epoch (the training loss when there is no validation set).
    pub validation_loss: f64,
    /// Training positions per second of the epoch's gradient steps.
    pub positions_per_s: f64,
    /// The epoch's step size.
    pub lr: f32,
    /// Whether the validation loss is the best so far (the network given with it is new).
    pub improved: bool,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The network of the best validation loss.
    pub best: Network,
    /// Its epoch.
    pub best_epoch: usize,
    /// Its validation loss.
    pub best_loss: f64,
    /// Epochs run (fewer than asked when stopped early).
    pub epochs_run: usize,
    /// Wall time of the run, seconds.
    pub seconds: f64,
    /// Training positions per second over all gradient steps.
    pub positions_per_s: f64,
}

/// Mean squared error of `net` on `data` (0 for no data), in parallel.
pub fn mean_loss(net: &Network, data: &Dataset, k: f32, lambda: f32) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = (0..data.len())
        .into_par_iter()
        .with_min_len(1024)
        .map_init(
            || Scratch::new(net.hidden()),
            |s, i| f64::from(net.loss(data.get(i), k, lambda, s)),
        )
        .sum();
    sum / data.len() as f64
}

/// Adam's state: first and second moments of every parameter.
#[derive(Clone, Debug)]
pub struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

/// Adam's decay rates and ε.
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;
/// Parameters per parallel task of the update.
const UPDATE_CHUNK: usize = 4096;

impl Adam {
    /// Zero moments for `n` parameters.
    pub fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One step with step size `lr` on the gradient `Σ grads` (the per-thread buffers, summed
    /// here), then clips every parameter to ±[`CLIP`].
    pub fn step(&mut self, params: &mut [f32], grads: &[&[f32]], lr: f32) {
        self.t += 1;
        let bc1 = 1.0 - BETA1.powi(self.t);
        let bc2 = 1.0 - BETA2.powi(self.t);
        let step = lr / bc1;
        let bc2_sqrt = bc2.sqrt();
        params
            .par_chunks_mut(UPDATE_CHUNK)
            .zip(self.m.par_chunks_mut(UPDATE_CHUNK))
            .zip(self.v.par_chunks_mut(UPDATE_CHUNK))
            .enumerate()
            .for_each(|(c, ((p, m), v))| {
                let at = c * UPDATE_CHUNK;
                let mut g = [0.0f32; UPDATE_CHUNK];
                let g = &mut g[..p.len()];
                g.copy_from_slice(&grads[0][at..at + p.len()]);
                for other in grads[1..].iter() {
                    for (g, o) in g.iter_mut().zip(&other[at..at + p.len()]) {
                        *g += o;
                    }
                }
                for (((p, m), v), &g) in p.iter_mut().zip(m).zip(v).zip(g.iter()) {
                    *m = BETA1 * *m + (1.0 - BETA1) * g;
                    *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                    let update = step * *m / (v.sqrt() / bc2_sqrt + EPSILON);
                    *p = (*p - update).clamp(-CLIP, CLIP);
                }
            });
    }
}

/// One thread's share of a batch: its gradient buffer and scratch space.
struct Worker {
    grad: Vec<f32>,
    scratch: Scratch,
}

/// Trains from `start` (or a random network from the seed) on `train`, stopping early on
/// `validation` (on the training loss when it is empty). `on_epoch` hears of every epoch (and of
/// the starting network's validation loss as epoch 0), with the best network so far; an error from
/// it ends the run. The starting network counts as epoch 0: when no epoch beats its validation
/// loss, it is the best.
pub fn train(
    train: &Dataset,
    validation: &Dataset,
    cfg: &Config,
    start: Option<Network>,
    on_epoch: &mut dyn FnMut(&EpochReport, &Network) -> Result<(), String>,
) -> Result<Outcome, String> {
    cfg.check()?;
    if train.is_empty() {
        return Err("no training positions".into());
    }
    if train.len() > u32::MAX as usize {
        return Err("more than 4 billion training positions".into());
    }
    let begin = Instant::now();
    let mut net = match start {
        Some(net) => net,
        None => Network::random(cfg.hidden, cfg.buckets, cfg.seed).with_king_buckets(cfg.kings)?,
    };
    if net.hidden() != cfg.hidden {
        return Err(format!(
            "the starting network has {} hidden neurons, not {}",
            net.hidden(),
            cfg.hidden
        ));
    }
    if net.buckets() != cfg.buckets {
        return Err(format!(
            "the starting network has {} output buckets, not {}",
            net.buckets(),
            cfg.buckets
        ));
    }
    if net.king_buckets() != cfg.kings {
        return Err(format!(
            "the starting network has {} king buckets, not the {} asked for",
            net.king_buckets().count,
            cfg.kings.count
        ));
    }
    let h = cfg.hidden;
    let n = param_count(h, cfg.buckets, cfg.kings.count);
    let mut adam = Adam::new(n);
    let mut workers: Vec<Worker> = (0..rayon::current_num_threads().max(1))
        .map(|_| Worker {
            grad: vec![0.0; n],
            scratch: Scratch::new(h),
        })
        .collect();
    let mut rng = seeded_rng(cfg.seed.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0x5851_F42D);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut best = net.clone();
    let mut best_loss = f64::INFINITY;
    let mut best_epoch = 0;
    let (mut train_secs, mut trained) = (0.0, 0usize);
    if !validation.is_empty() {
        // The starting network is the one to beat (it may come from a file).
        best_loss = mean_loss(&net, validation, cfg.k, cfg.lambda);
        let report = EpochReport {
            epoch: 0,
            train_loss: f64::NAN,
            validation_loss: best_loss,
            positions_per_s: 0.0,
            lr: cfg.lr_at(1),
            improved: false,
        };
        on_epoch(&report, &best)?;
    }
    let mut epochs_run = 0;
    for epoch in 1..=cfg.epochs {
        let lr = cfg.lr_at(epoch);
        rng.shuffle(&mut order);
        let t = Instant::now();
        let mut loss_sum = 0.0f64;
        for batch in order.chunks(cfg.batch) {
            let (loss, used) = batch_gradient(&net, train, batch, cfg, &mut workers);
            loss_sum += loss;
            let grads: Vec<&[f32]> = workers[..used].iter().map(|w| &w.grad[..]).collect();
            adam.step(&mut net.params, &grads, lr);
        }
        let secs = t.elapsed().as_secs_f64();
        train_secs += secs;
        trained += train.len();
        epochs_run = epoch;
        let train_loss = loss_sum / train.len() as f64;
        let validation_loss = if validation.is_empty() {
            train_loss
        } else {
            mean_loss(&net, validation, cfg.k, cfg.lambda)
        };
        let improved = validation_loss < best_loss;
        if improved {
            best.clone_from(&net);
            best_loss = validation_loss;
            best_epoch = epoch;
        }
        let report = EpochReport {
            epoch,
            train_loss,
            validation_loss,
            positions_per_s: train.len() as f64 / secs.max(1e-9),
            lr,
            improved,
        };
        on_epoch(&report, &best)?;
        if cfg.patience > 0 && epoch - best_epoch >= cfg.patience {
            break;
        }
    }
    Ok(Outcome {
        best,
        best_epoch,
        best_loss,
        epochs_run,
        seconds: begin.elapsed().as_secs_f64(),
        positions_per_s: trained as f64 / f64::max(train_secs, 1e-9),
    })
}

/// Fills the workers' gradient buffers with the gradient of the batch's mean loss (split in equal
/// parts across them, in parallel) and returns the batch's summed loss and how many workers (the
/// first ones) took a part.
fn batch_gradient(
    net: &Network,
    data: &Dataset,
    batch: &[u32],
    cfg: &Config,
    workers: &mut [Worker],
) -> (f64, usize) {
    let per = batch.len().div_ceil(workers.len());
    let used = batch.len().div_ceil(per);
    let weight = 1.0 / batch.len() as f32;
    let loss = workers
        .par_iter_mut()
        .zip(batch.par_chunks(per))
        .map(|(w, part)| {
            w.grad.fill(0.0);
            let mut sum = 0.0f64;
            for &i in part {
                let e = data.get(i as usize);
                sum += f64::from(net.backprop(
                    e,
                    cfg.k,
                    cfg.lambda,
                    weight,
                    &mut w.scratch,
                    &mut w.grad,
                ));
            }
            sum
        })
        .sum();
    (loss, used)
}
