//! The network's two hot loops as vector kernels: moving an accumulator by the feature rows that
//! changed, and the output layer's SCReLU dot product. The accumulator kernels are plain integer
//! loops compiled for the build's baseline (x86-64-v2: 128-bit SSE) and again for AVX2 and
//! AVX-512, the widest the CPU has chosen at run time (`multiversion`), so one binary runs on
//! every x86-64 and uses 256- or 512-bit registers where they exist. `multiversion` gives an
//! AVX-512 clone the whole Ice Lake feature set, so earlier AVX-512 CPUs (whose clocks drop
//! under it) take the AVX2 version. The dot product is written with AVX-512 and AVX2
//! intrinsics (see [`screlu_pair`]), chosen at run time the same way, over a portable loop.
//! Every version computes the same exact result.

use multiversion::multiversion;

use super::network::QA;

/// Lanes of the dot product summed in `i32` before the running total moves to `i64`: each term
/// is at most 255² · 127 (8.26 M), so 128 of them (1.06 G) stay below `i32::MAX`.
const DOT_CHUNK: usize = 128;

/// Lanes of an accumulator carried through every changed row at once: a tile is read once, kept
/// in registers (two 512-bit or four 256-bit ones) and written once.
pub const TILE: usize = 64;

/// The lanes `t` (an accumulator's lanes from `off` on) moved by the rows of `subs` and `adds`
/// (rows of `h` values, feature-major in `w1`), lane by lane with wrapping. Called with a whole
/// accumulator, or with one [`TILE`] whose fixed length lets the loops unroll into registers.
#[inline(always)]
fn move_lanes(t: &mut [i16], w1: &[i16], h: usize, off: usize, subs: &[u16], adds: &[u16]) {
    let n = t.len();
    for &f in subs {
        let row = &w1[usize::from(f) * h + off..][..n];
        for (a, w) in t.iter_mut().zip(row) {
            *a = a.wrapping_sub(*w);
        }
    }
    for &f in adds {
        let row = &w1[usize::from(f) * h + off..][..n];
        for (a, w) in t.iter_mut().zip(row) {
            *a = a.wrapping_add(*w);
        }
    }
}

/// `acc −= w1[f]` for every feature `f` of `subs`, then `acc += w1[f]` for every one of `adds`
/// (rows of `acc.len()` values, feature-major in `w1`), lane by lane with wrapping; by tiles when
/// `acc.len()` (H) is a multiple of [`TILE`], row by row otherwise.
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
pub fn update(acc: &mut [i16], w1: &[i16], subs: &[u16], adds: &[u16]) {
    let h = acc.len();
    if !h.is_multiple_of(TILE) {
        move_lanes(acc, w1, h, 0, subs, adds);
        return;
    }
    for (k, a) in acc.chunks_exact_mut(TILE).enumerate() {
        let mut t = [0i16; TILE];
        t.copy_from_slice(a);
        move_lanes(&mut t, w1, h, k * TILE, subs, adds);
        a.copy_from_slice(&t);
    }
}

/// `dst = src` moved as [`update`] moves an accumulator, reading `src` and writing `dst` once per
/// tile when `dst.len()` (H) is a multiple of [`TILE`]; otherwise a copy, then [`update`].
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
pub fn update_from(src: &[i16], dst: &mut [i16], w1: &[i16], subs: &[u16], adds: &[u16]) {
    let h = dst.len();
    if !h.is_multiple_of(TILE) {
        dst.copy_from_slice(src);
        update(dst, w1, subs, adds);
        return;
    }
    for (k, (d, s)) in dst
        .chunks_exact_mut(TILE)
        .zip(src.chunks_exact(TILE))
        .enumerate()
    {
        let mut t = [0i16; TILE];
        t.copy_from_slice(s);
        move_lanes(&mut t, w1, h, k * TILE, subs, adds);
        d.copy_from_slice(&t);
    }
}

/// `Σ clamp(us, 0, QA)² · w_us + Σ clamp(them, 0, QA)² · w_them`, exact. Output weights are at
/// most ±127 in magnitude (the loader refuses others), so `clamp(a) · w` fits an `i16` and the
/// product with `clamp(a)` is a pairwise multiply-add of 16-bit lanes (`pmaddwd`). The compiler
/// does not find that multiply-add at full width by itself (it knows the clamped lane is not
/// negative and widens the lanes first), so on x86-64 the AVX-512 and AVX2 versions below
/// spell it out; the portable loop serves every other CPU and accumulator width.
pub fn screlu_pair(us: &[i16], w_us: &[i16], them: &[i16], w_them: &[i16]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        let widths_fit = |n: usize| n.is_multiple_of(DOT_CHUNK);
        let fits = widths_fit(us.len()) && widths_fit(them.len());
        if fits && x86::has_avx512() {
            // SAFETY: the CPU has AVX-512F and AVX-512BW (`has_avx512`, just above).
            return unsafe { x86::screlu_pair_avx512(us, w_us, them, w_them) };
        }
        if fits && x86::has_avx2() {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { x86::screlu_pair_avx2(us, w_us, them, w_them) };
        }
    }
    screlu_pair_portable(us, w_us, them, w_them)
}

/// [`screlu_pair`] as a plain loop, for any width and any CPU.
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
fn screlu_pair_portable(us: &[i16], w_us: &[i16], them: &[i16], w_them: &[i16]) -> i64 {
    fn dot(acc: &[i16], w: &[i16]) -> i64 {
        let mut total = 0i64;
        for (a, w) in acc.chunks(DOT_CHUNK).zip(w.chunks(DOT_CHUNK)) {
            let mut s = 0i32;
            for (&a, &w) in a.iter().zip(w) {
                let c = a.clamp(0, QA as i16);
                s = s.wrapping_add(i32::from(c.wrapping_mul(w)) * i32::from(c));
            }
            total += i64::from(s);
        }
        total
    }
    dot(us, w_us) + dot(them, w_them)
}

/// The output layer's dot product with the 16-bit multiply-add written out, for accumulators
/// whose width is a multiple of [`DOT_CHUNK`]. Each chunk's 32-bit lanes are summed into the
/// `i64` total, as the portable loop does, so both give the same exact result.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{DOT_CHUNK, QA};

    /// True when the CPU has AVX-512F and AVX-512BW, and is an Ice Lake, Zen 4 or later (VBMI2
    /// tells them apart): earlier AVX-512 CPUs lower their clocks under it and take the AVX2
    /// version, as the `multiversion` kernels do. The answer is cached after the first call.
    #[inline(always)]
    pub fn has_avx512() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi2")
    }

    /// True when the CPU has AVX2.
    #[inline(always)]
    pub fn has_avx2() -> bool {
        is_x86_feature_detected!("avx2")
    }

    /// [`super::screlu_pair`] with 512-bit registers (32 lanes at a time).
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512BW. (Slices whose lengths are not multiples of
    /// [`DOT_CHUNK`], or weights shorter than their accumulator, panic.)
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn screlu_pair_avx512(
        us: &[i16],
        w_us: &[i16],
        them: &[i16],
        w_them: &[i16],
    ) -> i64 {
        #[target_feature(enable = "avx512f,avx512bw")]
        fn dot(acc: &[i16], w: &[i16]) -> i64 {
            assert!(acc.len().is_multiple_of(DOT_CHUNK) && w.len() >= acc.len());
            let (zero, qa) = (_mm512_setzero_si512(), _mm512_set1_epi16(QA as i16));
            let mut total = 0i64;
            for (a, w) in acc.chunks_exact(DOT_CHUNK).zip(w.chunks_exact(DOT_CHUNK)) {
                let mut sum = _mm512_setzero_si512();
                for k in (0..DOT_CHUNK).step_by(32) {
                    // SAFETY: `k + 32 <= DOT_CHUNK`, the length of both chunks; unaligned loads.
                    let (va, vw) = unsafe {
                        (
                            _mm512_loadu_si512(a[k..k + 32].as_ptr().cast()),
                            _mm512_loadu_si512(w[k..k + 32].as_ptr().cast()),
                        )
                    };
                    let c = _mm512_min_epi16(_mm512_max_epi16(va, zero), qa);
                    let cw = _mm512_mullo_epi16(c, vw);
                    sum = _mm512_add_epi32(sum, _mm512_madd_epi16(cw, c));
                }
                total += i64::from(_mm512_reduce_add_epi32(sum));
            }
            total
        }
        dot(us, w_us) + dot(them, w_them)
    }

    /// [`super::screlu_pair`] with 256-bit registers (16 lanes at a time).
    ///
    /// # Safety
    /// The CPU must have AVX2. (Slices as for [`screlu_pair_avx512`].)
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_pair_avx2(us: &[i16], w_us: &[i16], them: &[i16], w_them: &[i16]) -> i64 {
        #[target_feature(enable = "avx2")]
        fn dot(acc: &[i16], w: &[i16]) -> i64 {
            assert!(acc.len().is_multiple_of(DOT_CHUNK) && w.len() >= acc.len());
            let (zero, qa) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
            let mut total = 0i64;
            for (a, w) in acc.chunks_exact(DOT_CHUNK).zip(w.chunks_exact(DOT_CHUNK)) {
                let mut sum = _mm256_setzero_si256();
                for k in (0..DOT_CHUNK).step_by(16) {
                    // SAFETY: `k + 16 <= DOT_CHUNK`, the length of both chunks; unaligned loads.
                    let (va, vw) = unsafe {
                        (
                            _mm256_loadu_si256(a[k..k + 16].as_ptr().cast()),
                            _mm256_loadu_si256(w[k..k + 16].as_ptr().cast()),
                        )
                    };
                    let c = _mm256_min_epi16(_mm256_max_epi16(va, zero), qa);
                    let cw = _mm256_mullo_epi16(c, vw);
                    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(cw, c));
                }
                // Eight 32-bit lanes to one.
                let half = _mm_add_epi32(
                    _mm256_castsi256_si128(sum),
                    _mm256_extracti128_si256(sum, 1),
                );
                let quad = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
                let one = _mm_add_epi32(quad, _mm_shuffle_epi32(quad, 0b10_11_00_01));
                total += i64::from(_mm_cvtsi128_si32(one));
            }
            total
        }
        dot(us, w_us) + dot(them, w_them)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// `n` deterministic pseudo-random test values in `lo..=hi`.
    fn values(seed: u64, n: usize, lo: i32, hi: i32) -> Vec<i16> {
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| (lo + rng.below((hi - lo + 1) as usize) as i32) as i16)
            .collect()
    }

    #[test]
    fn the_dot_product_equals_the_scalar_formula_at_its_extremes() {
        for h in [8, 128, 136, 256] {
            let us = values(1 + h as u64, h, -400, 600);
            let them = values(2 + h as u64, h, -400, 600);
            let wu = values(3 + h as u64, h, -127, 127);
            let wt = values(4 + h as u64, h, -127, 127);
            let want: i64 = us
                .iter()
                .zip(&wu)
                .chain(them.iter().zip(&wt))
                .map(|(&a, &w)| {
                    let c = i64::from(a).clamp(0, i64::from(QA));
                    c * c * i64::from(w)
                })
                .sum();
            assert_eq!(screlu_pair(&us, &wu, &them, &wt), want, "h = {h}");
        }
        // Every lane at the bound: the largest sum the layer can reach.
        let full = vec![i16::MAX; 256];
        let w = vec![127i16; 256];
        let most = 2 * 256 * 255 * 255 * 127i64;
        assert_eq!(screlu_pair(&full, &w, &full, &w), most);
        let w = vec![-127i16; 256];
        assert_eq!(screlu_pair(&full, &w, &full, &w), -most);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_x86_dot_products_the_cpu_has_equal_the_portable_loop() {
        let (avx2, avx512) = (
            is_x86_feature_detected!("avx2"),
            is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"),
        );
        // Every kernel the CPU can run, whichever `screlu_pair` picks.
        for h in [DOT_CHUNK, 2 * DOT_CHUNK, 4 * DOT_CHUNK] {
            for seed in 0..4 {
                let us = values(20 + seed, h, -2000, 2000);
                let them = values(30 + seed, h, i16::MIN.into(), i16::MAX.into());
                let wu = values(40 + seed, h, -127, 127);
                let wt = values(50 + seed, h, -127, 127);
                let want = screlu_pair_portable(&us, &wu, &them, &wt);
                if avx2 {
                    // SAFETY: the CPU has AVX2; the widths are multiples of DOT_CHUNK.
                    let got = unsafe { x86::screlu_pair_avx2(&us, &wu, &them, &wt) };
                    assert_eq!(got, want, "AVX2, h = {h}");
                }
                if avx512 {
                    // SAFETY: the CPU has AVX-512F and BW; the widths are multiples of DOT_CHUNK.
                    let got = unsafe { x86::screlu_pair_avx512(&us, &wu, &them, &wt) };
                    assert_eq!(got, want, "AVX-512, h = {h}");
                }
            }
        }
    }

    #[test]
    fn update_subtracts_then_adds_whole_rows() {
        // 24 lanes take the row-by-row loop, 128 the tiles.
        for h in [24, 2 * TILE] {
            let w1 = values(9, 4 * h, -300, 300);
            let start = values(10, h, -1000, 1000);
            let mut acc = start.clone();
            update(&mut acc, &w1, &[1, 3], &[0, 2, 2]);
            for i in 0..h {
                let want = start[i] - w1[h + i] - w1[3 * h + i] + w1[i] + 2 * w1[2 * h + i];
                assert_eq!(acc[i], want, "h {h}, lane {i}");
            }
            update(&mut acc, &w1, &[0, 2, 2], &[1, 3]);
            assert_eq!(acc, start);
        }
    }

    #[test]
    fn update_from_equals_a_copy_then_update() {
        for h in [24, TILE, 4 * TILE] {
            let w1 = values(11, 6 * h, -300, 300);
            let src = values(12, h, -1000, 1000);
            for (subs, adds) in [
                (&[][..], &[][..]),
                (&[1][..], &[4][..]),
                (&[0, 5][..], &[2, 3, 3][..]),
            ] {
                let mut want = src.clone();
                update(&mut want, &w1, subs, adds);
                let mut got = vec![7i16; h];
                update_from(&src, &mut got, &w1, subs, adds);
                assert_eq!(got, want, "h {h}, subs {subs:?}, adds {adds:?}");
            }
        }
    }
}
