//! A small deterministic pseudo-random generator (SplitMix64): the network's initial weights and
//! each epoch's shuffle follow from `--seed` alone, on any machine and thread count.

/// The engine's SplitMix64 generator (`trine::tools::datagen::game::Rng`), with the draws the trainer
/// needs.
#[derive(Clone, Debug)]
pub struct Rng(trine::tools::datagen::game::Rng);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(trine::tools::datagen::game::Rng::new(
            seed ^ 0x5DEE_CE66_D1CE_4E5B,
        ))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[-r, r)`.
    pub fn symmetric(&mut self, r: f32) -> f32 {
        (2.0 * self.unit() - 1.0) * r
    }

    /// Uniform in `0..n` (`n > 0`; the bias of the multiply-shift is below 2^-32 for
    /// `n < 2^32`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Shuffles `v` (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_roughly_uniform() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::new(8).next_u64(), xs[0]);
        let mut r = Rng::new(1);
        let n = 100_000;
        let mean = (0..n).map(|_| f64::from(r.unit())).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01, "{mean}");
        let mut counts = [0u32; 10];
        for _ in 0..n {
            counts[r.below(10)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
        let mut v: Vec<u32> = (0..1000).collect();
        r.shuffle(&mut v);
        assert_ne!(v, (0..1000).collect::<Vec<u32>>());
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<u32>>());
    }
}
