//! The one harness for the integration tests that run Trine, or another program, as a process:
//! the engine's own tests (`mod engine_process;`) and the tuning crate's
//! (`tuning/tests/common/mod.rs` includes this file by path). It locates the `trine` binary
//! ([`trine_bin`]), talks to an engine over piped stdin/stdout with a reader thread that hands
//! stdout over line by line ([`Engine`]), and runs a program to its end under a wall-clock limit,
//! collecting what it printed ([`run_to_end`]).
//!
//! In the engine's own tests `trine` is the binary cargo built for them (`CARGO_BIN_EXE_trine`).
//! Elsewhere it is `$TRINE_BIN` if set; otherwise `trine` in the profile directory of the test's
//! own target directory (`<target>/release/trine`, which `cargo test --release --workspace`
//! builds), and if that is missing it is built with `cargo build --release --bin trine`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `trine` binary under test (see the module documentation).
pub fn trine_bin() -> PathBuf {
    if let Some(p) = option_env!("CARGO_BIN_EXE_trine") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("TRINE_BIN") {
        return PathBuf::from(p);
    }
    static BUILD: Mutex<()> = Mutex::new(());
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
            .args(["build", "--release", "-p", "trine", "--bin", "trine"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
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
