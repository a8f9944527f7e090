//! The sequential probability ratio test on game pairs.
//!
//! Model: the hypotheses are stated in **logistic Elo** (`H0: elo = elo0`, `H1: elo = elo1`)
//! and turned into expected pair scores `s = 1 / (1 + 10^(-elo/400))`. The log-likelihood
//! ratio is the generalized (GSPRT) one on the **pentanomial** distribution of pairs: for each
//! hypothesis the pair-outcome distribution of greatest likelihood whose mean is `s` is found
//! exactly (Lagrange multiplier, solved by bisection), and the LLR is the log ratio of the two
//! maximized likelihoods. This is the "logistic" variant of the pentanomial GSPRT used by
//! fishtest, fastchess and OpenBench (which also offer a normalized-Elo variant, not done here).
//! The test stops at the Wald bounds `ln(beta / (1 - alpha))` (accept H0) and
//! `ln((1 - beta) / alpha)` (accept H1).

use super::elo::elo_to_score;
use super::Pentanomial;

/// Pseudo-count given to empty pentanomial classes so that the constrained maximum
/// likelihood exists for any data (fishtest does the same).
pub const EMPTY_CLASS_WEIGHT: f64 = 1e-3;

/// The outcome of checking the LLR against the bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The LLR fell to the lower bound: H0 (`elo <= elo0`) accepted.
    AcceptH0,
    /// The LLR reached the upper bound: H1 (`elo >= elo1`) accepted.
    AcceptH1,
    /// Neither bound reached yet.
    Continue,
}

impl std::fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        })
    }
}

/// SPRT parameters: Elo hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative hypothesis.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

impl Sprt {
    /// Checks and builds the parameters: `elo0 < elo1`, `alpha` and `beta` in `(0, 1)`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!("SPRT needs elo0 < elo1 (got {elo0} and {elo1})"));
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 1.0) {
                return Err(format!("SPRT {name} must lie in (0, 1), got {v}"));
            }
        }
        Ok(Self {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Lower (H0) bound on the LLR: `ln(beta / (1 - alpha))`.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Upper (H1) bound on the LLR: `ln((1 - beta) / alpha)`.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// Log-likelihood ratio of H1 against H0 for the given pairs (0 without pairs).
    pub fn llr(&self, p: &Pentanomial) -> f64 {
        if p.pairs() == 0 {
            return 0.0;
        }
        let counts = p
            .counts
            .map(|c| if c == 0 { EMPTY_CLASS_WEIGHT } else { c as f64 });
        pentanomial_llr(&counts, elo_to_score(self.elo0), elo_to_score(self.elo1))
    }

    /// Compares an LLR with the bounds.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

/// The distribution over the five pair scores that maximizes the likelihood of `counts`
/// among those with mean `s`: `q_i = p_i / (1 + λ (a_i - s))` where `p` are the observed
/// frequencies and `λ` makes the mean equal `s`. `s` must lie strictly between the smallest
/// and largest score with a positive count.
pub fn constrained_mle(counts: &[f64; 5], s: f64) -> [f64; 5] {
    let total: f64 = counts.iter().sum();
    let p = counts.map(|c| c / total);
    let d: Vec<f64> = Pentanomial::SCORES.iter().map(|a| a - s).collect();
    // g(λ) = Σ p_i d_i / (1 + λ d_i) decreases in λ; its root is the multiplier.
    let g = |lambda: f64| -> f64 {
        p.iter()
            .zip(&d)
            .filter(|(pi, _)| **pi > 0.0)
            .map(|(pi, di)| pi * di / (1.0 + lambda * di))
            .sum()
    };
    // Keep every 1 + λ d_i positive for the classes that have mass.
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for (pi, di) in p.iter().zip(&d) {
        if *pi > 0.0 && *di > 0.0 {
            lo = lo.max(-1.0 / di);
        } else if *pi > 0.0 && *di < 0.0 {
            hi = hi.min(-1.0 / di);
        }
    }
    let width = hi - lo;
    let (mut a, mut b) = (lo + width * 1e-15, hi - width * 1e-15);
    for _ in 0..200 {
        let mid = 0.5 * (a + b);
        if g(mid) > 0.0 {
            a = mid;
        } else {
            b = mid;
        }
    }
    let lambda = 0.5 * (a + b);
    let q: Vec<f64> = p
        .iter()
        .zip(&d)
        .map(|(pi, di)| pi / (1.0 + lambda * di))
        .collect();
    let sum: f64 = q.iter().sum();
    [q[0] / sum, q[1] / sum, q[2] / sum, q[3] / sum, q[4] / sum]
}

/// Generalized log-likelihood ratio of mean pair score `s1` against `s0` for the (possibly
/// regularized, non-zero) pentanomial `counts`.
pub fn pentanomial_llr(counts: &[f64; 5], s0: f64, s1: f64) -> f64 {
    let q0 = constrained_mle(counts, s0);
    let q1 = constrained_mle(counts, s1);
    counts
        .iter()
        .zip(q0.iter().zip(&q1))
        .filter(|(c, _)| **c > 0.0)
        .map(|(c, (a, b))| c * (b / a).ln())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maximum of `Σ n_i ln q_i` over distributions with mean `s`, found by a pattern search
    /// over three free coordinates (q1, q2, q3); q0 and q4 follow from the two constraints.
    /// Independent of the Lagrange-multiplier solution above.
    fn brute_force_max_loglik(n: &[f64; 5], s: f64) -> f64 {
        let eval = |x: [f64; 3]| -> f64 {
            let q4 = s - (0.25 * x[0] + 0.5 * x[1] + 0.75 * x[2]);
            let q0 = 1.0 - x[0] - x[1] - x[2] - q4;
            let q = [q0, x[0], x[1], x[2], q4];
            if q.iter().any(|v| *v <= 0.0) {
                return f64::NEG_INFINITY;
            }
            n.iter().zip(q).map(|(c, v)| c * v.ln()).sum()
        };
        let mut x = [0.2, 0.2, 0.2];
        let mut best = eval(x);
        while !best.is_finite() {
            x = [x[0] * 0.5, x[1] * 0.5, x[2] * 0.5];
            best = eval(x);
        }
        let mut step = 0.05;
        while step > 1e-13 {
            let mut improved = false;
            for i in 0..3 {
                for sign in [1.0, -1.0] {
                    let mut y = x;
                    y[i] += sign * step;
                    let v = eval(y);
                    if v > best {
                        best = v;
                        x = y;
                        improved = true;
                    }
                }
            }
            if !improved {
                step *= 0.5;
            }
        }
        best
    }

    #[test]
    fn bounds_follow_wald() {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        assert!((s.lower_bound() - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((s.upper_bound() - (0.95f64 / 0.05).ln()).abs() < 1e-12);
        assert!((s.upper_bound() - 2.944_438_979).abs() < 1e-8);
        let t = Sprt::new(-5.0, 0.0, 0.1, 0.02).unwrap();
        assert!((t.lower_bound() - (0.02f64 / 0.9).ln()).abs() < 1e-12);
        assert!((t.upper_bound() - (0.98f64 / 0.1).ln()).abs() < 1e-12);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
    }

    #[test]
    fn constrained_mle_has_requested_mean() {
        let counts = [10.0, 40.0, 100.0, 45.0, 12.0];
        for s in [0.45, 0.5, 0.5072, 0.6] {
            let q = constrained_mle(&counts, s);
            let mean: f64 = q.iter().zip(Pentanomial::SCORES).map(|(a, b)| a * b).sum();
            assert!((mean - s).abs() < 1e-12, "{mean} vs {s}");
            assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn llr_matches_direct_maximization() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        for counts in [
            [30u64, 240, 600, 260, 40],
            [12, 101, 290, 80, 9],
            [0, 3, 10, 5, 2],
        ] {
            let p = Pentanomial::new(counts);
            let got = sprt.llr(&p);
            let n = counts.map(|c| if c == 0 { EMPTY_CLASS_WEIGHT } else { c as f64 });
            let expected =
                brute_force_max_loglik(&n, elo_to_score(5.0)) - brute_force_max_loglik(&n, 0.5);
            assert!(
                (got - expected).abs() < 1e-6,
                "{counts:?}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn llr_close_to_normal_approximation() {
        // For small Elo bounds the GSPRT LLR is close to the normal approximation
        // N (s1 - s0)(2 mean - s0 - s1) / (2 var) computed from the pair mean and variance.
        let p = Pentanomial::new([300, 2400, 6000, 2600, 400]);
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let (mean, var) = p.mean_and_variance().unwrap();
        let (s0, s1) = (elo_to_score(0.0), elo_to_score(5.0));
        let approx = p.pairs() as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        let llr = sprt.llr(&p);
        assert!(
            (llr - approx).abs() < 0.02 * approx.abs(),
            "{llr} vs {approx}"
        );
        assert_eq!(sprt.decide(llr), SprtDecision::AcceptH1);
    }

    #[test]
    fn decisions() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        assert_eq!(sprt.decide(3.0), SprtDecision::AcceptH1);
        assert_eq!(sprt.decide(-3.0), SprtDecision::AcceptH0);
        assert_eq!(sprt.decide(0.1), SprtDecision::Continue);
        assert_eq!(sprt.llr(&Pentanomial::default()), 0.0);
        // A clearly losing record drives the LLR down.
        let bad = Pentanomial::new([200, 400, 300, 100, 20]);
        assert_eq!(sprt.decide(sprt.llr(&bad)), SprtDecision::AcceptH0);
    }
}
