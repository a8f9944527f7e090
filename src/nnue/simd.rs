//! The network's two hot loops as vector kernels: moving an accumulator by the feature rows that
//! changed, and the output layer's SCReLU dot product. Each has a plain-loop version compiled for
//! the build's baseline (x86-64-v2: 128-bit SSE) and again for AVX2 and AVX-512 (`multiversion`,
//! which gives the AVX-512 clone the whole Ice Lake feature set, so earlier AVX-512 CPUs, whose
//! clocks drop under it, take AVX2), and versions written with intrinsics where the compiled
//! loops fall short: the dot product's 16-bit multiply-add (AVX-512 and AVX2), and the AVX2
//! accumulator update by aligned loads (the baseline's tuning splits every unaligned 256-bit
//! load in two). The kernel is chosen at run time for the CPU, so one binary runs on every
//! x86-64 and uses 256- or 512-bit registers where they exist; every version computes the same
//! exact result.

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
pub fn update(acc: &mut [i16], w1: &[i16], subs: &[u16], adds: &[u16]) {
    #[cfg(target_arch = "x86_64")]
    if acc.len().is_multiple_of(TILE) && x86::avx2_aligned(&[acc.as_ptr(), w1.as_ptr()]) {
        let p = acc.as_mut_ptr();
        // SAFETY: the CPU has AVX2; `p` is `acc`, valid for reading and writing its whole
        // length, a multiple of TILE, and 32-byte aligned like `w1` (`avx2_aligned`).
        unsafe { x86::tiles_avx2(p, p, acc.len(), w1, subs, adds) };
        return;
    }
    update_compiled(acc, w1, subs, adds);
}

/// [`update`] as plain loops, compiled for the baseline, AVX2 and AVX-512.
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
fn update_compiled(acc: &mut [i16], w1: &[i16], subs: &[u16], adds: &[u16]) {
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
pub fn update_from(src: &[i16], dst: &mut [i16], w1: &[i16], subs: &[u16], adds: &[u16]) {
    #[cfg(target_arch = "x86_64")]
    if src.len() == dst.len()
        && dst.len().is_multiple_of(TILE)
        && x86::avx2_aligned(&[src.as_ptr(), dst.as_ptr(), w1.as_ptr()])
    {
        // SAFETY: the CPU has AVX2; `src` and `dst` are distinct slices of the same length, a
        // multiple of TILE, 32-byte aligned like `w1` (`avx2_aligned`).
        unsafe { x86::tiles_avx2(src.as_ptr(), dst.as_mut_ptr(), dst.len(), w1, subs, adds) };
        return;
    }
    update_from_compiled(src, dst, w1, subs, adds);
}

/// [`update_from`] as plain loops, compiled for the baseline, AVX2 and AVX-512.
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
fn update_from_compiled(src: &[i16], dst: &mut [i16], w1: &[i16], subs: &[u16], adds: &[u16]) {
    let h = dst.len();
    if !h.is_multiple_of(TILE) {
        dst.copy_from_slice(src);
        update_compiled(dst, w1, subs, adds);
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
        let (a, b, c, d) = (us.as_ptr(), w_us.as_ptr(), them.as_ptr(), w_them.as_ptr());
        if fits && x86::avx2_aligned(&[a, b, c, d]) {
            // SAFETY: the CPU has AVX2 and the four slices are 32-byte aligned (`avx2_aligned`).
            return unsafe { x86::screlu_pair_avx2(us, w_us, them, w_them) };
        }
    }
    screlu_pair_compiled(us, w_us, them, w_them)
}

/// [`screlu_pair`] as a plain loop, for any width and any CPU.
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
fn screlu_pair_compiled(us: &[i16], w_us: &[i16], them: &[i16], w_them: &[i16]) -> i64 {
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
    use std::sync::OnceLock;

    use super::{DOT_CHUNK, QA, TILE};

    /// The widest kernels the CPU runs well.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Width {
        /// AVX-512F and AVX-512BW on an Ice Lake, Zen 4 or later (VBMI2 tells them apart):
        /// earlier AVX-512 CPUs lower their clocks under it and take AVX2, as the `multiversion`
        /// loops do.
        Avx512,
        Avx2,
        Narrower,
    }

    /// The CPU's [`Width`], found once.
    #[inline(always)]
    fn width() -> Width {
        static WIDTH: OnceLock<Width> = OnceLock::new();
        *WIDTH.get_or_init(|| {
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vbmi2")
            {
                Width::Avx512
            } else if is_x86_feature_detected!("avx2") {
                Width::Avx2
            } else {
                Width::Narrower
            }
        })
    }

    /// True when the CPU takes the AVX-512 kernels (it has AVX-512F and AVX-512BW).
    #[inline(always)]
    pub fn has_avx512() -> bool {
        width() == Width::Avx512
    }

    /// True when the AVX2 kernels below are the ones to use at these pointers: the CPU has AVX2
    /// but not the AVX-512 that the other kernels use, and every pointer is 32-byte aligned (as
    /// the network's and the accumulators' [`super::super::lanes::Lanes`] are). Aligned loads
    /// are the point: a build for the x86-64-v2 baseline splits every unaligned 256-bit load in
    /// two, a tuning the compiled AVX2 loops inherit.
    #[inline(always)]
    pub fn avx2_aligned(pointers: &[*const i16]) -> bool {
        width() == Width::Avx2 && pointers.iter().all(|p| (*p as usize).is_multiple_of(32))
    }

    /// `dst = src − Σ w1[subs] + Σ w1[adds]` over `h` lanes, one [`TILE`] at a time held in
    /// four 256-bit registers: each tile of `src` is read once and written to `dst` once. Every
    /// row is a bounds-checked slice of `w1`.
    ///
    /// # Safety
    /// The CPU must have AVX2; `src` valid for reading and `dst` for writing `h` lanes, `h` a
    /// multiple of [`TILE`]; `src`, `dst` and `w1` 32-byte aligned; `src` and `dst` either the
    /// same or disjoint.
    #[target_feature(enable = "avx2")]
    pub unsafe fn tiles_avx2(
        src: *const i16,
        dst: *mut i16,
        h: usize,
        w1: &[i16],
        subs: &[u16],
        adds: &[u16],
    ) {
        const N: usize = TILE / 16;
        for k in (0..h).step_by(TILE) {
            let mut t = [_mm256_setzero_si256(); N];
            for (i, r) in t.iter_mut().enumerate() {
                // SAFETY: lanes k + 16·i .. + 16 lie within `src`, 32-byte aligned.
                *r = unsafe { _mm256_load_si256(src.add(k + 16 * i).cast()) };
            }
            for &f in subs {
                let row = &w1[usize::from(f) * h + k..][..TILE];
                for (i, r) in t.iter_mut().enumerate() {
                    // SAFETY: `row` holds TILE lanes and starts 32-byte aligned, as `w1` does.
                    let w = unsafe { _mm256_load_si256(row.as_ptr().add(16 * i).cast()) };
                    *r = _mm256_sub_epi16(*r, w);
                }
            }
            for &f in adds {
                let row = &w1[usize::from(f) * h + k..][..TILE];
                for (i, r) in t.iter_mut().enumerate() {
                    // SAFETY: as above.
                    let w = unsafe { _mm256_load_si256(row.as_ptr().add(16 * i).cast()) };
                    *r = _mm256_add_epi16(*r, w);
                }
            }
            for (i, r) in t.iter().enumerate() {
                // SAFETY: lanes k + 16·i .. + 16 lie within `dst`, 32-byte aligned.
                unsafe { _mm256_store_si256(dst.add(k + 16 * i).cast(), *r) };
            }
        }
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

    /// [`super::screlu_pair`] with 256-bit registers (16 lanes at a time), by aligned loads.
    ///
    /// # Safety
    /// The CPU must have AVX2, and the four slices must start 32-byte aligned. (Lengths as for
    /// [`screlu_pair_avx512`].)
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
                    // SAFETY: `k + 16 <= DOT_CHUNK`, the length of both chunks, which start
                    // 32-byte aligned (the caller's promise) at multiples of 32 bytes.
                    let (va, vw) = unsafe {
                        (
                            _mm256_load_si256(a[k..k + 16].as_ptr().cast()),
                            _mm256_load_si256(w[k..k + 16].as_ptr().cast()),
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
    #[cfg(target_arch = "x86_64")]
    use crate::nnue::lanes::Lanes;
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

    /// `values` in aligned lanes, as the network and the accumulators hold them.
    #[cfg(target_arch = "x86_64")]
    fn aligned(seed: u64, n: usize, lo: i32, hi: i32) -> Lanes {
        Lanes::from_slice(&values(seed, n, lo, hi))
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_x86_dot_products_the_cpu_has_equal_the_portable_loop() {
        // Every kernel the CPU can run, whichever `screlu_pair` picks.
        let (avx2, avx512) = (
            is_x86_feature_detected!("avx2"),
            is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"),
        );
        for h in [DOT_CHUNK, 2 * DOT_CHUNK, 4 * DOT_CHUNK] {
            for seed in 0..4 {
                let us = aligned(20 + seed, h, -2000, 2000);
                let them = aligned(30 + seed, h, i16::MIN.into(), i16::MAX.into());
                let wu = aligned(40 + seed, h, -127, 127);
                let wt = aligned(50 + seed, h, -127, 127);
                let want = screlu_pair_compiled(&us, &wu, &them, &wt);
                assert_eq!(screlu_pair(&us, &wu, &them, &wt), want);
                if avx2 {
                    // SAFETY: the CPU has AVX2; `Lanes` are 64-byte aligned.
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

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_accumulator_kernel_equals_the_compiled_loops() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        for h in [TILE, 4 * TILE] {
            let w1 = aligned(60, 8 * h, -300, 300);
            let src = aligned(61, h, -1000, 1000);
            for (subs, adds) in [
                (&[][..], &[][..]),
                (&[1][..], &[4][..]),
                (&[0, 5][..], &[2, 3, 3, 7][..]),
            ] {
                let mut want = src.to_vec();
                update_compiled(&mut want, &w1, subs, adds);
                let mut got = Lanes::zeroed(h);
                // SAFETY: the CPU has AVX2; `Lanes` are 64-byte aligned, `h` a multiple of TILE,
                // and `src` and `got` are distinct.
                unsafe { x86::tiles_avx2(src.as_ptr(), got.as_mut_ptr(), h, &w1, subs, adds) };
                assert_eq!(&got[..], &want[..], "from, h {h}, {subs:?}, {adds:?}");
                let mut in_place = src.clone();
                let p = in_place.as_mut_ptr();
                // SAFETY: as above, reading and writing the same lanes.
                unsafe { x86::tiles_avx2(p, p, h, &w1, subs, adds) };
                assert_eq!(
                    &in_place[..],
                    &want[..],
                    "in place, h {h}, {subs:?}, {adds:?}"
                );
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
