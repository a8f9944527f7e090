//! The NNUE trainer's positions: every data line (read by [`crate::data`]) is encoded while it
//! is loaded, in parallel, and kept in a compact [`Dataset`]: per position the active features of
//! the side to move's perspective and of the other one (u16 each, in one flat vector), and the
//! score and result turned to the side to move's point of view — about 110 bytes a position.

use shakmaty::{Chess, Color, Position};

use super::features::{push_active, MAX_ACTIVE};
use crate::data::{Positions, Sample};

/// The NNUE trainer's data, split into a training and a validation set.
pub type Loaded = crate::data::Loaded<Dataset>;

/// One position of a [`Dataset`], borrowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry<'a> {
    /// Active features of the side to move's perspective.
    pub stm: &'a [u16],
    /// Active features of the other perspective.
    pub other: &'a [u16],
    /// Search score, centipawns, side to move's view.
    pub score: f32,
    /// Game result, side to move's view: 1, 0.5 or 0.
    pub result: f32,
}

/// Encoded positions, structure of arrays: position `i`'s features are
/// `features[offsets[i]..offsets[i + 1]]`, the side to move's first, then as many of the other
/// perspective's.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    offsets: Vec<u64>,
    features: Vec<u16>,
    score: Vec<f32>,
    result: Vec<f32>,
}

impl Default for Dataset {
    fn default() -> Self {
        Dataset::new()
    }
}

impl Dataset {
    /// No positions.
    pub fn new() -> Dataset {
        Dataset {
            offsets: vec![0],
            features: Vec::new(),
            score: Vec::new(),
            result: Vec::new(),
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.score.len()
    }

    /// True when there are no positions.
    pub fn is_empty(&self) -> bool {
        self.score.is_empty()
    }

    /// Bytes held by the vectors' contents.
    pub fn bytes(&self) -> usize {
        self.offsets.len() * 8 + self.features.len() * 2 + self.score.len() * 8
    }

    /// Adds a position from its two feature lists (of equal length) and the side to move's score
    /// and result.
    pub fn push(&mut self, stm: &[u16], other: &[u16], score: f32, result: f32) {
        assert_eq!(stm.len(), other.len(), "both perspectives see every piece");
        self.features.extend_from_slice(stm);
        self.features.extend_from_slice(other);
        self.offsets.push(self.features.len() as u64);
        self.score.push(score);
        self.result.push(result);
    }

    /// Encodes and adds `pos` with its search score and game result, both from white's view.
    pub fn push_position(&mut self, pos: &Chess, score_white: i32, result_white: f32) {
        let e = Encoded::new(pos, score_white, result_white)
            .expect("a legal position has at most 32 pieces");
        self.push_encoded(&e);
    }

    fn push_encoded(&mut self, e: &Encoded) {
        let n = usize::from(e.count);
        self.push(
            &e.features[..n],
            &e.features[MAX_ACTIVE..MAX_ACTIVE + n],
            e.score,
            e.result,
        );
    }

    /// Appends each position's left-right mirror image (files a and h swapped, `feature ^ 7`)
    /// with the same score and result. Chess is symmetric under that swap except for castling,
    /// which the features do not see.
    pub fn add_mirrors(&mut self) {
        for i in 0..self.len() {
            let (start, end) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            let at = self.features.len();
            self.features.extend_from_within(start..end);
            for f in &mut self.features[at..] {
                *f ^= 7;
            }
            self.offsets.push(self.features.len() as u64);
            self.score.push(self.score[i]);
            self.result.push(self.result[i]);
        }
    }

    /// Position `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Entry<'_> {
        let (start, end) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let (stm, other) = self.features[start..end].split_at((end - start) / 2);
        Entry {
            stm,
            other,
            score: self.score[i],
            result: self.result[i],
        }
    }
}

/// One encoded position before it is stored (fixed size, no allocation).
#[derive(Clone, Copy, Debug)]
pub struct Encoded {
    /// Side to move's features at `[0, count)`, the other's at `[MAX_ACTIVE, MAX_ACTIVE + count)`.
    features: [u16; 2 * MAX_ACTIVE],
    count: u8,
    score: f32,
    result: f32,
}

impl Encoded {
    fn new(pos: &Chess, score_white: i32, result_white: f32) -> Result<Encoded, String> {
        let board = pos.board();
        let count = board.occupied().count();
        if count > MAX_ACTIVE {
            return Err(format!("{count} pieces (at most {MAX_ACTIVE})"));
        }
        let stm = pos.turn();
        let mut buf = Vec::with_capacity(MAX_ACTIVE);
        let mut features = [0u16; 2 * MAX_ACTIVE];
        push_active(board, stm, &mut buf);
        features[..count].copy_from_slice(&buf);
        buf.clear();
        push_active(board, stm.other(), &mut buf);
        features[MAX_ACTIVE..MAX_ACTIVE + count].copy_from_slice(&buf);
        let (score, result) = match stm {
            Color::White => (score_white as f32, result_white),
            Color::Black => (-score_white as f32, 1.0 - result_white),
        };
        Ok(Encoded {
            features,
            count: count as u8,
            score,
            result,
        })
    }
}

impl Positions for Dataset {
    type Encoded = Encoded;

    fn encode(s: Sample) -> Result<Encoded, String> {
        Encoded::new(&s.pos, s.score, s.result)
    }

    fn add(&mut self, e: Encoded) {
        self.push_encoded(&e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Split;
    use crate::nnue::features::active;
    use std::io::Cursor;

    #[test]
    fn mirrors_are_the_file_swapped_positions() {
        let pos: Chess = "r3k2r/1p6/8/8/8/8/6P1/R3K2R w KQkq - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mirror: Chess = "r2k3r/6p1/8/8/8/8/1P6/R2K3R w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut d = Dataset::new();
        d.push_position(&pos, 30, 1.0);
        d.add_mirrors();
        let mut expected = Dataset::new();
        expected.push_position(&mirror, 30, 1.0);
        assert_eq!(d.len(), 2);
        let sorted = |v: &[u16]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v
        };
        let (a, b) = (d.get(1), expected.get(0));
        assert_eq!(sorted(a.stm), sorted(b.stm));
        assert_eq!(sorted(a.other), sorted(b.other));
        assert_eq!((a.score, a.result), (b.score, b.result));
        assert_ne!(sorted(d.get(0).stm), sorted(a.stm));
    }

    #[test]
    fn positions_are_stored_from_the_side_to_moves_view() {
        let text = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 1.0
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 | 25 | 1.0
not a line
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 | x | 1.0

8/8/8/8/8/8/8/K6k w - - 0 1 | 0 | 0.5
";
        let mut l = Loaded::new();
        l.read(Cursor::new(text), "t", Split::NONE).unwrap();
        assert_eq!(l.stats.lines, 5);
        assert_eq!(l.stats.positions, 3);
        assert_eq!(l.stats.malformed, 2);
        assert_eq!(l.stats.games, 2);
        assert!(
            l.stats.examples[0].starts_with("t:3: "),
            "{:?}",
            l.stats.examples
        );
        let d = &l.train;
        assert_eq!(d.len(), 3);
        let first = d.get(0);
        assert_eq!((first.score, first.result), (-30.0, 0.0));
        let pos: Chess = trine::tools::datagen::parse_line(text.lines().next().unwrap())
            .unwrap()
            .pos;
        assert_eq!(first.stm, &active(pos.board(), Color::Black)[..]);
        assert_eq!(first.other, &active(pos.board(), Color::White)[..]);
        assert_eq!((d.get(1).score, d.get(1).result), (25.0, 1.0));
        let last = d.get(2);
        assert_eq!((last.score, last.result, last.stm.len()), (0.0, 0.5, 2));
    }

    #[test]
    fn the_split_is_by_game_and_matches_the_texel_tuners() {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt");
        let split = Split {
            fraction: 0.3,
            seed: 5,
        };
        let ours = Loaded::load(&[&path], split).unwrap();
        let texel = crate::texel::data::Loaded::load(&[&path], split).unwrap();
        assert_eq!(ours.train.len(), texel.train.len());
        assert_eq!(ours.validation.len(), texel.validation.len());
        assert_eq!(ours.stats, texel.stats);
        assert!(!ours.validation.is_empty() && ours.train.len() > ours.validation.len());
    }
}
