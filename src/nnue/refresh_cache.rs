//! A per-thread cache of accumulators, one per perspective and king bucket, each remembering the
//! board it was computed for. When an accumulator has to be computed anew (its king changed
//! bucket, or no slot of the evaluator's stack is near), it is moved from the cached one of the
//! same perspective and bucket by the features that differ, which after a king move are usually
//! a few pieces rather than all of them, and the cache keeps the result. An entry starts as the
//! accumulator of the empty board (the biases), so a first use adds every piece, as a
//! computation from scratch does; the update is exact, so the result never depends on the path.

use shakmaty::{Board, Color};

use super::features;
use super::lanes::Lanes;
use super::network::Network;
use super::simd;

/// Accumulators of the last board computed per perspective and king bucket.
#[derive(Clone)]
pub struct RefreshCache {
    /// Entry `e`'s H values at `[e·H, e·H + H)`; White's K entries, then Black's.
    accs: Lanes,
    /// The board each entry belongs to.
    boards: Vec<Board>,
}

/// Entry index of `perspective`'s accumulator in king bucket `bucket` of `king_buckets`.
#[inline(always)]
fn entry(perspective: Color, bucket: usize, king_buckets: usize) -> usize {
    match perspective {
        Color::White => bucket,
        Color::Black => king_buckets + bucket,
    }
}

impl RefreshCache {
    /// An empty cache for `net`: every entry is the empty board's accumulator.
    pub fn new(net: &Network) -> RefreshCache {
        let (h, entries) = (net.hidden(), 2 * net.king_buckets());
        let mut accs = Lanes::zeroed(entries * h);
        for acc in accs.chunks_exact_mut(h) {
            acc.copy_from_slice(net.b1());
        }
        RefreshCache {
            accs,
            boards: vec![Board::empty(); entries],
        }
    }

    /// Fills `acc` (H values) with `board`'s accumulator from `perspective`'s side, as
    /// [`Network::refresh`] does, by moving the cached accumulator of the perspective's king
    /// bucket to `board`; the entry then holds `board`'s. `net` is the network the cache was
    /// made for.
    pub fn refresh(&mut self, net: &Network, board: &Board, perspective: Color, acc: &mut [i16]) {
        let offset = net.king_offset(board, perspective);
        let e = entry(
            perspective,
            offset / features::INPUTS,
            self.boards.len() / 2,
        );
        let h = net.hidden();
        let cached = &mut self.accs[e * h..(e + 1) * h];
        let old = &self.boards[e];
        let mut subs = [[0u16; features::MAX_PIECES]];
        let mut adds = [[0u16; features::MAX_PIECES]];
        let squares = features::changed_squares(old, board);
        let views = [(perspective, offset)];
        let (ns, na) = features::diff(old, board, squares, views, &mut subs, &mut adds);
        if ns + na > board.occupied().count() {
            // Further from the cached board than from the empty one.
            net.refresh(board, perspective, cached);
        } else {
            simd::update(cached, net.w1(), &subs[0][..ns], &adds[0][..na]);
        }
        self.boards[e] = board.clone();
        acc.copy_from_slice(cached);
    }
}
