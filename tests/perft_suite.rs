//! Integration tests for move generation: the EPD perft suites in `data/` checked
//! through `trine::tools::perft`, and the `trine perft` command line.
//!
//! The full suites at full depth take a long time and are ignored by default;
//! run them with `cargo test --release -- --ignored perft`.

use std::process::Command;
use std::time::Duration;

use shakmaty::{CastlingMode, Chess};
use trine::perft::divide;
use trine::tools::perft::{check_suite, parse_suite, PerftCase, SuiteReport};

mod engine_process;
use engine_process::tempdir::TempDir;
use engine_process::{run_to_end, trine_bin, Run};

const STANDARD_SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/perft-standard.epd");
const CHESS960_SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/perft-chess960.epd");
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn load_suite(path: &str) -> Vec<PerftCase> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    parse_suite(&text).unwrap_or_else(|e| panic!("cannot parse {path}: {e}"))
}

fn assert_clean(report: &SuiteReport) {
    assert!(
        report.failures.is_empty() && report.failed == 0,
        "{} failures:\n{}",
        report.failed,
        report.failures.join("\n")
    );
    assert!(report.passed > 0, "no (position, depth) pairs were checked");
}

/// Number of `(case, depth)` pairs with depth at most `max_depth`.
fn pairs_up_to(cases: &[PerftCase], max_depth: u32) -> usize {
    cases
        .iter()
        .map(|c| c.expected.iter().filter(|(d, _)| *d <= max_depth).count())
        .sum()
}

#[test]
fn perft_standard_suite_depth_4() {
    let cases = load_suite(STANDARD_SUITE);
    let report = check_suite(&cases, 4, false);
    assert_clean(&report);
    assert_eq!(report.passed, pairs_up_to(&cases, 4));
}

#[test]
fn perft_chess960_suite_depth_4() {
    // The whole file takes about 1.5 s in release on two cores; debug builds
    // are far slower, so they check only the first 60 positions.
    let mut cases = load_suite(CHESS960_SUITE);
    if cfg!(debug_assertions) {
        cases.truncate(60);
    }
    let report = check_suite(&cases, 4, true);
    assert_clean(&report);
    assert_eq!(report.passed, pairs_up_to(&cases, 4));
}

/// Every depth of both suites; slow (the Chess960 suite at depth 6 takes a
/// long time even in release). Run with
/// `cargo test --release -- --ignored perft`.
#[test]
#[ignore = "full-depth perft suites are slow; run with `cargo test --release -- --ignored perft`"]
fn perft_full_suites_full_depth() {
    let standard = load_suite(STANDARD_SUITE);
    assert_clean(&check_suite(&standard, u32::MAX, false));
    let chess960 = load_suite(CHESS960_SUITE);
    assert_clean(&check_suite(&chess960, u32::MAX, true));
}

fn run_trine(args: &[&str]) -> Run {
    run_to_end(
        Command::new(trine_bin()).args(args),
        Duration::from_secs(120),
    )
}

fn stdout_lines(output: &Run) -> Vec<String> {
    output.stdout.lines().map(str::to_string).collect()
}

fn describe(output: &Run) -> String {
    format!(
        "exit code: {:?}\nstdout:\n{}\nstderr:\n{}",
        output.code, output.stdout, output.stderr
    )
}

#[test]
fn perft_cli_suite_passes() {
    let expected_passed = pairs_up_to(&load_suite(STANDARD_SUITE), 2);
    let output = run_trine(&["perft", "--epd", STANDARD_SUITE, "--max-depth", "2"]);
    assert_eq!(output.code, Some(0), "{}", describe(&output));
    let lines = stdout_lines(&output);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(format!("{expected_passed} passed, 0 failed").as_str()),
        "{}",
        describe(&output)
    );
}

#[test]
fn perft_cli_suite_reports_failure() {
    let dir = TempDir::new("perft");
    let suite = dir.write("wrong-suite.epd", format!("{START_FEN} ;D1 21\n"));
    let path = suite.to_str().expect("temp path is not UTF-8");
    let output = run_trine(&["perft", "--epd", path, "--max-depth", "2"]);
    assert_eq!(output.code, Some(1), "{}", describe(&output));
    let lines = stdout_lines(&output);
    let (last, rest) = lines.split_last().expect("no output");
    assert_eq!(last, "0 passed, 1 failed", "{}", describe(&output));
    assert!(
        rest.iter().any(|l| l.contains("21") && l.contains("20")),
        "no failure line naming expected 21 and got 20\n{}",
        describe(&output)
    );
}

#[test]
fn perft_cli_divide_format() {
    let output = run_trine(&["perft", "--fen", START_FEN, "--depth", "3"]);
    assert_eq!(output.code, Some(0), "{}", describe(&output));
    let lines = stdout_lines(&output);
    let pos = Chess::default();
    let expected: Vec<String> = divide(&pos, 3, CastlingMode::Standard)
        .into_iter()
        .map(|(mv, n)| format!("{mv}: {n}"))
        .collect();
    assert_eq!(expected.len(), 20);
    assert!(expected.iter().any(|l| l == "e2e4: 600"));
    // The output ends with the 20 divide lines, a blank line and the total.
    let tail_len = expected.len() + 2;
    assert!(lines.len() >= tail_len, "{}", describe(&output));
    let tail = &lines[lines.len() - tail_len..];
    assert_eq!(
        &tail[..expected.len()],
        &expected[..],
        "{}",
        describe(&output)
    );
    assert_eq!(tail[expected.len()], "", "{}", describe(&output));
    assert_eq!(
        tail[expected.len() + 1],
        "Nodes searched: 8902",
        "{}",
        describe(&output)
    );
}
