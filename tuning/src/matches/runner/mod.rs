//! The match: schedules games (each opening twice, colours reversed) over worker threads,
//! each with its own pair of engine seats; collects results on the main thread, which counts
//! them ([`tally`]), writes the PGN, prints progress and statistics ([`report`]) and stops the
//! match early when the SPRT decides or when one side has every point after enough games.

pub mod report;
pub mod tally;

use crate::matches::engine::{EngineConfig, EngineSlot, UciEngine};
use crate::matches::game::{play_game, GameRecord, GameSettings};
use crate::matches::openings::Opening;
use crate::matches::pgn;
use crate::matches::stats::sprt::{Sprt, SprtDecision};
use crossbeam::channel;
use shakmaty::Color;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tally::Tally;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine A (index 0, the one whose results are reported) and engine B.
    pub engines: [EngineConfig; 2],
    /// Openings in the order they are used (cycled when there are more pairs than openings).
    pub openings: Vec<Opening>,
    /// Number of games (an odd number leaves the last pair incomplete).
    pub games: usize,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Rules and limits of each game.
    pub settings: GameSettings,
    /// PGN file to append the games to.
    pub pgn: Option<PathBuf>,
    /// SPRT to run (and stop on).
    pub sprt: Option<Sprt>,
    /// Print the statistics block every this many games (0: only at the end).
    pub report_every: usize,
    /// Stop once at least this many games are played and one engine has every point.
    pub decisive_stop: Option<usize>,
    /// PGN `Event` tag.
    pub event: String,
}

/// What a finished match returns.
#[derive(Clone, Debug)]
pub struct MatchOutcome {
    /// The totals.
    pub tally: Tally,
    /// Why the match ended before all games were played, if it did.
    pub stopped_early: Option<String>,
    /// The final summary text (also printed).
    pub summary: String,
}

enum Message {
    Done(Box<Finished>),
    Panicked(usize),
}

struct Finished {
    index: usize,
    a_color: Color,
    record: GameRecord,
}

/// Checks that an engine starts and answers the handshake, so that a wrong path is an error
/// at once instead of a match of forfeits.
fn check_engine(config: &EngineConfig, timeout: Duration) -> Result<(), String> {
    let engine = UciEngine::start(config, timeout)
        .map_err(|f| format!("engine '{}' failed to start: {f}", config.name))?;
    engine.shutdown(Duration::from_millis(300));
    Ok(())
}

/// Plays the match, printing progress to `out`, and returns the totals.
pub fn run_match(config: MatchConfig, out: &mut dyn Write) -> Result<MatchOutcome, String> {
    if config.openings.is_empty() {
        return Err("no openings".to_string());
    }
    for e in &config.engines {
        check_engine(e, config.settings.ready_timeout)?;
    }
    let mut pgn_file = match &config.pgn {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let names = [
        config.engines[0].name.clone(),
        config.engines[1].name.clone(),
    ];
    let config = Arc::new(config);
    let (job_tx, job_rx) = channel::unbounded::<usize>();
    let (tx, rx) = channel::unbounded::<Message>();
    let workers = config.concurrency.clamp(1, config.games.max(1));
    let mut handles = Vec::new();
    for w in 0..workers {
        let (config, job_rx, tx) = (config.clone(), job_rx.clone(), tx.clone());
        let handle = std::thread::Builder::new()
            .name(format!("match-worker-{w}"))
            .spawn(move || worker(&config, &job_rx, &tx))
            .map_err(|e| format!("cannot start a worker thread: {e}"))?;
        handles.push(handle);
    }
    drop(tx);

    // The main thread hands out game numbers one at a time, so a stop takes effect at once:
    // only games already running are finished.
    let mut next = 0usize;
    let mut in_flight = 0usize;
    while next < config.games && in_flight < workers {
        let _ = job_tx.send(next);
        next += 1;
        in_flight += 1;
    }

    let date = pgn::today();
    // Engine A's and B's PGN time-control tags.
    let tc_tags = config
        .engines
        .each_ref()
        .map(|e| config.settings.limit_for(e).pgn_tag());
    let mut tally = Tally::default();
    let mut stopped_early = None;
    let mut first_error: Option<String> = None;
    let say = |out: &mut dyn Write, line: &str| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    while in_flight > 0 {
        let Ok(message) = rx.recv() else {
            first_error.get_or_insert("every worker thread ended early".to_string());
            break;
        };
        in_flight -= 1;
        let done = match message {
            Message::Done(done) => done,
            Message::Panicked(index) => {
                first_error.get_or_insert(format!("game {} crashed the match runner", index + 1));
                stopped_early.get_or_insert("internal error".to_string());
                continue;
            }
        };
        tally.record(done.index, done.a_color, &done.record.result);
        tally.add_overruns(done.a_color, &done.record.overruns);
        if let Some(f) = pgn_file.as_mut() {
            let [a, b] = [tc_tags[0].as_str(), tc_tags[1].as_str()];
            let white_black = if done.a_color == Color::White {
                [a, b]
            } else {
                [b, a]
            };
            let text = pgn::format_game(
                &done.record,
                &config.event,
                done.index + 1,
                white_black,
                &date,
            );
            if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.flush()) {
                first_error.get_or_insert(format!("cannot write the PGN: {e}"));
            }
        }
        say(out, &report::finished_line(done.index, &done.record));
        say(out, &report::score_line(&names, &tally));
        let games = tally.games() as usize;
        if config.report_every > 0 && games.is_multiple_of(config.report_every) {
            for line in report::stats_lines(&names, &tally, config.sprt.as_ref()) {
                say(out, &line);
            }
        }
        if stopped_early.is_none() {
            if let Some(s) = &config.sprt {
                let decision = s.decide(s.llr(&tally.penta));
                if decision != SprtDecision::Continue {
                    stopped_early = Some(format!("SPRT {decision} after {games} games"));
                }
            }
            let all_points = tally.wdl.wins == tally.games() || tally.wdl.losses == tally.games();
            if config.decisive_stop.is_some_and(|n| games >= n) && all_points {
                stopped_early = Some(format!(
                    "one engine scored every point in the first {games} games"
                ));
            }
            if let Some(reason) = &stopped_early {
                let note = if in_flight > 0 {
                    "; games in progress will finish"
                } else {
                    ""
                };
                say(out, &format!("Stopping: {reason}{note}"));
            }
        }
        if stopped_early.is_none() && next < config.games {
            let _ = job_tx.send(next);
            next += 1;
            in_flight += 1;
        }
    }
    drop(job_tx);
    for h in handles {
        if h.join().is_err() {
            first_error.get_or_insert("a worker thread panicked".to_string());
        }
    }
    let summary = report::summary(
        &names,
        &tally,
        config.sprt.as_ref(),
        stopped_early.as_deref(),
    );
    say(out, &summary);
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(MatchOutcome {
        tally,
        stopped_early,
        summary,
    })
}

/// A worker: plays the game numbers it is handed until the job channel closes, with its own
/// two seats. A panic inside a game is reported instead of leaving the main thread waiting.
fn worker(config: &MatchConfig, jobs: &channel::Receiver<usize>, tx: &channel::Sender<Message>) {
    let mut a = EngineSlot::new(config.engines[0].clone());
    let mut b = EngineSlot::new(config.engines[1].clone());
    for index in jobs.iter() {
        let opening = &config.openings[(index / 2) % config.openings.len()];
        let a_color = if index % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let played = std::panic::catch_unwind(AssertUnwindSafe(|| {
            if a_color == Color::White {
                play_game(&mut a, &mut b, opening, &config.settings)
            } else {
                play_game(&mut b, &mut a, opening, &config.settings)
            }
        }));
        let message = match played {
            Ok(record) => Message::Done(Box::new(Finished {
                index,
                a_color,
                record,
            })),
            Err(_) => Message::Panicked(index),
        };
        let panicked = matches!(message, Message::Panicked(_));
        if tx.send(message).is_err() || panicked {
            break;
        }
    }
}
