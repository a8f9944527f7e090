//! What a UCI engine answers, and its checks against the rules of chess (shakmaty): the output of
//! one `go` ([`SearchOutput`]), `info` lines ([`parse_info`]), and legality of the best move, the
//! ponder move and every PV ([`Engine::check_search`]).

use std::str::FromStr;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::Engine;

/// How long any single expectation of the UCI protocol tests may wait.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// What one `go` produced.
pub struct SearchOutput {
    /// The `bestmove ...` line.
    pub bestmove_line: String,
    /// Every line between the `go` and the `bestmove` (infos, info strings, anything else).
    pub lines: Vec<String>,
    /// Every `info ...` line among `lines`.
    pub infos: Vec<String>,
    /// From sending `go` to receiving `bestmove`.
    pub elapsed: Duration,
}

impl SearchOutput {
    /// Splits the lines up to and including a `bestmove` line.
    pub fn from_lines(mut lines: Vec<String>, elapsed: Duration) -> SearchOutput {
        let bestmove_line = lines.pop().unwrap_or_default();
        let infos = lines
            .iter()
            .filter(|l| l.starts_with("info"))
            .cloned()
            .collect();
        SearchOutput {
            bestmove_line,
            lines,
            infos,
            elapsed,
        }
    }

    /// The best move as the engine wrote it.
    pub fn bestmove(&self) -> &str {
        self.bestmove_line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
    }

    /// The line just before `bestmove`, parsed: the search's totals (`info nodes ... time ...`).
    pub fn totals(&self) -> Option<Info> {
        self.lines.last().and_then(|l| parse_info(l))
    }

    /// The ponder move, if the `bestmove` line names one.
    pub fn ponder(&self) -> Option<&str> {
        let tokens: Vec<&str> = self.bestmove_line.split_whitespace().collect();
        match tokens.as_slice() {
            ["bestmove", _, "ponder", ponder, ..] => Some(ponder),
            _ => None,
        }
    }
}

impl Engine {
    /// Starts [`super::trine_bin`] and completes the `uci` handshake, each answer within
    /// `timeout`.
    pub fn ready(timeout: Duration) -> Engine {
        Engine::start().handshake(timeout)
    }

    /// `uci` and `isready`, each answered within `timeout`.
    pub fn handshake(self, timeout: Duration) -> Engine {
        let mut engine = self;
        engine.send("uci");
        engine.until_match(|l| l == "uciok", timeout);
        engine.sync(timeout);
        engine
    }

    /// Sends a `go` command and waits at most `timeout` for its `bestmove`.
    pub fn search(&mut self, go: &str, timeout: Duration) -> SearchOutput {
        let started = Instant::now();
        self.send(go);
        let lines = self.until_match(is_bestmove, timeout);
        SearchOutput::from_lines(lines, started.elapsed())
    }

    /// Checks a finished search: bestmove, ponder move and every PV legal from `root`.
    pub fn check_search(&self, root: &Chess, out: &SearchOutput) {
        if let Err(why) = validate_search(root, out) {
            self.fail(&why);
        }
    }
}

/// The position `fen` (the start position for `None`) after `moves`.
pub fn position_from(fen: Option<&str>, moves: &[&str], mode: CastlingMode) -> Chess {
    let mut pos = match fen {
        None => Chess::default(),
        Some(fen) => Fen::from_str(fen)
            .expect("test FEN parses")
            .into_position(mode)
            .expect("test FEN is a legal position"),
    };
    for text in moves {
        let m = parse_legal(&pos, text).expect("test move is legal");
        pos.play_unchecked(m);
    }
    pos
}

/// The legal move `text` (UCI notation) in `pos`.
pub fn parse_legal(pos: &Chess, text: &str) -> Result<Move, String> {
    let uci = UciMove::from_str(text).map_err(|_| format!("'{text}' is not UCI move syntax"))?;
    uci.to_move(pos)
        .map_err(|_| format!("'{text}' is illegal in {}", fen_of(pos)))
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// Plays a PV from `root`, failing on the first illegal move.
pub fn replay(root: &Chess, moves: &[&str]) -> Result<Chess, String> {
    let mut pos = root.clone();
    for text in moves {
        let m = parse_legal(&pos, text)?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

/// The score of an `info` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i64),
    Mate(i64),
}

/// The fields of an `info` line the tests look at.
#[derive(Debug, Default)]
pub struct Info {
    pub depth: Option<u32>,
    pub multipv: Option<u32>,
    pub score: Option<Score>,
    /// A `lowerbound` or `upperbound` score.
    pub bound: bool,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time: Option<u64>,
    pub tbhits: Option<u64>,
    pub pv: Vec<String>,
    /// An `info string ...` line.
    pub is_string: bool,
}

fn number<T: FromStr>(tokens: &[&str], i: usize) -> Option<T> {
    tokens.get(i).and_then(|t| t.parse().ok())
}

/// Parses an `info` line (`None` for any other line).
pub fn parse_info(line: &str) -> Option<Info> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() != Some(&"info") {
        return None;
    }
    let mut info = Info::default();
    let mut i = 1;
    while let Some(&token) = tokens.get(i) {
        match token {
            "string" => {
                info.is_string = true;
                break;
            }
            "pv" => {
                info.pv = tokens[i + 1..].iter().map(|s| (*s).to_string()).collect();
                break;
            }
            "refutation" | "currline" => break,
            "depth" => {
                info.depth = number(&tokens, i + 1);
                i += 2;
            }
            "multipv" => {
                info.multipv = number(&tokens, i + 1);
                i += 2;
            }
            "nodes" => {
                info.nodes = number(&tokens, i + 1);
                i += 2;
            }
            "nps" => {
                info.nps = number(&tokens, i + 1);
                i += 2;
            }
            "time" => {
                info.time = number(&tokens, i + 1);
                i += 2;
            }
            "score" => {
                let value = number(&tokens, i + 2);
                info.score = match tokens.get(i + 1) {
                    Some(&"cp") => value.map(Score::Cp),
                    Some(&"mate") => value.map(Score::Mate),
                    _ => None,
                };
                i += 3;
            }
            "lowerbound" | "upperbound" => {
                info.bound = true;
                i += 1;
            }
            "wdl" => i += 4,
            "tbhits" => {
                info.tbhits = number(&tokens, i + 1);
                i += 2;
            }
            "seldepth" | "hashfull" | "sbhits" | "cpuload" | "currmove" | "currmovenumber" => {
                i += 2
            }
            _ => i += 1,
        }
    }
    Some(info)
}

/// Bestmove, ponder move and every PV of a search must be legal from `root`.
pub fn validate_search(root: &Chess, out: &SearchOutput) -> Result<(), String> {
    let tokens: Vec<&str> = out.bestmove_line.split_whitespace().collect();
    let best = match tokens.as_slice() {
        ["bestmove", best] | ["bestmove", best, "ponder", _] => *best,
        _ => return Err(format!("malformed bestmove line '{}'", out.bestmove_line)),
    };
    if root.legal_moves().is_empty() {
        if best != "0000" {
            return Err(format!("no legal moves, yet bestmove is '{best}'"));
        }
        return Ok(());
    }
    let after_best = replay(root, &[best])?;
    if let Some(ponder) = out.ponder() {
        parse_legal(&after_best, ponder).map_err(|e| format!("ponder move: {e}"))?;
    }
    for line in &out.infos {
        let Some(info) = parse_info(line) else {
            continue;
        };
        if info.is_string || info.pv.is_empty() {
            continue;
        }
        let pv: Vec<&str> = info.pv.iter().map(String::as_str).collect();
        replay(root, &pv).map_err(|e| format!("bad pv in '{line}': {e}"))?;
    }
    // When the final PV starts with the best move and goes on, the engine names a ponder move.
    let last_pv = out
        .infos
        .iter()
        .filter_map(|l| parse_info(l))
        .rfind(|i| !i.pv.is_empty() && i.multipv.unwrap_or(1) == 1);
    if let Some(info) = last_pv {
        if info.pv.len() >= 2 && info.pv[0] == best && out.ponder().is_none() {
            return Err(format!(
                "the PV has {} moves but bestmove names no ponder move",
                info.pv.len()
            ));
        }
    }
    Ok(())
}

/// An error the engine shows the user.
pub fn is_error(line: &str) -> bool {
    line.starts_with("info string error:")
}

/// An error or a warning the engine shows the user.
pub fn is_diagnostic(line: &str) -> bool {
    is_error(line) || line.starts_with("info string warning:")
}

/// A `bestmove` line.
pub fn is_bestmove(line: &str) -> bool {
    line.starts_with("bestmove")
}
