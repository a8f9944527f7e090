//! The one harness for the integration tests that run Trine, or another program, as a process:
//! the engine's own tests (`mod engine_process;`) and the tuning crate's
//! (`tuning/tests/common/mod.rs` includes this file by path). It locates the `trine` binary
//! ([`trine_bin`]), talks to an engine over piped stdin/stdout ([`Engine`]: every expectation has
//! a deadline, and a failure shows the conversation and the engine's stderr), and runs a program
//! to its end under a wall-clock limit, collecting what it printed ([`run_to_end`]). Scratch
//! directories are [`tempdir::TempDir`]; the UCI answers of a search, and their checks against
//! the rules of chess, are in [`uci`].
//!
//! In the engine's own tests `trine` is the binary cargo built for them (`CARGO_BIN_EXE_trine`).
//! Another crate's tests never trust a `trine` left in `target/` by an earlier build: the first
//! call of [`trine_bin`] in a test process runs `cargo build --release -p trine --bin trine` into
//! the test's own target directory, and every later call returns that binary.

#![allow(dead_code)]

pub mod tempdir;
pub mod uci;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How many transcript entries a failure message shows.
const TRANSCRIPT_TAIL: usize = 300;

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

/// Calls `sink` with each line of `stream` (invalid UTF-8 replaced, line ends trimmed) until the
/// stream ends or `sink` returns false.
fn read_lines(stream: impl Read, mut sink: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(stream);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf)
                    .trim_end_matches(['\n', '\r'])
                    .to_string();
                if !sink(line) {
                    break;
                }
            }
        }
    }
}

/// A thread that hands `stream` over line by line until it ends or nobody listens.
fn line_reader(stream: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || read_lines(stream, |line| tx.send(line).is_ok()));
    rx
}

/// A thread that keeps every line of `stream` in the returned list.
fn line_keeper(stream: impl Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&kept);
    std::thread::spawn(move || {
        read_lines(stream, |line| {
            if let Ok(mut lines) = sink.lock() {
                lines.push(line);
            }
            true
        })
    });
    kept
}

/// A thread that reads `stream` to its end and returns what it read (invalid UTF-8 replaced).
fn collector(mut stream: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// `text`, cut to its first 160 characters (with its length in bytes) when longer.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 160;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}... ({} bytes)", text.len())
    }
}

/// A running engine process and everything said in both directions. Dropping it closes the
/// engine's stdin and kills what is still running.
pub struct Engine {
    /// The process.
    pub child: Child,
    stdin: Option<ChildStdin>,
    /// Its stdout, one line at a time. Reading it directly bypasses the transcript and the
    /// lines [`Engine::expect_none_within`] put back.
    pub lines: mpsc::Receiver<String>,
    /// Lines already received but not yet consumed by an expectation.
    backlog: VecDeque<String>,
    /// Everything sent (`>>`) and received (`<<`), for failure messages.
    transcript: Vec<String>,
    /// The engine's standard error.
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Engine {
    /// Starts [`trine_bin`] with no arguments (the UCI loop).
    pub fn start() -> Engine {
        Engine::spawn(Command::new(trine_bin()))
    }

    /// Starts [`trine_bin`] with its address space limited to `mb` MiB (`ulimit -v` in `sh`), so
    /// that a test of a refused allocation cannot take the memory of a big machine.
    pub fn start_with_address_space_limit(mb: u64) -> Engine {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -v {} && exec \"$0\"", mb * 1024))
            .arg(trine_bin());
        Engine::spawn(command)
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts `command` with piped stdin, stdout and stderr.
    pub fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{:?} starts: {e}", command.get_program()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        Engine {
            child,
            stdin: Some(stdin),
            lines: line_reader(stdout),
            backlog: VecDeque::new(),
            transcript: Vec::new(),
            stderr: line_keeper(stderr),
        }
    }

    /// Fails the test with `why`, the end of the conversation and the engine's stderr.
    pub fn fail(&self, why: &str) -> ! {
        let skip = self.transcript.len().saturating_sub(TRANSCRIPT_TAIL);
        let transcript = self.transcript[skip..].join("\n");
        let stderr = self
            .stderr()
            .iter()
            .map(|l| shorten(l))
            .collect::<Vec<_>>()
            .join("\n");
        panic!("{why}\n--- transcript (last {TRANSCRIPT_TAIL}) ---\n{transcript}\n--- stderr ---\n{stderr}\n---");
    }

    /// The lines the engine has written to stderr so far.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr
            .lock()
            .map(|lines| lines.clone())
            .unwrap_or_default()
    }

    /// Sends `bytes` as they are (a line needs its own `\n`).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        self.transcript.push(format!(
            ">> {}",
            shorten(text.trim_end_matches(['\n', '\r']))
        ));
        let result = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(bytes).and_then(|()| stdin.flush()),
            None => Ok(()),
        };
        if let Err(e) = result {
            self.fail(&format!("writing to the engine failed: {e}"));
        }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// The next output line, or `None` after `timeout`; the test fails if the engine has closed
    /// its output.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        if let Some(line) = self.backlog.pop_front() {
            return Some(line);
        }
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(format!("<< {}", shorten(&line)));
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                self.fail("the engine closed its output (crashed or exited)")
            }
        }
    }

    /// Waits at most `timeout` for a line matching `pred`; returns every line seen, the matching
    /// one last.
    pub fn until_match(&mut self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        self.wait_for(pred, timeout, "a matching line")
    }

    /// Waits at most `timeout` for a line starting with `prefix`; returns every line seen, the
    /// matching one last.
    pub fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        self.wait_for(|l| l.starts_with(prefix), timeout, &format!("'{prefix}'"))
    }

    fn wait_for(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
        what: &str,
    ) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = pred(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                None => self.fail(&format!("no {what} within {timeout:?}")),
            }
        }
    }

    /// Fails if a line matching `pred` arrives within `window`; the lines read are kept for
    /// later expectations.
    pub fn expect_none_within(
        &mut self,
        pred: impl Fn(&str) -> bool,
        window: Duration,
        what: &str,
    ) {
        let deadline = Instant::now() + window;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = self.next_line(left) else {
                break;
            };
            if pred(&line) {
                self.fail(&format!("unexpected {what} within {window:?}: {line}"));
            }
            seen.push(line);
        }
        for line in seen.into_iter().rev() {
            self.backlog.push_front(line);
        }
    }

    /// `isready` → `readyok` within `timeout`; returns the lines that came before `readyok`.
    pub fn sync(&mut self, timeout: Duration) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until_match(|l| l == "readyok", timeout);
        lines.pop();
        lines
    }

    /// Waits for the process to exit; fails if it takes longer than `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => self.fail(&format!("the engine did not exit within {timeout:?}")),
                Err(e) => self.fail(&format!("waiting for the engine failed: {e}")),
            }
        }
    }

    /// Sends `quit` and waits for the process to end.
    pub fn quit(mut self) {
        self.send("quit");
        let _ = self.child.wait();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Closing stdin first lets a healthy engine exit on EOF; killing covers the rest.
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a program run to its end produced.
pub struct Run {
    /// Exit status code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// Everything printed on stdout.
    pub stdout: String,
    /// Everything printed on stderr.
    pub stderr: String,
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
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Run {
        code: status.code(),
        output: format!("{stdout}{stderr}"),
        stdout,
        stderr,
        elapsed: start.elapsed(),
    }
}
