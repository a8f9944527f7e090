//! Helpers shared by the tuning crate's integration tests: the engine-process harness of the
//! engine's tests (`tests/engine_process/mod.rs` at the repository root: the Trine binary, and
//! programs run under a wall-clock limit), plus the test engines, `trine-match` runs, scratch
//! directories and PGN tags.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[path = "../../../tests/engine_process/mod.rs"]
mod engine_process;

// Not every test binary uses every item.
#[allow(unused_imports)]
pub use engine_process::{run_to_end, trine_bin, Engine, Run};

/// The repository root (the directory above `tuning/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tuning/ has a parent")
        .to_path_buf()
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

/// Runs `trine-match` with `args`, killing it and failing the test if it takes longer than
/// `limit`.
pub fn run_match(args: &[String], limit: Duration) -> Run {
    run_to_end(Command::new(match_bin()).args(args), limit)
}

/// Splits a command line written with spaces into arguments.
pub fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// The values of the PGN tag `name` in a PGN text, in order.
pub fn tag_values(pgn: &str, name: &str) -> Vec<String> {
    let prefix = format!("[{name} \"");
    pgn.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|l| l.trim_end_matches("\"]").to_string())
        .collect()
}

/// The PGN `Termination` tags of a PGN text, in order.
pub fn terminations(pgn: &str) -> Vec<String> {
    tag_values(pgn, "Termination")
}

/// The PGN `Result` tags of a PGN text, in order.
pub fn results(pgn: &str) -> Vec<String> {
    tag_values(pgn, "Result")
}
