//! Match statistics: the counts a match produces (win/draw/loss and the pentanomial
//! distribution of game pairs) and the arithmetic built on them — Elo estimates with
//! confidence intervals ([`elo`]) and the sequential probability ratio test ([`sprt`]).
//!
//! Everything is seen from the first engine's point of view ("engine A").

pub mod elo;
pub mod sprt;

/// Win/draw/loss counts of single games, from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games the first engine won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

impl Wdl {
    /// Number of games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored by the first engine (a win is 1, a draw 1/2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Fraction of the available points scored by the first engine, `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// Fraction of the games that were drawn, `None` before any game.
    pub fn draw_ratio(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.draws as f64 / games as f64)
    }
}

/// The pentanomial distribution of game pairs: a pair is the same opening played twice with
/// colours reversed, and it is classified by the first engine's points in it.
///
/// `counts[k]` counts pairs in which the first engine scored `k / 2` points:
/// `[LL, LD, DD or WL, WD, WW]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pair counts indexed by twice the first engine's points in the pair.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// The score (fraction of points) that each pentanomial class stands for.
    pub const SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

    /// Builds the distribution from `[LL, LD, DD+WL, WD, WW]` counts.
    pub fn new(counts: [u64; 5]) -> Self {
        Self { counts }
    }

    /// Number of complete pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Counts one finished pair given the first engine's points in it, doubled (0..=4).
    ///
    /// # Panics
    /// Panics if `doubled_points > 4`, which no pair of two games can produce.
    pub fn add_pair(&mut self, doubled_points: usize) {
        self.counts[doubled_points] += 1;
    }

    /// Mean pair score and the variance of one pair's score, `None` without pairs.
    pub fn mean_and_variance(&self) -> Option<(f64, f64)> {
        let n = self.pairs();
        if n == 0 {
            return None;
        }
        let n = n as f64;
        let mean = self
            .counts
            .iter()
            .zip(Self::SCORES)
            .map(|(&c, a)| c as f64 * a)
            .sum::<f64>()
            / n;
        let variance = self
            .counts
            .iter()
            .zip(Self::SCORES)
            .map(|(&c, a)| c as f64 * (a - mean) * (a - mean))
            .sum::<f64>()
            / n;
        Some((mean, variance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_score_and_draw_ratio() {
        let w = Wdl {
            wins: 3,
            draws: 2,
            losses: 5,
        };
        assert_eq!(w.games(), 10);
        assert_eq!(w.points(), 4.0);
        assert_eq!(w.score(), Some(0.4));
        assert_eq!(w.draw_ratio(), Some(0.2));
        assert_eq!(Wdl::default().score(), None);
    }

    #[test]
    fn pentanomial_mean_and_variance() {
        let p = Pentanomial::new([0, 0, 2, 0, 2]);
        let (mean, var) = p.mean_and_variance().unwrap();
        assert!((mean - 0.75).abs() < 1e-12);
        // two pairs at 0.5 and two at 1.0: deviations of 0.25 each
        assert!((var - 0.0625).abs() < 1e-12);
        assert_eq!(Pentanomial::default().mean_and_variance(), None);
    }
}
