//! Training data for the Texel tuner: `<FEN> | <score> | <result>` lines (as `trine datagen` writes
//! them: score in centipawns and result `1.0`/`0.5`/`0.0`, both from white's point of view) are read
//! in chunks, parsed and traced with [`trine::eval::trace`] in parallel (rayon), and kept in a
//! compact structure-of-arrays [`Dataset`]: per position only its non-zero feature counts (a few
//! dozen 4-byte [`Term`]s), the two blend factors of the tapered evaluation, the search score, the
//! game result and the training target. Malformed lines are counted and skipped, never fatal.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use rayon::prelude::*;
use shakmaty::{Chess, Position};
use trine::eval::{self, Trace};
use trine::tools::datagen::GameResult;

use super::model::sigmoid;

/// Lines parsed and traced together (one parallel batch).
const CHUNK_LINES: usize = 1 << 16;
/// Malformed lines quoted in [`LoadStats::examples`].
const EXAMPLES: usize = 5;

/// One feature of a position: weight index and white's count minus black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Index into the weight table (`trine::eval::params`).
    pub index: u16,
    /// White's count minus black's.
    pub count: i16,
}

/// One parsed data line.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position (legal standard chess).
    pub pos: Chess,
    /// Search score, centipawns, white's point of view.
    pub score: i32,
    /// Game result from white's point of view: 1, 0.5 or 0.
    pub result: f32,
}

/// Parses `<FEN> | <score> | <result>` with the engine's own reader of the format
/// (`trine::tools::datagen::parse_line`); the error says what was wrong.
pub fn parse_line(line: &str) -> Result<Sample, String> {
    let l = trine::tools::datagen::parse_line(line)?;
    let result = match l.result {
        GameResult::WhiteWin => 1.0,
        GameResult::Draw => 0.5,
        GameResult::BlackWin => 0.0,
    };
    Ok(Sample {
        pos: l.pos,
        score: l.score,
        result,
    })
}

/// Traced positions, structure of arrays (position `i`'s terms are
/// `terms[offsets[i]..offsets[i + 1]]`).
#[derive(Clone, Debug)]
pub struct Dataset {
    offsets: Vec<u32>,
    terms: Vec<Term>,
    rho_mg: Vec<f32>,
    rho_eg: Vec<f32>,
    score: Vec<f32>,
    result: Vec<f32>,
    target: Vec<f32>,
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
            terms: Vec::new(),
            rho_mg: Vec::new(),
            rho_eg: Vec::new(),
            score: Vec::new(),
            result: Vec::new(),
            target: Vec::new(),
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.rho_mg.len()
    }

    /// True when there are no positions.
    pub fn is_empty(&self) -> bool {
        self.rho_mg.is_empty()
    }

    /// Total number of stored terms (memory is about 4 bytes per term plus 24 per position).
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Adds a traced position. `result` is white's expected score in 0..=1 (a game result, or a
    /// probability for synthetic data); the target starts as `result` (see [`Dataset::set_targets`]).
    pub fn push(&mut self, trace: &Trace, score: i32, result: f32) {
        self.terms.extend(
            trace
                .terms
                .iter()
                .map(|&(index, count)| Term { index, count }),
        );
        let end = u32::try_from(self.terms.len())
            .expect("more than 4 billion terms: split the data into smaller runs");
        self.offsets.push(end);
        let phase = trace.phase as f32;
        self.rho_mg.push(phase / 24.0);
        self.rho_eg
            .push(trace.eg_scale as f32 / 64.0 * (24.0 - phase) / 24.0);
        self.score.push(score as f32);
        self.result.push(result);
        self.target.push(result);
    }

    /// Traces `pos` and adds it.
    pub fn push_position(&mut self, pos: &Chess, score: i32, result: f32) {
        self.push(&eval::trace(pos), score, result);
    }

    /// The non-zero terms of position `i`.
    #[inline]
    pub fn terms(&self, i: usize) -> &[Term] {
        &self.terms[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Blend factors of position `i`: its evaluation (white's view) is
    /// `rho_mg · Σ count·mg + rho_eg · Σ count·eg`, with `rho_mg = phase / 24` and
    /// `rho_eg = eg_scale / 64 · (24 − phase) / 24`.
    #[inline]
    pub fn rho(&self, i: usize) -> (f64, f64) {
        (f64::from(self.rho_mg[i]), f64::from(self.rho_eg[i]))
    }

    /// Search score of position `i` (centipawns, white's view).
    pub fn score(&self, i: usize) -> f64 {
        f64::from(self.score[i])
    }

    /// Game result of position `i` (white's view).
    #[inline]
    pub fn result(&self, i: usize) -> f64 {
        f64::from(self.result[i])
    }

    /// Training target of position `i`.
    #[inline]
    pub fn target(&self, i: usize) -> f64 {
        f64::from(self.target[i])
    }

    /// Sets every target to `lambda · result + (1 − lambda) · sigmoid(k, score)`.
    pub fn set_targets(&mut self, k: f64, lambda: f64) {
        let (score, result) = (&self.score, &self.result);
        self.target.par_iter_mut().enumerate().for_each(|(i, t)| {
            let from_score = sigmoid(k, f64::from(score[i]));
            *t = (lambda * f64::from(result[i]) + (1.0 - lambda) * from_score) as f32;
        });
    }

    /// Replaces every result (and target) by `f(self, i)`, e.g. win probabilities from known
    /// weights for synthetic data.
    pub fn set_results(&mut self, f: impl Fn(&Dataset, usize) -> f64) {
        let r: Vec<f32> = (0..self.len()).map(|i| f(self, i) as f32).collect();
        self.target.clone_from(&r);
        self.result = r;
    }

    /// The positions for which `keep(self, i)` holds, in order.
    pub fn filter(&self, keep: impl Fn(&Dataset, usize) -> bool) -> Dataset {
        let mut out = Dataset::new();
        for i in (0..self.len()).filter(|&i| keep(self, i)) {
            out.terms.extend_from_slice(self.terms(i));
            out.offsets.push(out.terms.len() as u32);
            out.rho_mg.push(self.rho_mg[i]);
            out.rho_eg.push(self.rho_eg[i]);
            out.score.push(self.score[i]);
            out.result.push(self.result[i]);
            out.target.push(self.target[i]);
        }
        out
    }
}

/// What loading found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Non-empty lines read.
    pub lines: u64,
    /// Positions kept (training + validation).
    pub positions: u64,
    /// Lines skipped as malformed (bad field count, FEN, position, score or result, non-UTF-8).
    pub malformed: u64,
    /// Games told apart (see [`Split`]).
    pub games: u64,
    /// The first few malformed lines as `file:line: reason`.
    pub examples: Vec<String>,
}

/// Loaded data, split into a training and a validation set.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// Positions the gradient is computed on.
    pub train: Dataset,
    /// Held-out positions for early stopping.
    pub validation: Dataset,
    /// Line counts.
    pub stats: LoadStats,
}

/// Decides, reproducibly, which positions go to the validation set: whole games at a time, so that
/// validation positions are not the neighbours of training positions in the same game. The data
/// has no game ids, but `trine datagen` writes each game's positions together and in order, so a
/// line starts a new game when its result differs from the previous line's or its move number is
/// lower; a hash of (seed, game number across all files) compared with `fraction` decides.
#[derive(Clone, Copy, Debug)]
pub struct Split {
    /// Fraction of positions held out, 0..1.
    pub fraction: f64,
    /// Seed of the hash.
    pub seed: u64,
}

impl Split {
    /// Nothing held out.
    pub const NONE: Split = Split {
        fraction: 0.0,
        seed: 0,
    };

    /// Whether game number `game` (counted across all files) is held out.
    pub fn is_validation(&self, game: u64) -> bool {
        let mut z = self
            .seed
            .wrapping_add(game.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z as f64) < self.fraction * 18_446_744_073_709_551_616.0
    }
}

impl Loaded {
    /// Nothing loaded yet.
    pub fn new() -> Loaded {
        Loaded::default()
    }

    /// Reads every line of `reader` (named `name` in messages) into the sets; its first position
    /// starts a new game.
    pub fn read(&mut self, reader: impl BufRead, name: &str, split: Split) -> io::Result<()> {
        let (train, validation) = (&mut self.train, &mut self.validation);
        read_lines(
            reader,
            name,
            split,
            &mut self.stats,
            |text| {
                let s = parse_line(text)?;
                let moves = s.pos.fullmoves().get();
                Ok(((eval::trace(&s.pos), s.score), s.result, moves))
            },
            |(trace, score), result, held_out| {
                let set = if held_out {
                    &mut *validation
                } else {
                    &mut *train
                };
                set.push(&trace, score, result);
            },
        )
    }

    /// Reads a file (see [`Loaded::read`]).
    pub fn read_file(&mut self, path: &Path, split: Split) -> io::Result<()> {
        let file = File::open(path)?;
        self.read(
            BufReader::with_capacity(1 << 20, file),
            &path.display().to_string(),
            split,
        )
    }
}

/// Reads every line of `reader` (named `name` in messages) for a tuner: lines are parsed by
/// `parse` in parallel chunks, each into a sample, white's game result and the move number; the
/// result and move number tell games apart (a line starts a new game when its result differs from
/// the previous line's or its move number is lower, and the reader's first line always does), and
/// `split` decides each game's set. `keep(sample, result, held_out)` receives every parsed line in
/// order; malformed lines are counted in `stats` (the first few quoted) and skipped.
pub fn read_lines<T: Send>(
    mut reader: impl BufRead,
    name: &str,
    split: Split,
    stats: &mut LoadStats,
    parse: impl Fn(&str) -> Result<(T, f32, u32), String> + Sync,
    mut keep: impl FnMut(T, f32, bool),
) -> io::Result<()> {
    let mut line_no = 0u64;
    let mut last: Option<(u64, f32, u32)> = None;
    let mut chunk: Vec<(u64, Vec<u8>)> = Vec::with_capacity(CHUNK_LINES);
    loop {
        chunk.clear();
        while chunk.len() < CHUNK_LINES {
            let mut buf = Vec::with_capacity(100);
            if reader.read_until(b'\n', &mut buf)? == 0 {
                break;
            }
            line_no += 1;
            if !buf.iter().all(u8::is_ascii_whitespace) {
                chunk.push((line_no, buf));
            }
        }
        if chunk.is_empty() {
            return Ok(());
        }
        let parsed: Vec<Result<(T, f32, u32), String>> = chunk
            .par_iter()
            .map(|(_, bytes)| {
                let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
                parse(text)
            })
            .collect();
        for ((no, _), p) in chunk.iter().zip(parsed) {
            stats.lines += 1;
            match p {
                Ok((sample, result, moves)) => {
                    let game = match last {
                        Some((g, r, m)) if r == result && m <= moves => g,
                        _ => {
                            stats.games += 1;
                            stats.games
                        }
                    };
                    last = Some((game, result, moves));
                    keep(sample, result, split.is_validation(game));
                    stats.positions += 1;
                }
                Err(e) => {
                    stats.malformed += 1;
                    if stats.examples.len() < EXAMPLES {
                        stats.examples.push(format!("{name}:{no}: {e}"));
                    }
                }
            }
        }
    }
}

/// Loads every file in order.
pub fn load(paths: &[impl AsRef<Path>], split: Split) -> io::Result<Loaded> {
    let mut loaded = Loaded::new();
    for p in paths {
        let p = p.as_ref();
        loaded
            .read_file(p, split)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
    }
    Ok(loaded)
}
