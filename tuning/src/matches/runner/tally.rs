//! The running totals of a match from the first engine's (A's) point of view: single-game
//! win/draw/loss counts, the pentanomial counts of completed opening pairs, the endings seen,
//! each engine's failures (time losses, illegal moves, crashes, stalls) and its overruns (moves
//! past the clock within the margin, which cost no game).

use crate::matches::game::{GameResult, Termination};
use crate::matches::stats::{Pentanomial, Wdl};
use crate::matches::tc::Overruns;
use shakmaty::Color;
use std::collections::{BTreeMap, HashMap};

/// Failures charged to one engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FailureCounts {
    /// Games lost on time.
    pub time_losses: u64,
    /// Games lost by an illegal or unparsable move.
    pub illegal_moves: u64,
    /// Games lost by exiting, crashing or closing the pipes.
    pub crashes: u64,
    /// Games lost by not answering (`readyok`, or `bestmove` without a clock).
    pub stalls: u64,
}

impl FailureCounts {
    /// All failures together.
    pub fn total(&self) -> u64 {
        self.time_losses + self.illegal_moves + self.crashes + self.stalls
    }
}

/// Totals of a match.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// A's single-game results.
    pub wdl: Wdl,
    /// Completed pairs.
    pub penta: Pentanomial,
    /// Failures of A (index 0) and B (index 1).
    pub failures: [FailureCounts; 2],
    /// Overruns of A (index 0) and B (index 1).
    pub overruns: [Overruns; 2],
    /// How many games ended each way.
    pub endings: BTreeMap<Termination, u64>,
    /// Games won by White, by Black, and drawn.
    pub by_color: [u64; 3],
    pending: HashMap<usize, (u8, usize)>,
}

impl Tally {
    /// Counts game `index` (games `2k` and `2k + 1` form pair `k`) in which engine A had
    /// `a_color`.
    pub fn record(&mut self, index: usize, a_color: Color, result: &GameResult) {
        let a_points2: u8 = match result.winner {
            None => 1,
            Some(w) if w == a_color => 2,
            Some(_) => 0,
        };
        match a_points2 {
            2 => self.wdl.wins += 1,
            1 => self.wdl.draws += 1,
            _ => self.wdl.losses += 1,
        }
        self.by_color[match result.winner {
            Some(Color::White) => 0,
            Some(Color::Black) => 1,
            None => 2,
        }] += 1;
        *self.endings.entry(result.termination).or_default() += 1;
        if result.termination.is_failure() {
            if let Some(winner) = result.winner {
                let loser_is_a = winner != a_color;
                let counts = &mut self.failures[usize::from(!loser_is_a)];
                match result.termination {
                    Termination::TimeForfeit => counts.time_losses += 1,
                    Termination::IllegalMove => counts.illegal_moves += 1,
                    Termination::Disconnect => counts.crashes += 1,
                    _ => counts.stalls += 1,
                }
            }
        }
        let entry = self.pending.entry(index / 2).or_insert((0, 0));
        entry.0 += a_points2;
        entry.1 += 1;
        if entry.1 == 2 {
            let doubled = usize::from(entry.0);
            self.pending.remove(&(index / 2));
            self.penta.add_pair(doubled);
        }
    }

    /// Adds the overruns of a game in which engine A had `a_color`; `by_color` holds White's
    /// and Black's.
    pub fn add_overruns(&mut self, a_color: Color, by_color: &[Overruns; 2]) {
        let (a, b) = match a_color {
            Color::White => (0, 1),
            Color::Black => (1, 0),
        };
        self.overruns[0].add(&by_color[a]);
        self.overruns[1].add(&by_color[b]);
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wdl.games()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(winner: Option<Color>, t: Termination) -> GameResult {
        GameResult {
            winner,
            termination: t,
            reason: String::new(),
        }
    }

    #[test]
    fn pairs_complete_out_of_order() {
        let mut t = Tally::default();
        // pair 0: A white wins, A black draws → WD (3)
        t.record(1, Color::Black, &res(None, Termination::Repetition));
        assert_eq!(t.penta.pairs(), 0);
        t.record(
            0,
            Color::White,
            &res(Some(Color::White), Termination::Checkmate),
        );
        assert_eq!(t.penta.counts, [0, 0, 0, 1, 0]);
        // pair 1: A loses both → LL
        t.record(
            2,
            Color::White,
            &res(Some(Color::Black), Termination::Checkmate),
        );
        t.record(
            3,
            Color::Black,
            &res(Some(Color::White), Termination::Checkmate),
        );
        assert_eq!(t.penta.counts, [1, 0, 0, 1, 0]);
        assert_eq!((t.wdl.wins, t.wdl.draws, t.wdl.losses), (1, 1, 2));
        assert_eq!(t.by_color, [2, 1, 1]);
    }

    #[test]
    fn failures_charged_to_the_loser() {
        let mut t = Tally::default();
        // B (black) plays an illegal move
        t.record(
            0,
            Color::White,
            &res(Some(Color::White), Termination::IllegalMove),
        );
        // A (black) loses on time
        t.record(
            1,
            Color::Black,
            &res(Some(Color::White), Termination::TimeForfeit),
        );
        t.record(
            2,
            Color::White,
            &res(Some(Color::Black), Termination::Disconnect),
        );
        t.record(
            3,
            Color::Black,
            &res(Some(Color::Black), Termination::Stall),
        );
        assert_eq!(t.failures[1].illegal_moves, 1);
        assert_eq!(t.failures[0].time_losses, 1);
        assert_eq!(t.failures[0].crashes, 1);
        assert_eq!(t.failures[1].stalls, 1);
        assert_eq!(t.failures[0].total(), 2);
        assert_eq!(t.penta.counts, [0, 0, 2, 0, 0]);
    }

    #[test]
    fn overruns_go_to_the_engine_that_made_them() {
        let mut t = Tally::default();
        let white_two = [
            Overruns {
                count: 2,
                max_ms: 3,
            },
            Overruns::default(),
        ];
        // A is White: A's two overruns
        t.add_overruns(Color::White, &white_two);
        // A is Black: White (B) made them
        t.add_overruns(Color::Black, &white_two);
        let black_one = [
            Overruns::default(),
            Overruns {
                count: 1,
                max_ms: 9,
            },
        ];
        t.add_overruns(Color::White, &black_one);
        assert_eq!(
            t.overruns,
            [
                Overruns {
                    count: 2,
                    max_ms: 3
                },
                Overruns {
                    count: 3,
                    max_ms: 9
                }
            ]
        );
    }
}
