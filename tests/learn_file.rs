//! The `trine learn` command line against the real binary: six processes importing into one learn
//! file at once lose nothing; exit codes, rejected lines, export/import round trip, damaged files.

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use shakmaty::fen::Epd;
use shakmaty::san::San;
use shakmaty::{Chess, EnPassantMode, Position};
use trine::rng::Rng;

mod engine_process;
use engine_process::tempdir::TempDir;
use engine_process::{run_to_end, trine_bin, Run};

/// How long one run of `trine learn` may take.
const LIMIT: Duration = Duration::from_secs(120);

/// EPD lines (in `trine learn export`'s format) for `n` positions from seeded random games whose
/// keys are not in `seen`.
fn epd_lines(n: usize, seed: u64, seen: &mut HashSet<u64>) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut lines = Vec::with_capacity(n);
    while lines.len() < n {
        let mut pos = Chess::default();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() || lines.len() == n {
                break;
            }
            let m = moves[rng.below(moves.len())];
            if seen.insert(trine::board::full_key(&pos)) {
                let score = rng.below(500) as i32 - 250;
                let depth = rng.below(15) + 1;
                lines.push(format!(
                    "{} bm {}; ce {score}; acd {depth}; c0 \"search\";",
                    Epd::from_position(&pos, EnPassantMode::Legal),
                    San::from_move(&pos, m)
                ));
            }
            pos.play_unchecked(m);
        }
    }
    lines
}

fn trine(args: &[&str]) -> Run {
    run_to_end(Command::new(trine_bin()).args(args), LIMIT)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

fn last_line(o: &Run) -> String {
    o.stdout.lines().last().unwrap_or("").to_string()
}

#[test]
fn six_processes_import_into_one_file() {
    let dir = TempDir::new("learn-cli-procs");
    let shared = dir.join("shared.learn");
    let mut seen = HashSet::new();
    let mut epds = Vec::new();
    for i in 0..6u64 {
        let path = dir.join(format!("part{i}.epd"));
        let lines = epd_lines(50, 0x1234_5678 + i * 7919, &mut seen);
        std::fs::write(&path, lines.join("\n") + "\n").expect("write epd");
        epds.push(path);
    }
    // All six run at once; each store locks, re-reads and merges.
    let runs: Vec<_> = epds
        .iter()
        .map(|epd| {
            let mut command = Command::new(trine_bin());
            command.args(["learn", "import", s(epd), "--file", s(&shared)]);
            std::thread::spawn(move || run_to_end(&mut command, LIMIT))
        })
        .collect();
    for run in runs {
        let out = run.join().expect("import finished");
        assert_eq!(out.code, Some(0), "import failed: {}", out.stderr);
        assert!(
            out.stdout.contains("50 positions imported"),
            "{}",
            out.stdout
        );
    }
    let out = trine(&["learn", "stats", "--file", s(&shared)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(last_line(&out), "300 entries");
    assert!(out.stdout.contains("300 search, 0 imported, 0 human"));
}

#[test]
fn import_reports_rejected_lines_and_keeps_the_good_ones() {
    let dir = TempDir::new("learn-cli-reject");
    let file = dir.join("l.learn");
    let epd = dir.join("in.epd");
    let mut seen = HashSet::new();
    let mut lines = epd_lines(3, 42, &mut seen);
    lines.insert(1, "not a position at all; ce 1;".to_string());
    lines.push("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e5; ce 3;".into());
    std::fs::write(&epd, lines.join("\n")).expect("write epd");
    let out = trine(&["learn", "import", s(&epd), "--file", s(&file)]);
    assert_eq!(out.code, Some(1));
    let err = &out.stderr;
    assert!(err.contains("line 2: "), "{err}");
    assert!(err.contains("line 5: "), "{err}");
    assert!(out
        .stdout
        .contains("3 positions imported, 2 lines rejected"));
    let out = trine(&["learn", "stats", "--file", s(&file)]);
    assert_eq!(last_line(&out), "3 entries");

    let out = trine(&[
        "learn",
        "import",
        s(&dir.join("missing.epd")),
        "--file",
        s(&file),
    ]);
    assert_eq!(out.code, Some(2));
}

#[test]
fn export_show_import_and_clear() {
    let dir = TempDir::new("learn-cli-roundtrip");
    let file = dir.join("a.learn");
    let copy = dir.join("b.learn");
    let epd = dir.join("in.epd");
    let mut seen = HashSet::new();
    let lines = epd_lines(20, 7, &mut seen);
    std::fs::write(&epd, lines.join("\n") + "\n").expect("write epd");
    assert_eq!(
        trine(&["learn", "import", s(&epd), "--file", s(&file)]).code,
        Some(0)
    );
    // Export reproduces the imported lines exactly.
    let out = trine(&["learn", "export", "--file", s(&file)]);
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stdout, lines.join("\n") + "\n");
    let exported = dir.join("out.epd");
    let out = trine(&["learn", "export", "--file", s(&file), "--out", s(&exported)]);
    assert_eq!(out.code, Some(0));
    assert_eq!(
        trine(&["learn", "import", s(&exported), "--file", s(&copy)]).code,
        Some(0)
    );
    let a = trine(&["learn", "show", "--file", s(&file)]);
    let b = trine(&["learn", "show", "--file", s(&copy)]);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stdout.lines().count(), 20);
    let first = a.stdout.lines().next().unwrap_or("").to_string();
    assert!(
        first.contains("| depth ") && first.ends_with("| search"),
        "{first}"
    );
    let out = trine(&["learn", "clear", "--file", s(&file)]);
    assert_eq!(out.code, Some(0));
    assert_eq!(
        last_line(&trine(&["learn", "stats", "--file", s(&file)])),
        "0 entries"
    );
}

#[test]
fn damaged_and_unusable_files() {
    let dir = TempDir::new("learn-cli-damaged");
    let file = dir.join("bad.learn");
    std::fs::write(&file, b"garbage garbage garbage garbage garbage").expect("write");
    let out = trine(&["learn", "stats", "--file", s(&file)]);
    assert_eq!(out.code, Some(0));
    assert!(out.stderr.contains("damaged"), "{}", out.stderr);
    assert!(out.stderr.contains("bad.learn.corrupt-"), "{}", out.stderr);
    assert_eq!(last_line(&out), "0 entries");
    let plain = dir.join("plain");
    std::fs::write(&plain, b"x").expect("write");
    let under = plain.join("x.learn");
    assert_eq!(
        trine(&["learn", "clear", "--file", s(&under)]).code,
        Some(2)
    );
    assert_eq!(
        trine(&["learn", "stats", "--file", s(&under)]).code,
        Some(2)
    );
}

#[test]
fn killed_writers_never_leave_a_torn_file() {
    let dir = TempDir::new("learn-cli-killed");
    let file = dir.join("k.learn");
    let mut seen = HashSet::new();
    let mut epds = Vec::new();
    for i in 0..4u64 {
        let path = dir.join(format!("k{i}.epd"));
        let lines = epd_lines(1500, 0xdead_beef + i, &mut seen);
        std::fs::write(&path, lines.join("\n") + "\n").expect("write epd");
        epds.push(path);
    }
    let mut rng = Rng::new(77);
    for round in 0..24 {
        let epd = &epds[round % epds.len()];
        let mut child = Command::new(trine_bin())
            .args(["learn", "import", s(epd), "--file", s(&file)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn trine");
        let delay = rng.below(80) as u64;
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
        let out = trine(&["learn", "stats", "--file", s(&file)]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert!(
            !out.stderr.contains("damaged"),
            "round {round}: {}",
            out.stderr
        );
        let n: usize = last_line(&out)
            .trim_end_matches(" entries")
            .parse()
            .expect("count");
        assert!(
            n.is_multiple_of(1500) && n <= 6000,
            "round {round}: {n} entries"
        );
    }
}

#[test]
fn a_smaller_capacity_never_shrinks_a_shared_file() {
    let dir = TempDir::new("learn-cli-capacity");
    let file = dir.join("c.learn");
    let mut seen = HashSet::new();
    let big = dir.join("big.epd");
    let small = dir.join("small.epd");
    std::fs::write(&big, epd_lines(50, 3, &mut seen).join("\n")).expect("write epd");
    std::fs::write(&small, epd_lines(5, 4, &mut seen).join("\n")).expect("write epd");
    let import = |epd: &Path, capacity: &str| {
        let out = trine(&[
            "learn",
            "import",
            s(epd),
            "--file",
            s(&file),
            "--capacity",
            capacity,
        ]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        out.stdout
    };
    assert!(import(&big, "1000").contains("holds 50 entries"));
    let out = import(&small, "10");
    assert!(out.contains("holds 55 entries"), "{out}");
    let stats = trine(&["learn", "stats", "--file", s(&file)]);
    assert!(
        stats.stdout.contains("capacity 1000, generation 2)"),
        "{}",
        stats.stdout
    );
    assert_eq!(last_line(&stats), "55 entries");
    // `resize` is the way to shrink a file.
    let out = trine(&["learn", "resize", "20", "--file", s(&file)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("capacity 20, 20 entries"),
        "{}",
        out.stdout
    );
    let stats = trine(&["learn", "stats", "--file", s(&file)]);
    assert!(
        stats.stdout.contains("capacity 20, generation 3)"),
        "{}",
        stats.stdout
    );
    assert_eq!(last_line(&stats), "20 entries");
}
