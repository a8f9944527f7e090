//! The root moves the tables keep, after Stockfish's `rank_root_moves`: when the root position is
//! in the tables (no castling rights, at most the probe limit of men), every root move is ranked
//! by the DTZ of the position it leads to, counted from the root and set against the fifty-move
//! counter, and only the moves of the best rank are searched (through `searchmoves`). Every win
//! that zeroes the counter in time ranks the same, so the search picks among them; a win that
//! would need more plies than the counter leaves ranks by its DTZ, a draw 0, and a loss that
//! cannot reach a fifty-move draw the lowest. Where a DTZ table is missing, the moves are ranked
//! by WDL alone. So a won ending is never thrown away and a drawn one never lost.

use shakmaty::{Move, Position};
use shakmaty_syzygy::{Dtz, Wdl};

use super::Probing;
use crate::board::Game;
use crate::score::tb_win_in;

/// Rank of a win the fifty-move counter cannot spoil (Stockfish's `MAX_DTZ`).
const MAX_DTZ: i32 = 1 << 18;

/// What the tables say about the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootTablebase {
    /// The moves to search: those of the best rank, in the order they were given.
    pub moves: Vec<Move>,
    /// The score every kept move is reported with, root side's view: a win [`tb_win_in`]`(1)`,
    /// a loss its negation, a draw 0; with `Syzygy50MoveRule`, a cursed win or blessed loss
    /// ±1..50, nearer 50 the nearer the win (or loss) is to being real.
    pub score: i32,
    /// Probes made (one per move ranked), counted as `tbhits`.
    pub probes: u64,
    /// Ranked by DTZ; `false`: by WDL alone (a DTZ table is missing).
    pub by_dtz: bool,
}

impl RootTablebase {
    /// Whether the search below the root still probes: as Stockfish, only when the moves could
    /// not be ranked by DTZ and the root is won (the search must then find the way to convert).
    pub fn search_probes(&self) -> bool {
        !self.by_dtz && self.score > 0
    }
}

/// Ranks `moves` (legal at `game`'s position) by the tables of `probing`; `None` when the root
/// is not in them (castling rights, too many men, a table missing).
pub fn rank_root(probing: &Probing, game: &Game, moves: &[Move]) -> Option<RootTablebase> {
    let pos = game.board.pos();
    if moves.is_empty()
        || pos.castles().any()
        || pos.board().occupied().count() > probing.cardinality()
    {
        return None;
    }
    let (ranks, by_dtz) = match dtz_ranks(probing, game, moves) {
        Some(r) => (r, true),
        None => (wdl_ranks(probing, game, moves)?, false),
    };
    let best = ranks.iter().copied().max()?;
    let kept = moves
        .iter()
        .zip(&ranks)
        .filter(|&(_, &r)| r == best)
        .map(|(&m, _)| m)
        .collect();
    Some(RootTablebase {
        moves: kept,
        score: rank_score(best, probing.rule50()),
        probes: moves.len() as u64,
        by_dtz,
    })
}

/// Stockfish's ranks from DTZ: each move's DTZ counted from the root (a mate is 1), against the
/// root's halfmove clock; `None` when a table cannot tell.
fn dtz_ranks(probing: &Probing, game: &Game, moves: &[Move]) -> Option<Vec<i32>> {
    let root = &game.board;
    let counter = root.pos().halfmoves() as i32;
    let repeated = has_repeated(game);
    let mut ranks = Vec::with_capacity(moves.len());
    for &m in moves {
        let child = root.play(m);
        let dtz = if child.pos().is_checkmate() {
            1
        } else if child.pos().halfmoves() == 0 {
            // A capture or pawn move: the WDL of the position after it is exact.
            let wdl = -probing.tables().wdl_after_zeroing(child.pos())?;
            Dtz::before_zeroing(wdl).0
        } else if child.is_rule_draw()
            || game.history.iter().filter(|&&k| k == child.key()).count() >= 2
        {
            // The fifty-move rule, or a third occurrence: drawn whatever the tables say.
            0
        } else {
            let d = -probing.tables().dtz(child.pos())?.0;
            d + d.signum()
        };
        let rank = if dtz > 0 {
            if dtz + counter <= 99 && !repeated {
                MAX_DTZ
            } else {
                MAX_DTZ - (dtz + counter)
            }
        } else if dtz < 0 {
            if -dtz * 2 + counter < 100 {
                -MAX_DTZ
            } else {
                -MAX_DTZ + (-dtz + counter)
            }
        } else {
            0
        };
        ranks.push(rank);
    }
    Some(ranks)
}

/// Ranks from WDL alone, for tables without their DTZ files.
fn wdl_ranks(probing: &Probing, game: &Game, moves: &[Move]) -> Option<Vec<i32>> {
    let root = &game.board;
    let mut ranks = Vec::with_capacity(moves.len());
    for &m in moves {
        let child = root.play(m);
        let wdl = if child.pos().is_checkmate() {
            Wdl::Win
        } else {
            -probing.tables().wdl_after_zeroing(child.pos())?
        };
        ranks.push(match wdl {
            Wdl::Loss => -MAX_DTZ,
            Wdl::BlessedLoss => -MAX_DTZ + 101,
            Wdl::Draw => 0,
            Wdl::CursedWin => MAX_DTZ - 101,
            Wdl::Win => MAX_DTZ,
        });
    }
    Some(ranks)
}

/// The score a rank is reported with (see [`RootTablebase::score`]).
fn rank_score(rank: i32, rule50: bool) -> i32 {
    let bound = if rule50 { MAX_DTZ - 100 } else { 1 };
    if rank >= bound {
        tb_win_in(1)
    } else if rank > 0 {
        (rank - (MAX_DTZ - 200)).max(3) / 2
    } else if rank == 0 {
        0
    } else if rank > -bound {
        (rank + (MAX_DTZ - 200)).min(-3) / 2
    } else {
        -tb_win_in(1)
    }
}

/// True when a position repeated since the last capture or pawn move (the root included).
fn has_repeated(game: &Game) -> bool {
    let keys = &game.history;
    keys.iter()
        .enumerate()
        .any(|(i, k)| keys[i + 1..].contains(k) || *k == game.board.key())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::CastlingMode;

    use super::*;
    use crate::board::{Board, Game};
    use crate::syzygy::testutil::{test_tables, TempDir};
    use crate::syzygy::Tablebases;

    fn game(fen: &str) -> Game {
        Game::new(Board::from_fen(fen, false).unwrap())
    }

    fn legal(game: &Game) -> Vec<Move> {
        game.board.pos().legal_moves().into_iter().collect()
    }

    fn names(moves: &[Move]) -> Vec<String> {
        let mut v: Vec<String> = moves
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        v.sort();
        v
    }

    fn probing(tables: Arc<Tablebases>) -> Probing {
        Probing::new(tables, 1, 7, true, false).unwrap()
    }

    #[test]
    fn only_the_winning_king_move_is_kept() {
        // Every move but Kc3 draws: the pawn pushes included.
        let g = game("8/8/8/4k3/8/8/1K1P4/8 w - - 0 1");
        let r = rank_root(&probing(test_tables()), &g, &legal(&g)).unwrap();
        assert_eq!(names(&r.moves), ["b2c3"]);
        assert_eq!((r.score, r.probes, r.by_dtz), (tb_win_in(1), 10, true));
        assert!(
            !r.search_probes(),
            "ranked by DTZ: the search needs no probes"
        );
    }

    #[test]
    fn only_the_drawing_defence_is_kept() {
        // Black holds the draw with Ke4 alone; every other king move loses.
        let g = game("8/8/8/8/8/5k2/3P4/K7 b - - 0 1");
        let r = rank_root(&probing(test_tables()), &g, &legal(&g)).unwrap();
        assert_eq!(names(&r.moves), ["f3e4"]);
        assert_eq!(r.score, 0);
        // Among moves that all draw, all are kept.
        let g = game("8/4k3/8/4K3/4P3/8/8/8 w - - 0 1");
        let r = rank_root(&probing(test_tables()), &g, &legal(&g)).unwrap();
        assert_eq!(r.moves.len(), 4);
        assert_eq!(r.score, 0);
    }

    #[test]
    fn a_lost_root_keeps_every_loss_and_scores_it() {
        let g = game("8/8/8/4k3/8/8/8/KQ6 b - - 0 1");
        let r = rank_root(&probing(test_tables()), &g, &legal(&g)).unwrap();
        assert_eq!(r.moves.len(), 6);
        assert_eq!(r.score, -tb_win_in(1));
    }

    #[test]
    fn searchmoves_are_ranked_among_themselves() {
        let g = game("8/8/8/4k3/8/8/1K1P4/8 w - - 0 1");
        let given: Vec<Move> = legal(&g)
            .into_iter()
            .filter(|m| m.role() == shakmaty::Role::Pawn)
            .collect();
        let r = rank_root(&probing(test_tables()), &g, &given).unwrap();
        assert_eq!(names(&r.moves), ["d2d3", "d2d4"]);
        assert_eq!((r.score, r.probes), (0, 2));
    }

    #[test]
    fn the_fifty_move_counter_keeps_the_fastest_conversion() {
        let p = probing(test_tables());
        let fresh = game("8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
        let all_wins = rank_root(&p, &fresh, &legal(&fresh)).unwrap();
        // Queen moves to e4 and f5 hang the queen; every other move wins in time.
        assert_eq!(all_wins.moves.len(), legal(&fresh).len() - 2);
        assert_eq!(all_wins.score, tb_win_in(1));
        // Ninety plies since the last capture: no win is in time any more, the smallest DTZ
        // is kept and the root is scored a cursed win (a draw, nudged above 0).
        let late = game("8/8/8/4k3/8/8/8/KQ6 w - - 90 100");
        let r = rank_root(&p, &late, &legal(&late)).unwrap();
        assert!(!r.moves.is_empty() && r.moves.len() < all_wins.moves.len());
        assert!((1..=50).contains(&r.score), "{}", r.score);
        // The winning moves (the opponent's DTZ after them negative), and the fastest of them.
        let wins: Vec<(Move, i32)> = legal(&late)
            .into_iter()
            .map(|m| (m, -p.tables().dtz(late.board.play(m).pos()).unwrap().0))
            .filter(|&(_, d)| d > 0)
            .collect();
        let fastest = wins.iter().map(|&(_, d)| d).min().unwrap();
        for (m, d) in wins {
            assert_eq!(
                r.moves.contains(&m),
                d == fastest,
                "{m:?}: {d} vs {fastest}"
            );
        }
        // Without the fifty-move rule the same root is a win.
        let no_rule = Probing::new(test_tables(), 1, 7, false, false).unwrap();
        assert_eq!(
            rank_root(&no_rule, &late, &legal(&late)).unwrap().score,
            tb_win_in(1)
        );
    }

    #[test]
    fn a_repetition_keeps_only_the_fastest_conversion() {
        let mut g = game("8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
        let all_wins = rank_root(&probing(test_tables()), &g, &legal(&g)).unwrap();
        for text in ["b1b2", "e5e4", "b2b1", "e4e5"] {
            let m = crate::board::parse_uci_move(g.board.pos(), text).unwrap();
            g.push(m);
        }
        let r = rank_root(&probing(test_tables()), &g, &legal(&g)).unwrap();
        assert!(!r.moves.is_empty() && r.moves.len() < all_wins.moves.len());
        assert_eq!(r.score, tb_win_in(1));
    }

    #[test]
    fn roots_outside_the_tables_are_not_ranked() {
        let p = probing(test_tables());
        // Castling rights (three men, in the tables but for the right).
        let g = game("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        assert_eq!(rank_root(&p, &g, &legal(&g)), None);
        // A material without its table.
        let g = game("7n/8/8/4k3/8/8/8/KQ6 w - - 0 1");
        assert_eq!(rank_root(&p, &g, &legal(&g)), None);
        // More men than the probe limit.
        let three = Probing::new(test_tables(), 1, 3, true, false).unwrap();
        let g = game("8/8/8/4k3/8/8/8/KBN5 w - - 0 1");
        assert_eq!(rank_root(&three, &g, &legal(&g)), None);
        assert!(rank_root(&p, &g, &legal(&g)).is_some());
    }

    #[test]
    fn without_dtz_tables_the_moves_are_ranked_by_wdl() {
        let dir = TempDir::new("wdl-only");
        for t in ["KPvK", "KQvK", "KRvK", "KBvK", "KNvK"] {
            dir.copy_table(&format!("{t}.rtbw"));
        }
        let tables = Arc::new(Tablebases::load(dir.path().to_str().unwrap()).unwrap());
        let g = game("8/8/8/4k3/8/8/1K1P4/8 w - - 0 1");
        let r = rank_root(&probing(tables), &g, &legal(&g)).unwrap();
        assert_eq!(names(&r.moves), ["b2c3"]);
        assert_eq!((r.score, r.by_dtz), (tb_win_in(1), false));
        assert!(
            r.search_probes(),
            "a won root without DTZ is converted by the search"
        );
    }
}
