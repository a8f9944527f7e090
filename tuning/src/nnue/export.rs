//! The network files of `docs/nnue.md`. Version 1: magic `TRINENN1`, H and SCALE as u32, then
//! W1, b1 (×QA) and w2 (×QB) as i16 and b2 (×QA·QB) as i32, all little-endian. Version 2 (output
//! buckets): magic `TRINENN2`, H, SCALE and B as u32, W1 and b1 as in version 1, then all B
//! buckets' w2 (2H i16 each, bucket 0 first) and then their B b2 (i32). Version 3 (king buckets):
//! magic `TRINENN3`, H, SCALE, B and K as u32, the 64-byte king-bucket map, then W1 of K blocks
//! (king bucket 0 first) and the rest as in version 2. A network of one bucket is written as
//! version 1 (so its file is byte for byte what it was before buckets existed), one of more output
//! buckets as version 2, one of more king buckets as version 3; all three are read. [`Quantised`]
//! is the file's content: made by rounding a float [`Network`], written and read back byte for
//! byte, turned back into floats, and evaluated with the documented integer formula — the same
//! arithmetic as the engine's, so the trainer can check what it writes.

use std::io;
use std::path::Path;

use shakmaty::{Chess, Position};

use super::features::{active, KingBuckets, INPUTS};
use super::model::{bucket, param_count, Network};
use super::{QA, QB, SCALE};

/// The first eight bytes of a version-1 file (one output bucket), a version-2 file (B output
/// buckets) and a version-3 file (K king buckets): the engine's.
pub use trine::nnue::network::{MAGIC, MAGIC_V2, MAGIC_V3};

/// Length in bytes of the file [`Quantised::to_bytes`] writes for a network with `hidden` neurons,
/// `buckets` output buckets and `kings` king buckets: version 1, `8 + 4 + 4 + 2·(768H + H + 2H) +
/// 4`, for one bucket of each; version 2, `8 + 4 + 4 + 4 + 2·(768H + H + B·2H) + 4B`, for more
/// output buckets; version 3, `8 + 4·4 + 64 + 2·(K·768H + H + B·2H) + 4B`, for more king buckets.
pub const fn file_len(hidden: usize, buckets: usize, kings: usize) -> usize {
    let header = if kings > 1 {
        88
    } else if buckets > 1 {
        20
    } else {
        16
    };
    header + 2 * (kings * INPUTS * hidden + hidden + buckets * 2 * hidden) + 4 * buckets
}

/// A quantised network, as stored in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantised {
    /// Hidden size H.
    pub hidden: usize,
    /// Output buckets B.
    pub buckets: usize,
    /// King buckets.
    pub kings: KingBuckets,
    /// Feature weights ×QA, feature `f`'s row at `[f·H, f·H + H)`, king bucket by king bucket.
    pub w1: Vec<i16>,
    /// Accumulator biases ×QA.
    pub b1: Vec<i16>,
    /// Output weights ×QB, bucket `b`'s 2H at `[2H·b, 2H·b + 2H)`, the side to move's half first.
    pub w2: Vec<i16>,
    /// Output biases ×QA·QB, one per bucket.
    pub b2: Vec<i32>,
}

/// `round(x · factor)` as an i16, saturating (clipped weights never saturate).
fn quantise(x: f32, factor: i32) -> i16 {
    (x * factor as f32)
        .round()
        .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
}

impl Quantised {
    /// Rounds a float network.
    pub fn from_network(net: &Network) -> Quantised {
        let l = net.layers();
        Quantised {
            hidden: net.hidden(),
            buckets: net.buckets(),
            kings: net.king_buckets(),
            w1: l.w1.iter().map(|&w| quantise(w, QA)).collect(),
            b1: l.b1.iter().map(|&w| quantise(w, QA)).collect(),
            w2: l.w2.iter().map(|&w| quantise(w, QB)).collect(),
            b2: l
                .b2
                .iter()
                .map(|&b| (f64::from(b) * f64::from(QA * QB)).round() as i32)
                .collect(),
        }
    }

    /// The float network these integers stand for.
    pub fn to_network(&self) -> Network {
        let (qa, qb) = (QA as f32, QB as f32);
        let mut params =
            Vec::with_capacity(param_count(self.hidden, self.buckets, self.kings.count));
        params.extend(self.w1.iter().map(|&w| f32::from(w) / qa));
        params.extend(self.b1.iter().map(|&w| f32::from(w) / qa));
        params.extend(self.w2.iter().map(|&w| f32::from(w) / qb));
        params.extend(
            self.b2
                .iter()
                .map(|&b| (f64::from(b) / f64::from(QA * QB)) as f32),
        );
        Network::from_params(self.hidden, self.buckets, self.kings, params)
            .expect("a checked hidden size and bucket counts")
    }

    /// The file's bytes: version 1 for one bucket of each kind, version 2 for more output
    /// buckets, version 3 for more king buckets.
    pub fn to_bytes(&self) -> Vec<u8> {
        let kings = self.kings.count;
        let len = file_len(self.hidden, self.buckets, kings);
        let mut out = Vec::with_capacity(len);
        let version = if kings > 1 {
            3
        } else if self.buckets > 1 {
            2
        } else {
            1
        };
        out.extend_from_slice([MAGIC, MAGIC_V2, MAGIC_V3][version - 1]);
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        out.extend_from_slice(&SCALE.to_le_bytes());
        if version >= 2 {
            out.extend_from_slice(&(self.buckets as u32).to_le_bytes());
        }
        if version == 3 {
            out.extend_from_slice(&(kings as u32).to_le_bytes());
            out.extend_from_slice(&self.kings.map);
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for b in &self.b2 {
            out.extend_from_slice(&b.to_le_bytes());
        }
        debug_assert_eq!(out.len(), len);
        out
    }

    /// Reads a file's bytes (version 1, 2 or 3) through the engine's own reader
    /// ([`trine::nnue::Network::from_bytes`]), so it refuses exactly what the engine refuses
    /// (magic, sizes, output weights beyond ±127), and also a file whose SCALE is not the
    /// trainer's 400.
    pub fn from_bytes(bytes: &[u8]) -> Result<Quantised, String> {
        let net = trine::nnue::Network::from_bytes(bytes)?;
        if net.scale() != SCALE {
            return Err(format!("SCALE {} (expected {SCALE})", net.scale()));
        }
        Ok(Quantised {
            hidden: net.hidden(),
            buckets: net.buckets(),
            kings: KingBuckets {
                count: net.king_buckets(),
                map: *net.king_map(),
            },
            w1: net.w1().to_vec(),
            b1: net.b1().to_vec(),
            w2: net.w2().to_vec(),
            b2: net.b2().to_vec(),
        })
    }

    /// Centipawns (side to move's view) by the documented integer formula, through the bucket
    /// `b` of the piece count (the length of a feature list): `acc_p = b1 + Σ W1[k_p·768 + f]`
    /// (`k_p` the perspective's king bucket), `s = Σ
    /// clamp(acc_stm, 0, QA)² · w2_b[..H] + Σ clamp(acc_other, 0, QA)² · w2_b[H..]`, `cp = (s /
    /// QA + b2_b) · SCALE / (QA · QB)`, divisions truncating.
    pub fn evaluate_features(&self, stm: &[u16], other: &[u16]) -> i32 {
        let h = self.hidden;
        let b = bucket(stm.len(), self.buckets);
        let w2 = &self.w2[b * 2 * h..][..2 * h];
        let mut s = 0i64;
        for (half, features) in [stm, other].into_iter().enumerate() {
            let mut acc: Vec<i32> = self.b1.iter().map(|&b| i32::from(b)).collect();
            let w1 = &self.w1[self.kings.row_offset(features) * h..];
            for &f in features {
                let row = &w1[usize::from(f) * h..][..h];
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a += i32::from(w);
                }
            }
            for (&a, &w) in acc.iter().zip(&w2[half * h..][..h]) {
                let c = i64::from(a.clamp(0, QA));
                s += c * c * i64::from(w);
            }
        }
        ((s / i64::from(QA) + i64::from(self.b2[b])) * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// Centipawns (side to move's view) of a position by the integer formula.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let stm = pos.turn();
        self.evaluate_features(&active(pos.board(), stm), &active(pos.board(), stm.other()))
    }
}

/// Writes `net`, quantised, to `path` (through a temporary file next to it, renamed into place,
/// so a reader never sees half a network).
pub fn write(net: &Network, path: &Path) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, Quantised::from_network(net).to_bytes())?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::model::Scratch;
    use crate::nnue::seeded_rng;
    use crate::nnue::CLIP;

    fn clipped_random(h: usize, buckets: usize, seed: u64) -> Network {
        let mut net = Network::random(h, buckets, seed);
        let mut rng = seeded_rng(seed + 100);
        let l = net.layers_mut();
        l.b1.iter_mut().for_each(|b| *b = rng.symmetric(0.4));
        l.w2.iter_mut().for_each(|w| *w = rng.symmetric(CLIP));
        for (b, b2) in l.b2.iter_mut().enumerate() {
            *b2 = -0.07 + 0.01 * b as f32;
        }
        net
    }

    #[test]
    fn the_file_has_the_documented_layout_and_reads_back() {
        for (h, buckets) in [(8, 1), (64, 1), (8, 8), (16, 16)] {
            let net = clipped_random(h, buckets, h as u64);
            let dir =
                std::env::temp_dir().join(format!("trine-nnue-export-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("h{h}b{buckets}.nnue"));
            write(&net, &path).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let header = if buckets == 1 { 16 } else { 20 };
            assert_eq!(
                bytes.len(),
                header + 2 * (768 * h + h + buckets * 2 * h) + 4 * buckets
            );
            assert_eq!(bytes.len(), file_len(h, buckets, 1));
            let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            if buckets == 1 {
                assert_eq!(&bytes[..8], b"TRINENN1");
            } else {
                assert_eq!(&bytes[..8], b"TRINENN2");
                assert_eq!(u32_at(16), buckets as u32);
            }
            assert_eq!(u32_at(8), h as u32);
            assert_eq!(u32_at(12), 400);
            // W1[0][0] comes first; then b1; each bucket's w2, bucket 0 first; the biases last.
            let l = net.layers();
            let i16_at = |at: usize| i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            assert_eq!(i16_at(header), (l.w1[0] * 255.0).round() as i16);
            let w2_at = header + 2 * (768 * h + h);
            for b in 0..buckets {
                assert_eq!(
                    i16_at(w2_at + 2 * (2 * h * b + 1)),
                    (l.w2[2 * h * b + 1] * 64.0).round() as i16
                );
                let b2 = bytes.len() - 4 * (buckets - b);
                let b2 = i32::from_le_bytes(bytes[b2..b2 + 4].try_into().unwrap());
                let expected = (f64::from(-0.07 + 0.01 * b as f32) * 255.0 * 64.0).round();
                assert_eq!(b2, expected as i32);
            }
            let q = Quantised::from_bytes(&bytes).unwrap();
            assert_eq!(q, Quantised::from_network(&net));
            assert_eq!(q.to_bytes(), bytes);
            // Dequantised weights are within half a step of the originals.
            let back = q.to_network();
            assert_eq!(back.buckets(), buckets);
            let r = back.layers();
            for (a, b) in l.w1.iter().zip(r.w1) {
                assert!((a - b).abs() <= 0.5 / 255.0 + 1e-6);
            }
            for (a, b) in l.w2.iter().zip(r.w2) {
                assert!((a - b).abs() <= 0.5 / 64.0 + 1e-6);
            }
            std::fs::remove_file(&path).unwrap();
            // The engine reads the same file.
            let engine = trine::nnue::Network::from_bytes(&bytes).unwrap();
            assert_eq!(engine.buckets(), buckets);
            // Anything else is refused.
            assert!(Quantised::from_bytes(&bytes[..bytes.len() - 1]).is_err());
            let mut longer = bytes.clone();
            longer.extend([0; 4]);
            assert!(Quantised::from_bytes(&longer).is_err());
            let mut bad = bytes.clone();
            bad[0] = b'X';
            assert!(Quantised::from_bytes(&bad).is_err());
            let mut bad = bytes.clone();
            bad[8] = 12;
            assert!(Quantised::from_bytes(&bad).is_err());
            // An output weight the engine would refuse (beyond ±127) is refused here too.
            let mut bad = bytes.clone();
            bad[w2_at..w2_at + 2].copy_from_slice(&200i16.to_le_bytes());
            let e = Quantised::from_bytes(&bad).unwrap_err();
            assert!(e.contains("127"), "{e}");
            // A SCALE the engine reads but the trainer does not use is refused here.
            let mut bad = bytes.clone();
            bad[12..16].copy_from_slice(&(SCALE + 1).to_le_bytes());
            assert!(trine::nnue::Network::from_bytes(&bad).is_ok());
            let e = Quantised::from_bytes(&bad).unwrap_err();
            assert!(e.contains("SCALE"), "{e}");
            if buckets > 1 {
                for b in [0u32, 17, buckets as u32 - 1] {
                    let mut bad = bytes.clone();
                    bad[16..20].copy_from_slice(&b.to_le_bytes());
                    let e = Quantised::from_bytes(&bad).unwrap_err();
                    let e2 = trine::nnue::Network::from_bytes(&bad).unwrap_err();
                    assert!(e.contains("bucket") && e2.contains("bucket"), "{e}; {e2}");
                }
            }
        }
        // A version-2 file of one bucket reads as that network (and is written as version 1).
        let net = clipped_random(8, 1, 3);
        let v1 = Quantised::from_network(&net).to_bytes();
        let mut v2 = MAGIC_V2.to_vec();
        v2.extend_from_slice(&v1[8..16]);
        v2.extend(1u32.to_le_bytes());
        v2.extend_from_slice(&v1[16..]);
        assert_eq!(Quantised::from_bytes(&v2).unwrap().to_bytes(), v1);
    }

    /// [`clipped_random`] with the king buckets `kings`, each with feature weights of its own.
    fn with_kings(net: Network, kings: KingBuckets, seed: u64) -> Network {
        let mut net = net.with_king_buckets(kings).unwrap();
        if kings.count > 1 {
            let mut rng = seeded_rng(seed);
            let l = net.layers_mut();
            l.w1.iter_mut().for_each(|w| *w = rng.symmetric(0.2));
        }
        net
    }

    #[test]
    fn a_network_with_king_buckets_is_version_three_and_reads_back() {
        let (h, buckets) = (16, 8);
        let kings = KingBuckets::layout(8).unwrap();
        let net = with_kings(clipped_random(h, buckets, 7), kings, 8);
        let q = Quantised::from_network(&net);
        let bytes = q.to_bytes();
        assert_eq!(bytes.len(), file_len(h, buckets, 8));
        assert_eq!(
            bytes.len(),
            88 + 2 * (8 * 768 * h + h + buckets * 2 * h) + 4 * buckets
        );
        assert_eq!(&bytes[..8], b"TRINENN3");
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(
            [u32_at(8), u32_at(12), u32_at(16), u32_at(20)],
            [16, 400, 8, 8]
        );
        assert_eq!(&bytes[24..88], &kings.map);
        // King bucket 1's first weight follows bucket 0's 768 rows.
        let i16_at = |at: usize| i16::from_le_bytes([bytes[at], bytes[at + 1]]);
        assert_eq!(i16_at(88 + 2 * 768 * h), q.w1[768 * h]);
        let back = Quantised::from_bytes(&bytes).unwrap();
        assert_eq!(back, q);
        assert_eq!(back.to_network().king_buckets(), kings);
        // The engine reads it and scores every position as the trainer's integer formula does.
        let engine = trine::nnue::Network::from_bytes(&bytes).unwrap();
        assert_eq!(engine.king_buckets(), 8);
        let text = include_str!("../../data/sample.txt");
        let mut distinct = std::collections::HashSet::new();
        for line in text.lines().step_by(17) {
            let pos = trine::tools::datagen::parse_line(line).unwrap().pos;
            assert_eq!(engine.evaluate(&pos), q.evaluate(&pos));
            distinct.insert(kings.row_offset(&active(pos.board(), pos.turn())));
        }
        assert!(distinct.len() >= 3, "{} king buckets met", distinct.len());
    }

    #[test]
    fn integer_inference_matches_the_dequantised_float_network() {
        let h = 32;
        let eight = KingBuckets::layout(8).unwrap();
        for (buckets, kings) in [(1, KingBuckets::NONE), (8, KingBuckets::NONE), (8, eight)] {
            let net = with_kings(clipped_random(h, buckets, 5), kings, 6);
            let q = Quantised::from_network(&net);
            let back = q.to_network();
            let text = include_str!("../../data/sample.txt");
            let mut s = Scratch::new(h);
            let mut spread = 0.0f32;
            let mut used = [false; 16];
            for line in text.lines().step_by(13) {
                let pos = trine::tools::datagen::parse_line(line).unwrap().pos;
                let stm = pos.turn();
                let (a, b) = (active(pos.board(), stm), active(pos.board(), stm.other()));
                used[bucket(a.len(), buckets)] = true;
                let float = back.evaluate_features(&a, &b, &mut s);
                let int = q.evaluate(&pos);
                assert!(
                    (float - int as f32).abs() <= 1.0 + 1e-3 * float.abs(),
                    "float {float} int {int}"
                );
                spread = spread.max(float.abs());
            }
            assert!(spread > 50.0, "a degenerate network: |cp| ≤ {spread}");
            let used = used.iter().filter(|&&u| u).count();
            assert!(used >= buckets.min(4), "{used} buckets used");
        }
    }
}
