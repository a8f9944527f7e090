//! Static evaluation, from the side to move's point of view: a tapered (midgame/endgame) sum of
//! material, piece-square tables, mobility, pawn structure ([`pawns`], with a per-thread pawn hash
//! table), king shelter and pawn storms ([`shelter`], cached in the same table), king attacks,
//! passed pawns, bishop pair, rooks on open files and the seventh, outposts, threats, pins and tempo
//! ([`terms`]), with the endgame half moved towards or away from zero by its complexity (pawns,
//! flanks, pawn endings, outflanking kings, passers) and scaled down in drawish material. Once the
//! side ahead in the endgame is known, the score is linear in the weights of
//! [`params::EvalParams`] (`src/eval/weights.rs`), so [`trace`] can hand the tuner the count of
//! every feature in a position.

pub mod params;
pub mod pawns;
pub mod shelter;
pub mod terms;
pub mod weights;

use shakmaty::{Chess, Color, Position, Role};

pub use params::{EvalParams, DEFAULT_PARAMS, S};

/// Version of the evaluation code: bump it when a term changes meaning.
const CODE_VERSION: u32 = 12;

/// Fingerprint of the evaluation (code version and every weight, FNV-1a): learn files record it,
/// so learned scores are never applied to an evaluation they were not measured with.
pub const VERSION: u32 = {
    let mut h: u32 = 0x811C_9DC5 ^ CODE_VERSION;
    let mut i = 0;
    while i < params::LEN {
        let w = weights::WEIGHTS[i];
        h = (h ^ (w.mg as u32)).wrapping_mul(0x0100_0193);
        h = (h ^ (w.eg as u32)).wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
};

/// Phase of the opening position (knight = bishop = 1, rook = 2, queen = 4).
pub const MAX_PHASE: i32 = 24;
/// Full endgame scale.
pub const SCALE_FULL: i32 = 64;

/// Receives the evaluation's terms: `n` occurrences of weight `idx` for white (`white`) or black.
pub trait Acc {
    /// Adds `n` times weight `idx` for one side.
    fn add(&mut self, white: bool, idx: usize, n: i32);
}

/// A weight pair packed in one integer, midgame in the high 32 bits and endgame in the low 32 bits,
/// so that adding `n` times a weight is one multiply and one add. Exact while both halves of a sum
/// stay within ±2³¹.
#[inline(always)]
pub const fn pack(s: S) -> i64 {
    ((s.mg as i64) << 32) + s.eg as i64
}

/// The pair a [`pack`]ed sum stands for.
#[inline(always)]
pub const fn unpack(v: i64) -> S {
    let eg = v as i32;
    S {
        mg: ((v - eg as i64) >> 32) as i32,
        eg,
    }
}

/// Every weight of a table, [`pack`]ed.
pub const fn pack_all(w: &[S; params::LEN]) -> [i64; params::LEN] {
    let mut out = [0i64; params::LEN];
    let mut i = 0;
    while i < params::LEN {
        out[i] = pack(w[i]);
        i += 1;
    }
    out
}

/// The engine's weights, [`pack`]ed (computed at compile time).
pub static PACKED: [i64; params::LEN] = pack_all(&DEFAULT_PARAMS.w);

/// Sums weights into a midgame/endgame score (white's view), on [`pack`]ed weights.
pub struct Sum<'a> {
    w: &'a [i64; params::LEN],
    total: i64,
}

impl<'a> Sum<'a> {
    /// An empty sum over the packed weights `w`.
    pub fn new(w: &'a [i64; params::LEN]) -> Sum<'a> {
        Sum { w, total: 0 }
    }

    /// A sum over `w` that starts at `start`.
    pub fn starting_at(w: &'a [i64; params::LEN], start: S) -> Sum<'a> {
        Sum {
            w,
            total: pack(start),
        }
    }

    /// The midgame and endgame totals.
    #[inline]
    pub fn score(&self) -> S {
        unpack(self.total)
    }
}

impl Acc for Sum<'_> {
    #[inline(always)]
    fn add(&mut self, white: bool, idx: usize, n: i32) {
        let n = i64::from(if white { n } else { -n });
        self.total += n * self.w[idx];
    }
}

/// Counts every feature: white's count minus black's, by weight index.
pub struct Coeffs {
    c: Vec<i32>,
}

impl Coeffs {
    /// All counts zero.
    pub fn new() -> Coeffs {
        Coeffs {
            c: vec![0; params::LEN],
        }
    }

    /// The counts of a position.
    pub fn traced(pos: &Chess) -> Coeffs {
        Coeffs::traced_with_clamp(pos).0
    }

    /// The counts of a position, and whether the complexity term's clamp (the endgame score
    /// pulled to zero, not past it) holds with the engine's weights. The complexity counts are
    /// signed towards the side ahead in the endgame by the engine's weights.
    fn traced_with_clamp(pos: &Chess) -> (Coeffs, bool) {
        let mut c = Coeffs::new();
        let passers = add_all_terms(pos, &mut c);
        let w = &DEFAULT_PARAMS.w;
        let eg: i32 = c.c.iter().zip(w.iter()).map(|(n, w)| n * w.eg).sum();
        if eg == 0 {
            return (c, false);
        }
        let f = complexity_features(pos.board(), passers);
        let mut ceg = 0;
        for (i, &n) in f.iter().enumerate() {
            c.add(eg > 0, params::COMPLEXITY + i, n);
            ceg += n * w[params::COMPLEXITY + i].eg;
        }
        (c, ceg < -eg.abs())
    }

    /// White's count minus black's of weight `idx`.
    pub fn get(&self, idx: usize) -> i32 {
        self.c[idx]
    }
}

impl Default for Coeffs {
    fn default() -> Self {
        Coeffs::new()
    }
}

impl Acc for Coeffs {
    fn add(&mut self, white: bool, idx: usize, n: i32) {
        self.c[idx] += if white { n } else { -n };
    }
}

/// Everything the tuner needs about one position: the evaluation (white's view) is
/// [`taper`]`(mg, eg, phase, eg_scale)` with `mg = Σ count·weight.mg` and `eg = Σ count·weight.eg`
/// over `terms`.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Game phase, 0 (bare kings and pawns) ..= 24.
    pub phase: i32,
    /// Endgame scale, 0..=64 (64 = unscaled).
    pub eg_scale: i32,
    /// (weight index, white's count minus black's), non-zero counts only, by index.
    pub terms: Vec<(u16, i16)>,
}

fn phase(pos: &Chess) -> i32 {
    let b = pos.board();
    let p = (b.knights() | b.bishops()).count() + 2 * b.rooks().count() + 4 * b.queens().count();
    (p as i32).min(MAX_PHASE)
}

/// Endgame scale for the side ahead in the endgame (`white_ahead`): a side without pawns that is
/// at most a minor piece up can rarely win; bishops of opposite colours alone are drawish.
fn eg_scale(pos: &Chess, white_ahead: bool) -> i32 {
    let b = pos.board();
    let strong = if white_ahead {
        Color::White
    } else {
        Color::Black
    };
    let material = |c: Color| {
        let o = b.by_color(c);
        3 * ((b.knights() | b.bishops()) & o).count() as i32
            + 5 * (b.rooks() & o).count() as i32
            + 9 * (b.queens() & o).count() as i32
    };
    if (b.pawns() & b.by_color(strong)).is_empty() && material(strong) - material(!strong) <= 3 {
        return 16;
    }
    let wb = b.bishops() & b.white();
    let bb = b.bishops() & b.black();
    let only_bishops = (b.knights() | b.rooks() | b.queens()).is_empty();
    if only_bishops && wb.count() == 1 && bb.count() == 1 {
        let light = shakmaty::Bitboard::LIGHT_SQUARES;
        if (wb & light).any() != (bb & light).any() {
            return 32;
        }
    }
    SCALE_FULL
}

/// White's score in centipawns from midgame and endgame sums in [`params::UNIT`]s: tapered by
/// `phase` (0 ..= [`MAX_PHASE`]) with the endgame half scaled by `eg_scale` (of [`SCALE_FULL`]).
/// The one formula the engine, [`Trace`] and the tuner's checks share.
#[inline]
pub fn taper(mg: i32, eg: i32, phase: i32, eg_scale: i32) -> i32 {
    (mg * phase + eg * eg_scale / SCALE_FULL * (MAX_PHASE - phase)) / (MAX_PHASE * params::UNIT)
}

#[inline]
fn blend(pos: &Chess, mg: i32, eg: i32) -> i32 {
    let white = taper(mg, eg, phase(pos), eg_scale(pos, eg > 0));
    if pos.turn() == Color::White {
        white
    } else {
        -white
    }
}

/// Evaluates `pos` from the side to move's point of view, in centipawns (engine weights, pawn
/// structure from this thread's pawn hash table).
pub fn evaluate(pos: &Chess) -> i32 {
    let w = &PACKED;
    let b = pos.board();
    let kings = [b.king_of(Color::White), b.king_of(Color::Black)];
    let (pawn_score, passers) =
        pawns::cached(b.pawns() & b.white(), b.pawns() & b.black(), kings, w);
    let mut sum = Sum::starting_at(w, pawn_score);
    terms::evaluate(b, passers, pos.turn() == Color::White, &mut sum);
    let total = with_complexity(b, passers, w, sum.score());
    blend(pos, total.mg, total.eg)
}

/// Files a-d, the queen's flank (the rest is the king's).
const QUEEN_FLANK: u64 = 0x0F0F_0F0F_0F0F_0F0F;

/// Number of endgame-complexity features ([`params::COMPLEXITY`]).
const COMPLEXITY_FEATURES: usize = 6;

/// The endgame-complexity features of a board (both sides together), in the order of
/// [`params::COMPLEXITY`]: total pawns, pawns on both flanks, no pieces but pawns and kings, king
/// outflanking (file distance minus rank distance between the kings), passers, constant 1.
fn complexity_features(
    b: &shakmaty::Board,
    passers: [shakmaty::Bitboard; 2],
) -> [i32; COMPLEXITY_FEATURES] {
    let pawns = b.pawns();
    let both_flanks = pawns.0 & QUEEN_FLANK != 0 && pawns.0 & !QUEEN_FLANK != 0;
    let pawn_endgame = (b.occupied() ^ pawns ^ b.kings()).is_empty();
    let outflanking = match (b.king_of(Color::White), b.king_of(Color::Black)) {
        (Some(w), Some(k)) => {
            w.file().distance(k.file()) as i32 - w.rank().distance(k.rank()) as i32
        }
        _ => 0,
    };
    [
        pawns.count() as i32,
        i32::from(both_flanks),
        i32::from(pawn_endgame),
        outflanking,
        (passers[0] | passers[1]).count() as i32,
        1,
    ]
}

/// Adds the complexity term to a white's-view score `total`: the weighted features, signed
/// towards the side ahead in the endgame, move the midgame score freely and the endgame score
/// towards or away from zero but never past it (no change when the endgame score is 0).
fn with_complexity(
    b: &shakmaty::Board,
    passers: [shakmaty::Bitboard; 2],
    w: &[i64; params::LEN],
    total: S,
) -> S {
    let sign = total.eg.signum();
    if sign == 0 {
        return total;
    }
    let f = complexity_features(b, passers);
    let c = unpack(
        f.iter()
            .enumerate()
            .map(|(i, &n)| i64::from(n) * w[params::COMPLEXITY + i])
            .sum(),
    );
    S {
        mg: total.mg + sign * c.mg,
        eg: total.eg + sign * c.eg.max(-total.eg.abs()),
    }
}

/// Feeds every term of `pos` but complexity (pawn structure and shelter computed afresh, no pawn
/// hash) into `acc`; returns the passers.
fn add_all_terms<A: Acc>(pos: &Chess, acc: &mut A) -> [shakmaty::Bitboard; 2] {
    let b = pos.board();
    let (wp, bp) = (b.pawns() & b.white(), b.pawns() & b.black());
    let passers = pawns::evaluate(wp, bp, acc);
    let kings = [b.king_of(Color::White), b.king_of(Color::Black)];
    shelter::evaluate([wp, bp], kings, acc);
    terms::evaluate(b, passers, pos.turn() == Color::White, acc);
    passers
}

/// Evaluates with explicit weights (no pawn hash), side to move's view.
pub fn evaluate_with(pos: &Chess, p: &EvalParams) -> i32 {
    let w = pack_all(&p.w);
    let mut sum = Sum::new(&w);
    let passers = add_all_terms(pos, &mut sum);
    let total = with_complexity(pos.board(), passers, &w, sum.score());
    blend(pos, total.mg, total.eg)
}

/// The feature counts of `pos` for the tuner (the endgame scale is decided with the engine's
/// weights).
pub fn trace(pos: &Chess) -> Trace {
    let (c, clamped) = Coeffs::traced_with_clamp(pos);
    let eg: i32 =
        c.c.iter()
            .zip(DEFAULT_PARAMS.w.iter())
            .map(|(n, w)| n * w.eg)
            .sum();
    Trace {
        phase: phase(pos),
        // A clamped complexity term leaves an endgame score of exactly 0: the same as no endgame
        // half at all, which the tuner's linear model can express.
        eg_scale: if clamped { 0 } else { eg_scale(pos, eg > 0) },
        terms: c
            .c
            .iter()
            .enumerate()
            .filter(|(_, &n)| n != 0)
            .map(|(i, &n)| (i as u16, n as i16))
            .collect(),
    }
}

/// Piece values used by move ordering and SEE (midgame material).
pub const SEE_VALUE: [i32; 7] = [0, 100, 320, 330, 500, 950, 20000];

/// SEE/MVV value of a role.
#[inline]
pub fn see_value(role: Role) -> i32 {
    SEE_VALUE[role as usize]
}

#[cfg(test)]
mod tests;
