//! Plays one game between two engine seats from an opening: sends the position and the
//! clocks, checks the time used and the legality of every `bestmove`, applies the rules of
//! chess and the adjudication rules, and deals with engines that crash, hang or overrun
//! (killed so that their seat restarts them for the next game).

use super::result::{color_name, GameResult, Termination};
use super::rules::{position_key, rules_verdict};
use crate::matches::adjudication::{Adjudicator, DrawRule, ResignRule, Verdict};
use crate::matches::engine::{EngineConfig, EngineSlot, Failure, FailureKind, SearchReply};
use crate::matches::openings::Opening;
use crate::matches::tc::{go_command, Clock, Limit, Overruns, TimeCheck, TimeControl};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};
use std::time::Duration;

/// How long an engine that overran its clock gets to answer `stop` before it is killed.
const STOP_WAIT: Duration = Duration::from_millis(1000);

/// The rules under which every game of a match is played.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Search limit.
    pub limit: Limit,
    /// How far past its clock (or movetime) a move may end before it loses on time, ms
    /// (moves within it are counted as overruns).
    pub margin_ms: u64,
    /// Resign adjudication.
    pub resign: Option<ResignRule>,
    /// Draw adjudication.
    pub draw: Option<DrawRule>,
    /// Draw after this many full moves (book included).
    pub max_moves: Option<u32>,
    /// Deadline for `uciok` and `readyok`.
    pub ready_timeout: Duration,
    /// Deadline for a `bestmove` under node or depth limits.
    pub search_timeout: Duration,
}

impl GameSettings {
    /// The limit `engine` plays under: its own clock (`tc=`) or the match's limit.
    pub fn limit_for(&self, engine: &EngineConfig) -> Limit {
        engine.tc.map_or(self.limit, Limit::Clock)
    }
}

/// A move of the game as it goes into the PGN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move in SAN with its check or mate suffix.
    pub san: String,
    /// A comment: `book`, or score/depth and time for engine moves.
    pub comment: Option<String>,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// White's engine name.
    pub white: String,
    /// Black's engine name.
    pub black: String,
    /// The opening it was played from.
    pub opening: Opening,
    /// Book moves, then engine moves.
    pub moves: Vec<PlayedMove>,
    /// How it ended.
    pub result: GameResult,
    /// White's and Black's moves that ended past the clock (or movetime) within the margin.
    pub overruns: [Overruns; 2],
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The result when `side`'s engine failed with `f` while `doing` something.
fn failure_result(side: Color, name: &str, f: &Failure, doing: &str, timed: bool) -> GameResult {
    let who = format!("{} ({name})", color_name(side));
    match f.kind {
        FailureKind::Disconnected => GameResult::win(
            !side,
            Termination::Disconnect,
            format!("{who} disconnects {doing}: {f}"),
        ),
        FailureKind::TimedOut if timed => GameResult::win(
            !side,
            Termination::TimeForfeit,
            format!("{who} loses on time: {f}"),
        ),
        FailureKind::TimedOut => GameResult::win(
            !side,
            Termination::Stall,
            format!("{who} stalls {doing}: {f}"),
        ),
    }
}

/// The comment for an engine move: `+0.35/12 0.120s`.
fn move_comment(reply: &SearchReply) -> String {
    let score = reply
        .score
        .map_or_else(|| "?".to_string(), |s| s.to_string());
    let depth = reply
        .depth
        .map_or_else(|| "?".to_string(), |d| d.to_string());
    format!("{score}/{depth} {:.3}s", reply.elapsed.as_secs_f64())
}

/// Plays one game: `white` and `black` are the seats, started or restarted as needed.
pub fn play_game(
    white: &mut EngineSlot,
    black: &mut EngineSlot,
    opening: &Opening,
    settings: &GameSettings,
) -> GameRecord {
    let names = [white.config.name.clone(), black.config.name.clone()];
    let slots = [white, black];
    let mut pos: Chess = opening.start.clone();
    let mut keys = vec![position_key(&pos)];
    let mut uci_moves: Vec<String> = Vec::new();
    let mut moves = Vec::new();
    for m in &opening.moves {
        uci_moves.push(UciMove::from_move(*m, CastlingMode::Standard).to_string());
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, *m);
        keys.push(position_key(&pos));
        moves.push(PlayedMove {
            san: san.to_string(),
            comment: Some("book".to_string()),
        });
    }
    let mut record = GameRecord {
        white: names[0].clone(),
        black: names[1].clone(),
        opening: opening.clone(),
        moves,
        result: GameResult::draw(Termination::MaxMoves, ""),
        overruns: [Overruns::default(); 2],
    };
    for side in [Color::White, Color::Black] {
        if let Err(f) = slots[idx(side)].prepare(settings.ready_timeout) {
            record.result = failure_result(side, &names[idx(side)], &f, "before the game", false);
            return record;
        }
    }
    let base = match &opening.fen {
        Some(fen) => format!("position fen {fen}"),
        None => "position startpos".to_string(),
    };
    // Each side runs its engine's clock (unused when the match has no clock).
    let clock_of = |slot: &EngineSlot| match settings.limit_for(&slot.config) {
        Limit::Clock(tc) => Clock::new(tc),
        _ => Clock::new(TimeControl {
            moves: None,
            base_ms: 0,
            inc_ms: 0,
        }),
    };
    let mut clocks = [clock_of(slots[0]), clock_of(slots[1])];
    let mut adjudicator = Adjudicator::new(settings.resign, settings.draw);
    let mut verdict = None;
    record.result = loop {
        if let Some(r) = rules_verdict(&pos, &keys) {
            break r;
        }
        match verdict {
            Some(Verdict::Resign { loser }) => {
                break GameResult::win(
                    !loser,
                    Termination::ResignAdjudication,
                    format!("{} resigns (resign adjudication)", color_name(loser)),
                )
            }
            Some(Verdict::Draw) => {
                break GameResult::draw(Termination::DrawAdjudication, "Draw by adjudication")
            }
            None => {}
        }
        let plies = record.moves.len() as u32;
        if settings.max_moves.is_some_and(|max| plies >= 2 * max) {
            break GameResult::draw(Termination::MaxMoves, "Draw by move limit (adjudication)");
        }
        let side = pos.turn();
        let i = idx(side);
        let go = go_command(&settings.limit, &clocks[0], &clocks[1], &clocks[i]);
        let wait_ms = match settings.limit {
            Limit::Clock(_) => clocks[i].remaining_ms() + settings.margin_ms,
            Limit::MoveTime(ms) => ms + settings.margin_ms,
            Limit::Nodes(_) | Limit::Depth(_) => settings.search_timeout.as_millis() as u64,
        };
        let position = if uci_moves.is_empty() {
            base.clone()
        } else {
            format!("{base} moves {}", uci_moves.join(" "))
        };
        // `isready` first: whatever the engine printed after its last answer (a late `info`,
        // a second `bestmove`) comes before `readyok` and is discarded, so the `bestmove` read
        // after `go` answers this `go`. The round trip is not charged to the clock.
        let reply = match slots[i].engine() {
            Some(engine) => match engine.is_ready(settings.ready_timeout) {
                Ok(()) => engine.search(&position, &go, Duration::from_millis(wait_ms)),
                Err(f) => {
                    slots[i].discard();
                    break failure_result(side, &names[i], &f, "before its search", false);
                }
            },
            None => Err(Failure {
                kind: FailureKind::Disconnected,
                detail: "engine not running".to_string(),
            }),
        };
        let reply = match reply {
            Ok(r) => r,
            Err(f) => {
                let timed = settings.limit.is_timed();
                let keep = f.kind == FailureKind::TimedOut
                    && timed
                    && slots[i].engine().is_some_and(|e| e.stop_search(STOP_WAIT));
                if !keep {
                    slots[i].discard();
                }
                break failure_result(side, &names[i], &f, "during its search", timed);
            }
        };
        let used = reply.elapsed.as_millis() as u64;
        let (check, allowed) = match settings.limit {
            Limit::Clock(_) => {
                let had = clocks[i].remaining_ms();
                (clocks[i].charge(used, settings.margin_ms), had)
            }
            Limit::MoveTime(ms) => (TimeCheck::of(used, ms, settings.margin_ms), ms),
            Limit::Nodes(_) | Limit::Depth(_) => (TimeCheck::InTime, 0),
        };
        record.overruns[i].record(check);
        if check == TimeCheck::Forfeit {
            break GameResult::win(
                !side,
                Termination::TimeForfeit,
                format!(
                    "{} ({}) loses on time (used {used} ms of {} ms + {} ms margin)",
                    color_name(side),
                    names[i],
                    allowed,
                    settings.margin_ms
                ),
            );
        }
        let Some(m) = legal_move(&pos, &reply.bestmove) else {
            break GameResult::win(
                !side,
                Termination::IllegalMove,
                format!(
                    "{} ({}) makes an illegal move: '{}'",
                    color_name(side),
                    names[i],
                    reply.bestmove
                ),
            );
        };
        uci_moves.push(UciMove::from_move(m, CastlingMode::Standard).to_string());
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        keys.push(position_key(&pos));
        record.moves.push(PlayedMove {
            san: san.to_string(),
            comment: Some(move_comment(&reply)),
        });
        let plies = record.moves.len() as u32;
        verdict = adjudicator.record(side, reply.score.map(|s| s.to_cp()), plies);
    };
    record
}

/// The legal move meant by a `bestmove` token in standard-chess UCI notation (castling as
/// `e1g1`), or `None` if it does not parse or is not legal in `pos`.
pub fn legal_move(pos: &Chess, token: &str) -> Option<Move> {
    let uci: UciMove = token.parse().ok()?;
    let m = uci.to_move(pos).ok()?;
    (UciMove::from_move(m, CastlingMode::Standard) == uci).then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_tokens() {
        let p = Chess::default();
        assert!(legal_move(&p, "e2e4").is_some());
        assert!(legal_move(&p, "e2e5").is_none());
        assert!(legal_move(&p, "0000").is_none());
        assert!(legal_move(&p, "(none)").is_none());
        assert!(legal_move(&p, "").is_none());
        assert!(legal_move(&p, "e7e5").is_none());
        let castle = crate::matches::openings::parse_epd("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
            .unwrap()
            .remove(0)
            .start;
        assert!(legal_move(&castle, "e1g1").is_some());
        // king-takes-rook castling is Chess960 notation, not accepted in standard chess
        assert!(legal_move(&castle, "e1h1").is_none());
    }

    #[test]
    fn an_engine_plays_its_own_clock_or_the_matchs_limit() {
        let settings = GameSettings {
            limit: Limit::Clock(TimeControl::parse("8+0.08").unwrap()),
            margin_ms: 0,
            resign: None,
            draw: None,
            max_moves: None,
            ready_timeout: Duration::from_secs(1),
            search_timeout: Duration::from_secs(1),
        };
        let tokens = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        let plain = EngineConfig::parse(&tokens("cmd=e"), &[]).unwrap();
        let odds = EngineConfig::parse(&tokens("cmd=e tc=2+0.02"), &[]).unwrap();
        assert_eq!(settings.limit_for(&plain), settings.limit);
        assert_eq!(
            settings.limit_for(&odds),
            Limit::Clock(TimeControl::parse("2+0.02").unwrap())
        );
        assert_eq!(settings.limit_for(&odds).pgn_tag(), "2+0.02");
    }
}
