//! Search behaviour through the library API: mates found with the right distance, PVs legal and
//! complete, draws by repetition, the fifty-move rule and insufficient material recognised.

use std::sync::Arc;

use shakmaty::Position;
use trine::board::{Board, Game};
use trine::score::{mate_moves, MATE_BOUND};
use trine::search::iterate::SearchParams;
use trine::search::{SearchControl, SearchLimits, SearchResult, Searcher};
use trine::tt::Table;

fn search_game(game: &Game, depth: u32, multipv: usize) -> SearchResult {
    let tt = Arc::new(Table::new(16).unwrap());
    let limits = SearchLimits {
        depth: Some(depth),
        ..SearchLimits::default()
    };
    let ctl = Arc::new(SearchControl::new(limits, 1, false));
    let mut s = Searcher::new(0, tt, ctl);
    let params = SearchParams {
        multipv,
        ..SearchParams::default()
    };
    s.iterate(game, &params)
}

fn search(fen: &str, depth: u32) -> SearchResult {
    search_game(&Game::new(Board::from_fen(fen, false).unwrap()), depth, 1)
}

/// Replays a line from `board`, asserting every move legal; returns the final board.
fn replay(board: &Board, line: &[shakmaty::Move]) -> Board {
    let mut b = board.clone();
    for m in line {
        assert!(b.pos().is_legal(*m), "illegal PV move {m:?} in {line:?}");
        b = b.play(*m);
    }
    b
}

#[test]
fn mates_are_found_with_their_distance() {
    // Depth: two plies beyond the mate, and one more for pruning; the two-rook mate needs three
    // more. Its first move is quiet (Rg1, then Rh2 mate) and its other moves already score
    // +16 to +22 pawns, so reverse futility at the bare king's nodes after Rg1 refutes it (with
    // RFP_DEPTH 0 the mate is found at depth 6) until depth 10 with the networks n10, n12, n15,
    // n16, n18 and n22 (7 with n9, whose scores there were lower); docs/history/networks.md, section
    // n10.
    for (fen, moves, extra) in [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1, 0),
        ("7k/8/8/8/8/8/R7/1R5K w - - 0 1", 2, 3),
        (
            "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1",
            2,
            0,
        ),
    ] {
        let r = search(fen, 2 * moves as u32 + 3 + extra);
        let line = &r.lines[0];
        assert!(line.score >= MATE_BOUND, "{fen}: score {}", line.score);
        assert_eq!(mate_moves(line.score), moves, "{fen}");
        assert_eq!(
            line.pv.len(),
            2 * moves as usize - 1,
            "{fen}: pv {:?}",
            line.pv
        );
        let end = replay(&Board::from_fen(fen, false).unwrap(), &line.pv);
        assert!(end.pos().is_checkmate(), "{fen}: PV does not end in mate");
        assert_eq!(r.best_move, line.pv.first().copied());
    }
}

#[test]
fn being_mated_is_scored_negative() {
    // Black's only move Kb8 is met by Rh8 mate.
    let r = search("k7/8/1K6/8/8/8/8/7R b - - 0 1", 4);
    assert!(r.lines[0].score <= -MATE_BOUND, "{}", r.lines[0].score);
    assert_eq!(mate_moves(r.lines[0].score), -1);
    assert_eq!(r.lines[0].pv.len(), 2);
}

#[test]
fn pvs_are_legal_and_as_long_as_the_depth() {
    for fen in trine::bench::POSITIONS.iter().step_by(5) {
        let depth = 5;
        let r = search(fen, depth);
        let root = Board::from_fen(fen, false).unwrap();
        let line = &r.lines[0];
        let end = replay(&root, &line.pv);
        let ended = end.pos().is_game_over() || end.is_rule_draw();
        if line.score.abs() < MATE_BOUND && !ended && line.score != 0 {
            assert!(
                line.pv.len() >= depth as usize,
                "{fen}: pv of {} moves at depth {depth}",
                line.pv.len()
            );
        }
        assert_eq!(r.depth, depth);
    }
}

#[test]
fn multipv_lines_are_distinct_and_ordered() {
    let game = Game::new(Board::startpos());
    let r = search_game(&game, 5, 4);
    assert_eq!(r.lines.len(), 4);
    let firsts: Vec<_> = r.lines.iter().map(|l| l.pv[0]).collect();
    for i in 0..firsts.len() {
        for j in i + 1..firsts.len() {
            assert_ne!(firsts[i], firsts[j]);
        }
        if i > 0 {
            assert!(r.lines[i - 1].score >= r.lines[i].score);
        }
    }
}

#[test]
fn a_third_occurrence_is_a_draw_the_losing_side_takes() {
    // White, a queen down, can play Nf3 into a position the game has already seen twice (after
    // 1.Nf3 and 3.Nf3): the third occurrence draws, and White takes it.
    let start = Board::from_fen("4k3/8/8/8/8/8/q7/4K1N1 w - - 0 1", false).unwrap();
    let twice = [
        "g1f3", "a2b2", "f3g1", "b2a2", "g1f3", "a2b2", "f3e5", "b2a2",
    ];
    let game = Game::from_moves(start.clone(), &twice).unwrap();
    let r = search_game(&game, 6, 1);
    assert_eq!(r.lines[0].score, 0);
    assert_eq!(
        r.best_move
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string()),
        Some("e5f3".to_string())
    );
    // Seen once before, the same position is only a second occurrence: Black plays on, and
    // White is simply lost.
    let once = ["g1f3", "a2b2", "f3e5", "b2a2"];
    let game = Game::from_moves(start, &once).unwrap();
    let r = search_game(&game, 6, 1);
    assert!(r.lines[0].score < -500, "{}", r.lines[0].score);
}

#[test]
fn a_repetition_inside_the_search_is_a_draw() {
    // Black, the exchange and two knights down, checks perpetually (Qe1+ Kh2 Qe5+ Kh1 Qe1+):
    // the check repeats a position of the search, not of the game, and that is enough.
    let r = search("6k1/5ppp/RR6/8/N3q3/N6P/6P1/7K b - - 0 1", 8);
    assert_eq!(r.lines[0].score, 0, "{:?}", r.lines[0]);
}

#[test]
fn fifty_move_rule_and_insufficient_material_are_draws() {
    let r = search("7k/8/8/8/8/8/R7/4K3 w - - 99 80", 5);
    assert_eq!(r.lines[0].score, 0);
    let r = search("7k/8/8/8/8/8/R7/4K3 w - - 0 80", 5);
    assert!(r.lines[0].score > 300);
    let r = search("8/8/8/4k3/8/8/3NK3/8 w - - 0 1", 6);
    assert_eq!(r.lines[0].score, 0);
}

/// A PV never goes on past the end of the game: once the fifty-move rule has drawn a position (and
/// it is not mate), no move follows it. Captures hang in these positions, so quiescence would
/// play one after the quiet move that reaches 100 half-moves if it did not know the rule.
#[test]
fn no_pv_continues_after_the_fifty_move_rule() {
    for fen in [
        // Black has only king moves; each reaches 100 half-moves with the a3 pawn hanging.
        "k7/8/8/8/8/p6R/P7/K7 b - - 99 120",
        "k7/8/8/8/8/p6R/P7/K7 w - - 98 120",
        "2r1k3/8/3b4/4n3/3N4/2B5/8/4K2R w - - 99 120",
        "2r1k3/8/3b4/4n3/3N4/2B5/8/4K2R b - - 97 120",
    ] {
        let board = Board::from_fen(fen, false).unwrap();
        for depth in 1..=6 {
            let r = search(fen, depth);
            let pv = &r.lines[0].pv;
            let mut b = board.clone();
            for (i, m) in pv.iter().enumerate() {
                assert!(
                    b.pos().halfmoves() < 100 || b.pos().is_checkmate(),
                    "{fen} depth {depth}: move {i} of {pv:?} follows a fifty-move draw"
                );
                assert!(b.pos().is_legal(*m), "{fen}: illegal PV move {m:?}");
                b = b.play(*m);
            }
        }
    }
}

#[test]
fn no_legal_move_gives_no_best_move() {
    let r = search("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", 3);
    assert!(r.best_move.is_none());
    let r = search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3);
    assert!(r.best_move.is_none());
}

#[test]
fn the_root_entry_stores_the_static_evaluation() {
    // A position whose evaluation is far from zero, so a stored 0 would show.
    let fen = "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1";
    let board = Board::from_fen(fen, false).unwrap();
    let tt = Arc::new(Table::new(16).unwrap());
    let limits = SearchLimits {
        depth: Some(4),
        ..SearchLimits::default()
    };
    let ctl = Arc::new(SearchControl::new(limits, 1, false));
    let mut s = Searcher::new(0, Arc::clone(&tt), ctl);
    s.iterate(&Game::new(board.clone()), &SearchParams::default());
    let e = tt.probe(board.key()).expect("the root is stored");
    // The default evaluation: the built-in network.
    let eval = trine::nnue::built_in().evaluate(board.pos());
    assert!(eval > 500, "{eval}");
    assert_eq!(trine::tt::stored_eval(&e), Some(eval));
}
