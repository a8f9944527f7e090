//! Syzygy tablebases over UCI, end to end, with the tables in `tests/data/syzygy` (KQvK, KRvK,
//! KPvK, KBNvK, KBvK, KNvK): loading and its errors, the score of won, drawn and lost roots, the
//! root filter that keeps the result (each best move checked against the tables with
//! shakmaty-syzygy here), probes below a root the tables do not know, `tbhits`, and the
//! positions that are never probed (castling rights, Chess960, `SyzygyProbeLimit 0`).

use std::time::Duration;

use shakmaty::{CastlingMode, Chess, Position};
use shakmaty_syzygy::{Tablebase, Wdl};

mod engine_process;
use engine_process::uci::{
    is_error, parse_info, parse_legal, position_from, Score, SearchOutput, TIMEOUT,
};
use engine_process::Engine;
use trine::score::TB_BOUND;

/// The test tables.
const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

/// How long one search of these tests may take (a debug build searches slowly).
const SEARCH_TIMEOUT: Duration = Duration::from_secs(60);

/// An engine with the test tables loaded; checks that it says so.
fn engine_with_tables() -> Engine {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let lines = engine.sync(TIMEOUT);
    let said = "info string found 6 tablebases (6 WDL, 6 DTZ files in 1 directory), up to 4 pieces";
    if !lines.iter().any(|l| l == said) {
        engine.fail(&format!("expected '{said}', got {lines:?}"));
    }
    engine
}

/// `position fen FEN`, then `go`; the search is checked legal.
fn search(engine: &mut Engine, fen: &str, go: &str) -> SearchOutput {
    engine.send(&format!("position fen {fen}"));
    let out = engine.search(go, SEARCH_TIMEOUT);
    engine.check_search(&root(fen), &out);
    out
}

fn root(fen: &str) -> Chess {
    position_from(Some(fen), &[], CastlingMode::Standard)
}

/// The score of the last complete (not bound) main line.
fn final_score(out: &SearchOutput) -> Score {
    out.infos
        .iter()
        .filter_map(|l| parse_info(l))
        .filter(|i| !i.bound && !i.pv.is_empty() && i.multipv.unwrap_or(1) == 1)
        .filter_map(|i| i.score)
        .next_back()
        .expect("a scored line")
}

/// `tbhits` of every `info depth` line.
fn tbhits(out: &SearchOutput) -> Vec<u64> {
    out.infos
        .iter()
        .filter_map(|l| parse_info(l))
        .filter(|i| i.depth.is_some())
        .map(|i| i.tbhits.expect("every info depth line carries tbhits"))
        .collect()
}

fn is_win(s: Score) -> bool {
    matches!(s, Score::Cp(cp) if cp >= i64::from(TB_BOUND)) || matches!(s, Score::Mate(m) if m > 0)
}

fn is_loss(s: Score) -> bool {
    matches!(s, Score::Cp(cp) if cp <= -i64::from(TB_BOUND)) || matches!(s, Score::Mate(m) if m < 0)
}

/// The tables, read here to judge the engine's moves.
fn tables() -> Tablebase<Chess> {
    let mut tb = Tablebase::new();
    tb.add_directory(TABLES).expect("test tables");
    tb
}

/// The result for the side that played `best` in `fen`, by the tables (mate is a win).
fn result_after(fen: &str, best: &str) -> Wdl {
    let mut pos = root(fen);
    let m = parse_legal(&pos, best).expect("a legal best move");
    pos.play_unchecked(m);
    if pos.is_checkmate() {
        return Wdl::Win;
    }
    -tables()
        .probe_wdl_after_zeroing(&pos)
        .unwrap_or_else(|e| panic!("{fen} after {best}: {e}"))
}

#[test]
fn won_roots_score_a_win_and_the_move_keeps_it() {
    let mut engine = engine_with_tables();
    for fen in [
        "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
        "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
    ] {
        let out = search(&mut engine, fen, "go depth 6");
        let score = final_score(&out);
        assert!(is_win(score), "{fen}: {score:?}");
        assert_eq!(
            result_after(fen, out.bestmove()),
            Wdl::Win,
            "{fen}: {}",
            out.bestmove()
        );
        // The root's probes are counted.
        assert!(
            tbhits(&out).iter().all(|&n| n > 0),
            "{fen}: {:?}",
            tbhits(&out)
        );
    }
    engine.quit();
}

#[test]
fn lost_roots_score_a_loss() {
    let mut engine = engine_with_tables();
    for fen in [
        "8/8/8/4k3/8/8/8/KQ6 b - - 0 1",
        "8/8/8/4k3/8/8/8/KR6 b - - 0 1",
    ] {
        let out = search(&mut engine, fen, "go depth 6");
        let score = final_score(&out);
        assert!(is_loss(score), "{fen}: {score:?}");
    }
    engine.quit();
}

#[test]
fn drawn_roots_score_zero_and_the_move_keeps_the_draw() {
    let mut engine = engine_with_tables();
    for fen in [
        // A rook pawn with the defending king in the corner.
        "k7/8/8/8/8/8/P7/K7 w - - 0 1",
        // The defending king has the opposition.
        "8/4k3/8/4K3/4P3/8/8/8 w - - 0 1",
        // Only Ke4 holds the draw; every other king move loses.
        "8/8/8/8/8/5k2/3P4/K7 b - - 0 1",
    ] {
        let out = search(&mut engine, fen, "go depth 6");
        assert_eq!(final_score(&out), Score::Cp(0), "{fen}");
        assert_eq!(
            result_after(fen, out.bestmove()),
            Wdl::Draw,
            "{fen}: {}",
            out.bestmove()
        );
    }
    engine.quit();
}

#[test]
fn the_root_filter_plays_the_only_move_that_keeps_the_win() {
    let mut engine = engine_with_tables();
    for (fen, only) in [
        // Only h4 wins; Kf3, which the search alone prefers at shallow depths, draws.
        ("8/8/8/1k6/8/8/4K2P/8 w - - 0 1", "h2h4"),
        // Both pawn moves, and every king move but Kc3, draw.
        ("8/8/8/4k3/8/8/1K1P4/8 w - - 0 1", "b2c3"),
        // The king attacks the pawn: e4 wins, e3 and every king move draw.
        ("8/8/8/8/8/8/1K2Pk2/8 w - - 0 1", "e2e4"),
        // Kd6 and Kf6 win; Kd5 and Kf5 let the defending king take the opposition.
        ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", ""),
    ] {
        for go in ["go depth 1", "go depth 8", "go nodes 3000"] {
            let out = search(&mut engine, fen, go);
            assert_eq!(result_after(fen, out.bestmove()), Wdl::Win, "{fen} {go}");
            if !only.is_empty() {
                assert_eq!(out.bestmove(), only, "{fen} {go}");
            }
            assert!(is_win(final_score(&out)), "{fen} {go}");
        }
    }
    engine.quit();
}

#[test]
fn the_search_probes_below_a_root_the_tables_do_not_know() {
    let mut engine = engine_with_tables();
    // KQvKN has no table here; Qxh1 leads to KQvK, which the search probes.
    let fen = "8/8/8/4k3/8/8/8/KQ5n w - - 0 1";
    let out = search(&mut engine, fen, "go depth 6");
    assert_eq!(out.bestmove(), "b1h1");
    assert!(is_win(final_score(&out)), "{:?}", final_score(&out));
    let hits = tbhits(&out);
    assert!(hits.last().is_some_and(|&n| n > 0), "{hits:?}");
    // A probe limit of 0 probes nothing: the same search sees only the material.
    engine.send("setoption name SyzygyProbeLimit value 0");
    let out = search(&mut engine, fen, "go depth 6");
    assert!(tbhits(&out).iter().all(|&n| n == 0), "{:?}", tbhits(&out));
    assert!(!is_win(final_score(&out)), "{:?}", final_score(&out));
    engine.quit();
}

#[test]
fn helper_threads_probe_too_in_every_smp_mode() {
    let mut engine = engine_with_tables();
    engine.send("setoption name Threads value 2");
    let fen = "8/8/8/4k3/8/8/8/KQ5n w - - 0 1";
    for mode in ["lazy", "ybw", "hybrid"] {
        engine.send(&format!("setoption name SMP Mode value {mode}"));
        let out = search(&mut engine, fen, "go depth 8");
        assert_eq!(out.bestmove(), "b1h1", "{mode}");
        assert!(is_win(final_score(&out)), "{mode}: {:?}", final_score(&out));
        assert!(tbhits(&out).last().is_some_and(|&n| n > 0), "{mode}");
    }
    engine.quit();
}

#[test]
fn castling_rights_and_chess960_are_never_probed() {
    let mut engine = engine_with_tables();
    // Three men, in the tables but for the castling right.
    let fen = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1";
    let out = search(&mut engine, fen, "go depth 8");
    assert!(tbhits(&out).iter().all(|&n| n == 0), "{:?}", tbhits(&out));
    // Still played well: a rook up, and the move keeps the win (it gives up the right).
    let score = final_score(&out);
    assert!(
        matches!(score, Score::Cp(cp) if cp > 300) || matches!(score, Score::Mate(m) if m > 0),
        "{score:?}"
    );
    assert_eq!(
        result_after(fen, out.bestmove()),
        Wdl::Win,
        "{}",
        out.bestmove()
    );
    // Chess960: no probe at all, not even a root in the tables.
    engine.send("setoption name UCI_Chess960 value true");
    let out = search(&mut engine, "8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "go depth 6");
    assert!(tbhits(&out).iter().all(|&n| n == 0), "{:?}", tbhits(&out));
    assert!(!matches!(final_score(&out), Score::Cp(cp) if cp >= i64::from(TB_BOUND)));
    engine.quit();
}

#[test]
fn the_fifty_move_rule_option_decides_a_win_out_of_time() {
    let mut engine = engine_with_tables();
    // Ninety plies since the last capture: the queen cannot mate in time.
    let fen = "8/8/8/4k3/8/8/8/KQ6 w - - 90 100";
    let out = search(&mut engine, fen, "go depth 4");
    assert!(
        matches!(final_score(&out), Score::Cp(1..=50)),
        "{:?}",
        final_score(&out)
    );
    engine.send("setoption name Syzygy50MoveRule value false");
    let out = search(&mut engine, fen, "go depth 4");
    assert!(is_win(final_score(&out)), "{:?}", final_score(&out));
    engine.quit();
}

#[test]
fn a_bad_path_is_an_error_and_the_engine_plays_on() {
    let fen = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1";
    // No tables before: none after.
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name SyzygyPath value /nonexistent/trine-syzygy");
    let lines = engine.sync(TIMEOUT);
    assert!(
        lines
            .iter()
            .any(|l| is_error(l) && l.contains("/nonexistent/trine-syzygy")),
        "{lines:?}"
    );
    let out = search(&mut engine, fen, "go depth 5");
    assert!(tbhits(&out).iter().all(|&n| n == 0));
    engine.quit();
    // Tables before: they stay.
    let mut engine = engine_with_tables();
    engine.send(&format!(
        "setoption name SyzygyPath value {}",
        env!("CARGO_MANIFEST_DIR")
    ));
    let lines = engine.sync(TIMEOUT);
    assert!(
        lines
            .iter()
            .any(|l| is_error(l) && l.contains("no Syzygy table")),
        "{lines:?}"
    );
    let out = search(&mut engine, fen, "go depth 5");
    assert!(tbhits(&out).iter().all(|&n| n > 0));
    assert!(is_win(final_score(&out)));
    // `<empty>` unloads them.
    engine.send("setoption name SyzygyPath value <empty>");
    let lines = engine.sync(TIMEOUT);
    assert!(
        lines.iter().any(|l| l == "info string tablebases unloaded"),
        "{lines:?}"
    );
    let out = search(&mut engine, fen, "go depth 5");
    assert!(tbhits(&out).iter().all(|&n| n == 0));
    engine.quit();
}
