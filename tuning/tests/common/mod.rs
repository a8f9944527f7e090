//! Helpers shared by the integration tests: locating the Trine binary and the test engines,
//! running `trine-match` with a hard wall-clock limit, and scratch directories.
//!
//! The Trine binary is `$TRINE_BIN` if set; otherwise `trine` beside the test's own target
//! directory (`<target>/release/trine`, which `cargo test --release --workspace` builds), and
//! if that is missing it is built with `cargo build --release --bin trine`.

#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static BUILD: Mutex<()> = Mutex::new(());

/// The repository root (the directory above `tuning/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tuning/ has a parent")
        .to_path_buf()
}

/// The Trine binary to test against.
pub fn trine_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("TRINE_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test executable path");
    // <target>/release/deps/<test> → <target>/release/trine
    let candidate = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join(format!("trine{}", std::env::consts::EXE_SUFFIX)))
        .expect("target directory");
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    if !candidate.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let status = Command::new(cargo)
            .args(["build", "--release", "--bin", "trine"])
            .current_dir(repo_root())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building trine failed");
    }
    assert!(
        candidate.exists(),
        "no trine binary at {}",
        candidate.display()
    );
    candidate
}

/// The `trine-match` binary of this crate.
pub fn match_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_trine-match"))
}

/// A deliberately broken engine script in `tests/engines/`.
pub fn broken_engine(script: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/engines")
        .join(script)
        .display()
        .to_string()
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trine-tuning-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Eight opening positions (EPD), written to `dir/openings.epd`.
pub fn write_openings(dir: &Path) -> PathBuf {
    let text = "\
rnbqkb1r/ppp2pp1/4pn1p/3p4/2PP4/2N1P3/PP3PPP/R1BQKBNR w KQkq -
rnbqkbnr/1p2pp1p/p1p3p1/3p4/2P5/2N1PN2/PP1P1PPP/R1BQKB1R w KQkq -
r1bqkb1r/pppp1pp1/2n2n2/3Np2p/2P5/6P1/PP1PPP1P/R1BQKBNR w KQkq -
rnbqkbnr/pp3ppp/4p3/2pp4/3P4/4PN2/PPP2PPP/RNBQKB1R w KQkq - hmvc 0; fmvn 4;
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -
rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -
rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -
";
    let path = dir.join("openings.epd");
    std::fs::write(&path, text).expect("write openings");
    path
}

/// What a `trine-match` run produced.
pub struct Run {
    /// Exit status code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// Everything printed on stdout and stderr.
    pub output: String,
    /// Wall-clock time taken.
    pub elapsed: Duration,
}

/// Runs `trine-match` with `args`, killing it and failing the test if it takes longer than
/// `limit`.
pub fn run_match(args: &[String], limit: Duration) -> Run {
    let start = Instant::now();
    let mut child = Command::new(match_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start trine-match");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("trine-match did not finish within {limit:?}: args {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut output = out_thread.join().unwrap_or_default();
    output.push_str(&err_thread.join().unwrap_or_default());
    Run {
        code: status.code(),
        output,
        elapsed: start.elapsed(),
    }
}

/// Splits a command line written with spaces into arguments.
pub fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// The PGN `Termination` tags of a PGN text, in order.
pub fn terminations(pgn: &str) -> Vec<String> {
    pgn.lines()
        .filter_map(|l| l.strip_prefix("[Termination \""))
        .map(|l| l.trim_end_matches("\"]").to_string())
        .collect()
}

/// The PGN `Result` tags of a PGN text, in order.
pub fn results(pgn: &str) -> Vec<String> {
    pgn.lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|l| l.trim_end_matches("\"]").to_string())
        .collect()
}
