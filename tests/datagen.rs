//! `trine datagen` through the real binary: every line is a legal, quiet position with an integer
//! score and a result that the summary's counts allow; one thread and one seed give the same file
//! byte for byte (two threads: the same lines in another order); a second run appends; an unopenable output path is exit code 1 with a message.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
use trine::search::movepick::see;

mod engine_process;
use engine_process::tempdir::TempDir;
use engine_process::{run_to_end, trine_bin, Run};

/// How long one run of `trine datagen` may take.
const LIMIT: Duration = Duration::from_secs(120);

fn datagen(args: &[&str], out: &Path) -> Run {
    run_to_end(
        Command::new(trine_bin())
            .arg("datagen")
            .args(args)
            .arg("--out")
            .arg(out),
        LIMIT,
    )
}

/// The counts of `datagen: G games, P positions (W white wins, D draws, L black wins), T s, X positions/s`.
fn summary_counts(stdout: &str) -> [u64; 5] {
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with("datagen: "))
        .unwrap_or_else(|| panic!("no summary line in {stdout:?}"));
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let number_before = |label: &str| -> u64 {
        let i = words
            .iter()
            .position(|w| *w == label)
            .unwrap_or_else(|| panic!("no '{label}' in {line:?}"));
        words[i - 1].parse().expect(line)
    };
    assert!(line.ends_with("positions/s"), "{line}");
    [
        number_before("games"),
        number_before("positions"),
        number_before("white"),
        number_before("draws"),
        number_before("black"),
    ]
}

/// Checks one data line; returns its result.
fn check_line(line: &str) -> &str {
    let parts: Vec<&str> = line.split(" | ").collect();
    assert_eq!(parts.len(), 3, "{line}");
    let pos: Chess = parts[0]
        .parse::<Fen>()
        .unwrap_or_else(|e| panic!("bad FEN in {line}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("illegal position in {line}: {e}"));
    let score: i32 = parts[1].parse().unwrap_or_else(|_| panic!("{line}"));
    assert!(score.abs() < 30000, "mate score recorded: {line}");
    assert!(!pos.is_check(), "side to move in check: {line}");
    for m in pos.capture_moves() {
        assert!(see(&pos, m) <= 0, "winning capture {m:?}: {line}");
    }
    assert!(["1.0", "0.5", "0.0"].contains(&parts[2]), "{line}");
    parts[2]
}

#[test]
fn lines_are_legal_quiet_positions_matching_the_summary() {
    let dir = TempDir::new("datagen");
    let file = dir.join("main.txt");
    let run = datagen(&["--games", "4", "--nodes", "400", "--threads", "2"], &file);
    let (stdout, stderr) = (&run.stdout, &run.stderr);
    assert_eq!(run.code, Some(0), "stdout {stdout}\nstderr {stderr}");
    let [games, positions, white, draws, black] = summary_counts(stdout);
    assert_eq!(games, 4);
    assert_eq!(white + draws + black, 4);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty(), "no positions written");
    assert_eq!(lines.len() as u64, positions);
    let mut seen = [0u64; 3];
    for line in &lines {
        match check_line(line) {
            "1.0" => seen[0] += 1,
            "0.5" => seen[1] += 1,
            _ => seen[2] += 1,
        }
    }
    // A result no game had cannot appear on any line.
    for (n, games_with_it) in seen.iter().zip([white, draws, black]) {
        assert!(
            *n == 0 || games_with_it > 0,
            "{seen:?} vs {white}/{draws}/{black}"
        );
    }
}

#[test]
fn one_thread_is_deterministic_and_runs_append() {
    let args = [
        "--games",
        "2",
        "--nodes",
        "400",
        "--threads",
        "1",
        "--seed",
        "7",
    ];
    let dir = TempDir::new("datagen");
    let a = dir.join("det-a.txt");
    let b = dir.join("det-b.txt");
    for f in [&a, &b] {
        let run = datagen(&args, f);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let first = std::fs::read(&a).unwrap();
    assert!(!first.is_empty());
    assert_eq!(first, std::fs::read(&b).unwrap(), "same seed, one thread");
    // Every game has its own table and searcher, so more threads change only the order of the games.
    let c = dir.join("det-c.txt");
    let mut threads2 = args;
    threads2[5] = "2";
    assert_eq!(datagen(&threads2, &c).code, Some(0));
    let sorted = |bytes: &[u8]| {
        let mut lines: Vec<String> = String::from_utf8_lossy(bytes)
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(sorted(&first), sorted(&std::fs::read(&c).unwrap()));
    // A second run into the same file appends the same games again.
    let run = datagen(&args, &a);
    assert_eq!(run.code, Some(0));
    let twice = std::fs::read(&a).unwrap();
    assert_eq!(twice, [first.clone(), first].concat());
}

#[test]
fn unopenable_output_is_exit_code_1() {
    let dir = TempDir::new("datagen");
    let out = dir.join("missing-dir").join("sub").join("data.txt");
    let run = datagen(&["--games", "1", "--nodes", "100"], &out);
    assert_eq!(run.code, Some(1));
    let stderr = &run.stderr;
    assert!(
        stderr.contains("error: cannot open") && stderr.contains("data.txt"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.exists());
}
