//! The `trine learn` command line against the real binary: six processes importing into one learn
//! file at once lose nothing; exit codes, rejected lines, export/import round trip, damaged files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use shakmaty::fen::Epd;
use shakmaty::san::San;
use shakmaty::{Chess, EnPassantMode, Position};

/// A scratch directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p =
            std::env::temp_dir().join(format!("trine-learn-cli-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// EPD lines (in `trine learn export`'s format) for `n` positions from seeded random games whose
/// keys are not in `seen`.
fn epd_lines(n: usize, seed: u64, seen: &mut HashSet<u64>) -> Vec<String> {
    let mut rng = seed;
    let mut lines = Vec::with_capacity(n);
    while lines.len() < n {
        let mut pos = Chess::default();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() || lines.len() == n {
                break;
            }
            let m = moves[(xorshift(&mut rng) % moves.len() as u64) as usize];
            if seen.insert(trine::board::full_key(&pos)) {
                let score = (xorshift(&mut rng) % 500) as i32 - 250;
                let depth = xorshift(&mut rng) % 15 + 1;
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

fn trine(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trine"))
        .args(args)
        .output()
        .expect("run trine")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or("").to_string()
}

#[test]
fn six_processes_import_into_one_file() {
    let dir = TempDir::new("procs");
    let shared = dir.0.join("shared.learn");
    let mut seen = HashSet::new();
    let mut epds = Vec::new();
    for i in 0..6u64 {
        let path = dir.0.join(format!("part{i}.epd"));
        let lines = epd_lines(50, 0x1234_5678 + i * 7919, &mut seen);
        std::fs::write(&path, lines.join("\n") + "\n").expect("write epd");
        epds.push(path);
    }
    // All six run at once; each store locks, re-reads and merges.
    let procs: Vec<_> = epds
        .iter()
        .map(|epd| {
            Command::new(env!("CARGO_BIN_EXE_trine"))
                .args(["learn", "import", s(epd), "--file", s(&shared)])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn trine")
        })
        .collect();
    for p in procs {
        let out = p.wait_with_output().expect("wait");
        assert!(out.status.success(), "import failed: {}", stderr(&out));
        assert!(
            stdout(&out).contains("50 positions imported"),
            "{}",
            stdout(&out)
        );
    }
    let out = trine(&["learn", "stats", "--file", s(&shared)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(last_line(&out), "300 entries");
    assert!(stdout(&out).contains("300 search, 0 imported, 0 human"));
}

#[test]
fn import_reports_rejected_lines_and_keeps_the_good_ones() {
    let dir = TempDir::new("reject");
    let file = dir.0.join("l.learn");
    let epd = dir.0.join("in.epd");
    let mut seen = HashSet::new();
    let mut lines = epd_lines(3, 42, &mut seen);
    lines.insert(1, "not a position at all; ce 1;".to_string());
    lines.push("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e5; ce 3;".into());
    std::fs::write(&epd, lines.join("\n")).expect("write epd");
    let out = trine(&["learn", "import", s(&epd), "--file", s(&file)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("line 2: "), "{err}");
    assert!(err.contains("line 5: "), "{err}");
    assert!(stdout(&out).contains("3 positions imported, 2 lines rejected"));
    let out = trine(&["learn", "stats", "--file", s(&file)]);
    assert_eq!(last_line(&out), "3 entries");

    let out = trine(&[
        "learn",
        "import",
        s(&dir.0.join("missing.epd")),
        "--file",
        s(&file),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn export_show_import_and_clear() {
    let dir = TempDir::new("roundtrip");
    let file = dir.0.join("a.learn");
    let copy = dir.0.join("b.learn");
    let epd = dir.0.join("in.epd");
    let mut seen = HashSet::new();
    let lines = epd_lines(20, 7, &mut seen);
    std::fs::write(&epd, lines.join("\n") + "\n").expect("write epd");
    assert!(trine(&["learn", "import", s(&epd), "--file", s(&file)])
        .status
        .success());
    // Export reproduces the imported lines exactly.
    let out = trine(&["learn", "export", "--file", s(&file)]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), lines.join("\n") + "\n");
    let exported = dir.0.join("out.epd");
    let out = trine(&["learn", "export", "--file", s(&file), "--out", s(&exported)]);
    assert!(out.status.success());
    assert!(
        trine(&["learn", "import", s(&exported), "--file", s(&copy)])
            .status
            .success()
    );
    let a = trine(&["learn", "show", "--file", s(&file)]);
    let b = trine(&["learn", "show", "--file", s(&copy)]);
    assert_eq!(stdout(&a), stdout(&b));
    assert_eq!(stdout(&a).lines().count(), 20);
    let first = stdout(&a).lines().next().unwrap_or("").to_string();
    assert!(
        first.contains("| depth ") && first.ends_with("| search"),
        "{first}"
    );
    let out = trine(&["learn", "clear", "--file", s(&file)]);
    assert!(out.status.success());
    assert_eq!(
        last_line(&trine(&["learn", "stats", "--file", s(&file)])),
        "0 entries"
    );
}

#[test]
fn damaged_and_unusable_files() {
    let dir = TempDir::new("damaged");
    let file = dir.0.join("bad.learn");
    std::fs::write(&file, b"garbage garbage garbage garbage garbage").expect("write");
    let out = trine(&["learn", "stats", "--file", s(&file)]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("damaged"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("bad.learn.corrupt-"),
        "{}",
        stderr(&out)
    );
    assert_eq!(last_line(&out), "0 entries");
    let plain = dir.0.join("plain");
    std::fs::write(&plain, b"x").expect("write");
    let under = plain.join("x.learn");
    assert_eq!(
        trine(&["learn", "clear", "--file", s(&under)])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        trine(&["learn", "stats", "--file", s(&under)])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn killed_writers_never_leave_a_torn_file() {
    let dir = TempDir::new("killed");
    let file = dir.0.join("k.learn");
    let mut seen = HashSet::new();
    let mut epds = Vec::new();
    for i in 0..4u64 {
        let path = dir.0.join(format!("k{i}.epd"));
        let lines = epd_lines(1500, 0xdead_beef + i, &mut seen);
        std::fs::write(&path, lines.join("\n") + "\n").expect("write epd");
        epds.push(path);
    }
    let mut rng = 77u64;
    for round in 0..24 {
        let epd = &epds[round % epds.len()];
        let mut child = Command::new(env!("CARGO_BIN_EXE_trine"))
            .args(["learn", "import", s(epd), "--file", s(&file)])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn trine");
        let delay = xorshift(&mut rng) % 80;
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
        let out = trine(&["learn", "stats", "--file", s(&file)]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            !stderr(&out).contains("damaged"),
            "round {round}: {}",
            stderr(&out)
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
