//! The float network of `docs/nnue.md` and its training maths. All parameters live in one flat
//! `f32` vector, `[W1 (K·768·H) | b1 (H) | w2 (B·2H) | b2 (B)]` for K king buckets and B output
//! buckets, so that gradients, Adam's moments and clipping are plain loops over equal slices (and
//! cover every bucket). Per position: `a_p = b1 + Σ_{active f} W1[k_p·768 + f]` for the side to
//! move's perspective and the other one (`k_p` the king bucket of that perspective's own king),
//! the bucket `b` from the piece count (`trine::nnue::network::bucket`; a perspective's feature
//! count is the number of pieces), `out = Σ screlu(a_stm)·w2_b[..H] +
//! Σ screlu(a_other)·w2_b[H..] + b2_b` and `cp = SCALE · out`; the loss is
//! `(sigmoid(K · cp / 400) − target)²`. The inner loops run over slices of length H (a multiple
//! of 8) written so that the compiler vectorises them; nothing is allocated per position.

use shakmaty::{Chess, Position};

use super::data::Entry;
use super::features::{active, KingBuckets, INPUTS};
use super::seeded_rng;
use super::SCALE;

/// Most output buckets (as the file format allows).
pub const MAX_BUCKETS: usize = trine::nnue::network::MAX_BUCKETS;

/// The float network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    hidden: usize,
    buckets: usize,
    kings: KingBuckets,
    /// `[W1 | b1 | w2 | b2]`, see the module documentation.
    pub params: Vec<f32>,
}

/// Number of parameters of a network with `hidden` neurons, `buckets` output buckets and `kings`
/// king buckets.
pub const fn param_count(hidden: usize, buckets: usize, kings: usize) -> usize {
    kings * INPUTS * hidden + hidden + buckets * (2 * hidden + 1)
}

/// Checks a hidden size: 8 ..= 4096 and a multiple of 8 (as the file format requires).
pub fn check_hidden(hidden: usize) -> Result<(), String> {
    if !(8..=4096).contains(&hidden) || !hidden.is_multiple_of(8) {
        return Err(format!(
            "hidden size {hidden} is not a multiple of 8 in 8..=4096"
        ));
    }
    Ok(())
}

/// Checks a number of output buckets: 1 ..= [`MAX_BUCKETS`].
pub fn check_buckets(buckets: usize) -> Result<(), String> {
    if !(1..=MAX_BUCKETS).contains(&buckets) {
        return Err(format!(
            "output bucket count {buckets} is not in 1..={MAX_BUCKETS}"
        ));
    }
    Ok(())
}

/// The output bucket of a position with `pieces` pieces (both colours, kings included) among
/// `buckets`: the engine's own formula, `(clamp(pieces, 2, 32) − 2) · buckets / 31`.
#[inline]
pub fn bucket(pieces: usize, buckets: usize) -> usize {
    trine::nnue::network::bucket(pieces, buckets)
}

/// The parameter vector split into its layers.
pub struct Layers<'a> {
    /// Feature weights: feature `f`'s row at `[f·H, f·H + H)`.
    pub w1: &'a [f32],
    /// Accumulator biases.
    pub b1: &'a [f32],
    /// Output weights: bucket `b`'s 2H at `[2H·b, 2H·b + 2H)`, the side to move's half first.
    pub w2: &'a [f32],
    /// Output biases, one per bucket.
    pub b2: &'a [f32],
}

/// Mutable view of a parameter-shaped vector (a gradient) split into its layers.
pub struct LayersMut<'a> {
    /// Feature weights.
    pub w1: &'a mut [f32],
    /// Accumulator biases.
    pub b1: &'a mut [f32],
    /// Output weights, bucket by bucket.
    pub w2: &'a mut [f32],
    /// Output biases, one per bucket.
    pub b2: &'a mut [f32],
}

/// Splits a parameter-shaped vector of a network with `hidden` neurons, `buckets` output buckets
/// and `kings` king buckets into its layers.
pub fn split_mut(v: &mut [f32], hidden: usize, buckets: usize, kings: usize) -> LayersMut<'_> {
    let (w1, rest) = v.split_at_mut(kings * INPUTS * hidden);
    let (b1, rest) = rest.split_at_mut(hidden);
    let (w2, b2) = rest.split_at_mut(buckets * 2 * hidden);
    LayersMut { w1, b1, w2, b2 }
}

/// `1 / (1 + exp(−x))`.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a position (side to move's view):
/// `lambda · result + (1 − lambda) · sigmoid(k · score / 400)`.
#[inline]
pub fn target(score: f32, result: f32, k: f32, lambda: f32) -> f32 {
    lambda * result + (1.0 - lambda) * sigmoid(k * score / 400.0)
}

/// SCReLU: `clamp(x, 0, 1)²`.
#[inline]
pub fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// `Σ screlu(a[i]) · w[i]`, in eight independent lanes so that it vectorises.
#[inline]
fn screlu_dot(a: &[f32], w: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    for (a, w) in a.chunks_exact(8).zip(w.chunks_exact(8)) {
        for k in 0..8 {
            let c = a[k].clamp(0.0, 1.0);
            lanes[k] += c * c * w[k];
        }
    }
    let tail: f32 = a
        .chunks_exact(8)
        .remainder()
        .iter()
        .zip(w.chunks_exact(8).remainder())
        .map(|(&a, &w)| screlu(a) * w)
        .sum();
    lanes.iter().sum::<f32>() + tail
}

/// `dst += src`, elementwise.
#[inline]
fn add(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// Per-thread work space of the forward and backward passes (four vectors of H).
#[derive(Clone, Debug)]
pub struct Scratch {
    acc_stm: Vec<f32>,
    acc_other: Vec<f32>,
    d_stm: Vec<f32>,
    d_other: Vec<f32>,
}

impl Scratch {
    /// Work space for a network with `hidden` neurons.
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            acc_stm: vec![0.0; hidden],
            acc_other: vec![0.0; hidden],
            d_stm: vec![0.0; hidden],
            d_other: vec![0.0; hidden],
        }
    }
}

impl Network {
    /// All parameters zero.
    pub fn zeros(hidden: usize, buckets: usize) -> Network {
        check_hidden(hidden).expect("hidden size");
        check_buckets(buckets).expect("bucket count");
        Network {
            hidden,
            buckets,
            kings: KingBuckets::NONE,
            params: vec![0.0; param_count(hidden, buckets, 1)],
        }
    }

    /// Half-width of the uniform range of a starting feature weight: 1/√32.
    fn w1_start_range() -> f32 {
        1.0 / (32.0f32).sqrt()
    }

    /// The starting network of a run: W1 uniform in ±1/√32, w2 (every bucket's) uniform in
    /// ±1/√(2H), biases zero, all from `seed` (with one bucket, the same network as before
    /// buckets existed).
    pub fn random(hidden: usize, buckets: usize, seed: u64) -> Network {
        let mut net = Network::zeros(hidden, buckets);
        let mut rng = seeded_rng(seed);
        let l = split_mut(&mut net.params, hidden, buckets, 1);
        let r1 = Network::w1_start_range();
        l.w1.iter_mut().for_each(|w| *w = rng.symmetric(r1));
        let r2 = 1.0 / (2.0 * hidden as f32).sqrt();
        l.w2.iter_mut().for_each(|w| *w = rng.symmetric(r2));
        net
    }

    /// A network from its hidden size, output bucket count, king buckets and parameter vector.
    pub fn from_params(
        hidden: usize,
        buckets: usize,
        kings: KingBuckets,
        params: Vec<f32>,
    ) -> Result<Network, String> {
        check_hidden(hidden)?;
        check_buckets(buckets)?;
        let n = param_count(hidden, buckets, kings.count);
        if params.len() != n {
            return Err(format!(
                "{} parameters for hidden size {hidden}, {buckets} output bucket(s) and {} king \
                 bucket(s) (expected {n})",
                params.len(),
                kings.count
            ));
        }
        Ok(Network {
            hidden,
            buckets,
            kings,
            params,
        })
    }

    /// This network with the king buckets `kings`: itself when it has them, and a network of one
    /// king bucket with its feature weights copied into every bucket (the same evaluation of
    /// every position, a start for training a network with king buckets from one without).
    pub fn with_king_buckets(&self, kings: KingBuckets) -> Result<Network, String> {
        if kings == self.kings {
            return Ok(self.clone());
        }
        if self.kings.count != 1 {
            return Err(format!(
                "a network of {} king buckets cannot take other king buckets",
                self.kings.count
            ));
        }
        let l = self.layers();
        let mut params = Vec::with_capacity(param_count(self.hidden, self.buckets, kings.count));
        for _ in 0..kings.count {
            params.extend_from_slice(l.w1);
        }
        params.extend_from_slice(&self.params[l.w1.len()..]);
        Network::from_params(self.hidden, self.buckets, kings, params)
    }

    /// This network with `buckets` output buckets: itself when it has that many, and a network
    /// of one bucket with its output layer copied into every bucket (the same evaluation of
    /// every position, a start for training a bucketed network from an unbucketed one).
    pub fn with_buckets(&self, buckets: usize) -> Result<Network, String> {
        check_buckets(buckets)?;
        if buckets == self.buckets {
            return Ok(self.clone());
        }
        if self.buckets != 1 {
            return Err(format!(
                "a network of {} output buckets cannot become one of {buckets}",
                self.buckets
            ));
        }
        let h = self.hidden;
        let l = self.layers();
        let mut params = Vec::with_capacity(param_count(h, buckets, self.kings.count));
        params.extend_from_slice(l.w1);
        params.extend_from_slice(l.b1);
        for _ in 0..buckets {
            params.extend_from_slice(l.w2);
        }
        params.extend(std::iter::repeat_n(l.b2[0], buckets));
        Network::from_params(h, buckets, self.kings, params)
    }

    /// This network widened to `hidden` units: itself when it has that many, and otherwise its
    /// units followed by new ones whose feature weights are drawn from `seed` (uniform in
    /// ±1/√32, as [`Network::random`] draws them) and whose biases and output weights are zero,
    /// so that the wider network evaluates every position as this one does until training moves
    /// the new output weights (on 11 M positions it hardly did: docs/history/networks.md, n18w).
    /// A network cannot be narrowed.
    pub fn with_hidden(&self, hidden: usize, seed: u64) -> Result<Network, String> {
        check_hidden(hidden)?;
        let old = self.hidden;
        if hidden == old {
            return Ok(self.clone());
        }
        if hidden < old {
            return Err(format!(
                "a network of hidden size {old} cannot become one of {hidden}"
            ));
        }
        let extra = hidden - old;
        let mut rng = seeded_rng(seed);
        let r1 = Network::w1_start_range();
        self.widened(
            hidden,
            |_, out| out.extend((0..extra).map(|_| rng.symmetric(r1))),
            std::iter::repeat_n(0.0, extra),
            |half, out| {
                out.extend_from_slice(half);
                out.extend(std::iter::repeat_n(0.0, extra));
            },
        )
    }

    /// This network widened to `hidden` units by copying its own (Net2Net): each new unit copies
    /// the feature weights and bias of one of the `hidden − H` units with the largest output
    /// weights (summed in absolute value over buckets and halves), plus noise drawn from `seed`
    /// (uniform in ±`noise` times the root mean square of the feature weights), and takes half
    /// of that unit's output weights, the unit keeping the other half. Without noise the wider
    /// network evaluates every position as this one does; the noise lets training tell a unit
    /// from its copy. At most H new units (each unit is copied at most once).
    pub fn with_hidden_copied(
        &self,
        hidden: usize,
        noise: f32,
        seed: u64,
    ) -> Result<Network, String> {
        check_hidden(hidden)?;
        if !(noise.is_finite() && noise >= 0.0) {
            return Err(format!("copy noise {noise} is not a finite number ≥ 0"));
        }
        let old = self.hidden;
        if hidden < old || hidden > 2 * old {
            return Err(format!(
                "a network of hidden size {old} cannot become one of {hidden} by copying its units"
            ));
        }
        let extra = hidden - old;
        let l = self.layers();
        let mut weight = vec![0.0f32; old];
        for half in l.w2.chunks_exact(old) {
            for (w, &x) in weight.iter_mut().zip(half) {
                *w += x.abs();
            }
        }
        let mut order: Vec<usize> = (0..old).collect();
        order.sort_by(|&a, &b| weight[b].total_cmp(&weight[a]).then(a.cmp(&b)));
        let copied = &order[..extra];
        let rms = (l
            .w1
            .iter()
            .map(|&w| f64::from(w) * f64::from(w))
            .sum::<f64>()
            / l.w1.len().max(1) as f64)
            .sqrt() as f32;
        let r = noise * rms;
        let mut rng = seeded_rng(seed);
        self.widened(
            hidden,
            |row, out| out.extend(copied.iter().map(|&u| row[u] + rng.symmetric(r))),
            copied.iter().map(|&u| l.b1[u]),
            |half, out| {
                let mut kept = half.to_vec();
                for &u in copied {
                    kept[u] *= 0.5;
                }
                out.extend_from_slice(&kept);
                out.extend(copied.iter().map(|&u| half[u] - kept[u]));
            },
        )
    }

    /// The network of `hidden` units whose first H units are this network's, the one layout both
    /// widenings build: `row` appends the new units' weights of one feature's row (given the
    /// row), `biases` are the new units' biases, and `half` appends the H + new output weights
    /// of one bucket's half (given its H weights).
    fn widened(
        &self,
        hidden: usize,
        mut row: impl FnMut(&[f32], &mut Vec<f32>),
        biases: impl IntoIterator<Item = f32>,
        mut half: impl FnMut(&[f32], &mut Vec<f32>),
    ) -> Result<Network, String> {
        let l = self.layers();
        let mut params = Vec::with_capacity(param_count(hidden, self.buckets, self.kings.count));
        for w in l.w1.chunks_exact(self.hidden) {
            params.extend_from_slice(w);
            row(w, &mut params);
        }
        params.extend_from_slice(l.b1);
        params.extend(biases);
        for w in l.w2.chunks_exact(self.hidden) {
            half(w, &mut params);
        }
        params.extend_from_slice(l.b2);
        Network::from_params(hidden, self.buckets, self.kings, params)
    }

    /// Hidden size H.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of output buckets B.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// The king buckets.
    pub fn king_buckets(&self) -> KingBuckets {
        self.kings
    }

    /// The parameters split into layers.
    pub fn layers(&self) -> Layers<'_> {
        let h = self.hidden;
        let (w1, rest) = self.params.split_at(self.kings.count * INPUTS * h);
        let (b1, rest) = rest.split_at(h);
        let (w2, b2) = rest.split_at(self.buckets * 2 * h);
        Layers { w1, b1, w2, b2 }
    }

    /// The parameters split into mutable layers.
    pub fn layers_mut(&mut self) -> LayersMut<'_> {
        split_mut(
            &mut self.params,
            self.hidden,
            self.buckets,
            self.kings.count,
        )
    }

    /// `acc = b1 + Σ_{f in features} W1[k·768 + f]`, `k` the perspective's king bucket.
    #[inline]
    fn accumulate(&self, l: &Layers<'_>, features: &[u16], acc: &mut [f32]) {
        let h = self.hidden;
        let w1 = &l.w1[self.kings.row_offset(features) * h..];
        acc.copy_from_slice(l.b1);
        for &f in features {
            add(acc, &w1[usize::from(f) * h..][..h]);
        }
    }

    /// The raw output (`cp / SCALE`) of a position through output bucket `b`, with the
    /// accumulators left in `s`.
    #[inline]
    fn forward(
        &self,
        l: &Layers<'_>,
        b: usize,
        stm: &[u16],
        other: &[u16],
        s: &mut Scratch,
    ) -> f32 {
        let h = self.hidden;
        self.accumulate(l, stm, &mut s.acc_stm);
        self.accumulate(l, other, &mut s.acc_other);
        let (w2_stm, w2_other) = l.w2[b * 2 * h..][..2 * h].split_at(h);
        screlu_dot(&s.acc_stm, w2_stm) + screlu_dot(&s.acc_other, w2_other) + l.b2[b]
    }

    /// Centipawns (side to move's view) of a position given by its two feature lists (one per
    /// piece, so their length picks the output bucket).
    pub fn evaluate_features(&self, stm: &[u16], other: &[u16], s: &mut Scratch) -> f32 {
        let b = bucket(stm.len(), self.buckets);
        SCALE as f32 * self.forward(&self.layers(), b, stm, other, s)
    }

    /// Centipawns (side to move's view) of a position.
    pub fn evaluate(&self, pos: &Chess) -> f32 {
        let stm = pos.turn();
        let mut s = Scratch::new(self.hidden);
        self.evaluate_features(
            &active(pos.board(), stm),
            &active(pos.board(), stm.other()),
            &mut s,
        )
    }

    /// Squared error of one position.
    #[inline]
    pub fn loss(&self, e: Entry<'_>, k: f32, lambda: f32, s: &mut Scratch) -> f32 {
        let b = bucket(e.stm.len(), self.buckets);
        let out = self.forward(&self.layers(), b, e.stm, e.other, s);
        let err = sigmoid(k * out * (SCALE as f32 / 400.0)) - target(e.score, e.result, k, lambda);
        err * err
    }

    /// Adds `weight ×` the gradient of one position's squared error to `grad` (a parameter-shaped
    /// vector) and returns the (unweighted) squared error. With `p = sigmoid(K·cp/400)`,
    /// `dL/dout = 2 (p − t) · p (1 − p) · K · SCALE/400`; then, for the position's bucket `b`
    /// only, `dL/db2_b = dL/dout` and `dL/dw2_b[i] = dL/dout · screlu(a[i])`, and `dL/da_p[i] =
    /// dL/dout · w2_b[..i] · 2 a_p[i]` where `0 < a_p[i] < 1` (else 0), which goes to b1 and to
    /// every active row of W1 of that perspective.
    #[inline]
    pub fn backprop(
        &self,
        e: Entry<'_>,
        k: f32,
        lambda: f32,
        weight: f32,
        s: &mut Scratch,
        grad: &mut [f32],
    ) -> f32 {
        let h = self.hidden;
        let l = self.layers();
        let b = bucket(e.stm.len(), self.buckets);
        let out = self.forward(&l, b, e.stm, e.other, s);
        let slope = k * (SCALE as f32 / 400.0);
        let p = sigmoid(slope * out);
        let err = p - target(e.score, e.result, k, lambda);
        let g = weight * 2.0 * err * p * (1.0 - p) * slope;

        let gl = split_mut(grad, h, self.buckets, self.kings.count);
        gl.b2[b] += g;
        let (w2_stm, w2_other) = l.w2[b * 2 * h..][..2 * h].split_at(h);
        let (g2_stm, g2_other) = gl.w2[b * 2 * h..][..2 * h].split_at_mut(h);
        output_grad(&s.acc_stm, w2_stm, g, g2_stm, &mut s.d_stm);
        output_grad(&s.acc_other, w2_other, g, g2_other, &mut s.d_other);
        for ((b, ds), d_o) in gl.b1.iter_mut().zip(&s.d_stm).zip(&s.d_other) {
            *b += ds + d_o;
        }
        for (features, d) in [(e.stm, &s.d_stm), (e.other, &s.d_other)] {
            let w1 = &mut gl.w1[self.kings.row_offset(features) * h..];
            for &f in features {
                add(&mut w1[usize::from(f) * h..][..h], d);
            }
        }
        err * err
    }
}

/// For one perspective: `g2[i] += g · screlu(a[i])` and `d[i] = g · w2[i] · 2 a[i]` inside
/// `(0, 1)`, else 0.
#[inline]
fn output_grad(a: &[f32], w2: &[f32], g: f32, g2: &mut [f32], d: &mut [f32]) {
    for (((&a, &w), g2), d) in a.iter().zip(w2).zip(g2.iter_mut()).zip(d.iter_mut()) {
        let c = a.clamp(0.0, 1.0);
        *g2 += g * c * c;
        *d = if a < 1.0 { 2.0 * g * w * c } else { 0.0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::data::Dataset;
    use crate::rng::Rng;

    /// The bucket of a position with `n` pieces among `buckets`, written out as docs/nnue.md has
    /// it.
    fn reference_bucket(n: usize, buckets: usize) -> usize {
        (n.clamp(2, 32) - 2) * buckets / 31
    }

    /// The king bucket of a perspective's features, written out: the bucket of the square of its
    /// own king's feature (`64 · 5 + square`).
    fn reference_king(kings: &KingBuckets, feats: &[u16]) -> usize {
        let own_king = feats.iter().find(|&&f| (320..384).contains(&f)).unwrap();
        usize::from(kings.map[usize::from(own_king - 320)])
    }

    /// Centipawns of the documented formula in f64, written independently of the f32 code.
    fn reference_cp(
        h: usize,
        buckets: usize,
        kings: &KingBuckets,
        p: &[f64],
        stm: &[u16],
        other: &[u16],
    ) -> f64 {
        let (w1, rest) = p.split_at(kings.count * INPUTS * h);
        let (b1, rest) = rest.split_at(h);
        let (w2, b2) = rest.split_at(buckets * 2 * h);
        let b = reference_bucket(stm.len(), buckets);
        let mut out = b2[b];
        for (half, feats) in [stm, other].into_iter().enumerate() {
            let k = reference_king(kings, feats);
            for j in 0..h {
                let mut a = b1[j];
                for &f in feats {
                    a += w1[(k * INPUTS + usize::from(f)) * h + j];
                }
                let c = a.clamp(0.0, 1.0);
                out += c * c * w2[b * 2 * h + half * h + j];
            }
        }
        400.0 * out
    }

    /// The mean loss of the documented formula in f64.
    fn reference_loss(
        h: usize,
        buckets: usize,
        kings: &KingBuckets,
        p: &[f64],
        data: &Dataset,
        k: f64,
        lambda: f64,
    ) -> f64 {
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let mut total = 0.0;
        for i in 0..data.len() {
            let e = data.get(i);
            let cp = reference_cp(h, buckets, kings, p, e.stm, e.other);
            let t =
                lambda * f64::from(e.result) + (1.0 - lambda) * sig(k * f64::from(e.score) / 400.0);
            total += (sig(k * cp / 400.0) - t).powi(2);
        }
        total / data.len() as f64
    }

    fn sample(n: usize) -> Dataset {
        let text = include_str!("../../data/sample.txt");
        let mut d = Dataset::new();
        for line in text.lines().step_by(97).take(n) {
            let l = trine::tools::datagen::parse_line(line).unwrap();
            let r = match l.result {
                trine::tools::datagen::GameResult::WhiteWin => 1.0,
                trine::tools::datagen::GameResult::Draw => 0.5,
                trine::tools::datagen::GameResult::BlackWin => 0.0,
            };
            d.push_position(&l.pos, l.score, r);
        }
        d
    }

    #[test]
    fn buckets_follow_the_documented_formula() {
        assert_eq!(bucket(32, 1), 0);
        assert_eq!(bucket(2, 1), 0);
        for buckets in 1..=MAX_BUCKETS {
            assert_eq!(bucket(2, buckets), 0);
            assert_eq!(bucket(32, buckets), buckets - 1);
            for n in 0..=40 {
                assert_eq!(bucket(n, buckets), reference_bucket(n, buckets));
            }
        }
        // Eight buckets: 2-5 pieces, 6-9, 10-13, 14-17, 18-21, 22-25, 26-29, 30-32.
        let starts: Vec<usize> = (2..=32)
            .filter(|&n| n == 2 || bucket(n, 8) != bucket(n - 1, 8))
            .collect();
        assert_eq!(starts, [2, 6, 10, 14, 18, 22, 26, 30]);
    }

    /// Sets `net`'s output weights, feature biases and output biases to uniform values within
    /// ±`sizes[0]`, ±`sizes[1]` and ±`sizes[2]`, drawn in that order from `rng`; with more than
    /// one king bucket, then its feature weights within ±0.2, so that every block differs.
    fn perturb(net: &mut Network, rng: &mut Rng, sizes: [f32; 3]) {
        let kings = net.king_buckets().count;
        let l = net.layers_mut();
        l.w2.iter_mut().for_each(|w| *w = rng.symmetric(sizes[0]));
        l.b1.iter_mut().for_each(|b| *b = rng.symmetric(sizes[1]));
        l.b2.iter_mut().for_each(|b| *b = rng.symmetric(sizes[2]));
        if kings > 1 {
            l.w1.iter_mut().for_each(|w| *w = rng.symmetric(0.2));
        }
    }

    /// The gradient of `buckets` output buckets and the king buckets `kings` against finite
    /// differences of the f64 reference: a few weights of every layer, and exactly zero for the
    /// output layers of buckets no position uses.
    fn check_gradient(buckets: usize, kings: KingBuckets) {
        let h = 8;
        let data = sample(12);
        let (k, lambda) = (2.2, 0.3);
        let mut net = Network::random(h, buckets, 3)
            .with_king_buckets(kings)
            .unwrap();
        // Larger output weights and biases than at the start of training, so every term matters
        // (and each king bucket's feature weights its own).
        let mut rng = seeded_rng(11);
        perturb(&mut net, &mut rng, [1.5, 0.3, 0.2]);
        let np = param_count(h, buckets, kings.count);
        let mut grad = vec![0.0f32; np];
        let mut s = Scratch::new(h);
        let n = data.len() as f32;
        let mut mean = 0.0;
        for i in 0..data.len() {
            mean += net.backprop(data.get(i), k, lambda, 1.0 / n, &mut s, &mut grad) / n;
        }
        let p64: Vec<f64> = net.params.iter().map(|&x| f64::from(x)).collect();
        let (k64, lambda64) = (f64::from(k), f64::from(lambda));
        let loss = |p: &[f64]| reference_loss(h, buckets, &kings, p, &data, k64, lambda64);
        let base = loss(&p64);
        assert!(
            (f64::from(mean) - base).abs() < 1e-5 * base.max(1e-3),
            "{mean} vs {base}"
        );

        let w2_at = kings.count * INPUTS * h + h;
        let b2_at = w2_at + buckets * 2 * h;
        let used: Vec<usize> = (0..data.len())
            .map(|i| reference_bucket(data.get(i).stm.len(), buckets))
            .collect();
        for b in 0..buckets {
            if !used.contains(&b) {
                assert!(grad[w2_at + b * 2 * h..][..2 * h].iter().all(|&g| g == 0.0));
                assert_eq!(grad[b2_at + b], 0.0);
            }
        }
        if buckets > 1 {
            let mut distinct = used.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert!(distinct.len() >= 3, "buckets used: {distinct:?}");
        }

        // A few weights of every layer: W1 rows that are active somewhere (in the block of the
        // perspective's king bucket), b1, w2 and b2 of buckets that some position uses.
        let mut picks = Vec::new();
        for _ in 0..12 {
            let e = data.get(rng.below(data.len()));
            let feats = if rng.below(2) == 0 { e.stm } else { e.other };
            let f =
                reference_king(&kings, feats) * INPUTS + usize::from(feats[rng.below(e.stm.len())]);
            picks.push(f * h + rng.below(h));
        }
        for _ in 0..4 {
            let b = used[rng.below(used.len())];
            picks.push(kings.count * INPUTS * h + rng.below(h));
            picks.push(w2_at + b * 2 * h + rng.below(2 * h));
            picks.push(b2_at + b);
        }
        let eps = 1e-5;
        let mut nonzero = 0;
        for &i in &picks {
            let mut p = p64.clone();
            p[i] += eps;
            let up = loss(&p);
            p[i] -= 2.0 * eps;
            let down = loss(&p);
            let numeric = (up - down) / (2.0 * eps);
            let analytic = f64::from(grad[i]);
            if numeric.abs() > 1e-6 {
                nonzero += 1;
            }
            assert!(
                (numeric - analytic).abs() <= 1e-3 * numeric.abs().max(analytic.abs()) + 1e-7,
                "{buckets} buckets, parameter {i}: numeric {numeric:e}, analytic {analytic:e}"
            );
        }
        assert!(
            nonzero >= picks.len() / 2,
            "only {nonzero} non-zero gradients"
        );
    }

    #[test]
    fn the_analytic_gradient_matches_finite_differences() {
        check_gradient(1, KingBuckets::NONE);
        check_gradient(8, KingBuckets::NONE);
        check_gradient(8, KingBuckets::layout(8).unwrap());
    }

    #[test]
    fn the_output_is_the_documented_formula() {
        let h = 16;
        let eight = KingBuckets::layout(8).unwrap();
        for (buckets, kings) in [(1, KingBuckets::NONE), (8, KingBuckets::NONE), (8, eight)] {
            let mut net = Network::random(h, buckets, 9)
                .with_king_buckets(kings)
                .unwrap();
            let mut rng = seeded_rng(4);
            perturb(&mut net, &mut rng, [1.0, 0.5, 0.05]);
            let p64: Vec<f64> = net.params.iter().map(|&x| f64::from(x)).collect();
            let data = sample(20);
            for i in 0..data.len() {
                let e = data.get(i);
                let cp = f64::from(net.evaluate_features(e.stm, e.other, &mut Scratch::new(h)));
                let expected = reference_cp(h, buckets, &kings, &p64, e.stm, e.other);
                assert!((cp - expected).abs() < 1e-3, "{cp} vs {expected}");
            }
            // Swapping the perspectives changes the output (the two halves of w2 differ).
            let e = data.get(0);
            let a = net.evaluate_features(e.stm, e.other, &mut Scratch::new(h));
            let b = net.evaluate_features(e.other, e.stm, &mut Scratch::new(h));
            assert!((a - b).abs() > 1.0, "{a} vs {b}");
        }
    }

    #[test]
    fn one_king_bucket_spreads_into_many_with_the_same_outputs() {
        let h = 16;
        let one = Network::random(h, 8, 21);
        let eight = KingBuckets::layout(8).unwrap();
        let many = one.with_king_buckets(eight).unwrap();
        assert_eq!(many.king_buckets(), eight);
        assert_eq!(many.params.len(), param_count(h, 8, 8));
        assert_eq!(one.with_king_buckets(KingBuckets::NONE).unwrap(), one);
        assert!(many
            .with_king_buckets(KingBuckets::layout(4).unwrap())
            .is_err());
        let data = sample(20);
        let mut s = Scratch::new(h);
        for i in 0..data.len() {
            let e = data.get(i);
            assert_eq!(
                one.evaluate_features(e.stm, e.other, &mut s),
                many.evaluate_features(e.stm, e.other, &mut s)
            );
        }
    }

    #[test]
    fn a_widened_network_keeps_its_outputs_and_its_quantised_evaluation() {
        let four = KingBuckets::layout(4).unwrap();
        let mut narrow = Network::random(16, 8, 23).with_king_buckets(four).unwrap();
        perturb(&mut narrow, &mut seeded_rng(5), [1.0, 0.5, 0.05]);
        let wide = narrow.with_hidden(48, 7).unwrap();
        assert_eq!(wide.hidden(), 48);
        assert_eq!(wide.params.len(), param_count(48, 8, 4));
        assert_eq!(narrow.with_hidden(16, 7).unwrap(), narrow);
        assert!(wide.with_hidden(16, 7).is_err());
        assert!(narrow.with_hidden(20, 7).is_err());
        // The new units have feature weights (so that training can use them) but no say yet.
        let l = wide.layers();
        assert!(l
            .w1
            .chunks_exact(48)
            .all(|row| row[16..].iter().any(|&w| w != 0.0)));
        let q_narrow = super::super::export::Quantised::from_network(&narrow);
        let q_wide = super::super::export::Quantised::from_network(&wide);
        let data = sample(20);
        let (mut s16, mut s48) = (Scratch::new(16), Scratch::new(48));
        for i in 0..data.len() {
            let e = data.get(i);
            let a = narrow.evaluate_features(e.stm, e.other, &mut s16);
            let b = wide.evaluate_features(e.stm, e.other, &mut s48);
            assert!((a - b).abs() < 1e-3, "{a} vs {b}");
            assert_eq!(
                q_narrow.evaluate_features(e.stm, e.other),
                q_wide.evaluate_features(e.stm, e.other)
            );
        }
    }

    #[test]
    fn a_network_widened_by_copies_keeps_its_outputs_and_splits_the_copied_units() {
        let four = KingBuckets::layout(4).unwrap();
        let mut narrow = Network::random(16, 8, 23).with_king_buckets(four).unwrap();
        perturb(&mut narrow, &mut seeded_rng(5), [1.0, 0.5, 0.05]);
        // Unit 3 has the largest output weights, so it is copied first.
        narrow
            .layers_mut()
            .w2
            .chunks_exact_mut(16)
            .for_each(|half| half[3] = 5.0);
        let exact = narrow.with_hidden_copied(24, 0.0, 7).unwrap();
        assert_eq!(exact.hidden(), 24);
        assert_eq!(exact.params.len(), param_count(24, 8, 4));
        assert!(narrow.with_hidden_copied(40, 0.0, 7).is_err());
        assert!(narrow.with_hidden_copied(8, 0.0, 7).is_err());
        assert!(narrow.with_hidden_copied(24, -0.1, 7).is_err());
        let l = exact.layers();
        for half in l.w2.chunks_exact(24) {
            assert_eq!((half[3], half[16]), (2.5, 2.5));
        }
        assert!(l.w1.chunks_exact(24).all(|row| row[16] == row[3]));
        assert_eq!(l.b1[16], l.b1[3]);
        let noisy = narrow.with_hidden_copied(24, 0.1, 7).unwrap();
        let n = noisy.layers();
        assert!(n.w1.chunks_exact(24).any(|row| row[16] != row[3]));
        assert_eq!(n.w2, l.w2);
        let data = sample(20);
        let (mut s16, mut s24) = (Scratch::new(16), Scratch::new(24));
        let mut moved = 0.0f32;
        for i in 0..data.len() {
            let e = data.get(i);
            let a = narrow.evaluate_features(e.stm, e.other, &mut s16);
            let b = exact.evaluate_features(e.stm, e.other, &mut s24);
            assert!((a - b).abs() < 1e-3, "{a} vs {b}");
            moved += (noisy.evaluate_features(e.stm, e.other, &mut s24) - a).abs();
        }
        assert!(moved > 0.0);
    }

    #[test]
    fn one_bucket_spreads_into_many_with_the_same_outputs() {
        let h = 16;
        let mut one = Network::random(h, 1, 21);
        *one.layers_mut().b2.first_mut().unwrap() = 0.03;
        let many = one.with_buckets(8).unwrap();
        assert_eq!(many.buckets(), 8);
        assert_eq!(many.params.len(), param_count(h, 8, 1));
        assert_eq!(one.with_buckets(1).unwrap(), one);
        assert!(many.with_buckets(4).is_err());
        assert!(one.with_buckets(0).is_err() && one.with_buckets(17).is_err());
        let data = sample(20);
        for i in 0..data.len() {
            let e = data.get(i);
            let mut s = Scratch::new(h);
            assert_eq!(
                one.evaluate_features(e.stm, e.other, &mut s),
                many.evaluate_features(e.stm, e.other, &mut s)
            );
        }
    }
}
