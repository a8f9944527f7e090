//! The UCI conversation with one engine: handshake (`uci`/`uciok`, options,
//! `isready`/`readyok`), new games, searches (`position` + `go` → `info ... score` and
//! `bestmove`), and stopping. Every wait has a deadline; a closed pipe or a missed deadline
//! comes back as a [`Failure`] instead of a hang.

use super::process::{self, EngineProcess, Received};
use super::EngineConfig;
use std::fmt;
use std::time::{Duration, Instant};

/// Why talking to an engine failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The engine could not be started, or closed its output (exited or crashed).
    Disconnected,
    /// The engine did not answer before the deadline.
    TimedOut,
}

/// A failure with a human-readable account of what was being waited for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure it was.
    pub kind: FailureKind,
    /// What happened, for reports and PGN comments.
    pub detail: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

/// A score reported in an `info` line, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: getting mated).
    Mate(i32),
}

impl Score {
    /// The score on one centipawn scale: mates are beyond ±99,000.
    pub fn to_cp(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 100_000 - n,
            Score::Mate(n) => -100_000 - n,
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(cp) => write!(f, "{:+.2}", f64::from(cp) / 100.0),
            Score::Mate(n) if n > 0 => write!(f, "+M{n}"),
            Score::Mate(n) => write!(f, "-M{}", -n),
        }
    }
}

/// The engine's answer to a `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The move token after `bestmove` (not yet checked in any way).
    pub bestmove: String,
    /// The last score of the search.
    pub score: Option<Score>,
    /// The depth of the last `info` line that had one.
    pub depth: Option<u32>,
    /// Time from sending `go` to receiving `bestmove`.
    pub elapsed: Duration,
}

/// Score and depth found in one `info` line (`None` for lines without them).
pub fn parse_info(line: &str) -> (Option<Score>, Option<u32>) {
    let mut tokens = line.split_whitespace();
    if tokens.next() != Some("info") {
        return (None, None);
    }
    let (mut score, mut depth) = (None, None);
    while let Some(t) = tokens.next() {
        match t {
            "string" => break,
            "depth" => depth = tokens.next().and_then(|v| v.parse().ok()),
            "score" => match (tokens.next(), tokens.next().and_then(|v| v.parse().ok())) {
                (Some("cp"), Some(v)) => score = Some(Score::Cp(v)),
                (Some("mate"), Some(v)) => score = Some(Score::Mate(v)),
                _ => {}
            },
            _ => {}
        }
    }
    (score, depth)
}

/// A started UCI engine.
pub struct UciEngine {
    process: EngineProcess,
    name: String,
    /// The name the engine gave in `id name`, if any.
    pub id_name: Option<String>,
}

impl UciEngine {
    /// Starts the engine, completes the `uci` handshake, sets the options and waits for
    /// `readyok`; each step must finish within `timeout`.
    pub fn start(config: &EngineConfig, timeout: Duration) -> Result<Self, Failure> {
        let process = EngineProcess::spawn(config).map_err(|e| Failure {
            kind: FailureKind::Disconnected,
            detail: format!("cannot start '{}': {e}", config.cmd.display()),
        })?;
        let mut engine = Self {
            process,
            name: config.name.clone(),
            id_name: None,
        };
        engine.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = engine.recv(deadline, "uciok")?;
            if line == "uciok" {
                break;
            }
            if let Some(id) = line.strip_prefix("id name ") {
                engine.id_name = Some(id.trim().to_string());
            }
        }
        for (name, value) in &config.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.is_ready(timeout)?;
        Ok(engine)
    }

    /// Sends `isready` and waits for `readyok`, discarding any other output. An engine reads
    /// its commands in order, so whatever it printed before it read `isready` (a late `info`,
    /// a second `bestmove` from a stopped search) comes before `readyok` and is dropped here
    /// instead of being taken as the answer to the next `go`. With `--debug` each discarded
    /// line is reported.
    pub fn is_ready(&mut self, timeout: Duration) -> Result<(), Failure> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.recv(deadline, "readyok")?;
            if line == "readyok" {
                return Ok(());
            }
            if process::debug() {
                eprintln!("{}: discarded stale output: {line}", self.name);
            }
        }
    }

    /// Starts a new game: `ucinewgame`, then `isready`.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), Failure> {
        self.process.drain();
        self.send("ucinewgame")?;
        self.is_ready(timeout)
    }

    /// Sends `position` and `go` and waits until `deadline_after` has passed since `go` for the
    /// `bestmove`, keeping the last score and depth seen in `info` lines. The first `bestmove`
    /// read is the answer, so output left over from an earlier search must be discarded
    /// first, with [`UciEngine::is_ready`].
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline_after: Duration,
    ) -> Result<SearchReply, Failure> {
        self.send(position)?;
        self.send(go)?;
        let sent = Instant::now();
        let deadline = sent + deadline_after;
        let (mut score, mut depth) = (None, None);
        loop {
            match self.process.recv(deadline) {
                Received::Line(line, at) => {
                    if line.starts_with("info") {
                        let (s, d) = parse_info(&line);
                        score = s.or(score);
                        depth = d.or(depth);
                    } else if let Some(rest) = line.strip_prefix("bestmove") {
                        let bestmove = rest.split_whitespace().next().unwrap_or("").to_string();
                        return Ok(SearchReply {
                            bestmove,
                            score,
                            depth,
                            elapsed: at.saturating_duration_since(sent),
                        });
                    }
                }
                Received::Closed => return Err(self.closed("bestmove")),
                Received::TimedOut => {
                    return Err(Failure {
                        kind: FailureKind::TimedOut,
                        detail: format!(
                            "{} sent no bestmove within {} ms",
                            self.name,
                            deadline_after.as_millis()
                        ),
                    })
                }
            }
        }
    }

    /// Sends `stop` to a search that overran and waits up to `wait` for its `bestmove`;
    /// `false` if the engine did not answer (it should then be killed).
    pub fn stop_search(&mut self, wait: Duration) -> bool {
        if self.send("stop").is_err() {
            return false;
        }
        let deadline = Instant::now() + wait;
        loop {
            match self.process.recv(deadline) {
                Received::Line(line, _) if line.starts_with("bestmove") => return true,
                Received::Line(..) => {}
                Received::Closed | Received::TimedOut => return false,
            }
        }
    }

    /// Asks the engine to quit and kills it if it is still there after `grace`.
    pub fn shutdown(mut self, grace: Duration) {
        self.process.shutdown(grace);
    }

    /// Kills the engine at once.
    pub fn kill(mut self) {
        self.process.kill();
    }

    fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.process.send(line).map_err(|e| Failure {
            kind: FailureKind::Disconnected,
            detail: format!("{} cannot be written to ({e}): it has exited", self.name),
        })
    }

    fn recv(&mut self, deadline: Instant, waiting_for: &str) -> Result<String, Failure> {
        match self.process.recv(deadline) {
            Received::Line(line, _) => Ok(line),
            Received::Closed => Err(self.closed(waiting_for)),
            Received::TimedOut => Err(Failure {
                kind: FailureKind::TimedOut,
                detail: format!("{} did not send {waiting_for} in time", self.name),
            }),
        }
    }

    fn closed(&mut self, waiting_for: &str) -> Failure {
        Failure {
            kind: FailureKind::Disconnected,
            detail: format!(
                "{} closed its output while {waiting_for} was awaited (exited or crashed)",
                self.name
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_parsing() {
        let (s, d) = parse_info("info depth 12 seldepth 20 score cp -35 nodes 100 pv e2e4");
        assert_eq!(s, Some(Score::Cp(-35)));
        assert_eq!(d, Some(12));
        let (s, _) = parse_info("info depth 9 score mate -3 lowerbound pv a1a2");
        assert_eq!(s, Some(Score::Mate(-3)));
        let (s, d) = parse_info("info string depth 5 score cp 3");
        assert_eq!((s, d), (None, None));
        assert_eq!(parse_info("info score cp x"), (None, None));
    }

    #[test]
    fn score_scale_and_display() {
        assert_eq!(Score::Mate(3).to_cp(), 99_997);
        assert_eq!(Score::Mate(-2).to_cp(), -99_998);
        assert_eq!(Score::Mate(0).to_cp(), -100_000);
        assert_eq!(Score::Cp(-35).to_string(), "-0.35");
        assert_eq!(Score::Mate(4).to_string(), "+M4");
        assert_eq!(Score::Mate(-1).to_string(), "-M1");
    }
}
