//! `trine bench`: a fixed search of ~50 varied positions (openings, middlegames, endgames) at a fixed
//! depth with one thread and a 16 MB table cleared before each position, so that the node count is
//! the same on every run and build; the last line is `<nodes> nodes <nps> nps` (OpenBench's format).

use std::sync::Arc;
use std::time::Instant;

use crate::board::{Board, Game};
use crate::cancel::Cancel;
use crate::nnue::Network;
use crate::search::iterate::SearchParams;
use crate::search::{NodeStats, SearchControl, SearchLimits, Searcher};
use crate::tt::Table;

/// Depth searched when `--depth` is not given.
pub const DEFAULT_DEPTH: u32 = 11;

/// The bench positions.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14",
    "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24",
    "r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42",
    "6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44",
    "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
    "7r/2p3k1/1p1p1qp1/1P1Bp3/p1P2r1P/P7/4R3/Q4RK1 w - - 0 36",
    "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
    "3r3k/2r4p/1p1b3q/p4P2/P2Pp3/1B2P3/3BQ1RP/6K1 w - - 3 87",
    "2r4r/1p4k1/1Pnp4/3Qb1pq/8/4BpPp/5P2/2RR1BK1 w - - 0 42",
    "4q1bk/6b1/7p/p1p4p/PNPpP2P/KN4P1/3Q4/4R3 b - - 0 37",
    "2q3r1/1r2pk2/pp3pp1/2pP3p/P1Pb1BbP/1P4Q1/R3NPP1/4R1K1 w - - 2 34",
    "1r2r2k/1b4q1/pp5p/2pPp1p1/P3Pn2/1P1B1Q1P/2R3P1/4BR1K b - - 1 37",
    "r3kbbr/pp1n1p1P/3ppnp1/q5N1/1P1pP3/P1N1B3/2P1QP2/R3KB1R b KQkq b3 0 17",
    "8/6pk/2b1Rp2/3r4/1R1B2PP/P5K1/8/2r5 b - - 16 42",
    "1r4k1/4ppb1/2n1b1qp/pB4p1/1n1BP1P1/7P/2PNQPK1/3RN3 w - - 8 29",
    "8/p2B4/PkP5/4p1pK/4Pb1p/5P2/8/8 w - - 29 68",
    "3r4/ppq1ppkp/4bnp1/2pN4/2P1P3/1P4P1/PQ3PBP/R4K2 b - - 2 20",
    "5rr1/4n2k/4q2P/P1P2n2/3B1p2/4pP2/2N1P3/1RR1K2Q w - - 1 49",
    "1r5k/2pq2p1/3p3p/p1pP4/4QP2/PP1R3P/6PK/8 w - - 1 51",
    "q5k1/5ppp/1r3bn1/1B6/P1N2P2/BQ2P1P1/5K1P/8 b - - 2 34",
    "r1b2k1r/5n2/p4q2/1ppn1Pp1/3pp1p1/NP2P3/P1PPBK2/1RQN2R1 w - - 0 22",
    "r1bqk2r/pppp1ppp/5n2/4b3/4P3/P1N5/1PP2PPP/R1BQKB1R w KQkq - 0 5",
    "r1bqr1k1/pp1p1ppp/2p5/8/3N1Q2/P2BB3/1PP2PPP/R3K2n b Q - 1 12",
    "r1bq2k1/p4r1p/1pp2pp1/3p4/1P1B3Q/P2B1N2/2P3PP/4R1K1 b - - 2 19",
    "r4qk1/6r1/1p4p1/2ppBbN1/1p5Q/P7/2P3PP/5RK1 w - - 2 25",
    "r7/6k1/1p6/2pp1p2/7Q/8/p1P2K1P/8 w - - 0 32",
    "r3k2r/ppp1pp1p/2nqb1pn/3p4/4P3/2PP4/PP1NBPPP/R2QK1NR w KQkq - 1 5",
    "3r1rk1/1pp1pn1p/p1n1q1p1/3p4/Q3P3/2P5/PP1NBPPP/4RRK1 w - - 0 12",
    "5rk1/1pp1pn1p/p3Brp1/8/1n6/5N2/PP3PPP/2R2RK1 w - - 2 20",
    "8/1p2pk1p/p1p1r1p1/3n4/8/5R2/PP3PPP/4R1K1 b - - 3 27",
    "8/4pk2/1p1r2p1/p1p4p/Pn5P/3R4/1P3PP1/4RK2 w - - 1 33",
    "8/5k2/1pnrp1p1/p1p4p/P6P/4R1PK/1P3P2/4R3 b - - 1 38",
    "8/8/1p1kp1p1/p1pr1n1p/P6P/1R4P1/1P3PK1/1R6 b - - 15 45",
    "8/8/1p1k2p1/p1prp2p/P2n3P/6P1/1P1R1PK1/4R3 b - - 5 49",
    "8/8/1p4p1/p1p2k1p/P2npP1P/4K1P1/1P6/3R4 w - - 6 54",
    "8/8/1p4p1/p1p2k1p/P2n1P1P/4K1P1/1P6/6R1 b - - 6 59",
    "8/5k2/1p4p1/p1pK3p/P2n1P1P/6P1/1P6/4R3 b - - 14 63",
    "8/1R6/1p1K1kp1/p6p/P1p2P1P/6P1/1Pn5/8 w - - 0 67",
    "1rb1rn1k/p3q1bp/2p3p1/2p1p3/2P1P2N/PP1RQNP1/1B3P2/4R1K1 b - - 4 23",
    "4rrk1/pp1n1pp1/q5p1/P1pP4/2n3P1/7P/1P3PB1/R1BQ1RK1 w - - 3 22",
    "r2qr1k1/pb1nbppp/1pn1p3/2ppP3/3P4/2PB1NN1/PP3PPP/R1BQR1K1 w - - 4 12",
    "2r2b2/5p2/5k2/p1r1pP2/P2pB3/1P3P2/K1P3R1/7R w - - 23 93",
    "8/8/8/4k3/8/8/8/R3K3 w Q - 0 1",
    "8/3k4/8/8/3P4/8/3K4/8 w - - 0 1",
    "8/8/1k6/8/2PK4/8/8/8 w - - 0 1",
];

/// Totals of one bench run.
#[derive(Clone, Debug, Default)]
pub struct BenchResult {
    /// Nodes over all positions.
    pub nodes: u64,
    /// Wall time, milliseconds.
    pub time_ms: u64,
    /// Node-type prediction statistics summed over all positions.
    pub stats: NodeStats,
}

/// Searches every bench position to `depth` silently (with `network`'s evaluation when given)
/// and returns the totals.
pub fn measure(depth: u32, network: Option<&Arc<Network>>) -> BenchResult {
    measure_until(depth, network, &Cancel::new()).expect("an uncancelled bench runs to its end")
}

/// [`measure`] that gives up (`None`) once `cancel` is set, stopping the position it searches.
pub fn measure_until(
    depth: u32,
    network: Option<&Arc<Network>>,
    cancel: &Cancel,
) -> Option<BenchResult> {
    let tt = Arc::new(Table::new(16).expect("16 MB hash table"));
    let mut result = BenchResult::default();
    let start = Instant::now();
    for fen in POSITIONS {
        let board = Board::from_fen(fen, false).expect("bench positions are valid");
        tt.clear();
        let limits = SearchLimits {
            depth: Some(depth),
            ..SearchLimits::default()
        };
        let ctl = Arc::new(SearchControl::new(limits, 1, false));
        cancel.watch(&ctl);
        let mut searcher = Searcher::new(0, Arc::clone(&tt), ctl);
        let params = SearchParams {
            network: network.cloned(),
            ..SearchParams::default()
        };
        let r = searcher.iterate(&Game::new(board), &params);
        if cancel.is_cancelled() {
            return None;
        }
        result.nodes += r.nodes;
        result.stats.merge(&searcher.stats);
    }
    result.time_ms = start.elapsed().as_millis() as u64;
    Some(result)
}

/// Runs the bench and prints it; with `stats`, the node-type confusion matrix too.
pub fn run(depth: u32, stats: bool, network: Option<&Arc<Network>>) -> BenchResult {
    run_until(depth, stats, network, &Cancel::new()).expect("an uncancelled bench runs to its end")
}

/// [`run`] that gives up (`None`, nothing printed) once `cancel` is set.
pub fn run_until(
    depth: u32,
    stats: bool,
    network: Option<&Arc<Network>>,
    cancel: &Cancel,
) -> Option<BenchResult> {
    let r = measure_until(depth, network, cancel)?;
    if !cancel.finish() {
        return None;
    }
    if stats {
        crate::outln!("node types (predicted vs. actual), depth {depth}:");
        crate::outln!("{}", r.stats);
    }
    crate::outln!(
        "{} positions, depth {}, time {} ms",
        POSITIONS.len(),
        depth,
        r.time_ms
    );
    crate::outln!(
        "{} nodes {} nps",
        r.nodes,
        r.nodes * 1000 / r.time_ms.max(1)
    );
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_varied() {
        assert!(POSITIONS.len() >= 50);
        for fen in POSITIONS {
            assert!(Board::from_fen(fen, false).is_ok(), "{fen}");
        }
    }

    #[test]
    fn a_cancelled_bench_gives_up() {
        let cancel = Cancel::new();
        cancel.cancel();
        assert!(measure_until(3, None, &cancel).is_none());
    }

    #[test]
    fn bench_is_deterministic() {
        let a = measure(3, None);
        let b = measure(3, None);
        assert!(a.nodes > 0);
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.stats, b.stats);
    }
}
