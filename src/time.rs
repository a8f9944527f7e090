//! Time management: turns the clock (`wtime/btime`, increments, `movestogo`, `movetime`) and the
//! `Move Overhead` option into a soft limit (do not start another iteration past it) and a hard limit
//! (stop the search at once), both measured from the moment our clock started (`movetime` gives only
//! the hard limit: the search uses all of it); and
//! [`IterationTimer`], which stretches or shrinks the soft limit between iterations by how stable
//! the best move is and whether the score is falling.

use shakmaty::Color;

/// The clock part of a `go` command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// White's remaining time, ms.
    pub wtime: Option<u64>,
    /// Black's remaining time, ms.
    pub btime: Option<u64>,
    /// White's increment, ms.
    pub winc: Option<u64>,
    /// Black's increment, ms.
    pub binc: Option<u64>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Fixed time per move, ms.
    pub movetime: Option<u64>,
}

/// Soft and hard limits in milliseconds; `None` = no time limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeBudget {
    /// Past this, no new iteration is started.
    pub soft_ms: Option<u64>,
    /// Past this, the search stops immediately.
    pub hard_ms: Option<u64>,
}

/// Computes the budget for the side to move.
pub fn budget(clock: &Clock, turn: Color, overhead_ms: u64) -> TimeBudget {
    if let Some(mt) = clock.movetime {
        // "Search exactly this long": no soft limit, so no rule ends the search before the time
        // is spent; the hard limit stops it.
        let t = mt.saturating_sub(overhead_ms).max(1);
        return TimeBudget {
            soft_ms: None,
            hard_ms: Some(t),
        };
    }
    let (time, inc) = match turn {
        Color::White => (clock.wtime, clock.winc.unwrap_or(0)),
        Color::Black => (clock.btime, clock.binc.unwrap_or(0)),
    };
    let Some(time) = time else {
        return TimeBudget::default();
    };
    // What we may spend at all: the clock less the overhead and a reserve (up to 50 ms) that keeps
    // the clock from settling at a few milliseconds in increment games. Every step saturates, so
    // a clock or increment up to `u64::MAX` gives a huge budget, never a wrapped-around tiny one.
    let reserve = (time / 2).min(50) + time / 50;
    let usable = time
        .saturating_sub(overhead_ms.saturating_add(reserve))
        .max(1);
    let moves_left = u64::from(clock.movestogo.unwrap_or(20).clamp(1, 40));
    let mut soft = (usable / moves_left).saturating_add(share(inc, 3, 4));
    let mut hard = soft.saturating_mul(4).min(share(usable, 6, 10));
    if moves_left == 1 {
        hard = share(usable, 9, 10);
        soft = soft.min(hard);
    }
    soft = soft.min(share(usable, 4, 10)).min(hard);
    TimeBudget {
        soft_ms: Some(soft.max(1)),
        hard_ms: Some(hard.max(1)),
    }
}

/// `x · num / den` for `num <= den`, exact for every `x` (no intermediate overflow).
fn share(x: u64, num: u64, den: u64) -> u64 {
    debug_assert!(num <= den && den > 0);
    (u128::from(x) * u128::from(num) / u128::from(den)) as u64
}

/// Share of the soft limit (percent) under which a new iteration is started, before scaling.
pub const NEW_ITERATION_PERCENT: u64 = 55;

/// Decides, after each completed iteration, whether another one is worth starting: a best move
/// that keeps changing or a score that is falling earns more time, a best move that has stood
/// for several iterations less. The share of the soft limit under which a new iteration starts
/// is [`NEW_ITERATION_PERCENT`] times [`IterationTimer::scale_percent`] / 100. The iterations'
/// scores are the caller's (`SearchResult::scores`); the timer keeps only the best-move history.
#[derive(Clone, Debug, Default)]
pub struct IterationTimer {
    /// Best-move changes, each iteration's count halved at the next (in eighths of a change).
    instability_eighths: u32,
    /// Iterations in a row that ended with the same best move.
    same_best: u32,
    last_best: Option<shakmaty::Move>,
}

impl IterationTimer {
    /// Records a completed iteration's best move.
    pub fn record(&mut self, best: Option<shakmaty::Move>) {
        self.instability_eighths /= 2;
        if best != self.last_best && self.last_best.is_some() {
            self.instability_eighths += 8;
            self.same_best = 0;
        } else {
            self.same_best += 1;
        }
        self.last_best = best;
    }

    /// Scale of the new-iteration share, percent, given the scores of the completed iterations
    /// in order: 100 is neutral, at least 50 and at most 200. A best move unchanged for six or
    /// more iterations gives 70 %, a change in the last iteration about 150 %; a score fallen by
    /// `d` cp since four iterations ago adds `d` % (at most 50 %).
    pub fn scale_percent(&self, scores: &[i32]) -> u64 {
        let stability: i64 = match self.same_best {
            0..=1 => 100,
            2..=3 => 90,
            4..=5 => 80,
            _ => 70,
        };
        // Up to two recent changes' worth: 8/8 → +50 %.
        let instability = i64::from(self.instability_eighths.min(16)) * 50 / 8;
        let falling = match scores.len() {
            n if n >= 5 => {
                let drop = i64::from(scores[n - 5]) - i64::from(scores[n - 1]);
                drop.clamp(0, 50)
            }
            _ => 0,
        };
        (stability + instability + falling).clamp(50, 200) as u64
    }

    /// The share of the soft limit (percent) under which another iteration is started.
    pub fn new_iteration_percent(&self, scores: &[i32]) -> u64 {
        NEW_ITERATION_PERCENT * self.scale_percent(scores) / 100
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(from: shakmaty::Square, to: shakmaty::Square) -> shakmaty::Move {
        shakmaty::Move::Normal {
            role: shakmaty::Role::Knight,
            from,
            capture: None,
            to,
            promotion: None,
        }
    }

    /// An iteration timer with the scores it was shown, as the search keeps them beside it.
    #[derive(Default)]
    struct Timed {
        timer: IterationTimer,
        scores: Vec<i32>,
    }

    impl Timed {
        fn record(&mut self, best: shakmaty::Move, score: i32) {
            self.timer.record(Some(best));
            self.scores.push(score);
        }

        fn scale_percent(&self) -> u64 {
            self.timer.scale_percent(&self.scores)
        }
    }

    #[test]
    fn iteration_timer_scales_with_stability_and_falling_scores() {
        use shakmaty::Square::*;
        let (a, b) = (mv(G1, F3), mv(B1, C3));
        let mut t = Timed::default();
        t.record(a, 10);
        assert_eq!(t.scale_percent(), 100);
        // Stable best move, steady score: the share shrinks step by step to 70 %.
        let mut last = t.scale_percent();
        for _ in 0..8 {
            t.record(a, 10);
            assert!(t.scale_percent() <= last);
            last = t.scale_percent();
        }
        assert_eq!(t.scale_percent(), 70);
        assert_eq!(
            t.timer.new_iteration_percent(&t.scores),
            NEW_ITERATION_PERCENT * 70 / 100
        );
        // A change of best move: more time than neutral, decaying again afterwards.
        t.record(b, 10);
        let after_change = t.scale_percent();
        assert!(after_change > 100, "{after_change}");
        t.record(b, 10);
        assert!(t.scale_percent() < after_change);
        // A falling score adds time, a rising one does not take any away.
        let mut f = Timed::default();
        let mut r = Timed::default();
        for i in 0..6 {
            f.record(a, 50 - 10 * i);
            r.record(a, 10 * i);
        }
        assert!(f.scale_percent() > r.scale_percent());
        assert_eq!(r.scale_percent(), 70);
        // Bounded however bad it gets.
        let mut w = Timed::default();
        for i in 0..20 {
            w.record(if i % 2 == 0 { a } else { b }, -100 * i);
        }
        assert!(w.scale_percent() <= 200);
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        for &(time, inc, mtg) in &[
            (1000u64, 10u64, None),
            (60_000, 600, None),
            (5, 0, None),
            (0, 0, None),
            (100, 1000, None),
            (30_000, 0, Some(1u32)),
            (30_000, 0, Some(40)),
        ] {
            let clock = Clock {
                wtime: Some(time),
                winc: Some(inc),
                movestogo: mtg,
                ..Clock::default()
            };
            let b = budget(&clock, Color::White, 10);
            let (soft, hard) = (b.soft_ms.unwrap(), b.hard_ms.unwrap());
            assert!(soft <= hard, "{time} {inc}: {soft} > {hard}");
            assert!(hard <= time.max(1), "{time} {inc}: hard {hard}");
            assert!(hard <= time.saturating_sub(10).max(1), "overhead kept");
        }
        let b = budget(
            &Clock {
                movetime: Some(500),
                ..Clock::default()
            },
            Color::Black,
            10,
        );
        assert_eq!((b.soft_ms, b.hard_ms), (None, Some(490)));
        assert_eq!(
            budget(&Clock::default(), Color::White, 10),
            TimeBudget::default()
        );
    }

    /// Clock values from none at all to `u64::MAX`, ascending.
    const TIMES: [u64; 8] = [
        0,
        1,
        1000,
        60_000,
        1 << 40,
        i64::MAX as u64,
        u64::MAX - 1,
        u64::MAX,
    ];

    fn soft_hard(time: u64, inc: u64, movestogo: Option<u32>, overhead: u64) -> (u64, u64) {
        let clock = Clock {
            btime: Some(time),
            binc: Some(inc),
            movestogo,
            ..Clock::default()
        };
        let b = budget(&clock, Color::Black, overhead);
        (b.soft_ms.unwrap(), b.hard_ms.unwrap())
    }

    #[test]
    fn absurd_clocks_give_huge_budgets_not_wrapped_ones() {
        for movestogo in [None, Some(1), Some(2), Some(40), Some(u32::MAX)] {
            for overhead in [0, 10, 5000] {
                for inc in TIMES {
                    let mut last = (0, 0);
                    for time in TIMES {
                        let (soft, hard) = soft_hard(time, inc, movestogo, overhead);
                        let case = format!("time {time} inc {inc} mtg {movestogo:?} oh {overhead}");
                        assert!(soft >= 1 && soft <= hard, "{case}: {soft} > {hard}");
                        assert!(
                            hard <= time.saturating_sub(overhead).max(1),
                            "{case}: {hard}"
                        );
                        // More time never means a smaller budget.
                        assert!(soft >= last.0 && hard >= last.1, "{case}: {last:?}");
                        last = (soft, hard);
                    }
                }
                // A clock of about 292 million years: a budget of years, not milliseconds.
                let year = 365 * 24 * 3_600_000;
                for time in [i64::MAX as u64, u64::MAX] {
                    let (soft, hard) = soft_hard(time, 0, movestogo, overhead);
                    assert!(
                        soft > 1000 * year && hard > 1000 * year,
                        "{time}: {soft} {hard}"
                    );
                }
            }
        }
        // A huge increment with a small clock: the clock still bounds the move, and the
        // increment only adds to what a move without it gets.
        for inc in [i64::MAX as u64, u64::MAX] {
            let (soft, hard) = soft_hard(1000, inc, None, 10);
            let (soft0, hard0) = soft_hard(1000, 0, None, 10);
            assert!(
                hard <= 990 && soft >= soft0 && hard >= hard0,
                "{soft} {hard}"
            );
        }
        // The same numbers as plain arithmetic where nothing overflows.
        assert_eq!(soft_hard(60_000, 1000, None, 10), (3687, 14748));
        assert_eq!(soft_hard(60_000, 0, Some(1), 10), (23_496, 52_866));
    }

    #[test]
    fn absurd_movetimes_are_kept() {
        for (movetime, want) in [(0, 1), (5, 1), (u64::MAX, u64::MAX - 10)] {
            let clock = Clock {
                movetime: Some(movetime),
                wtime: Some(u64::MAX),
                winc: Some(u64::MAX),
                ..Clock::default()
            };
            let b = budget(&clock, Color::White, 10);
            assert_eq!((b.soft_ms, b.hard_ms), (None, Some(want)), "{movetime}");
        }
    }
}
