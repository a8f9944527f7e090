//! The random-number generator of the whole workspace: SplitMix64 (Steele, Lea and Flood), tiny,
//! well mixed and reproducible from a seed. Self-play openings, test inputs and the tuning tools all
//! draw from it.

/// SplitMix64: a tiny, well-mixed generator; one per game in `trine datagen`, so every game
/// is reproducible alone.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of game `index` under `seed`.
    pub fn for_game(seed: u64, index: u64) -> Rng {
        let mut outer = Rng::new(seed);
        Rng(outer.next_u64() ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
