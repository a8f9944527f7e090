//! The network file of `docs/nnue.md` (version 1): magic `TRINENN1`, H and SCALE as u32, then W1,
//! b1 (×QA) and w2 (×QB) as i16 and b2 (×QA·QB) as i32, all little-endian. [`Quantised`] is the
//! file's content: made by rounding a float [`Network`], written and read back byte for byte,
//! turned back into floats, and evaluated with the documented integer formula — the same
//! arithmetic as the engine's, so the trainer can check what it writes.

use std::io;
use std::path::Path;

use shakmaty::{Chess, Position};

use super::features::{active, INPUTS};
use super::model::{check_hidden, param_count, Network};
use super::{QA, QB, SCALE};

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"TRINENN1";

/// Length in bytes of the file of a network with `hidden` neurons:
/// `8 + 4 + 4 + 2·(768H + H + 2H) + 4`.
pub const fn file_len(hidden: usize) -> usize {
    8 + 4 + 4 + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4
}

/// A quantised network, as stored in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantised {
    /// Hidden size H.
    pub hidden: usize,
    /// Feature weights ×QA, feature `f`'s row at `[f·H, f·H + H)`.
    pub w1: Vec<i16>,
    /// Accumulator biases ×QA.
    pub b1: Vec<i16>,
    /// Output weights ×QB, the side to move's first.
    pub w2: Vec<i16>,
    /// Output bias ×QA·QB.
    pub b2: i32,
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
            w1: l.w1.iter().map(|&w| quantise(w, QA)).collect(),
            b1: l.b1.iter().map(|&w| quantise(w, QA)).collect(),
            w2: l.w2.iter().map(|&w| quantise(w, QB)).collect(),
            b2: (f64::from(l.b2) * f64::from(QA * QB)).round() as i32,
        }
    }

    /// The float network these integers stand for.
    pub fn to_network(&self) -> Network {
        let (qa, qb) = (QA as f32, QB as f32);
        let mut params = Vec::with_capacity(param_count(self.hidden));
        params.extend(self.w1.iter().map(|&w| f32::from(w) / qa));
        params.extend(self.b1.iter().map(|&w| f32::from(w) / qa));
        params.extend(self.w2.iter().map(|&w| f32::from(w) / qb));
        params.push((f64::from(self.b2) / f64::from(QA * QB)) as f32);
        Network::from_params(self.hidden, params).expect("a checked hidden size")
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_len(self.hidden));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        out.extend_from_slice(&SCALE.to_le_bytes());
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        debug_assert_eq!(out.len(), file_len(self.hidden));
        out
    }

    /// Reads a file's bytes; refuses a wrong magic, hidden size, SCALE or length.
    pub fn from_bytes(bytes: &[u8]) -> Result<Quantised, String> {
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            return Err("not a Trine network file (no TRINENN1 header)".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let hidden = u32_at(8) as usize;
        check_hidden(hidden)?;
        if u32_at(12) != SCALE {
            return Err(format!("SCALE {} (expected {SCALE})", u32_at(12)));
        }
        if bytes.len() != file_len(hidden) {
            return Err(format!(
                "{} bytes for hidden size {hidden} (expected {})",
                bytes.len(),
                file_len(hidden)
            ));
        }
        let mut values = bytes[16..bytes.len() - 4]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        let w1: Vec<i16> = values.by_ref().take(INPUTS * hidden).collect();
        let b1: Vec<i16> = values.by_ref().take(hidden).collect();
        let w2: Vec<i16> = values.collect();
        let b2 = i32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
        Ok(Quantised {
            hidden,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// Centipawns (side to move's view) by the documented integer formula:
    /// `acc_p = b1 + Σ W1[f]`, `s = Σ clamp(acc_stm, 0, QA)² · w2[..H] + Σ clamp(acc_other, 0,
    /// QA)² · w2[H..]`, `cp = (s / QA + b2) · SCALE / (QA · QB)`, divisions truncating.
    pub fn evaluate_features(&self, stm: &[u16], other: &[u16]) -> i32 {
        let h = self.hidden;
        let mut s = 0i64;
        for (half, features) in [stm, other].into_iter().enumerate() {
            let mut acc: Vec<i32> = self.b1.iter().map(|&b| i32::from(b)).collect();
            for &f in features {
                let row = &self.w1[usize::from(f) * h..][..h];
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a += i32::from(w);
                }
            }
            for (&a, &w) in acc.iter().zip(&self.w2[half * h..][..h]) {
                let c = i64::from(a.clamp(0, QA));
                s += c * c * i64::from(w);
            }
        }
        ((s / i64::from(QA) + i64::from(self.b2)) * i64::from(SCALE) / i64::from(QA * QB)) as i32
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
    use crate::nnue::rng::Rng;
    use crate::nnue::CLIP;

    fn clipped_random(h: usize, seed: u64) -> Network {
        let mut net = Network::random(h, seed);
        let mut rng = Rng::new(seed + 100);
        let l = net.layers_mut();
        l.b1.iter_mut().for_each(|b| *b = rng.symmetric(0.4));
        l.w2.iter_mut().for_each(|w| *w = rng.symmetric(CLIP));
        *l.b2 = -0.07;
        net
    }

    #[test]
    fn the_file_has_the_documented_layout_and_reads_back() {
        for h in [8, 64] {
            let net = clipped_random(h, h as u64);
            let dir =
                std::env::temp_dir().join(format!("trine-nnue-export-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("h{h}.nnue"));
            write(&net, &path).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes.len(), 8 + 4 + 4 + 2 * (768 * h + h + 2 * h) + 4);
            assert_eq!(bytes.len(), file_len(h));
            assert_eq!(&bytes[..8], b"TRINENN1");
            assert_eq!(
                u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
                h as u32
            );
            assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 400);
            // W1[0][0] comes first, b2 last.
            let l = net.layers();
            let w = i16::from_le_bytes([bytes[16], bytes[17]]);
            assert_eq!(w, (l.w1[0] * 255.0).round() as i16);
            let b2 = i32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
            assert_eq!(b2, (-0.07f64 * 255.0 * 64.0).round() as i32);
            let q = Quantised::from_bytes(&bytes).unwrap();
            assert_eq!(q, Quantised::from_network(&net));
            assert_eq!(q.to_bytes(), bytes);
            // Dequantised weights are within half a step of the originals.
            let back = q.to_network();
            let r = back.layers();
            for (a, b) in l.w1.iter().zip(r.w1) {
                assert!((a - b).abs() <= 0.5 / 255.0 + 1e-6);
            }
            for (a, b) in l.w2.iter().zip(r.w2) {
                assert!((a - b).abs() <= 0.5 / 64.0 + 1e-6);
            }
            std::fs::remove_file(&path).unwrap();
            // Anything else is refused.
            assert!(Quantised::from_bytes(&bytes[..bytes.len() - 1]).is_err());
            let mut bad = bytes.clone();
            bad[0] = b'X';
            assert!(Quantised::from_bytes(&bad).is_err());
            let mut bad = bytes.clone();
            bad[8] = 12;
            assert!(Quantised::from_bytes(&bad).is_err());
        }
    }

    #[test]
    fn integer_inference_matches_the_dequantised_float_network() {
        let h = 32;
        let net = clipped_random(h, 5);
        let q = Quantised::from_network(&net);
        let back = q.to_network();
        let text = include_str!("../../data/sample.txt");
        let mut s = Scratch::new(h);
        let mut spread = 0.0f32;
        for line in text.lines().step_by(13) {
            let pos = trine::datagen::parse_line(line).unwrap().pos;
            let stm = pos.turn();
            let (a, b) = (active(pos.board(), stm), active(pos.board(), stm.other()));
            let float = back.evaluate_features(&a, &b, &mut s);
            let int = q.evaluate(&pos);
            assert!(
                (float - int as f32).abs() <= 1.0 + 1e-3 * float.abs(),
                "float {float} int {int}"
            );
            spread = spread.max(float.abs());
        }
        assert!(spread > 50.0, "a degenerate network: |cp| ≤ {spread}");
    }
}
