//! Shared by the integration tests that talk to the built `trine` binary: the process with piped
//! stdin/stdout and a reader thread that hands stdout over line by line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `trine` process.
pub struct Engine {
    /// The process.
    pub child: Child,
    stdin: ChildStdin,
    /// Its stdout, one line at a time.
    pub lines: mpsc::Receiver<String>,
}

impl Engine {
    /// Starts `target/.../trine` with no arguments (the UCI loop).
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_trine"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the trine binary starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
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
