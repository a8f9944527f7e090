//! The optimisers: fitting the sigmoid scale K to the game results by golden-section search,
//! the Adam update of the weights, and the mask of trainable parameters (the king's material is
//! always frozen, whole groups can be frozen by label).

use trine::eval::params::{GROUPS, MATERIAL};

use super::data::Dataset;
use super::model::{error, Against, PARAMS};

/// Smallest and largest K searched.
const K_RANGE: (f64, f64) = (0.02, 50.0);
/// Golden-section iterations (the bracket shrinks by 0.618 each, on a log scale).
const K_ITERATIONS: usize = 48;

/// The K minimising the mean squared error of `sigmoid(K, eval)` against the game results, with
/// that error. The search is on `ln K` over `K_RANGE`.
pub fn fit_k(data: &Dataset, w: &[f64]) -> (f64, f64) {
    let f = |ln_k: f64| error(data, w, ln_k.exp(), Against::Results);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (K_RANGE.0.ln(), K_RANGE.1.ln());
    let mut c = b - ratio * (b - a);
    let mut d = a + ratio * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..K_ITERATIONS {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = f(d);
        }
    }
    let k = ((a + b) / 2.0).exp();
    (k, error(data, w, k, Against::Results))
}

/// Which parameters move: all but the king's material and the groups named in `freeze` (labels
/// of `trine::eval::params::GROUPS`, e.g. `material`, `pst`, `bishop_pair`).
pub fn trainable(freeze: &[impl AsRef<str>]) -> Result<Vec<bool>, String> {
    let mut mask = vec![true; PARAMS];
    let king = MATERIAL + 5;
    mask[2 * king] = false;
    mask[2 * king + 1] = false;
    for label in freeze {
        let (start, len) = group(label.as_ref())?;
        mask[2 * start..2 * (start + len)].fill(false);
    }
    Ok(mask)
}

/// The first weight index and the length of the group labelled `label` (a label of
/// `trine::eval::params::GROUPS`).
pub fn group(label: &str) -> Result<(usize, usize), String> {
    match GROUPS.iter().find(|g| g.0 == label) {
        Some(&(_, start, len)) => Ok((start, len)),
        None => {
            let labels: Vec<&str> = GROUPS.iter().map(|g| g.0).collect();
            Err(format!(
                "unknown group '{label}' (groups: {})",
                labels.join(", ")
            ))
        }
    }
}

/// Adam (Kingma & Ba) with bias correction.
#[derive(Clone, Debug)]
pub struct Adam {
    /// Step size, in centipawns.
    pub lr: f64,
    /// Decay of the first moment.
    pub beta1: f64,
    /// Decay of the second moment.
    pub beta2: f64,
    /// Added to the root of the second moment. The gradients of a mean squared error over
    /// probabilities are tiny (about 1e-4 for a term in every position, far less for rare ones),
    /// so this is much smaller than the usual 1e-8.
    pub eps: f64,
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl Adam {
    /// A fresh optimiser for `n` parameters.
    pub fn new(n: usize, lr: f64) -> Adam {
        Adam {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-12,
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One step downhill on `grad`, moving only the parameters whose `mask` entry is true.
    pub fn step(&mut self, w: &mut [f64], grad: &[f64], mask: &[bool]) {
        self.t += 1;
        let c1 = 1.0 - self.beta1.powi(self.t);
        let c2 = 1.0 - self.beta2.powi(self.t);
        for i in 0..w.len() {
            if !mask[i] {
                continue;
            }
            let g = grad[i];
            self.m[i] = self.beta1 * self.m[i] + (1.0 - self.beta1) * g;
            self.v[i] = self.beta2 * self.v[i] + (1.0 - self.beta2) * g * g;
            let m = self.m[i] / c1;
            let v = self.v[i] / c2;
            w[i] -= self.lr * m / (v.sqrt() + self.eps);
        }
    }
}
