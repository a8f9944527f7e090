//! The Texel tuner's positions: every data line (read by [`crate::data`]) is traced with
//! [`trine::eval::trace`] while it is loaded, in parallel, and kept in a compact
//! structure-of-arrays [`Dataset`]: per position only its non-zero feature counts (a few dozen
//! 4-byte [`Term`]s), the two blend factors of the tapered evaluation, the search score, the game
//! result and the training target.

use rayon::prelude::*;
use shakmaty::Chess;
use trine::eval::{self, Trace};

use super::model::sigmoid;
use crate::data::{Positions, Sample};

/// The Texel tuner's data, split into a training and a validation set.
pub type Loaded = crate::data::Loaded<Dataset>;

/// One feature of a position: weight index and white's count minus black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Index into the weight table (`trine::eval::params`).
    pub index: u16,
    /// White's count minus black's.
    pub count: i16,
}

/// Traced positions, structure of arrays (position `i`'s terms are
/// `terms[offsets[i]..offsets[i + 1]]`).
#[derive(Clone, Debug)]
pub struct Dataset {
    offsets: Vec<u32>,
    terms: Vec<Term>,
    rho_mg: Vec<f32>,
    rho_eg: Vec<f32>,
    score: Vec<f32>,
    result: Vec<f32>,
    target: Vec<f32>,
}

impl Default for Dataset {
    fn default() -> Self {
        Dataset::new()
    }
}

impl Dataset {
    /// No positions.
    pub fn new() -> Dataset {
        Dataset {
            offsets: vec![0],
            terms: Vec::new(),
            rho_mg: Vec::new(),
            rho_eg: Vec::new(),
            score: Vec::new(),
            result: Vec::new(),
            target: Vec::new(),
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.rho_mg.len()
    }

    /// True when there are no positions.
    pub fn is_empty(&self) -> bool {
        self.rho_mg.is_empty()
    }

    /// Total number of stored terms (memory is about 4 bytes per term plus 24 per position).
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Adds a traced position. `result` is white's expected score in 0..=1 (a game result, or a
    /// probability for synthetic data); the target starts as `result` (see [`Dataset::set_targets`]).
    pub fn push(&mut self, trace: &Trace, score: i32, result: f32) {
        self.terms.extend(
            trace
                .terms
                .iter()
                .map(|&(index, count)| Term { index, count }),
        );
        let end = u32::try_from(self.terms.len())
            .expect("more than 4 billion terms: split the data into smaller runs");
        self.offsets.push(end);
        let phase = trace.phase as f32;
        self.rho_mg.push(phase / 24.0);
        self.rho_eg
            .push(trace.eg_scale as f32 / 64.0 * (24.0 - phase) / 24.0);
        self.score.push(score as f32);
        self.result.push(result);
        self.target.push(result);
    }

    /// Traces `pos` and adds it.
    pub fn push_position(&mut self, pos: &Chess, score: i32, result: f32) {
        self.push(&eval::trace(pos), score, result);
    }

    /// The non-zero terms of position `i`.
    #[inline]
    pub fn terms(&self, i: usize) -> &[Term] {
        &self.terms[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Blend factors of position `i`: its evaluation (white's view) is
    /// `rho_mg · Σ count·mg + rho_eg · Σ count·eg`, with `rho_mg = phase / 24` and
    /// `rho_eg = eg_scale / 64 · (24 − phase) / 24`.
    #[inline]
    pub fn rho(&self, i: usize) -> (f64, f64) {
        (f64::from(self.rho_mg[i]), f64::from(self.rho_eg[i]))
    }

    /// Search score of position `i` (centipawns, white's view).
    pub fn score(&self, i: usize) -> f64 {
        f64::from(self.score[i])
    }

    /// Game result of position `i` (white's view).
    #[inline]
    pub fn result(&self, i: usize) -> f64 {
        f64::from(self.result[i])
    }

    /// Training target of position `i`.
    #[inline]
    pub fn target(&self, i: usize) -> f64 {
        f64::from(self.target[i])
    }

    /// Sets every target to `lambda · result + (1 − lambda) · sigmoid(k, score)`.
    pub fn set_targets(&mut self, k: f64, lambda: f64) {
        let (score, result) = (&self.score, &self.result);
        self.target.par_iter_mut().enumerate().for_each(|(i, t)| {
            let from_score = sigmoid(k, f64::from(score[i]));
            *t = (lambda * f64::from(result[i]) + (1.0 - lambda) * from_score) as f32;
        });
    }

    /// Replaces every result (and target) by `f(self, i)`, e.g. win probabilities from known
    /// weights for synthetic data.
    pub fn set_results(&mut self, f: impl Fn(&Dataset, usize) -> f64) {
        let r: Vec<f32> = (0..self.len()).map(|i| f(self, i) as f32).collect();
        self.target.clone_from(&r);
        self.result = r;
    }

    /// The positions for which `keep(self, i)` holds, in order.
    pub fn filter(&self, keep: impl Fn(&Dataset, usize) -> bool) -> Dataset {
        let mut out = Dataset::new();
        for i in (0..self.len()).filter(|&i| keep(self, i)) {
            out.terms.extend_from_slice(self.terms(i));
            out.offsets.push(out.terms.len() as u32);
            out.rho_mg.push(self.rho_mg[i]);
            out.rho_eg.push(self.rho_eg[i]);
            out.score.push(self.score[i]);
            out.result.push(self.result[i]);
            out.target.push(self.target[i]);
        }
        out
    }
}

impl Positions for Dataset {
    /// The trace, the search score and the game result (both white's view).
    type Encoded = (Trace, i32, f32);

    fn encode(s: Sample) -> Result<Self::Encoded, String> {
        Ok((eval::trace(&s.pos), s.score, s.result))
    }

    fn add(&mut self, (trace, score, result): Self::Encoded) {
        self.push(&trace, score, result);
    }
}
