//! The command-line tools write to a pipe whose reader may go away early (`trine spsa | grep -q`,
//! `trine bench | head -1`): the process must then finish normally, not panic on the closed pipe.

use std::process::{Command, Stdio};

mod engine_process;
use engine_process::trine_bin;

/// Runs `trine args` with its stdout a pipe that is closed before the child writes anything;
/// returns the exit status and stderr.
fn run_with_closed_stdout(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(trine_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn trine");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for trine");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn spsa_survives_a_closed_stdout() {
    let (status, stderr) = run_with_closed_stdout(&["spsa"]);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(status.success(), "status {status:?}, stderr: {stderr}");
}

#[test]
fn perft_divide_survives_a_closed_stdout() {
    let (status, stderr) = run_with_closed_stdout(&[
        "perft",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "--depth",
        "2",
    ]);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(status.success(), "status {status:?}, stderr: {stderr}");
}
