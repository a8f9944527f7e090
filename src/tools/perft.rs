//! `trine perft`: move-generation checks on the command line, an EPD perft suite
//! (`--epd FILE --max-depth N`) or divide (`--fen FEN --depth N`), counted with
//! [`crate::perft`].
//!
//! A perft suite is a text file with one position per line, written as FEN
//! (or four-field EPD) followed by the expected leaf counts, for example
//!
//! ```text
//! rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400
//! ```
//!
//! Blank lines and lines starting with `#` or `//` are ignored.

use std::path::PathBuf;
use std::process::ExitCode;

use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, PositionError};

use crate::board::Board;
use crate::perft::{divide, perft};

/// `trine perft`'s arguments.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// EPD file with `;D1 n ;D2 n ...` counts.
    #[arg(long, conflicts_with = "fen")]
    pub epd: Option<PathBuf>,
    /// Deepest depth to check from the EPD file.
    #[arg(long, default_value_t = 4)]
    pub max_depth: u32,
    /// Position to divide.
    #[arg(long)]
    pub fen: Option<String>,
    /// Divide depth.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Chess960 castling (Shredder/X-FEN) in FENs and king-takes-rook move output.
    #[arg(long)]
    pub chess960: bool,
}

/// One line of an EPD perft suite: the position and its expected counts by
/// depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerftCase {
    /// 1-based line number in the suite text.
    pub line_no: usize,
    /// The position text (FEN or four-field EPD) as written in the suite.
    pub fen: String,
    /// `(depth, expected leaf count)` pairs, in the order they appear.
    pub expected: Vec<(u32, u64)>,
}

/// Parses one `D<depth> <count>` field of a suite line.
fn parse_depth_field(field: &str) -> Result<(u32, u64), String> {
    let mut words = field.split_whitespace();
    let (Some(tag), Some(count), None) = (words.next(), words.next(), words.next()) else {
        return Err(format!("expected `D<depth> <count>`, found `{field}`"));
    };
    let depth = tag
        .strip_prefix('D')
        .or_else(|| tag.strip_prefix('d'))
        .and_then(|d| d.parse::<u32>().ok())
        .ok_or_else(|| format!("bad depth tag `{tag}` (expected `D<depth>`)"))?;
    let count = count
        .parse::<u64>()
        .map_err(|_| format!("bad node count `{count}` for {tag}"))?;
    Ok((depth, count))
}

/// Parses an EPD perft file text: lines like
/// `<fen fields> ;D1 20 ;D2 400 ...`, where the position may be a full FEN
/// or four EPD fields. Blank lines and comment lines (starting with `#` or
/// `//`) are skipped. A malformed line is an error naming its 1-based line
/// number. The position text itself is not validated here; see
/// [`check_suite`].
///
/// # Errors
///
/// Returns a message starting with `line <n>:` for the first line that has
/// no position, no depth entries, or a field that is not `D<depth> <count>`.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, String> {
    let mut cases = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        let mut fields = line.split(';');
        let fen = fields.next().unwrap_or_default().trim();
        if fen.is_empty() {
            return Err(format!("line {line_no}: missing position before `;`"));
        }
        let mut expected = Vec::new();
        for field in fields {
            let field = field.trim();
            if field.is_empty() {
                continue;
            }
            let entry = parse_depth_field(field).map_err(|e| format!("line {line_no}: {e}"))?;
            expected.push(entry);
        }
        if expected.is_empty() {
            return Err(format!(
                "line {line_no}: no `;D<depth> <count>` entries after the position"
            ));
        }
        cases.push(PerftCase {
            line_no,
            fen: fen.to_string(),
            expected,
        });
    }
    Ok(cases)
}

/// Result of checking a suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuiteReport {
    /// Number of `(case, depth)` pairs whose count matched.
    pub passed: usize,
    /// Number of `(case, depth)` pairs whose count differed, plus one for
    /// each case whose position could not be set up.
    pub failed: usize,
    /// One line per failure, in suite order: line number, FEN, depth,
    /// expected and actual count (or why the position was rejected).
    pub failures: Vec<String>,
}

/// Outcome of checking a single case.
struct CaseOutcome {
    passed: usize,
    failures: Vec<String>,
}

/// Checks one case for all its depths up to `max_depth`.
///
/// Perft is well defined even for positions that cannot arise in a game, and
/// standard suites contain some (for instance a king checked along one
/// diagonal by bishops on both sides), so shakmaty's "impossible check" and
/// "too much material" objections are waived here.
fn check_case(case: &PerftCase, max_depth: u32, mode: CastlingMode) -> CaseOutcome {
    let pos: Chess = match case
        .fen
        .parse::<Fen>()
        .map_err(|e| e.to_string())
        .and_then(|fen| {
            fen.into_position(mode)
                .or_else(PositionError::ignore_impossible_check)
                .or_else(PositionError::ignore_too_much_material)
                .map_err(|e| e.to_string())
        }) {
        Ok(pos) => pos,
        Err(e) => {
            return CaseOutcome {
                passed: 0,
                failures: vec![format!(
                    "line {}: {}: invalid position: {e}",
                    case.line_no, case.fen
                )],
            }
        }
    };
    let mut outcome = CaseOutcome {
        passed: 0,
        failures: Vec::new(),
    };
    for &(depth, expected) in case.expected.iter().filter(|(d, _)| *d <= max_depth) {
        let got = perft(&pos, depth);
        if got == expected {
            outcome.passed += 1;
        } else {
            outcome.failures.push(format!(
                "line {}: {}: depth {depth}: expected {expected}, got {got}",
                case.line_no, case.fen
            ));
        }
    }
    outcome
}

/// Checks every case for depths `<= max_depth`, in parallel over cases with
/// rayon. `chess960` selects [`CastlingMode::Chess960`] for setting up the
/// positions (Shredder/X-FEN castling); otherwise [`CastlingMode::Standard`].
/// Each `(case, depth)` pair counts as one pass or one failure; a position
/// that cannot be parsed or set up counts as a single failure.
#[must_use]
pub fn check_suite(cases: &[PerftCase], max_depth: u32, chess960: bool) -> SuiteReport {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let outcomes: Vec<CaseOutcome> = cases
        .par_iter()
        .map(|case| check_case(case, max_depth, mode))
        .collect();
    let mut report = SuiteReport::default();
    for outcome in outcomes {
        report.passed += outcome.passed;
        report.failed += outcome.failures.len();
        report.failures.extend(outcome.failures);
    }
    report
}

/// Runs `trine perft`: checks the EPD suite (one line per failure, then `<passed> passed,
/// <failed> failed`; exit status 1 on a failure) or divides the position (one `<move>: <count>`
/// line per root move, then `Nodes searched: <total>`). An unreadable or malformed suite or FEN
/// is exit status 2.
pub fn run_cli(args: PerftArgs) -> ExitCode {
    let PerftArgs {
        epd,
        max_depth,
        fen,
        depth,
        chess960,
    } = args;
    if let Some(path) = epd {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let cases = match parse_suite(&text) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let report = check_suite(&cases, max_depth, chess960);
        for f in &report.failures {
            crate::outln!("{f}");
        }
        crate::outln!("{} passed, {} failed", report.passed, report.failed);
        return if report.failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let fen = fen
        .unwrap_or_else(|| "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string());
    let board = match Board::from_fen(&fen, chess960) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mode = crate::board::castling_mode(chess960);
    let mut total = 0;
    for (m, n) in divide(board.pos(), depth, mode) {
        crate::outln!("{m}: {n}");
        total += n;
    }
    crate::outln!();
    crate::outln!("Nodes searched: {total}");
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_suite_lines() {
        let text = "\
# a comment
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400

4k3/8/8/8/8/8/8/4K2R w K - ;D1 15 ;D2 66 ;D3 1197
";
        let cases = parse_suite(text).expect("well-formed suite");
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].line_no, 2);
        assert_eq!(
            cases[0].fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert_eq!(cases[0].expected, vec![(1, 20), (2, 400)]);
        assert_eq!(cases[1].line_no, 4);
        assert_eq!(cases[1].fen, "4k3/8/8/8/8/8/8/4K2R w K -");
        assert_eq!(cases[1].expected, vec![(1, 15), (2, 66), (3, 1197)]);

        let report = check_suite(&cases, 2, false);
        assert_eq!((report.passed, report.failed), (4, 0));
    }

    #[test]
    fn parse_suite_rejects_malformed_lines() {
        let good = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20\n";
        for (bad, needle) in [
            ("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 x3", "line 2"),
            ("8/8/8/8/8/8/8/K6k w - - 0 1 ;Q1 3", "line 2"),
            ("8/8/8/8/8/8/8/K6k w - - 0 1", "line 2"),
            (" ;D1 3", "line 2"),
            ("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 4", "line 2"),
        ] {
            let err = parse_suite(&format!("{good}{bad}\n")).expect_err(bad);
            assert!(err.contains(needle), "{err}");
        }
    }

    #[test]
    fn check_suite_reports_failures() {
        let text = "\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 21 ;D2 400 ;D3 1
not a fen ;D1 1
";
        let cases = parse_suite(text).expect("well-formed suite");
        let report = check_suite(&cases, 2, false);
        assert_eq!(report.passed, 1);
        assert_eq!(report.failed, 2);
        assert_eq!(report.failures.len(), 2);
        assert!(report.failures[0].starts_with("line 1: "));
        assert!(report.failures[0].contains("depth 1: expected 21, got 20"));
        assert!(report.failures[1].starts_with("line 2: not a fen: invalid position"));
    }

    #[test]
    fn check_suite_accepts_impossible_check() {
        // Bishops on a8 and h1 both give check along the long diagonal.
        let text = "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1 ;D1 6 ;D2 106 ;D3 1829";
        let cases = parse_suite(text).expect("well-formed suite");
        let report = check_suite(&cases, 3, false);
        assert_eq!((report.passed, report.failed), (3, 0), "{report:?}");
    }

    #[test]
    fn check_suite_chess960_castling() {
        let text = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21 ;D2 528 ;D3 12189";
        let cases = parse_suite(text).expect("well-formed suite");
        let report = check_suite(&cases, 3, true);
        assert_eq!((report.passed, report.failed), (3, 0), "{report:?}");
    }
}
