//! Trine against deliberately broken engines (python3 scripts in `tests/engines/` that relay
//! Trine and then misbehave): every game must end with the right result, reason and PGN
//! `Termination`, the failure must be charged to the broken engine, and the whole match must
//! finish within a bounded time.

mod common;

use common::*;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(90);

/// Plays two games (one pair) of Trine against `script` (with extra script arguments) under
/// `limits`, and returns the run and the PGN text.
fn play_broken(test: &str, script: &str, extra: &[&str], limits: &str) -> (Run, String) {
    let dir = scratch(test);
    let trine = trine_bin().display().to_string();
    let pgn = dir.join("games.pgn");
    let mut a = args(&format!(
        "--engine cmd={trine} name=Trine --engine cmd=python3 arg={} arg={trine}",
        broken_engine(script)
    ));
    a.extend(extra.iter().map(|e| format!("arg={e}")));
    a.push("name=Broken".to_string());
    a.extend(args(&format!(
        "--openings {} --games 2 --ready-timeout 2000 --pgn {} {limits}",
        write_openings(&dir).display(),
        pgn.display()
    )));
    let run = run_match(&a, LIMIT);
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (run, text)
}

/// Checks that Trine won both games, that the broken engine was charged `counts` (time
/// losses, illegal moves, crashes, stalls) and the PGN says `termination` for both games.
fn check(run: &Run, pgn: &str, reason: &str, counts: [u32; 4], termination: &str) {
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert_eq!(
        run.output.matches(reason).count(),
        2,
        "expected '{reason}' twice in:\n{}",
        run.output
    );
    assert!(
        run.output.contains("2 wins, 0 draws, 0 losses for Trine"),
        "{}",
        run.output
    );
    assert!(
        run.output
            .contains("Trine: time losses 0, illegal moves 0, crashes 0, stalls 0"),
        "{}",
        run.output
    );
    let broken = format!(
        "Broken: time losses {}, illegal moves {}, crashes {}, stalls {}",
        counts[0], counts[1], counts[2], counts[3]
    );
    assert!(run.output.contains(&broken), "{}", run.output);
    assert_eq!(terminations(pgn), [termination, termination], "{pgn}");
    // Game 1: Trine is White; game 2: Trine is Black.
    assert_eq!(results(pgn), ["1-0", "0-1"], "{pgn}");
}

#[test]
fn illegal_move_loses_the_game() {
    let (run, pgn) = play_broken("illegal", "illegal_move.py", &[], "--depth 3");
    check(
        &run,
        &pgn,
        "(Broken) makes an illegal move",
        [0, 2, 0, 0],
        "illegal move",
    );
    // Two good moves by the broken engine were played before the illegal one.
    assert!(pgn.contains("makes an illegal move"), "{pgn}");
}

#[test]
fn crash_loses_and_engine_is_restarted() {
    let (run, pgn) = play_broken("crash", "crash.py", &[], "--tc 5+0.05");
    check(
        &run,
        &pgn,
        "(Broken) disconnects during its search",
        [0, 0, 2, 0],
        "abandoned",
    );
}

#[test]
fn silent_engine_loses_on_time() {
    let (run, pgn) = play_broken("hang-go", "hang.py", &["go"], "--tc 2+0.02");
    check(
        &run,
        &pgn,
        "(Broken) loses on time",
        [2, 0, 0, 0],
        "time forfeit",
    );
    // Each hang costs at most the clock + margin + the stop wait.
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
}

#[test]
fn silent_engine_stalls_without_a_clock() {
    let (run, pgn) = play_broken(
        "hang-depth",
        "hang.py",
        &["go"],
        "--depth 3 --search-timeout 1500",
    );
    check(
        &run,
        &pgn,
        "(Broken) stalls during its search",
        [0, 0, 0, 2],
        "abandoned",
    );
}

#[test]
fn missing_readyok_stalls() {
    let (run, pgn) = play_broken("hang-isready", "hang.py", &["isready"], "--depth 3");
    check(
        &run,
        &pgn,
        "(Broken) stalls before the game",
        [0, 0, 0, 2],
        "abandoned",
    );
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
}

#[test]
fn stale_output_is_not_taken_for_the_next_answer() {
    // The engine repeats every bestmove after a late info line; the repeat is illegal in the
    // position of its next `go`, so taking it as the answer would lose the game.
    let (run, pgn) = play_broken("stale", "stale_output.py", &[], "--depth 3 --maxmoves 12");
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert_eq!(
        run.output.matches("Finished game").count(),
        2,
        "{}",
        run.output
    );
    for name in ["Trine", "Broken"] {
        let clean = format!("{name}: time losses 0, illegal moves 0, crashes 0, stalls 0");
        assert!(run.output.contains(&clean), "{}", run.output);
    }
    let ends = terminations(&pgn);
    assert_eq!(ends.len(), 2, "{pgn}");
    for t in ends {
        assert!(
            ["normal", "adjudication"].contains(&t.as_str()),
            "{t}\n{pgn}"
        );
    }
}

#[test]
fn overruns_within_the_margin_are_counted_not_forfeited() {
    // Every bestmove is held back 200 ms past a 50 ms movetime: an overrun, but within the
    // 1000 ms margin, so the games go on and each of the engine's moves is counted.
    let (run, pgn) = play_broken(
        "late",
        "late_bestmove.py",
        &["200"],
        "--movetime 50 --time-margin 1000 --maxmoves 4",
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(
        run.output
            .contains("Broken: time losses 0, illegal moves 0, crashes 0, stalls 0"),
        "{}",
        run.output
    );
    assert!(!pgn.contains("loses on time"), "{pgn}");
    // 4 full moves a game from the EPD openings: 4 moves of each engine in each game.
    let line = run
        .output
        .lines()
        .rev()
        .find(|l| l.starts_with("Overruns (within the margin): Trine "))
        .unwrap_or_else(|| panic!("no overruns line in:\n{}", run.output));
    let broken = line.split(", Broken ").nth(1).expect("Broken's count");
    let (count, max) = broken
        .strip_suffix(" ms)")
        .and_then(|b| b.split_once(" (max "))
        .unwrap_or_else(|| panic!("{line}"));
    assert_eq!(count, "8", "{line}");
    let max: u64 = max.parse().unwrap();
    assert!((150..=1000).contains(&max), "{line}");
}

#[test]
fn decisive_stop_ends_a_one_sided_match() {
    let dir = scratch("decisive");
    let trine = trine_bin().display().to_string();
    let a = args(&format!(
        "--engine cmd={trine} name=Trine --engine cmd=python3 arg={} arg={trine} name=Broken \
         --openings {} --games 20 --depth 2 --decisive-stop 4",
        broken_engine("illegal_move.py"),
        write_openings(&dir).display()
    ));
    let run = run_match(&a, LIMIT);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(
        run.output.contains("Results of Trine vs Broken (4 games)"),
        "{}",
        run.output
    );
    assert!(
        run.output
            .contains("Stopped early: one engine scored every point"),
        "{}",
        run.output
    );
    assert!(
        run.output.contains("Elo >= -19 at 95 % confidence"),
        "{}",
        run.output
    );
}
