//! The one pseudo-random generator of the tuning tools: the engine's SplitMix64
//! (`trine::rng::Rng`, the generator of `trine datagen`), with the draws the tools need.
//! What is random in them — the NNUE trainer's initial weights and shuffles, the training data's
//! validation split, the match runner's opening order — follows from a seed alone, on any machine
//! and thread count.

/// SplitMix64's increment: the state grows by it with every draw.
const STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// The engine's SplitMix64 generator with the draws the tools need.
#[derive(Clone, Debug)]
pub struct Rng(trine::rng::Rng);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(trine::rng::Rng::new(seed))
    }

    /// The `n`-th draw (counted from 1) of `Rng::new(seed)`, computed directly: SplitMix64's
    /// state after `n − 1` draws is `seed + (n − 1) · STEP`. A reproducible hash of `(seed, n)`.
    pub fn nth(seed: u64, n: u64) -> u64 {
        Rng::new(seed.wrapping_add(n.wrapping_sub(1).wrapping_mul(STEP))).next_u64()
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

    /// Uniform in `0..n` (`n > 0`) by one multiply-shift: the bias is below 2^-32 for
    /// `n < 2^32`.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Exactly uniform in `0..n` (`n > 0`): draws outside the largest multiple of `n` are
    /// rejected, the rest taken modulo `n`.
    pub fn below_exact(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }

    /// Shuffles `v` (Fisher–Yates, with [`Rng::below`]).
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
        let mut exact = [0u32; 10];
        for _ in 0..n {
            counts[r.below(10)] += 1;
            exact[r.below_exact(10) as usize] += 1;
        }
        for c in [counts, exact] {
            assert!(c.iter().all(|&c| (9_000..11_000).contains(&c)), "{c:?}");
        }
        let mut v: Vec<u32> = (0..1000).collect();
        r.shuffle(&mut v);
        assert_ne!(v, (0..1000).collect::<Vec<u32>>());
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn the_nth_draw_is_the_sequences() {
        for seed in [0, 1, 42, u64::MAX] {
            let mut r = Rng::new(seed);
            for n in 1..=50 {
                assert_eq!(Rng::nth(seed, n), r.next_u64(), "seed {seed}, draw {n}");
            }
        }
    }

    #[test]
    fn it_is_the_engines_generator() {
        let mut ours = Rng::new(3);
        let mut engine = trine::rng::Rng::new(3);
        assert!((0..20).all(|_| ours.next_u64() == engine.next_u64()));
    }
}
