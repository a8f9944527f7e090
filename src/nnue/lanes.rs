//! 16-bit lanes stored 64-byte aligned: the network's weights and the accumulators, so that every
//! row and every accumulator whose width is a multiple of 32 lanes starts on a 64-byte boundary,
//! and the vector kernels (`simd.rs`) can use aligned loads, which no CPU splits in two.

use std::ops::{Deref, DerefMut};

/// Lanes in one aligned block.
const BLOCK: usize = 32;

/// 64 bytes of lanes, aligned to 64.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Block([i16; BLOCK]);

/// A fixed number of `i16` lanes in 64-byte-aligned memory, read and written as a slice.
#[derive(Clone)]
pub struct Lanes {
    blocks: Vec<Block>,
    len: usize,
}

impl Lanes {
    /// `len` zero lanes.
    pub fn zeroed(len: usize) -> Lanes {
        Lanes {
            blocks: vec![Block([0; BLOCK]); len.div_ceil(BLOCK)],
            len,
        }
    }

    /// A copy of `values`.
    pub fn from_slice(values: &[i16]) -> Lanes {
        let mut lanes = Lanes::zeroed(values.len());
        lanes.copy_from_slice(values);
        lanes
    }
}

impl Deref for Lanes {
    type Target = [i16];

    fn deref(&self) -> &[i16] {
        // SAFETY: the blocks are `len.div_ceil(BLOCK)` arrays of `BLOCK` initialised `i16`s laid
        // out back to back (`repr(C)`, and 64 bytes is both their size and their alignment, so
        // there is no padding); `len` lanes lie within them.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast(), self.len) }
    }
}

impl PartialEq for Lanes {
    fn eq(&self, other: &Lanes) -> bool {
        self[..] == other[..]
    }
}

impl Eq for Lanes {}

impl DerefMut for Lanes {
    fn deref_mut(&mut self) -> &mut [i16] {
        // SAFETY: as in `deref`, through the unique borrow of the blocks.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast(), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_aligned_and_hold_what_was_written() {
        for len in [0, 1, 31, 32, 33, 256, 768 * 256] {
            let values: Vec<i16> = (0..len).map(|i| (i as i16).wrapping_mul(7)).collect();
            let mut lanes = Lanes::from_slice(&values);
            assert_eq!(lanes.len(), len);
            assert_eq!(&lanes[..], &values[..]);
            assert_eq!(lanes.as_ptr() as usize % 64, 0);
            if len > 0 {
                lanes[len - 1] = -5;
                assert_eq!(lanes.clone()[len - 1], -5);
            }
            assert!(Lanes::zeroed(len).iter().all(|&v| v == 0));
        }
    }
}
