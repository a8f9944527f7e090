//! Search control over UCI, end to end: `go` during a search, `isready` during an infinite
//! search, `stop`, `quit`, `ponderhit`, and the `movetime` and `nodes` limits; every search
//! answers with exactly one legal `bestmove`, just after a line with the whole search's totals.

use std::thread;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess};

mod engine_process;
use engine_process::uci::{is_bestmove, parse_info, position_from, SearchOutput, TIMEOUT};
use engine_process::Engine;

#[test]
fn go_during_search_stops_the_first_search() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos");
    engine.send("go infinite");
    engine.expect_none_within(is_bestmove, Duration::from_millis(200), "bestmove");
    engine.send("go depth 1");
    let first = engine.until_match(is_bestmove, TIMEOUT);
    let second = engine.until_match(is_bestmove, TIMEOUT);
    engine.expect_none_within(is_bestmove, Duration::from_millis(500), "third bestmove");
    for lines in [first, second] {
        let out = SearchOutput::from_lines(lines, Duration::ZERO);
        engine.check_search(&Chess::default(), &out);
    }
    engine.sync(TIMEOUT);
}

#[test]
fn isready_during_infinite_search_is_answered_promptly() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos");
    engine.send("go infinite");
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    engine.send("isready");
    let lines = engine.until_match(|l| l == "readyok", Duration::from_secs(2));
    if started.elapsed() > Duration::from_secs(2) {
        engine.fail("readyok took more than 2 s during a search");
    }
    if lines.iter().any(|l| is_bestmove(l)) {
        engine.fail("the infinite search ended before 'stop'");
    }
    engine.send("stop");
    let out = SearchOutput::from_lines(
        engine.until_match(is_bestmove, Duration::from_secs(5)),
        Duration::ZERO,
    );
    engine.check_search(&Chess::default(), &out);
}

#[test]
fn infinite_search_waits_for_stop() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos moves d2d4");
    engine.send("go infinite");
    engine.expect_none_within(
        is_bestmove,
        Duration::from_millis(500),
        "bestmove before stop",
    );
    engine.send("stop");
    let out = SearchOutput::from_lines(
        engine.until_match(is_bestmove, Duration::from_secs(5)),
        Duration::ZERO,
    );
    engine.check_search(
        &position_from(None, &["d2d4"], CastlingMode::Standard),
        &out,
    );
    if !out.infos.iter().any(|l| l.starts_with("info depth")) {
        engine.fail("half a second of search without any 'info depth' line");
    }
    engine.expect_none_within(is_bestmove, Duration::from_millis(300), "second bestmove");
}

#[test]
fn quit_during_search_exits_promptly() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos");
    engine.send("go infinite");
    thread::sleep(Duration::from_millis(200));
    engine.send("quit");
    let status = engine.wait_exit(Duration::from_secs(5));
    if !status.success() {
        engine.fail(&format!("exit status after quit: {status}"));
    }
}

#[test]
fn movetime_is_respected() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos moves e2e4 c7c5");
    engine.sync(TIMEOUT);
    let out = engine.search("go movetime 300", TIMEOUT);
    engine.check_search(
        &position_from(None, &["e2e4", "c7c5"], CastlingMode::Standard),
        &out,
    );
    if out.elapsed > Duration::from_millis(2000) {
        engine.fail(&format!("go movetime 300 took {:?}", out.elapsed));
    }
    // The search uses its time (less the 10 ms `Move Overhead`): no rule ends it early.
    let time = out.totals().and_then(|i| i.time);
    if time.is_none_or(|t| t < 290) {
        engine.fail(&format!("go movetime 300 searched {time:?} ms"));
    }
    // Stopped inside an iteration, the search plays the move of the last line it reported (a
    // new best move proved by that iteration is reported before it is played).
    let last = out
        .infos
        .iter()
        .filter_map(|l| parse_info(l))
        .rfind(|i| !i.pv.is_empty());
    if last.as_ref().map(|i| i.pv[0].as_str()) != Some(out.bestmove()) {
        engine.fail(&format!(
            "the last PV does not start with bestmove {}",
            out.bestmove()
        ));
    }
}

#[test]
fn the_line_before_bestmove_holds_the_whole_search() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name Threads value 2");
    engine.send("position startpos moves d2d4 g8f6");
    engine.sync(TIMEOUT);
    let out = engine.search("go movetime 400", TIMEOUT);
    engine.check_search(
        &position_from(None, &["d2d4", "g8f6"], CastlingMode::Standard),
        &out,
    );
    let Some(totals) = out.totals() else {
        engine.fail("no info line just before bestmove");
    };
    let (Some(nodes), Some(time)) = (totals.nodes, totals.time) else {
        engine.fail("the line before bestmove has no nodes or time");
    };
    if totals.depth.is_some() || totals.score.is_some() || !totals.pv.is_empty() {
        engine.fail("the totals line repeats a line of the search");
    }
    for info in out.infos.iter().filter_map(|l| parse_info(l)) {
        if info.nodes.is_some_and(|n| n > nodes) || info.time.is_some_and(|t| t > time) {
            engine.fail(&format!(
                "an earlier line counts more than the totals ({nodes} nodes, {time} ms)"
            ));
        }
    }
    if nodes == 0 {
        engine.fail("the totals count no nodes");
    }
}

#[test]
fn node_limit_returns() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos");
    engine.sync(TIMEOUT);
    let out = engine.search("go nodes 5000", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name Ponder value true");
    engine.send("position startpos moves e2e4 e7e5");
    engine.sync(TIMEOUT);
    engine.send("go ponder wtime 1000 btime 1000");
    engine.expect_none_within(
        is_bestmove,
        Duration::from_millis(500),
        "bestmove while pondering",
    );
    engine.send("ponderhit");
    let out = SearchOutput::from_lines(
        engine.until_match(is_bestmove, Duration::from_secs(5)),
        Duration::ZERO,
    );
    engine.check_search(
        &position_from(None, &["e2e4", "e7e5"], CastlingMode::Standard),
        &out,
    );
    engine.expect_none_within(is_bestmove, Duration::from_millis(300), "second bestmove");
}
