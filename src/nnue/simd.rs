//! The network's two hot loops as vector kernels: moving an accumulator by the feature rows that
//! changed, and the output layer's SCReLU dot product. Each is compiled for the build's baseline
//! (x86-64-v2: 128-bit SSE) and again for AVX2 and AVX-512, and the widest the CPU has is chosen
//! at run time (`multiversion`), so one binary runs on every x86-64 and uses 256- or 512-bit
//! registers where they exist. `multiversion` gives an AVX-512 clone the whole Ice Lake feature
//! set, so earlier AVX-512 CPUs (whose clocks drop under it) take the AVX2 version. The kernels
//! are plain integer loops; every version computes the same exact result.

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
/// product with `clamp(a)` is a pairwise multiply-add of 16-bit lanes.
#[multiversion(targets("x86_64+avx2+avx512f+avx512bw", "x86_64+avx2"))]
pub fn screlu_pair(us: &[i16], w_us: &[i16], them: &[i16], w_them: &[i16]) -> i64 {
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
