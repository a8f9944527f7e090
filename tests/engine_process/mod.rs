//! The one harness for the integration tests that run Trine, or another program, as a process:
//! the engine's own tests (`mod engine_process;`) and the tuning crate's
//! (`tuning/tests/common/mod.rs` includes this file by path). It locates the `trine` binary
//! ([`trine_bin`]), talks to an engine over piped stdin/stdout with a reader thread that hands
//! stdout over line by line ([`Engine`]), and runs a program to its end under a wall-clock limit,
//! collecting what it printed ([`run_to_end`]).
//!
//! In the engine's own tests `trine` is the binary cargo built for them (`CARGO_BIN_EXE_trine`).
//! Another crate's tests never trust a `trine` left in `target/` by an earlier build: the first
//! call of [`trine_bin`] in a test process runs `cargo build --release -p trine --bin trine` into
//! the test's own target directory, and every later call returns that binary.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `trine` binary under test (see the module documentation).
pub fn trine_bin() -> PathBuf {
    if let Some(p) = option_env!("CARGO_BIN_EXE_trine") {
        return PathBuf::from(p);
    }
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(build_trine).clone()
}

/// Builds the current `trine` (release) with `$CARGO` (the cargo running the tests; `cargo` if
/// unset) into [`target_dir`], and returns the binary's path.
fn build_trine() -> PathBuf {
    let cargo = std::env::var_os("CARGO")
        .or_else(|| option_env!("CARGO").map(Into::into))
        .unwrap_or_else(|| "cargo".into());
    let target = target_dir();
    let output = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "-p",
            "trine",
            "--bin",
            "trine",
            "--target-dir",
        ])
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{cargo:?} build: {e}"));
    assert!(
        output.status.success(),
        "building trine failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bin = target
        .join("release")
        .join(format!("trine{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "no trine binary at {}", bin.display());
    bin
}

/// The target directory this test executable was built in: `<target>` of
/// `<target>/<profile>/deps/<test>`; `$CARGO_TARGET_DIR` if the executable is not in a `deps`
/// directory.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "deps"));
    if let Some(target) = deps.and_then(Path::parent).and_then(Path::parent) {
        return target.to_path_buf();
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "no target directory above {}: set CARGO_TARGET_DIR",
            exe.display()
        ),
    }
}

/// A thread that hands `stream` over line by line until it ends or nobody listens.
fn line_reader(stream: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A thread that reads `stream` to its end and returns what it read.
fn collector(mut stream: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stream.read_to_string(&mut s);
        s
    })
}

/// A running engine process.
pub struct Engine {
    /// The process.
    pub child: Child,
    stdin: ChildStdin,
    /// Its stdout, one line at a time.
    pub lines: mpsc::Receiver<String>,
}

impl Engine {
    /// Starts [`trine_bin`] with no arguments (the UCI loop).
    pub fn start() -> Engine {
        Engine::spawn(Command::new(trine_bin()))
    }

    /// Starts `command` with piped stdin and stdout (stderr is inherited).
    pub fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{:?} starts: {e}", command.get_program()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        Engine {
            child,
            stdin,
            lines: line_reader(stdout),
        }
    }

    /// Sends one line.
    pub fn send(&mut self, s: &str) {
        writeln!(self.stdin, "{s}").expect("engine stdin open");
        self.stdin.flush().expect("engine stdin flush");
    }

    /// The next output line, or `None` after `timeout`.
    pub fn next_line(&self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }
}

/// What a program run to its end produced.
pub struct Run {
    /// Exit status code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// Everything printed on stdout, then everything printed on stderr.
    pub output: String,
    /// Wall-clock time taken.
    pub elapsed: Duration,
}

/// Runs `command` with stdin closed until it exits, collecting its stdout and stderr; past
/// `limit` it is killed and the test fails.
pub fn run_to_end(command: &mut Command, limit: Duration) -> Run {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{:?} starts: {e}", command.get_program()));
    let out = collector(child.stdout.take().expect("piped stdout"));
    let err = collector(child.stderr.take().expect("piped stderr"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{:?} did not finish within {limit:?}: args {:?}",
                command.get_program(),
                command.get_args().collect::<Vec<_>>()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut output = out.join().unwrap_or_default();
    output.push_str(&err.join().unwrap_or_default());
    Run {
        code: status.code(),
        output,
        elapsed: start.elapsed(),
    }
}
