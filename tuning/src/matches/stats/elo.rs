//! Elo arithmetic: the logistic Elo model (score ↔ Elo), the normal distribution needed for
//! confidence intervals and the likelihood of superiority, and Elo estimates with 95 %
//! intervals from the pentanomial distribution of game pairs (the estimate used in reports)
//! or from plain win/draw/loss counts.

use super::{Pentanomial, Wdl};

/// The two-sided 95 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Logistic Elo difference that corresponds to an expected score in `0..=1`
/// (`-400 log10(1/score - 1)`); infinite at 0 and 1.
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score of a player that is `elo` logistic Elo stronger than its opponent.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Complementary error function (Chebyshev fit, relative error below 1.2e-7).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Cumulative distribution function of the standard normal distribution.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// An Elo figure as reports print it: one decimal, `+inf`/`-inf` for the infinities, and with
/// `plus` a `+` before positive values.
pub fn elo_text(v: f64, plus: bool) -> String {
    if v.is_infinite() {
        if v > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else if plus {
        // adding 0.0 turns -0.0 into 0.0
        format!("{:+.1}", v + 0.0)
    } else {
        format!("{:.1}", v + 0.0)
    }
}

/// An Elo estimate with its 95 % confidence interval and likelihood of superiority.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Mean score per game of the first engine.
    pub score: f64,
    /// Standard error of that mean score.
    pub score_stderr: f64,
    /// Logistic Elo difference (first engine minus second).
    pub elo: f64,
    /// Lower end of the 95 % interval, in Elo.
    pub lower: f64,
    /// Upper end of the 95 % interval, in Elo.
    pub upper: f64,
    /// Likelihood of superiority: probability that the first engine is the stronger one.
    pub los: f64,
}

impl EloEstimate {
    /// Builds the estimate from a mean score and its standard error.
    pub fn from_score(score: f64, score_stderr: f64) -> Self {
        let lo = (score - Z95 * score_stderr).max(0.0);
        let hi = (score + Z95 * score_stderr).min(1.0);
        let los = if score_stderr > 0.0 {
            normal_cdf((score - 0.5) / score_stderr)
        } else if score > 0.5 {
            1.0
        } else if score < 0.5 {
            0.0
        } else {
            0.5
        };
        Self {
            score,
            score_stderr,
            elo: score_to_elo(score),
            lower: score_to_elo(lo),
            upper: score_to_elo(hi),
            los,
        }
    }

    /// Half the width of the 95 % interval, the "±" of a report.
    pub fn error(&self) -> f64 {
        if self.upper == self.lower {
            0.0 // also when both are the same infinity
        } else {
            (self.upper - self.lower) / 2.0
        }
    }
}

/// Elo estimate from the pentanomial distribution: the mean pair score and the variance of
/// pair scores give the standard error `sqrt(var / pairs)`. `None` without complete pairs.
pub fn estimate_pentanomial(p: &Pentanomial) -> Option<EloEstimate> {
    let (mean, variance) = p.mean_and_variance()?;
    let stderr = (variance / p.pairs() as f64).sqrt();
    Some(EloEstimate::from_score(mean, stderr))
}

/// Elo estimate from win/draw/loss counts, treating games as independent. `None` before any
/// game.
pub fn estimate_trinomial(w: &Wdl) -> Option<EloEstimate> {
    let n = w.games() as f64;
    let mean = w.score()?;
    let variance = (w.wins as f64 * (1.0 - mean).powi(2)
        + w.draws as f64 * (0.5 - mean).powi(2)
        + w.losses as f64 * mean.powi(2))
        / n;
    Some(EloEstimate::from_score(mean, (variance / n).sqrt()))
}

/// Normalized Elo from the pentanomial distribution: `(mean - 1/2) / (sqrt(2) * sigma_pair)`
/// scaled by `800 / ln 10`, so that it matches logistic Elo near 50 % when there are no
/// draws. `None` without pairs or when every pair scored the same.
pub fn normalized_elo(p: &Pentanomial) -> Option<f64> {
    let (mean, variance) = p.mean_and_variance()?;
    if variance <= 0.0 {
        return None;
    }
    let t = (mean - 0.5) / (2.0 * variance).sqrt();
    Some(t * 800.0 / std::f64::consts::LN_10)
}

/// Upper 95 % bound on the Elo of an engine that lost all of `games` games (the bound for one
/// that won them all is its negation). A game's loss probability is at most `1 - p` for an
/// expected score `p`, so every `p` with `(1 - p)^games < 0.05` is rejected.
pub fn all_lost_upper_bound(games: u64) -> f64 {
    if games == 0 {
        return f64::INFINITY;
    }
    score_to_elo(1.0 - 0.05f64.powf(1.0 / games as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert_eq!(score_to_elo(0.5), 0.0);
        for elo in [-600.0, -100.0, -3.0, 0.0, 7.5, 250.0] {
            assert!(close(score_to_elo(elo_to_score(elo)), elo, 1e-9));
        }
        assert_eq!(score_to_elo(0.0), f64::NEG_INFINITY);
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
    }

    #[test]
    fn known_wdl_gives_logistic_elo() {
        // 60 wins, 20 draws, 20 losses: score 0.7, Elo = 400 log10(0.7 / 0.3).
        let w = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = estimate_trinomial(&w).unwrap();
        assert!(close(e.score, 0.7, 1e-12));
        let expected = 400.0 * (0.7f64 / 0.3).log10();
        assert!(close(e.elo, expected, 1e-9));
        assert!(close(e.elo, 147.19, 0.01));
    }

    #[test]
    fn normal_cdf_known_values() {
        assert!(close(normal_cdf(0.0), 0.5, 1e-7));
        assert!(close(normal_cdf(Z95), 0.975, 1e-6));
        assert!(close(normal_cdf(-1.0), 0.158_655_25, 1e-6));
        assert!(close(normal_cdf(3.0), 0.998_650_1, 1e-6));
    }

    #[test]
    fn symmetric_pentanomial_is_zero_elo_with_known_interval() {
        // pair frequencies .05 .2 .5 .2 .05: mean 0.5, variance 0.05, 20 pairs → stderr 0.05
        let p = Pentanomial::new([1, 4, 10, 4, 1]);
        let e = estimate_pentanomial(&p).unwrap();
        assert_eq!(e.elo, 0.0);
        assert!(close(e.los, 0.5, 1e-7));
        let hi = 0.5 + Z95 * 0.05;
        let expected_upper = 400.0 * (hi / (1.0 - hi)).log10();
        assert!(close(e.upper, expected_upper, 1e-9));
        assert!(close(e.upper, 68.99, 0.01));
        assert!(close(e.lower, -expected_upper, 1e-9));
    }

    #[test]
    fn pentanomial_interval_is_narrower_than_trinomial_for_correlated_pairs() {
        // Every pair is a win and a loss (the opening decides): pentanomial variance is zero.
        let p = Pentanomial::new([0, 0, 10, 0, 0]);
        let e = estimate_pentanomial(&p).unwrap();
        assert_eq!(e.error(), 0.0);
        let w = Wdl {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert!(estimate_trinomial(&w).unwrap().error() > 100.0);
    }

    #[test]
    fn los_for_known_advantage() {
        // mean 0.6 with stderr 0.05 → z = 2 → LOS = Φ(2) = 0.97725
        let e = EloEstimate::from_score(0.6, 0.05);
        assert!(close(e.los, 0.977_249_9, 1e-6));
    }

    #[test]
    fn normalized_elo_matches_logistic_near_even_without_draws() {
        // Games independent, no draws: the pair variance is 1/8 at a 50 % score.
        let p = Pentanomial::new([25, 0, 50, 0, 25]);
        assert!(close(normalized_elo(&p).unwrap(), 0.0, 1e-12));
        let q = Pentanomial::new([24, 0, 50, 0, 26]);
        let (mean, var) = q.mean_and_variance().unwrap();
        let expected = (mean - 0.5) / (2.0 * var).sqrt() * 800.0 / 10f64.ln();
        assert!(close(normalized_elo(&q).unwrap(), expected, 1e-12));
    }

    #[test]
    fn bound_after_twenty_losses() {
        // 1 - 0.05^(1/20) = 0.13911; Elo = -400 log10(1 / 0.13911 - 1) ≈ -316.6
        let b = all_lost_upper_bound(20);
        assert!(close(b, -316.6, 0.2), "{b}");
    }
}
