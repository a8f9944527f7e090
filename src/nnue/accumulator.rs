//! Per-thread incremental evaluation: a stack of accumulators, one slot per ply, each remembering
//! the board it was computed for. A position is evaluated from the slot (its own ply's, its
//! parent's or its grandparent's) whose board differs from it in the fewest pieces, by adding and
//! subtracting only the feature rows that changed; with no near slot it is computed from scratch.
//! The update reads nothing but the two boards, so it is exact whatever the slot last held. A
//! perspective whose king changed bucket (networks with king buckets), or a position with no near
//! slot, is computed anew through the thread's [`RefreshCache`].

use std::sync::Arc;

use shakmaty::{Bitboard, Board, Chess, Color, Position};

use super::features;
use super::lanes::Lanes;
use super::network::Network;
use super::refresh_cache::RefreshCache;
use super::simd;

/// Most changed features an incremental update handles; a slot further away is recomputed. The
/// rows of an update are listed by `features::diff`, whose arrays hold this many.
const MAX_CHANGES: usize = features::MAX_PIECES;

/// One thread's incremental evaluator of one network.
#[derive(Clone)]
pub struct Evaluator {
    net: Arc<Network>,
    /// Per slot, White's accumulator then Black's (2H values).
    accs: Lanes,
    /// The board each slot's accumulators belong to; `None` = empty.
    boards: Vec<Option<Board>>,
    /// Accumulators computed anew start from here.
    cache: RefreshCache,
}

/// Features that differ between two boards whose changed squares are `s`: on each, the old
/// piece's (if any) and the new one's (if any).
#[inline(always)]
fn changed_features(s: Bitboard, a: &Board, b: &Board) -> u32 {
    (s & a.occupied()).count() as u32 + (s & b.occupied()).count() as u32
}

impl Evaluator {
    /// An evaluator of `net` with `slots` plies of stack.
    pub fn new(net: Arc<Network>, slots: usize) -> Evaluator {
        let h = net.hidden();
        Evaluator {
            cache: RefreshCache::new(&net),
            net,
            accs: Lanes::zeroed(slots * 2 * h),
            boards: vec![None; slots],
        }
    }

    /// The network evaluated.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Evaluates `pos`, reached at `ply`, from the side to move's point of view, in centipawns
    /// (within ±[`super::network::MAX_SCORE`]).
    pub fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        let slot = ply.min(self.boards.len() - 1);
        let board = pos.board();
        // The nearest slot, its distance in features and the squares that differ.
        let mut base: Option<(usize, u32, Bitboard)> = None;
        for cand in [slot, slot.wrapping_sub(1), slot.wrapping_sub(2)] {
            if let Some(Some(b)) = self.boards.get(cand) {
                let squares = features::changed_squares(b, board);
                let d = changed_features(squares, b, board);
                if base.is_none_or(|(_, bd, _)| d < bd) {
                    base = Some((cand, d, squares));
                }
            }
        }
        let h = self.net.hidden();
        match base {
            Some((cand, d, squares))
                if d <= (board.occupied().count() as u32).min(MAX_CHANGES as u32) =>
            {
                if d > 0 || cand != slot {
                    self.apply(cand, slot, board, squares);
                }
            }
            _ => {
                let acc = &mut self.accs[slot * 2 * h..(slot + 1) * 2 * h];
                let (white, black) = acc.split_at_mut(h);
                self.cache.refresh(&self.net, board, Color::White, white);
                self.cache.refresh(&self.net, board, Color::Black, black);
            }
        }
        self.boards[slot] = Some(board.clone());
        let acc = &self.accs[slot * 2 * h..(slot + 1) * 2 * h];
        let (white, black) = acc.split_at(h);
        let bucket = self.net.bucket_of(board);
        // Within ±MAX_SCORE (`Network::output` bounds it).
        match pos.turn() {
            Color::White => self.net.output(white, black, bucket),
            Color::Black => self.net.output(black, white, bucket),
        }
    }

    /// Fills slot `slot`'s accumulators for `new` from slot `from`'s, which hold those of the
    /// board remembered there (at most [`MAX_CHANGES`] features from `new`, as
    /// [`Evaluator::evaluate`] ensures), `squares` the squares where the two differ; `from` is
    /// `slot` itself or a slot below it. A perspective whose king bucket differs between the two
    /// boards is computed anew from the cache instead.
    fn apply(&mut self, from: usize, slot: usize, new: &Board, squares: Bitboard) {
        debug_assert!(from <= slot);
        let Evaluator {
            net,
            accs,
            boards,
            cache,
        } = self;
        let old = boards[from].as_ref().expect("a filled slot");
        // White's perspective first, then Black's, as in a slot.
        let offsets = [Color::White, Color::Black].map(|p| net.king_offset(new, p));
        let same_bucket = [
            net.king_offset(old, Color::White) == offsets[0],
            net.king_offset(old, Color::Black) == offsets[1],
        ];
        let mut subs = [[0u16; features::MAX_PIECES]; 2];
        let mut adds = [[0u16; features::MAX_PIECES]; 2];
        let views = [(Color::White, offsets[0]), (Color::Black, offsets[1])];
        let (ns, na) = features::diff(old, new, squares, views, &mut subs, &mut adds);
        let h = net.hidden();
        let w1 = net.w1();
        let (subs_w, adds_w) = (&subs[0][..ns], &adds[0][..na]);
        let (subs_b, adds_b) = (&subs[1][..ns], &adds[1][..na]);
        let perspectives = [
            (Color::White, subs_w, adds_w, same_bucket[0]),
            (Color::Black, subs_b, adds_b, same_bucket[1]),
        ];
        if from != slot {
            // Read the source slot once, write this one once.
            let (lo, hi) = accs.split_at_mut(slot * 2 * h);
            let src = &lo[from * 2 * h..(from + 1) * 2 * h];
            let dst = &mut hi[..2 * h];
            for ((p, subs, adds, same), (src, dst)) in perspectives
                .into_iter()
                .zip(src.chunks_exact(h).zip(dst.chunks_exact_mut(h)))
            {
                if same {
                    simd::update_from(src, dst, w1, subs, adds);
                } else {
                    cache.refresh(net, new, p, dst);
                }
            }
            return;
        }
        let acc = &mut accs[slot * 2 * h..(slot + 1) * 2 * h];
        for ((p, subs, adds, same), acc) in perspectives.into_iter().zip(acc.chunks_exact_mut(h)) {
            if same {
                simd::update(acc, w1, subs, adds);
            } else {
                cache.refresh(net, new, p, acc);
            }
        }
    }
}
