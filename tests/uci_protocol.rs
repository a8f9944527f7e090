//! The UCI conversation a GUI has with Trine, end to end: the real `trine` binary over
//! stdin/stdout, every answer checked (moves are replayed with shakmaty). The handshake (identity
//! and options), a normal search's info lines, and the answers in special positions: no legal
//! move, a forced mate, Chess960 and standard castling, several principal variations.

use shakmaty::{CastlingMode, Chess, Position};

mod engine_process;
use engine_process::uci::is_error;
use engine_process::uci::{parse_info, position_from, replay, Info, Score, TIMEOUT};
use engine_process::Engine;

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
