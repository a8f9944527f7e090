//! Malformed UCI input, end to end: every bad line (unparsable FENs, illegal or garbled moves,
//! unknown commands, a 2 MiB line, invalid UTF-8, out-of-range options and limits) is reported
//! with an `info string` where it should be, the engine keeps the position it had, answers
//! `isready`, and searches normally afterwards.

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, PositionError};

mod engine_process;
use engine_process::uci::{
    is_bestmove, is_diagnostic, is_error, position_from, SearchOutput, TIMEOUT,
};
use engine_process::{shorten, Engine};

/// A position with few, distinctive legal moves: White mates in one with d1d8.
const BACK_RANK_FEN: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
const BACK_RANK_MATE: &str = "d1d8";

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

/// 32 men with more material than promotions allow (seven queens a side beside eight pawns):
/// accepted, as other engines accept it.
const QUEENS_FEN: &str = "qqqqqqqk/pppppppp/8/8/8/8/PPPPPPPP/QQQQQQQK w - - 0 1";

#[test]
fn fen_with_more_men_than_a_game_can_hold_is_rejected() {
    // 34 men (sixteen pawns a side): no game holds more than 32, and the network's incremental
    // update has room for 32 rows a side.
    assert_survives(
        b"position fen 7k/pppppppp/pppppppp/8/8/PPPPPPPP/PPPPPPPP/K7 w - - 0 1",
        Want::Error,
    );
}

#[test]
fn fen_with_too_much_material_but_32_men_is_searched() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(&format!("position fen {QUEENS_FEN}"));
    let set = engine.sync(TIMEOUT);
    if set.iter().any(|l| is_error(l)) {
        engine.fail(&format!("the FEN was rejected: {set:?}"));
    }
    let out = engine.search("go depth 4", TIMEOUT);
    if let Some(l) = out.lines.iter().find(|l| is_error(l)) {
        engine.fail(&format!("the search reported an error: {l}"));
    }
    let root: Chess = QUEENS_FEN
        .parse::<Fen>()
        .expect("test FEN parses")
        .into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_too_much_material)
        .expect("a legal position but for the material");
    engine.check_search(&root, &out);
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
    // 65,536 MB (the clamp) is refused under a 16 GiB address space, on any machine.
    let mut engine = Engine::start_with_address_space_limit(16 << 10).handshake(TIMEOUT);
    engine.send("setoption name Hash value 999999");
    let lines = engine.sync(TIMEOUT);
    let clamped = lines
        .iter()
        .any(|l| is_diagnostic(l) && l.to_ascii_lowercase().contains("clamp"));
    let refused = lines
        .iter()
        .any(|l| is_error(l) && l.contains("cannot allocate") && l.contains("keeping Hash 16"));
    if !clamped || !refused {
        engine.fail(&format!(
            "expected errors mentioning clamping and the refused allocation, got {lines:?}"
        ));
    }
    engine.send("position startpos");
    let out = engine.search("go depth 3", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
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
