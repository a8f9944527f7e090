//! When the search probes the tables and what a probe scores, after Stockfish: a node below the
//! root whose position was reached by a capture or a pawn move (halfmove clock 0: the WDL tables
//! are exact there), without castling rights, with at most the probe limit of men (the smaller of
//! `SyzygyProbeLimit` and the largest table), and, with exactly that many men, at least
//! `SyzygyProbeDepth` plies left to search. A win scores [`tb_win_in`]`(ply)`, a loss its
//! negation, a draw 0; with `Syzygy50MoveRule` a cursed win (a win the fifty-move rule turns into
//! a draw) and a blessed loss are draws nudged to +1 and −1, without it they are wins and losses.

use std::sync::Arc;

use shakmaty::{Chess, Position};
use shakmaty_syzygy::Wdl;

use super::Tablebases;
use crate::score::tb_win_in;
use crate::tt::Bound;

/// The tables and the rules the search probes them by (the `Syzygy*` options of one search).
#[derive(Clone, Debug)]
pub struct Probing {
    tables: Arc<Tablebases>,
    /// Most men probed: the smaller of the probe limit and the largest table.
    cardinality: usize,
    /// Plies left that a node with exactly `cardinality` men needs to be probed.
    probe_depth: i32,
    /// `Syzygy50MoveRule`.
    rule50: bool,
}

impl Probing {
    /// The probing of one search with `tables` and the options `SyzygyProbeDepth`,
    /// `SyzygyProbeLimit` and `Syzygy50MoveRule`; `None` when nothing would be probed: a
    /// `UCI_Chess960` game or a limit below 3 men (no table has fewer). As Stockfish, a limit
    /// beyond the largest table probes positions of that table's size at any depth.
    pub fn new(
        tables: Arc<Tablebases>,
        probe_depth: i32,
        probe_limit: usize,
        rule50: bool,
        chess960: bool,
    ) -> Option<Probing> {
        let largest = tables.max_pieces();
        let cardinality = probe_limit.min(largest);
        if chess960 || cardinality < 3 {
            return None;
        }
        Some(Probing {
            tables,
            cardinality,
            probe_depth: if probe_limit > largest {
                0
            } else {
                probe_depth
            },
            rule50,
        })
    }

    /// The tables.
    pub fn tables(&self) -> &Tablebases {
        &self.tables
    }

    /// Most men probed.
    pub fn cardinality(&self) -> usize {
        self.cardinality
    }

    /// `Syzygy50MoveRule`.
    pub fn rule50(&self) -> bool {
        self.rule50
    }

    /// True when the search probes `pos` at a node with `depth` plies left (see the module).
    #[inline]
    pub fn wants(&self, pos: &Chess, depth: i32) -> bool {
        if pos.halfmoves() != 0 || pos.castles().any() {
            return false;
        }
        let men = pos.board().occupied().count();
        men < self.cardinality || (men == self.cardinality && depth >= self.probe_depth)
    }

    /// Probes `pos`, a node at `ply` with `depth` plies left, when [`Probing::wants`] it: the
    /// score and the bound it is (see [`wdl_score`]); `None` when not probed or not in the tables.
    #[inline]
    pub fn probe(&self, pos: &Chess, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        if !self.wants(pos, depth) {
            return None;
        }
        let wdl = self.tables.wdl_after_zeroing(pos)?;
        Some(wdl_score(wdl, ply, self.rule50))
    }
}

/// The score of a probed `wdl` (side to move's view) at `ply`, and what it is: a win is a lower
/// bound (a mate, higher, may still be found), a loss an upper bound, a draw exact. With
/// `rule50`, cursed wins and blessed losses are draws of +1 and −1; without it, wins and losses.
pub fn wdl_score(wdl: Wdl, ply: usize, rule50: bool) -> (i32, Bound) {
    match wdl {
        Wdl::Win => (tb_win_in(ply), Bound::Lower),
        Wdl::CursedWin if !rule50 => (tb_win_in(ply), Bound::Lower),
        Wdl::CursedWin => (1, Bound::Exact),
        Wdl::Draw => (0, Bound::Exact),
        Wdl::BlessedLoss if rule50 => (-1, Bound::Exact),
        Wdl::BlessedLoss | Wdl::Loss => (-tb_win_in(ply), Bound::Upper),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::score::{is_decisive, is_mate, TB_WIN};
    use crate::syzygy::testutil::test_tables;

    fn pos(fen: &str) -> Chess {
        Board::from_fen(fen, false).unwrap().pos().clone()
    }

    #[test]
    fn wdl_scores_are_decisive_wins_and_losses_draws_and_nudged_draws() {
        for rule50 in [true, false] {
            let (win, b) = wdl_score(Wdl::Win, 5, rule50);
            assert_eq!((win, b), (TB_WIN - 5, Bound::Lower));
            assert!(is_decisive(win) && !is_mate(win));
            let (loss, b) = wdl_score(Wdl::Loss, 5, rule50);
            assert_eq!((loss, b), (-(TB_WIN - 5), Bound::Upper));
            assert_eq!(wdl_score(Wdl::Draw, 5, rule50), (0, Bound::Exact));
        }
        // A nearer win scores higher.
        assert!(wdl_score(Wdl::Win, 2, true).0 > wdl_score(Wdl::Win, 3, true).0);
        // The fifty-move rule makes cursed wins and blessed losses draws, nudged off 0.
        assert_eq!(wdl_score(Wdl::CursedWin, 4, true), (1, Bound::Exact));
        assert_eq!(wdl_score(Wdl::BlessedLoss, 4, true), (-1, Bound::Exact));
        // Without it they are wins and losses.
        assert_eq!(
            wdl_score(Wdl::CursedWin, 4, false),
            (TB_WIN - 4, Bound::Lower)
        );
        assert_eq!(
            wdl_score(Wdl::BlessedLoss, 4, false),
            (-(TB_WIN - 4), Bound::Upper)
        );
    }

    #[test]
    fn probe_conditions_follow_men_limit_depth_clock_and_castling() {
        let tables = test_tables();
        assert_eq!(tables.max_pieces(), 4);
        // The default limit (7) is beyond the largest table: 4 men are probed at any depth.
        let p = Probing::new(Arc::clone(&tables), 5, 7, true, false).unwrap();
        assert_eq!(p.cardinality(), 4);
        let kbnk = pos("8/8/8/4k3/8/8/8/KBN5 w - - 0 1");
        assert!(p.wants(&kbnk, 1));
        // A limit of 4 with probe depth 5: 4 men need 5 plies left, 3 men are probed always.
        let p = Probing::new(Arc::clone(&tables), 5, 4, true, false).unwrap();
        assert!(!p.wants(&kbnk, 4));
        assert!(p.wants(&kbnk, 5));
        let kqk = pos("8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
        assert!(p.wants(&kqk, 1));
        // A limit of 3: no 4-man position is probed.
        let p = Probing::new(Arc::clone(&tables), 1, 3, true, false).unwrap();
        assert!(!p.wants(&kbnk, 50));
        assert!(p.wants(&kqk, 1));
        // More men than the limit, a running halfmove clock, castling rights: never.
        let p = Probing::new(Arc::clone(&tables), 1, 7, true, false).unwrap();
        assert!(!p.wants(&pos("8/8/8/4k3/8/8/1P6/KQN5 w - - 0 1"), 9));
        assert!(!p.wants(&pos("8/8/8/4k3/8/8/8/KQ6 w - - 3 9"), 9));
        let castling = pos("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        assert!(!p.wants(&castling, 9));
        assert_eq!(p.probe(&castling, 9, 3), None);
        // The same men without the right are probed, and the rook wins.
        let no_rights = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(p.probe(&no_rights, 9, 3), Some((TB_WIN - 3, Bound::Lower)));
        // Chess960, and limits below any table, probe nothing at all.
        assert!(Probing::new(Arc::clone(&tables), 1, 7, true, true).is_none());
        assert!(Probing::new(Arc::clone(&tables), 1, 2, true, false).is_none());
        assert!(Probing::new(tables, 1, 0, true, false).is_none());
    }

    #[test]
    fn probes_score_the_side_to_move() {
        let p = Probing::new(test_tables(), 1, 7, true, false).unwrap();
        // The queen side to move wins, the lone king to move loses.
        let (s, b) = p
            .probe(&pos("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"), 1, 2)
            .unwrap();
        assert_eq!((s, b), (TB_WIN - 2, Bound::Lower));
        let (s, b) = p
            .probe(&pos("8/8/8/4k3/8/8/8/KQ6 b - - 0 1"), 1, 2)
            .unwrap();
        assert_eq!((s, b), (-(TB_WIN - 2), Bound::Upper));
        // A rook pawn with the defending king in front of it is a draw.
        let (s, b) = p.probe(&pos("k7/8/8/8/8/8/P7/K7 w - - 0 1"), 1, 2).unwrap();
        assert_eq!((s, b), (0, Bound::Exact));
        // A material the test tables lack is no probe.
        assert_eq!(p.probe(&pos("7n/8/8/4k3/8/8/8/KQ6 w - - 0 1"), 1, 2), None);
    }
}
