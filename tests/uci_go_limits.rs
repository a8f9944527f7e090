//! Absurd `go` values, end to end: every numeric field (`wtime btime winc binc movestogo movetime
//! depth nodes mate`) set in turn to 0, 1, `i64::MAX`, `u64::MAX` and negative values, and some
//! combinations. Each is answered by a legal `bestmove`; a limit that is huge searches on past
//! depth 1 until told to stop (no wrapped-around millisecond budget, no mate limit that ends the
//! search at once); the only errors are the parser's notes about the values; and the engine
//! answers `isready` after each.

use std::time::Duration;

use shakmaty::{CastlingMode, Chess};

mod engine_process;
use engine_process::uci::{is_bestmove, is_error, parse_info, position_from, SearchOutput};
use engine_process::Engine;

/// How long any one answer may take.
const WAIT: Duration = Duration::from_secs(20);

const I64_MAX: &str = "9223372036854775807";
const U64_MAX: &str = "18446744073709551615";
/// Every value each field is tried with.
const VALUES: [&str; 6] = ["0", "1", I64_MAX, U64_MAX, "-5000", "-9223372036854775808"];

/// How a search of a case ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// On its own, at whatever depth.
    Own,
    /// On its own, after at least depth 2.
    OwnDeep,
    /// Not on its own: it is still searching once it has reported depth 2, and `stop` ends it.
    Stop,
}

/// How `go <field> <value>` (after `prefix`, the other fields the case needs) ends.
fn expected(field: &str, value: &str) -> End {
    let huge = value == I64_MAX || value == U64_MAX;
    let negative = value.starts_with('-');
    match field {
        // The side to move's clock alone (the position is chosen so that it is).
        "wtime" | "btime" | "movetime" if huge => End::Stop,
        "wtime" | "btime" | "movetime" => End::Own,
        // With a one-second clock; a huge increment lets the move take most of that second.
        "winc" | "binc" if huge => End::OwnDeep,
        "winc" | "binc" | "movestogo" => End::Own,
        // Negative counts are ignored: no limit at all, an infinite search.
        "depth" | "nodes" if huge || negative => End::Stop,
        "depth" | "nodes" => End::Own,
        // No mate in the opening, of any length: only `stop` ends it.
        "mate" => End::Stop,
        _ => unreachable!("{field}"),
    }
}

/// The other fields `field` needs to mean anything.
fn prefix(field: &str) -> &'static str {
    match field {
        "winc" | "binc" | "movestogo" => "wtime 1000 btime 1000 ",
        _ => "",
    }
}

/// The moves from the start position: Black to move for Black's clock fields.
fn moves(field: &str) -> &'static [&'static str] {
    if field.starts_with('b') {
        &["e2e4"]
    } else {
        &[]
    }
}

/// The deepest completed depth an `info` line reports.
fn depth_reached(lines: &[String]) -> u32 {
    lines
        .iter()
        .filter_map(|l| parse_info(l))
        .filter(|i| !i.is_string && !i.pv.is_empty())
        .filter_map(|i| i.depth)
        .max()
        .unwrap_or(0)
}

/// Runs `go <args>` from `moves` and checks it ends as `end` says with a legal best move; the
/// lines the engine printed from `position` to `readyok`, for further checks.
fn check(engine: &mut Engine, moves: &[&str], args: &str, end: End) -> Vec<String> {
    let root: Chess = position_from(None, moves, CastlingMode::Standard);
    let mut position = String::from("position startpos");
    if !moves.is_empty() {
        position += " moves ";
        position += &moves.join(" ");
    }
    engine.send(&position);
    let mut lines = engine.sync(WAIT);
    let go = format!("go {args}");
    let out = match end {
        End::Own | End::OwnDeep => engine.search(&go, WAIT),
        End::Stop => {
            engine.send(&go);
            let reached = |l: &str| {
                is_bestmove(l)
                    || parse_info(l).is_some_and(|i| i.depth >= Some(2) && !i.pv.is_empty())
            };
            let before = engine.until_match(reached, WAIT);
            if before.last().is_some_and(|l| is_bestmove(l)) {
                engine.fail(&format!(
                    "'{go}' ended on its own at depth {}",
                    depth_reached(&before)
                ));
            }
            engine.send("stop");
            let mut rest = engine.until_match(is_bestmove, WAIT);
            let mut all = before;
            all.append(&mut rest);
            SearchOutput::from_lines(all, Duration::ZERO)
        }
    };
    engine.check_search(&root, &out);
    let depth = depth_reached(&out.lines);
    if end != End::Own && depth < 2 {
        engine.fail(&format!("'{go}' ended at depth {depth}"));
    }
    lines.extend(out.lines);
    lines.extend(engine.sync(WAIT));
    for l in &lines {
        // The parser's notes about values it clamped or ignored, and nothing else.
        if is_error(l) && !l.starts_with("info string error: go: ") {
            engine.fail(&format!("'{go}': unexpected error '{l}'"));
        }
    }
    lines
}

#[test]
fn every_go_field_takes_every_absurd_value() {
    let mut engine = Engine::ready(WAIT);
    for field in [
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "movetime",
        "depth",
        "nodes",
        "mate",
    ] {
        for value in VALUES {
            let args = format!("{}{field} {value}", prefix(field));
            let lines = check(&mut engine, moves(field), &args, expected(field, value));
            if value.starts_with('-') {
                let noted = lines
                    .iter()
                    .any(|l| is_error(l) && l.contains("negative") && l.contains(field));
                if !noted {
                    engine.fail(&format!("'go {args}': no note about the negative value"));
                }
            }
        }
    }
}

#[test]
fn absurd_values_combine() {
    let mut engine = Engine::ready(WAIT);
    for (args, end) in [
        (format!("wtime 1000 winc {U64_MAX}"), End::OwnDeep),
        (
            format!("wtime {I64_MAX} winc {I64_MAX} movestogo 1"),
            End::Stop,
        ),
        (
            format!("wtime {U64_MAX} btime 0 movestogo {U64_MAX}"),
            End::Stop,
        ),
        (format!("movetime {U64_MAX} depth 3"), End::OwnDeep),
        (format!("nodes {U64_MAX} depth 2"), End::OwnDeep),
        (format!("depth {U64_MAX} nodes 20000"), End::OwnDeep),
        // A mate limit beyond every mate distance waits for a mate of any length.
        ("mate 1073741824 movetime 300".to_string(), End::OwnDeep),
        ("mate 20000 movetime 300".to_string(), End::OwnDeep),
        (format!("mate {U64_MAX} movetime 300"), End::OwnDeep),
        (
            "wtime 0 btime 0 winc 0 binc 0 movestogo 1 movetime 0".to_string(),
            End::Own,
        ),
        ("wtime -1 winc -1 movestogo -1".to_string(), End::Own),
        ("depth 0 nodes 0 mate 0 movetime 0".to_string(), End::Own),
    ] {
        check(&mut engine, &[], &args, end);
    }
    // A clock that has run out, with the largest `Move Overhead`: a move at once.
    engine.send("setoption name Move Overhead value 5000");
    check(&mut engine, &[], "wtime -100 btime -100", End::Own);
    check(&mut engine, &[], &format!("wtime {U64_MAX}"), End::Stop);
}

#[test]
fn a_huge_mate_limit_still_finds_a_mate() {
    // White mates in one (d1d8); a mate limit of any size ends the search once it is found.
    let mut engine = Engine::ready(WAIT);
    engine.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    engine.sync(WAIT);
    for limit in ["1", "1073741824", U64_MAX] {
        let out = engine.search(&format!("go mate {limit}"), WAIT);
        if out.bestmove() != "d1d8" {
            engine.fail(&format!("go mate {limit}: {}", out.bestmove_line));
        }
    }
}
