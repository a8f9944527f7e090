//! End-to-end UCI protocol tests: they start the real `trine` binary, talk to it over
//! stdin/stdout like a GUI would, and check every answer (moves are replayed with shakmaty).

use std::thread;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Position};

mod engine_process;
use engine_process::uci::{
    is_bestmove, is_diagnostic, is_error, parse_info, position_from, replay, Info, Score,
    SearchOutput, TIMEOUT,
};
use engine_process::{shorten, Engine};

/// A position with few, distinctive legal moves: White mates in one with d1d8.
const BACK_RANK_FEN: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
const BACK_RANK_MATE: &str = "d1d8";
const CHECKMATED_FEN: &str = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";
const STALEMATE_FEN: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
/// White to move mates in two (for example Rb7 and Ra8#), but not in one.
const MATE_IN_TWO_FEN: &str = "7k/8/8/8/8/8/R7/1R5K w - - 0 1";
const CHESS960_FEN: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";

/// The side to move can force mate within `moves` of its own moves.
fn can_force_mate(pos: &Chess, moves: u32) -> bool {
    moves > 0
        && pos.legal_moves().iter().any(|m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            next.is_checkmate() || (moves > 1 && defender_loses(&next, moves - 1))
        })
}

/// Every reply of the side to move allows the opponent to mate within `moves`.
fn defender_loses(pos: &Chess, moves: u32) -> bool {
    let replies = pos.legal_moves();
    !replies.is_empty()
        && replies.iter().all(|r| {
            let mut next = pos.clone();
            next.play_unchecked(*r);
            can_force_mate(&next, moves)
        })
}

// ---------------------------------------------------------------------------------------------
// Handshake and a normal search
// ---------------------------------------------------------------------------------------------

#[test]
fn uci_handshake_lists_identity_and_options() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.until_match(|l| l == "uciok", TIMEOUT);
    let first_id_name = lines.iter().find(|l| l.starts_with("id name"));
    if !first_id_name.is_some_and(|l| l.starts_with("id name Trine")) {
        engine.fail("missing 'id name Trine ...'");
    }
    if !lines.iter().any(|l| l.starts_with("id author ")) {
        engine.fail("missing 'id author ...'");
    }
    for option in [
        "option name Hash type spin default 16 min 1 max 65536",
        "option name Threads type spin default 1 min 1 max 1024",
        "option name Clear Hash type button",
        "option name Move Overhead type spin default 10 min 0 max 5000",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name Ponder type check default false",
        "option name UCI_Chess960 type check default false",
    ] {
        if !lines.iter().any(|l| l == option) {
            engine.fail(&format!("missing '{option}'"));
        }
    }
    // The ids come before the options.
    let last_id = lines.iter().rposition(|l| l.starts_with("id "));
    let first_option = lines.iter().position(|l| l.starts_with("option "));
    if let (Some(id), Some(option)) = (last_id, first_option) {
        if id > option {
            engine.fail("'id' lines must come before 'option' lines");
        }
    }
    engine.send("isready");
    engine.until_match(|l| l == "readyok", TIMEOUT);
}

#[test]
fn depth_search_reports_complete_info_and_legal_moves() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("ucinewgame");
    engine.send("position startpos");
    let out = engine.search("go depth 5", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
    let complete: Vec<Info> = out
        .infos
        .iter()
        .filter_map(|l| parse_info(l))
        .filter(|i| {
            i.depth.is_some()
                && i.score.is_some()
                && i.nodes.is_some()
                && i.nps.is_some()
                && i.time.is_some()
                && !i.pv.is_empty()
        })
        .collect();
    let Some(last) = complete.last() else {
        engine.fail("no info line with depth, score, nodes, nps, time and pv");
    };
    if last.depth != Some(5) {
        engine.fail(&format!(
            "the last complete info line has depth {:?}, expected 5",
            last.depth
        ));
    }
    if complete.iter().any(|i| i.nodes == Some(0)) {
        engine.fail("an info line reports 0 nodes");
    }
    // From the start position a depth-5 PV is longer than one move: a ponder move is expected.
    if last.pv.len() >= 2 && out.ponder().is_none() {
        engine.fail("bestmove without ponder although the PV has 2+ moves");
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed input: an error is reported and the previous state is kept
// ---------------------------------------------------------------------------------------------

/// Sets a distinctive position, sends `bad`, and checks that (1) a diagnostic line appears when
/// `want` says so, (2) the engine still answers `isready`, (3) it still searches the position set
/// before `bad`, and (4) a fresh `position` + `go` works normally afterwards.
fn assert_survives(bad: &[u8], want: Want) {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(&format!("position fen {BACK_RANK_FEN}"));
    if engine.sync(TIMEOUT).iter().any(|l| is_error(l)) {
        engine.fail("the starting FEN was rejected");
    }

    let mut line = bad.to_vec();
    line.push(b'\n');
    engine.send_raw(&line);
    let before_ready = engine.sync(TIMEOUT);
    let found = match want {
        Want::Error => before_ready.iter().any(|l| is_error(l)),
        Want::Diagnostic => before_ready.iter().any(|l| is_diagnostic(l)),
        Want::Nothing => before_ready.iter().all(|l| !is_error(l)),
        Want::Anything => true,
    };
    if !found {
        engine.fail(&format!(
            "after {:?}: expected {want:?}, got {before_ready:?}",
            shorten(&String::from_utf8_lossy(bad))
        ));
    }
    if before_ready.iter().any(|l| is_bestmove(l)) {
        engine.fail("a bestmove without any search");
    }
    if before_ready.iter().any(|l| l.len() > 10_000) {
        engine.fail("a huge output line: input must not be echoed in full");
    }

    // The previous position is still the current one.
    let previous = position_from(Some(BACK_RANK_FEN), &[], CastlingMode::Standard);
    let out = engine.search("go depth 2", TIMEOUT);
    engine.check_search(&previous, &out);
    if out.bestmove() != BACK_RANK_MATE {
        engine.fail(&format!(
            "expected the mate {BACK_RANK_MATE} in the previous position, got {}",
            out.bestmove()
        ));
    }

    // And a normal command sequence still works.
    engine.send("position startpos moves e2e4");
    if engine.sync(TIMEOUT).iter().any(|l| is_error(l)) {
        engine.fail("'position startpos moves e2e4' was rejected");
    }
    let out = engine.search("go depth 3", TIMEOUT);
    engine.check_search(
        &position_from(None, &["e2e4"], CastlingMode::Standard),
        &out,
    );
}

#[derive(Clone, Copy, Debug)]
enum Want {
    /// A line starting with `info string error:`.
    Error,
    /// An `info string error:` or `info string warning:` line.
    Diagnostic,
    /// No `info string error:` line.
    Nothing,
    /// A note may or may not be printed; only the behaviour afterwards is checked.
    Anything,
}

#[test]
fn bad_fen_is_rejected() {
    assert_survives(b"position fen garbage", Want::Error);
    assert_survives(b"position fen garbage w - - 0 1", Want::Error);
    assert_survives(
        b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        Want::Error,
    );
}

#[test]
fn fen_without_kings_is_rejected() {
    assert_survives(b"position fen 8/8/8/8/8/8/8/8 w - - 0 1", Want::Error);
    assert_survives(b"position fen 4k3/8/8/8/8/8/8/8 w - - 0 1", Want::Error);
}

#[test]
fn illegal_move_in_move_list_is_rejected() {
    assert_survives(b"position startpos moves e2e5", Want::Error);
    assert_survives(
        b"position startpos moves e2e4 e7e5 e1e2 e8e7 e2e4",
        Want::Error,
    );
}

#[test]
fn unparsable_move_is_rejected() {
    assert_survives(b"position startpos moves zzzz", Want::Error);
    assert_survives(b"position startpos moves e2e4 e7", Want::Error);
}

#[test]
fn unknown_command_is_reported() {
    assert_survives(b"foo bar", Want::Error);
}

#[test]
fn position_alone_is_rejected() {
    assert_survives(b"position", Want::Error);
}

#[test]
fn huge_line_is_rejected() {
    assert_survives(&vec![b'a'; 2 << 20], Want::Error);
}

#[test]
fn invalid_utf8_is_rejected() {
    assert_survives(b"\xff\xfe position", Want::Error);
}

#[test]
fn empty_line_is_ignored() {
    assert_survives(b"", Want::Nothing);
    assert_survives(b"   \t  ", Want::Nothing);
}

#[test]
fn stop_and_ponderhit_without_search_are_harmless() {
    // An informational "no search is running" line is allowed, a bestmove is not.
    assert_survives(b"stop", Want::Anything);
    assert_survives(b"ponderhit", Want::Anything);
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("stop");
    engine.send("ponderhit");
    engine.sync(TIMEOUT);
    engine.expect_none_within(is_bestmove, Duration::from_millis(300), "bestmove");
}

#[test]
fn hash_out_of_range_is_clamped() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name Hash value 999999");
    let lines = engine.sync(TIMEOUT);
    let clamped = lines
        .iter()
        .any(|l| is_diagnostic(l) && l.to_ascii_lowercase().contains("clamp"));
    if !clamped {
        engine.fail(&format!(
            "expected an error mentioning clamping, got {lines:?}"
        ));
    }
    engine.send("position startpos");
    let out = engine.search("go depth 3", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
    drop(engine);
    assert_survives(b"setoption name Hash value 999999", Want::Diagnostic);
}

#[test]
fn bad_option_values_are_reported() {
    assert_survives(b"setoption name Hash value abc", Want::Error);
    assert_survives(b"setoption name NoSuchOption value 1", Want::Error);
    assert_survives(b"setoption name Threads value 0", Want::Diagnostic);
}

#[test]
fn go_with_bad_depth_still_answers() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos moves e2e4");
    engine.sync(TIMEOUT);
    let root = position_from(None, &["e2e4"], CastlingMode::Standard);
    engine.send("go depth abc");
    // Without a usable limit the engine may search until told to stop: give it a moment,
    // then stop it. Either way exactly one bestmove must come.
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut lines = Vec::new();
    while let Some(line) = engine.next_line(deadline.saturating_duration_since(Instant::now())) {
        let done = is_bestmove(&line);
        lines.push(line);
        if done {
            break;
        }
    }
    if !lines.last().is_some_and(|l| is_bestmove(l)) {
        engine.send("stop");
        lines.extend(engine.until_match(is_bestmove, TIMEOUT));
    }
    let out = SearchOutput::from_lines(lines, Duration::ZERO);
    if !out.lines.iter().any(|l| is_diagnostic(l)) {
        engine.fail("'go depth abc' produced no warning or error line");
    }
    engine.check_search(&root, &out);
    engine.expect_none_within(is_bestmove, Duration::from_millis(300), "second bestmove");
    engine.sync(TIMEOUT);
}

#[test]
fn negative_clock_still_answers_quickly() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("position startpos moves e2e4");
    engine.sync(TIMEOUT);
    let out = engine.search("go wtime -100 btime -100", TIMEOUT);
    engine.check_search(
        &position_from(None, &["e2e4"], CastlingMode::Standard),
        &out,
    );
    if out.elapsed > Duration::from_secs(3) {
        engine.fail(&format!("took {:?} with an empty clock", out.elapsed));
    }
    engine.sync(TIMEOUT);
}

// ---------------------------------------------------------------------------------------------
// Search control
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Special positions
// ---------------------------------------------------------------------------------------------

#[test]
fn checkmated_and_stalemated_sides_answer_null_move() {
    for fen in [CHECKMATED_FEN, STALEMATE_FEN] {
        let root = position_from(Some(fen), &[], CastlingMode::Standard);
        assert!(
            root.legal_moves().is_empty(),
            "{fen} should have no legal moves"
        );
        let mut engine = Engine::ready(TIMEOUT);
        engine.send(&format!("position fen {fen}"));
        if engine.sync(TIMEOUT).iter().any(|l| is_error(l)) {
            engine.fail("a legal game-over position was rejected");
        }
        let out = engine.search("go depth 1", TIMEOUT);
        if out.bestmove_line.trim_end() != "bestmove 0000" {
            engine.fail(&format!(
                "expected 'bestmove 0000', got '{}'",
                out.bestmove_line
            ));
        }
        engine.sync(TIMEOUT);
    }
}

#[test]
fn mate_in_two_is_found() {
    let root = position_from(Some(MATE_IN_TWO_FEN), &[], CastlingMode::Standard);
    assert!(!can_force_mate(&root, 1) && can_force_mate(&root, 2));
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(&format!("position fen {MATE_IN_TWO_FEN}"));
    engine.sync(TIMEOUT);
    let out = engine.search("go mate 2", TIMEOUT);
    engine.check_search(&root, &out);
    let after = replay(&root, &[out.bestmove()]).unwrap_or_else(|e| engine.fail(&e));
    if !defender_loses(&after, 1) {
        engine.fail(&format!("{} does not force mate in 2", out.bestmove()));
    }
    let last_score = out
        .infos
        .iter()
        .filter_map(|l| parse_info(l))
        .filter(|i| !i.bound && i.multipv.unwrap_or(1) == 1)
        .filter_map(|i| i.score)
        .next_back();
    if last_score != Some(Score::Mate(2)) {
        engine.fail(&format!(
            "expected a final 'score mate 2', got {last_score:?}"
        ));
    }
}

#[test]
fn chess960_castling_rights_are_understood() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name UCI_Chess960 value true");
    engine.send(&format!("position fen {CHESS960_FEN}"));
    let lines = engine.sync(TIMEOUT);
    if lines.iter().any(|l| is_error(l)) {
        engine.fail(&format!("the Chess960 position was rejected: {lines:?}"));
    }
    let root = position_from(Some(CHESS960_FEN), &[], CastlingMode::Chess960);
    let out = engine.search("go depth 4", TIMEOUT);
    engine.check_search(&root, &out);
}

#[test]
fn standard_castling_in_move_list_is_accepted() {
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"];
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    let lines = engine.sync(TIMEOUT);
    if lines.iter().any(|l| is_error(l)) {
        engine.fail(&format!("castling as e1g1 was rejected: {lines:?}"));
    }
    let root = position_from(None, &moves, CastlingMode::Standard);
    let out = engine.search("go depth 3", TIMEOUT);
    engine.check_search(&root, &out);
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos");
    engine.sync(TIMEOUT);
    let out = engine.search("go depth 5", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
    let infos: Vec<Info> = out
        .infos
        .iter()
        .filter_map(|l| parse_info(l))
        .filter(|i| !i.pv.is_empty() && !i.bound)
        .collect();
    let final_depth = infos.iter().filter_map(|i| i.depth).max();
    if final_depth != Some(5) {
        engine.fail(&format!("final depth {final_depth:?}, expected 5"));
    }
    let mut firsts = Vec::new();
    for k in 1..=3 {
        let line = infos
            .iter()
            .rfind(|i| i.depth == final_depth && i.multipv == Some(k));
        match line {
            Some(info) => firsts.push(info.pv[0].clone()),
            None => engine.fail(&format!("no 'multipv {k}' line at depth 5")),
        }
    }
    let mut distinct = firsts.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != 3 {
        engine.fail(&format!("multipv first moves are not distinct: {firsts:?}"));
    }
    if out.bestmove() != firsts[0] {
        engine.fail(&format!(
            "bestmove {} differs from the multipv 1 move {}",
            out.bestmove(),
            firsts[0]
        ));
    }
}
