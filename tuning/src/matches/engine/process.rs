//! A running engine process: piped stdin/stdout, a reader thread that turns stdout into
//! time-stamped lines on a channel, reads with deadlines, and killing. Nothing here can block
//! forever on a dead or silent engine: every read takes a deadline and the reader thread is
//! never joined.

use super::EngineConfig;
use crossbeam::channel::{self, Receiver, RecvTimeoutError};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static DEBUG: AtomicBool = AtomicBool::new(false);

/// Turns on (or off) echoing of all engine traffic to stderr.
pub fn set_debug(on: bool) {
    DEBUG.store(on, Ordering::Relaxed);
}

/// Whether engine traffic is echoed to stderr (see [`set_debug`]).
pub fn debug() -> bool {
    DEBUG.load(Ordering::Relaxed)
}

/// What reading from an engine produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Received {
    /// A line (without its newline) and the moment the reader thread got it.
    Line(String, Instant),
    /// The engine closed its output: it exited or crashed.
    Closed,
    /// Nothing arrived before the deadline.
    TimedOut,
}

/// A spawned engine with its line channel.
pub struct EngineProcess {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(String, Instant)>,
}

impl EngineProcess {
    /// Starts the engine of `config` with piped stdin/stdout (stderr is discarded).
    pub fn spawn(config: &EngineConfig) -> std::io::Result<Self> {
        let mut cmd = Command::new(&config.cmd);
        cmd.args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &config.dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("engine stdout was not piped"))?;
        let (tx, rx) = channel::unbounded();
        let name = config.name.clone();
        let thread_name = format!("read-{name}");
        std::thread::Builder::new()
            .name(thread_name)
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let at = Instant::now();
                            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                            if DEBUG.load(Ordering::Relaxed) {
                                eprintln!("{name} > {line}");
                            }
                            if tx.send((line, at)).is_err() {
                                break;
                            }
                        }
                    }
                }
            })?;
        Ok(Self {
            name: config.name.clone(),
            child,
            stdin,
            lines: rx,
        })
    }

    /// Sends one line (a newline is added) and flushes; an error means the engine is gone.
    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        if DEBUG.load(Ordering::Relaxed) {
            eprintln!("{} < {line}", self.name);
        }
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("engine stdin closed"))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// Waits for the next line until `deadline`.
    pub fn recv(&self, deadline: Instant) -> Received {
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(timeout) {
            Ok((line, at)) => Received::Line(line, at),
            Err(RecvTimeoutError::Disconnected) => Received::Closed,
            Err(RecvTimeoutError::Timeout) => Received::TimedOut,
        }
    }

    /// Throws away every line already received.
    pub fn drain(&self) {
        while self.lines.try_recv().is_ok() {}
    }

    /// Whether the process has exited.
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Asks the engine to quit, gives it `grace` to do so, then kills it.
    pub fn shutdown(&mut self, grace: Duration) {
        let _ = self.send("quit");
        self.stdin = None;
        let end = Instant::now() + grace;
        while Instant::now() < end {
            if self.has_exited() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    /// Kills the process at once and reaps it.
    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.has_exited() {
            self.kill();
        }
    }
}
