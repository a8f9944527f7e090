//! The `trine-nnue` command line: flags, the thread pool, loading (with timing, memory and the
//! malformed-line count), one training line per epoch, and the best network written to `--out`
//! whenever the validation loss improves and at the end. Everything goes to stderr.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;

use super::data::Loaded;
use super::export::{self, file_len};
use super::features::KingBuckets;
use super::train::{train, Config, EpochReport};
use super::Network;
use crate::data::Split;

/// Trains Trine's NNUE (docs/nnue.md) on `<FEN> | <score> | <result>` data (as written by
/// `trine datagen`): mini-batch Adam on the mean squared error between `sigmoid(K · cp / 400)`
/// and `lambda · result + (1 − lambda) · sigmoid(K · score / 400)`, side to move's view.
#[derive(Parser, Debug, Clone)]
#[command(name = "trine-nnue", version)]
pub struct Args {
    /// Data file (repeatable).
    #[arg(long = "data", value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// Write the best network here (quantised, docs/nnue.md), after every epoch that improves
    /// the validation loss.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Hidden size H (a multiple of 8 in 8..=4096).
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Output buckets B (1..=16): a position's output layer is chosen by its piece count. With
    /// more than one the file is format version 2.
    #[arg(long, default_value_t = 1)]
    pub buckets: usize,
    /// King buckets K (1, 4 or 8, layouts in docs/nnue.md): a perspective's block of feature
    /// weights is chosen by its own king's square. With more than one the file is format
    /// version 3; `--init` from a network of one king bucket copies its weights into every block.
    #[arg(long, default_value_t = 1)]
    pub king_buckets: usize,
    /// Most epochs.
    #[arg(long, default_value_t = 24)]
    pub epochs: usize,
    /// Positions per mini-batch.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Adam's starting step size.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Multiply the step size by this every `--drop-every` epochs.
    #[arg(long, default_value_t = 0.3)]
    pub lr_drop: f32,
    /// Epochs between step-size drops.
    #[arg(long, default_value_t = 8)]
    pub drop_every: usize,
    /// Sigmoid scale K: `sigmoid(K · cp / 400)`.
    #[arg(long, default_value_t = 2.2)]
    pub k: f32,
    /// Weight of the game result in the target (the rest: the sigmoid of the search score).
    #[arg(long, default_value_t = 0.1)]
    pub lambda: f32,
    /// Fraction of the positions held out (by game) for early stopping.
    #[arg(long, default_value_t = 0.05)]
    pub validation: f64,
    /// Stop after this many epochs without a better validation loss (0: never).
    #[arg(long, default_value_t = 6)]
    pub patience: usize,
    /// Seed of the initial weights, the shuffles and the validation split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start from this network file instead of random weights: the same hidden size or a smaller
    /// one (widened with new units that do not change its evaluation until trained), the same
    /// number of output buckets or one (copied into every bucket), and the same king buckets or
    /// one (copied into every king bucket).
    #[arg(long, value_name = "FILE")]
    pub init: Option<PathBuf>,
    /// Widen the `--init` network by copying its units with the largest output weights instead
    /// (Net2Net: a copy takes half its unit's output weights, and its feature weights get noise
    /// of ±NOISE times their root mean square); at most twice the units.
    #[arg(long, value_name = "NOISE")]
    pub widen_copies: Option<f32>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also train on every training position mirrored left to right (files a and h swapped), which
    /// the features cannot tell from the original but for castling rights: twice the data.
    #[arg(long)]
    pub mirror: bool,
}

impl Args {
    /// The training settings; an error for a king bucket count without a layout.
    pub fn config(&self) -> Result<Config, String> {
        Ok(Config {
            hidden: self.hidden,
            buckets: self.buckets,
            kings: KingBuckets::layout(self.king_buckets)?,
            epochs: self.epochs,
            batch: self.batch,
            lr: self.lr,
            lr_drop: self.lr_drop,
            drop_every: self.drop_every,
            k: self.k,
            lambda: self.lambda,
            patience: self.patience,
            seed: self.seed,
        })
    }
}

/// One epoch's line.
pub fn epoch_line(r: &EpochReport) -> String {
    let train = if r.train_loss.is_nan() {
        "-".to_string()
    } else {
        format!("{:.6}", r.train_loss)
    };
    format!(
        "epoch {:>3}  train {train:>8}  validation {:.6}{}  {:>9.0} positions/s  lr {:.2e}",
        r.epoch,
        r.validation_loss,
        if r.improved { " *" } else { "  " },
        r.positions_per_s,
        r.lr
    )
}

/// Runs `trine-nnue`.
pub fn run(args: Args) -> Result<(), String> {
    let cfg = args.config()?;
    cfg.check()?;
    if !(0.0..1.0).contains(&args.validation) {
        return Err(format!("--validation {} is not in 0..1", args.validation));
    }
    crate::texel::cli::use_threads(args.threads)?;
    let start = match &args.init {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let q = export::Quantised::from_bytes(&bytes)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            let net = q.to_network().with_buckets(cfg.buckets).map_err(|_| {
                format!(
                    "{}: {} output buckets, not --buckets {} (or 1)",
                    p.display(),
                    q.buckets,
                    cfg.buckets
                )
            })?;
            let net = net.with_king_buckets(cfg.kings).map_err(|_| {
                format!(
                    "{}: {} king buckets, not --king-buckets {} (or 1)",
                    p.display(),
                    q.kings.count,
                    cfg.kings.count
                )
            })?;
            let net = match args.widen_copies {
                Some(noise) => net.with_hidden_copied(cfg.hidden, noise, args.seed),
                None => net.with_hidden(cfg.hidden, args.seed),
            }
            .map_err(|e| format!("{}: {e}", p.display()))?;
            Some(net)
        }
        None => None,
    };

    let t = Instant::now();
    let split = Split {
        fraction: args.validation,
        seed: args.seed,
    };
    let mut loaded = Loaded::load(&args.data, split).map_err(|e| e.to_string())?;
    if args.mirror {
        loaded.train.add_mirrors();
    }
    let secs = t.elapsed().as_secs_f64();
    let stats = &loaded.stats;
    eprintln!(
        "loaded {} positions of {} games ({} training, {} validation; {:.1} MB) from {} lines \
         in {secs:.1} s; {} malformed lines skipped",
        stats.positions,
        stats.games,
        loaded.train.len(),
        loaded.validation.len(),
        (loaded.train.bytes() + loaded.validation.bytes()) as f64 / 1e6,
        stats.lines,
        stats.malformed
    );
    for e in &stats.examples {
        eprintln!("  malformed: {e}");
    }
    eprintln!(
        "network 768x2 x {} king bucket(s) -> {} -> 1 x {} output bucket(s) ({} parameters, \
         file {} bytes), {} threads, batch {}, K {}, lambda {}, lr {} x{} every {} epochs",
        cfg.kings.count,
        cfg.hidden,
        cfg.buckets,
        super::model::param_count(cfg.hidden, cfg.buckets, cfg.kings.count),
        file_len(cfg.hidden, cfg.buckets, cfg.kings.count),
        rayon::current_num_threads(),
        cfg.batch,
        cfg.k,
        cfg.lambda,
        cfg.lr,
        cfg.lr_drop,
        cfg.drop_every
    );

    let out = args.out.clone();
    let mut save = |r: &EpochReport, best: &Network| -> Result<(), String> {
        eprintln!("{}", epoch_line(r));
        if r.improved {
            export::write(best, &out).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        Ok(())
    };
    let outcome = train(&loaded.train, &loaded.validation, &cfg, start, &mut save)?;
    export::write(&outcome.best, &args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    eprintln!(
        "{} epochs in {:.1} s ({:.0} positions/s); best validation {:.6} at epoch {}; wrote {}",
        outcome.epochs_run,
        outcome.seconds,
        outcome.positions_per_s,
        outcome.best_loss,
        outcome.best_epoch,
        args.out.display()
    );
    Ok(())
}
