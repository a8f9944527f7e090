//! Parallel search correctness: every mode at 2, 4 and 8 threads (more threads than this machine's
//! cores on purpose) returns legal best moves and complete PVs, finds mates and terminates at a fixed
//! depth; a won ending does not run away at 2 threads; split points are really created, joined and
//! aborted; and a stress run of short `go`/`stop`/`setoption Threads`/`ucinewgame` sequences over
//! UCI never deadlocks or loses a `bestmove`.

use std::sync::Arc;
use std::time::Duration;

use shakmaty::Position;
use trine::board::{Board, Game};
use trine::score::{mate_moves, MATE_BOUND};
use trine::search::iterate::SearchParams;
use trine::search::smp::{SmpMode, SplitKind};
use trine::search::smp::{HYBRID_MARGIN, MIN_SPLIT_DEPTH};
use trine::search::SearchLimits;
use trine::threads::{Job, JobOutcome, Pool, SearchSpec};
use trine::tt::Table;

const MODES: [SmpMode; 3] = [SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid];

fn run(pool: &Pool, fen: &str, depth: u32, mode: SmpMode) -> JobOutcome {
    run_with_margin(pool, fen, depth, mode, HYBRID_MARGIN)
}

fn run_with_margin(
    pool: &Pool,
    fen: &str,
    depth: u32,
    mode: SmpMode,
    hybrid_margin: i32,
) -> JobOutcome {
    let limits = SearchLimits {
        depth: Some(depth),
        ..SearchLimits::default()
    };
    run_with_limits(pool, fen, limits, mode, hybrid_margin)
}

fn run_with_limits(
    pool: &Pool,
    fen: &str,
    limits: SearchLimits,
    mode: SmpMode,
    hybrid_margin: i32,
) -> JobOutcome {
    let tt = Arc::new(Table::new(16).unwrap());
    let job = Job::search(SearchSpec {
        game: Game::new(Board::from_fen(fen, false).unwrap()),
        params: SearchParams::default(),
        limits,
        waiting: false,
        tt,
        threads: pool.size(),
        mode,
        min_split_depth: MIN_SPLIT_DEPTH,
        hybrid_margin,
    });
    pool.run(Arc::new(job))
}

fn check_legal_and_complete(fen: &str, outcome: &JobOutcome, depth: u32) {
    let r = outcome
        .result
        .as_ref()
        .expect("the master returns a result");
    assert_eq!(r.depth, depth, "{fen}: finished depth");
    let line = &r.lines[0];
    assert_eq!(r.best_move, line.pv.first().copied());
    let mut b = Board::from_fen(fen, false).unwrap();
    for m in &line.pv {
        assert!(b.pos().is_legal(*m), "{fen}: illegal PV move {m:?}");
        b = b.play(*m);
    }
    let ended = b.pos().is_game_over() || b.is_rule_draw();
    // Internal iterative reduction shortens the PV by a ply at every PV node without a TT move, and
    // with several threads that depends on what the others stored: at depth 12 the PVs of 160
    // searches here were 10 to 16 moves long. A PV lost in a merge would be a move or two.
    if line.score.abs() < MATE_BOUND && !ended && line.score != 0 {
        assert!(
            line.pv.len() >= depth as usize / 2,
            "{fen}: PV of {} moves at depth {depth}",
            line.pv.len()
        );
    }
}

#[test]
fn every_mode_and_thread_count_gives_legal_complete_results() {
    let fens = [
        trine::bench::POSITIONS[1],
        trine::bench::POSITIONS[6],
        trine::bench::POSITIONS[20],
    ];
    for threads in [2, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        for mode in MODES {
            for fen in fens {
                let depth = 12;
                let outcome = run(&pool, fen, depth, mode);
                check_legal_and_complete(fen, &outcome, depth);
                assert!(outcome.nodes > 0);
                if mode == SmpMode::Lazy {
                    assert_eq!(outcome.smp.splits_created, 0, "lazy never splits");
                }
            }
        }
    }
}

#[test]
fn mates_are_found_with_many_threads() {
    let pool = Pool::new(4).unwrap();
    for mode in MODES {
        for (fen, moves) in [
            ("7k/8/8/8/8/8/R7/1R5K w - - 0 1", 2),
            (
                "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1",
                2,
            ),
        ] {
            let outcome = run(&pool, fen, 10, mode);
            let line = &outcome.result.as_ref().unwrap().lines[0];
            assert!(line.score >= MATE_BOUND, "{mode:?} {fen}: {}", line.score);
            assert_eq!(mate_moves(line.score), moves);
            let mut b = Board::from_fen(fen, false).unwrap();
            for m in &line.pv {
                b = b.play(*m);
            }
            assert!(b.pos().is_checkmate(), "{mode:?} {fen}: PV does not mate");
        }
    }
}

#[test]
fn split_points_are_created_joined_and_aborted() {
    let pool = Pool::new(2).unwrap();
    for mode in [SmpMode::Ybw, SmpMode::Hybrid] {
        let mut total = trine::search::smp::SmpStats::default();
        for fen in trine::bench::POSITIONS.iter().take(6) {
            total.merge(&run(&pool, fen, 13, mode).smp);
        }
        assert!(total.splits_created > 0, "{mode:?}: {total:?}");
        assert!(total.splits_joined > 0, "{mode:?}: {total:?}");
        assert!(total.splits_aborted > 0, "{mode:?}: {total:?}");
        assert!(total.splits_aborted <= total.splits_created);
        // Every merged result agreed with its bound: an aborted split point returned a score at
        // or above beta, the others one below it.
        assert_eq!(total.split_bound_errors, 0, "{mode:?}: {total:?}");
        // No split point above the smallest split depth.
        assert!(
            total.shallowest_split >= MIN_SPLIT_DEPTH as u32,
            "{mode:?}: {total:?}"
        );
        assert_eq!(
            total.splits_by_kind.iter().sum::<u64>(),
            total.splits_created
        );
        // The root and the PV nodes below it split after their first move, ALL-nodes too.
        for kind in [SplitKind::Root, SplitKind::Pv, SplitKind::All] {
            assert!(
                total.splits_by_kind[kind as usize] > 0,
                "{mode:?}: no {kind:?} split: {total:?}"
            );
        }
    }
}

/// `hybrid`'s margin: a wide one offers split points deeper below the root than the default, so
/// the same searches create more of them.
#[test]
fn a_wider_hybrid_margin_splits_more() {
    let pool = Pool::new(2).unwrap();
    let created = |margin: i32| {
        let mut total = trine::search::smp::SmpStats::default();
        for fen in trine::bench::POSITIONS.iter().take(4) {
            total.merge(&run_with_margin(&pool, fen, 12, SmpMode::Hybrid, margin).smp);
        }
        assert_eq!(total.split_bound_errors, 0, "margin {margin}: {total:?}");
        assert!(total.shallowest_split >= MIN_SPLIT_DEPTH as u32);
        total.splits_created
    };
    let (narrow, wide) = (created(HYBRID_MARGIN), created(64));
    assert!(
        wide > narrow,
        "margin 64: {wide} split points, margin 2: {narrow}"
    );
}

/// Mates and only moves: every mode at 2, 4 and 8 threads returns the exact mate score, and the
/// only good move, of one thread at the same depth.
#[test]
fn mates_and_only_moves_match_one_thread() {
    let mates = [
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        "7k/8/8/8/8/8/R7/1R5K w - - 0 1",
        "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1",
        "6k1/5ppp/8/8/8/8/5PPP/3rR1K1 b - - 0 1",
    ];
    let only_moves = [
        // Take the undefended queen that gives check.
        "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
        // Take the queen for free, or face a queen against none.
        "4k3/8/8/3q4/3Q4/8/8/4K3 b - - 0 1",
        // Black takes the queen that stepped into the pawn's reach.
        "rnbqkbnr/ppp1pppp/8/3p4/4Q3/8/PPPP1PPP/RNB1KBNR b KQkq - 0 3",
    ];
    let single = Pool::new(1).unwrap();
    let depth = 10;
    let reference: Vec<_> = mates
        .iter()
        .chain(&only_moves)
        .map(|fen| {
            let r = run(&single, fen, depth, SmpMode::Lazy).result.unwrap();
            (fen, r.best_move, r.lines[0].score)
        })
        .collect();
    for threads in [2, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        for mode in MODES {
            for (i, &(fen, best, score)) in reference.iter().enumerate() {
                let r = run(&pool, fen, depth, mode).result.unwrap();
                let is_mate = i < mates.len();
                if is_mate {
                    // Some of these have two mating moves: the score is what must agree.
                    assert!(
                        score.abs() >= MATE_BOUND,
                        "{fen}: one thread scores {score}"
                    );
                    assert_eq!(r.lines[0].score, score, "{threads} {mode:?} {fen}");
                } else {
                    assert_eq!(r.best_move, best, "{threads} {mode:?} {fen}");
                }
            }
        }
    }
}

mod engine_process;
use engine_process::Engine;

/// Waits (at most 30 s: longer is a deadlock or a hang) for a line starting with `prefix` and
/// returns it; every `bestmove` line on the way is checked and counted in `bestmoves`.
fn wait_for(e: &mut Engine, prefix: &str, bestmoves: &mut usize) -> String {
    let lines = e.until(prefix, Duration::from_secs(30));
    for line in lines.iter().filter(|l| l.starts_with("bestmove")) {
        *bestmoves += 1;
        let mv = line.split_whitespace().nth(1).unwrap_or("");
        assert!(mv.len() >= 4, "bad bestmove line: {line}");
    }
    lines.last().cloned().unwrap_or_default()
}

#[test]
fn stress_go_stop_threads_newgame_never_deadlocks_or_loses_a_bestmove() {
    let mut e = Engine::start();
    let mut bestmoves = 0usize;
    let mut gos = 0usize;
    e.send("uci");
    wait_for(&mut e, "uciok", &mut bestmoves);
    let modes = ["lazy", "ybw", "hybrid"];
    let mut random = trine::rng::Rng::new(0x2545_F491_4F6C_DD1D);
    for round in 0..60 {
        let rng = random.next_u64();
        match rng % 6 {
            0 => e.send(&format!("setoption name Threads value {}", 1 + rng % 8)),
            1 => e.send("ucinewgame"),
            2 => e.send(&format!(
                "setoption name SMP Mode value {}",
                modes[round % 3]
            )),
            _ => {}
        }
        let fen = trine::bench::POSITIONS[round % trine::bench::POSITIONS.len()];
        e.send(&format!("position fen {fen}"));
        match rng % 4 {
            0 => {
                e.send("go infinite");
                gos += 1;
                std::thread::sleep(Duration::from_millis(rng % 20));
                e.send("stop");
            }
            1 => {
                e.send("go depth 4");
                gos += 1;
            }
            2 => {
                e.send("go movetime 15");
                gos += 1;
            }
            _ => {
                e.send("go wtime 200 btime 200 winc 5 binc 5");
                gos += 1;
                e.send("stop");
            }
        }
        e.send("isready");
        wait_for(&mut e, "readyok", &mut bestmoves);
    }
    // Every search has answered by now or does so once it ends.
    e.send("stop");
    e.send("isready");
    wait_for(&mut e, "readyok", &mut bestmoves);
    while bestmoves < gos {
        wait_for(&mut e, "bestmove", &mut bestmoves);
    }
    assert_eq!(bestmoves, gos, "one bestmove per go");
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(10)).success());
    // No extra bestmove after the last one.
    std::thread::sleep(Duration::from_millis(100));
    let extra: Vec<String> = e
        .lines
        .try_iter()
        .filter(|l| l.starts_with("bestmove"))
        .collect();
    assert!(extra.is_empty(), "extra bestmoves: {extra:?}");
}

#[test]
fn fixed_depth_terminates_with_threads_over_uci() {
    let mut e = Engine::start();
    let mut bestmoves = 0;
    for (mode, margin) in [("lazy", 2), ("ybw", 2), ("hybrid", 2), ("hybrid", 64)] {
        e.send("setoption name Threads value 4");
        e.send(&format!("setoption name SMP Mode value {mode}"));
        // The widest margin with the smallest split depth: split points all through the tree.
        let split_depth = if margin == 64 { 1 } else { 8 };
        e.send(&format!("setoption name SMP Hybrid Margin value {margin}"));
        e.send(&format!(
            "setoption name SMP Split Depth value {split_depth}"
        ));
        e.send("position startpos moves e2e4 e7e5");
        e.send("go depth 7");
        let line = wait_for(&mut e, "bestmove", &mut bestmoves);
        let mv = line.split_whitespace().nth(1).unwrap();
        let b = Game::from_moves(Board::startpos(), &["e2e4", "e7e5"]).unwrap();
        assert!(
            trine::board::parse_uci_move(b.board.pos(), mv).is_ok(),
            "{line}"
        );
    }
    e.send("quit");
    let _ = e.child.wait();
}

#[test]
fn a_won_ending_does_not_run_away_at_two_threads() {
    // King and rook against king: one thread reaches depth 24 with about 6 M nodes. Without the
    // proven-result cutoff at PV nodes (`tt::PROVEN_PV_THREADS`), a second thread's mate bounds
    // sent the master into PV re-searches that took 40 s and hundreds of millions of nodes; a
    // node limit stops such a search short of depth 24.
    let fen = "8/8/8/4k3/8/8/8/R3K3 w Q - 0 1";
    let limits = SearchLimits {
        depth: Some(24),
        nodes: Some(100_000_000),
        ..SearchLimits::default()
    };
    let pool = Pool::new(2).unwrap();
    for mode in [SmpMode::Lazy, SmpMode::Hybrid] {
        for _ in 0..3 {
            let outcome = run_with_limits(&pool, fen, limits.clone(), mode, HYBRID_MARGIN);
            check_legal_and_complete(fen, &outcome, 24);
            let line = &outcome.result.as_ref().unwrap().lines[0];
            assert!(line.score > 500, "{mode:?}: score {}", line.score);
        }
    }
}
