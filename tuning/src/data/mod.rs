//! Training data, as both trainers (the Texel tuner and the NNUE trainer) read it:
//! `<FEN> | <score> | <result>` lines as `trine datagen` writes them (score in centipawns and
//! result `1.0`/`0.5`/`0.0`, both from white's point of view), parsed with the engine's own reader
//! (`trine::tools::datagen::parse_line`). Files are read in chunks of lines, each chunk parsed and
//! encoded in parallel (rayon) and added in file order to a trainer's compact store of positions
//! (a type implementing [`Positions`]: what a position becomes is the trainer's own business).
//! Games are told apart and whole games held out for validation ([`Split`]); malformed lines are
//! counted and skipped, never fatal.

mod split;

pub use split::Split;

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use rayon::prelude::*;
use shakmaty::{Chess, Position};
use trine::tools::datagen::GameResult;

/// Lines parsed and encoded together (one parallel batch).
const CHUNK_LINES: usize = 1 << 16;
/// Malformed lines quoted in [`LoadStats::examples`].
const EXAMPLES: usize = 5;

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

/// A trainer's compact store of positions, which [`Loaded`] fills: every line's [`Sample`] is
/// encoded (in parallel with the other lines of its chunk) and then added in file order.
pub trait Positions: Default {
    /// What a sample becomes before it is added.
    type Encoded: Send;

    /// Encodes a sample; an error makes its line malformed.
    fn encode(sample: Sample) -> Result<Self::Encoded, String>;

    /// Adds an encoded sample.
    fn add(&mut self, encoded: Self::Encoded);
}

/// What loading found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Non-empty lines read.
    pub lines: u64,
    /// Positions kept (training + validation).
    pub positions: u64,
    /// Lines skipped as malformed (bad field count, FEN, position, score or result, non-UTF-8,
    /// or refused by the trainer's encoding).
    pub malformed: u64,
    /// Games told apart (see [`Split`]).
    pub games: u64,
    /// The first few malformed lines as `file:line: reason`.
    pub examples: Vec<String>,
}

/// Loaded data, split into a training and a validation set.
#[derive(Clone, Debug, Default)]
pub struct Loaded<D> {
    /// Positions the gradient is computed on.
    pub train: D,
    /// Held-out positions for early stopping.
    pub validation: D,
    /// Line counts.
    pub stats: LoadStats,
}

impl<D: Positions> Loaded<D> {
    /// Nothing loaded yet.
    pub fn new() -> Loaded<D> {
        Loaded {
            train: D::default(),
            validation: D::default(),
            stats: LoadStats::default(),
        }
    }

    /// Loads every file in order.
    pub fn load(paths: &[impl AsRef<Path>], split: Split) -> io::Result<Loaded<D>> {
        let mut loaded = Loaded::new();
        for p in paths {
            let p = p.as_ref();
            loaded
                .read_file(p, split)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
        }
        Ok(loaded)
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

    /// Reads every line of `reader` (named `name` in messages) into the sets. Blank lines are
    /// skipped; the result and move number tell games apart (a line starts a new game when its
    /// result differs from the previous line's or its move number is lower, and the reader's
    /// first line always does), and `split` decides each game's set. Malformed lines are counted
    /// in the stats (the first few quoted) and skipped.
    pub fn read(&mut self, mut reader: impl BufRead, name: &str, split: Split) -> io::Result<()> {
        let stats = &mut self.stats;
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
            let parsed: Vec<_> = chunk
                .par_iter()
                .map(|(_, bytes)| encode_line::<D>(bytes))
                .collect();
            for ((no, _), p) in chunk.iter().zip(parsed) {
                stats.lines += 1;
                match p {
                    Ok((encoded, result, moves)) => {
                        let game = match last {
                            Some((g, r, m)) if r == result && m <= moves => g,
                            _ => {
                                stats.games += 1;
                                stats.games
                            }
                        };
                        last = Some((game, result, moves));
                        let set = if split.is_validation(game) {
                            &mut self.validation
                        } else {
                            &mut self.train
                        };
                        set.add(encoded);
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
}

/// A line's encoding, with the game result (white's view) and the move number that tell games
/// apart.
fn encode_line<D: Positions>(bytes: &[u8]) -> Result<(D::Encoded, f32, u32), String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let sample = parse_line(text)?;
    let (result, moves) = (sample.result, sample.pos.fullmoves().get());
    Ok((D::encode(sample)?, result, moves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;
    use std::io::Cursor;

    /// Positions as their move numbers, scores and results; a score of 999 is refused.
    #[derive(Default)]
    struct Kept(Vec<(u32, i32, f32)>);

    impl Positions for Kept {
        type Encoded = (u32, i32, f32);

        fn encode(s: Sample) -> Result<Self::Encoded, String> {
            if s.score == 999 {
                return Err("refused".to_string());
            }
            Ok((s.pos.fullmoves().get(), s.score, s.result))
        }

        fn add(&mut self, e: Self::Encoded) {
            self.0.push(e);
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn lines_parse_from_whites_view_and_bad_ones_say_why() {
        let s = parse_line("8/8/1p4p1/p1p2k1p/P2n1P1P/4K1P1/1P6/6R1 b - - 6 59|-120|0.0").unwrap();
        assert_eq!((s.score, s.result), (-120, 0.0));
        assert_eq!(s.pos.turn(), Color::Black);
        assert_eq!(
            parse_line(&format!(" {START} | 15 | 0.5 ")).unwrap().result,
            0.5
        );
        assert_eq!(
            parse_line(&format!("{START} | 15 | 1.0")).unwrap().result,
            1.0
        );
        for (line, why) in [
            (format!("{START} | 12"), "expected"),
            (format!("{START} | 12 | 1.0 | extra"), "expected"),
            (format!("{START} | 1.5 | 1.0"), "score"),
            (format!("{START} | 12 | 0.25"), "result"),
            ("not a fen | 0 | 0.5".to_string(), "FEN"),
            ("8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5".to_string(), "illegal"),
        ] {
            let e = parse_line(&line).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn games_are_told_apart_by_result_and_move_number() {
        let text = "\
4k3/8/8/8/8/8/4P3/4K3 w - - 0 10 | 5 | 1.0
4k3/8/8/8/8/8/4P3/4K3 b - - 0 10 | 6 | 1.0
4k3/8/8/8/8/8/4P3/4K3 w - - 0 11 | 7 | 1.0
4k3/8/8/8/8/8/4P3/4K3 w - - 0 3 | 8 | 1.0

4k3/8/8/8/8/8/4P3/4K3 w - - 0 4 | 9 | 0.5
4k3/8/8/8/8/8/4P3/4K3 w - - 0 5 | 10 | 0.0
";
        let mut l = Loaded::<Kept>::new();
        l.read(Cursor::new(text), "t", Split::NONE).unwrap();
        assert_eq!(l.stats.games, 4);
        assert_eq!(
            (l.stats.lines, l.stats.positions, l.stats.malformed),
            (6, 6, 0)
        );
        let scores: Vec<i32> = l.train.0.iter().map(|e| e.1).collect();
        assert_eq!(scores, [5, 6, 7, 8, 9, 10]);
        assert!(l.validation.0.is_empty());
        // A second reader starts a new game even when its first line would continue the last.
        l.read(
            Cursor::new("4k3/8/8/8/8/8/4P3/4K3 w - - 0 6 | 11 | 0.0"),
            "u",
            Split::NONE,
        )
        .unwrap();
        assert_eq!(l.stats.games, 5);
    }

    #[test]
    fn malformed_lines_are_counted_quoted_and_skipped() {
        let mut bytes = format!(
            "{START} | 1 | 0.5\nnot a line\n\n4k3/8/8/8/8/8/8/R3K3 w - - 0 1 | 999 | 1.0\n"
        )
        .into_bytes();
        bytes.extend_from_slice(b"\xff\xfe | 0 | 0.5\n");
        for _ in 0..EXAMPLES {
            bytes.extend_from_slice(b"x | y | z\n");
        }
        bytes.extend_from_slice(format!("{START} | 2 | 0.5").as_bytes()); // no final newline
        let mut l = Loaded::<Kept>::new();
        l.read(Cursor::new(bytes), "m", Split::NONE).unwrap();
        let st = &l.stats;
        assert_eq!(st.lines, 2 + 2 + 1 + EXAMPLES as u64);
        assert_eq!(st.positions, 2);
        assert_eq!(st.malformed, 3 + EXAMPLES as u64);
        assert_eq!(st.examples.len(), EXAMPLES);
        assert!(st.examples[0].starts_with("m:2: "), "{:?}", st.examples);
        assert_eq!(st.examples[1], "m:4: refused");
        assert_eq!(st.examples[2], "m:5: not UTF-8");
        assert_eq!(l.train.0.len(), 2);
    }

    #[test]
    fn the_split_holds_out_whole_games_reproducibly() {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt");
        let split = Split {
            fraction: 0.3,
            seed: 5,
        };
        let a = Loaded::<Kept>::load(&[&path], split).unwrap();
        let b = Loaded::<Kept>::load(&[&path], split).unwrap();
        assert_eq!(a.train.0, b.train.0);
        assert_eq!(a.validation.0, b.validation.0);
        assert_eq!(a.stats.malformed, 0, "{:?}", a.stats.examples);
        assert!(a.stats.games >= 20, "{} games", a.stats.games);
        let held = a.validation.0.len() as f64 / a.stats.positions as f64;
        assert!(held > 0.05 && held < 0.6, "held out {held}");
        let all = Split {
            fraction: 1.0,
            seed: 5,
        };
        let none = Loaded::<Kept>::load(&[&path], Split::NONE).unwrap();
        let every = Loaded::<Kept>::load(&[&path], all).unwrap();
        assert_eq!((&none.stats, &every.stats), (&a.stats, &a.stats));
        assert!(none.validation.0.is_empty() && every.train.0.is_empty());
        assert_eq!(every.validation.0, none.train.0);
    }

    #[test]
    fn a_game_goes_whole_to_one_set() {
        // Three games of three positions; a split that holds out some of them but not all.
        let mut text = String::new();
        for (game, result) in [(1, "1.0"), (2, "0.5"), (3, "0.0")] {
            for ply in 0..3 {
                let score = 10 * game + ply;
                text += &format!(
                    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 {} | {score} | {result}\n",
                    ply + 1
                );
            }
        }
        let split = (0..)
            .map(|seed| Split {
                fraction: 0.5,
                seed,
            })
            .find(|s| (1..=3).any(|g| s.is_validation(g)) && (1..=3).any(|g| !s.is_validation(g)))
            .unwrap();
        let mut l = Loaded::<Kept>::new();
        l.read(Cursor::new(text), "g", split).unwrap();
        let scores = |set: &Kept| set.0.iter().map(|e| e.1).collect::<Vec<i32>>();
        let of = |held: bool| -> Vec<i32> {
            (1..=3)
                .filter(|&g| split.is_validation(g as u64) == held)
                .flat_map(|g| (0..3).map(move |ply| 10 * g + ply))
                .collect()
        };
        assert_eq!(scores(&l.validation), of(true));
        assert_eq!(scores(&l.train), of(false));
    }

    #[test]
    fn the_split_hash_is_fixed() {
        let split = Split {
            fraction: 0.5,
            seed: 42,
        };
        let held: Vec<bool> = (1..=16).map(|g| split.is_validation(g)).collect();
        let again: Vec<bool> = (1..=16).map(|g| split.is_validation(g)).collect();
        assert_eq!(held, again);
        assert!(held.contains(&true) && held.contains(&false));
        assert!((1..=100).all(|g| !Split::NONE.is_validation(g)));
    }
}
