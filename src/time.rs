//! Time management: turns the clock (`wtime/btime`, increments, `movestogo`, `movetime`) and the
//! `Move Overhead` option into a soft limit (do not start another iteration past it) and a hard limit
//! (stop the search at once), both measured from the moment our clock started.

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
        let t = mt.saturating_sub(overhead_ms).max(1);
        return TimeBudget {
            soft_ms: Some(t),
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
    // the clock from settling at a few milliseconds in increment games.
    let reserve = (time / 2).min(50) + time / 50;
    let usable = time.saturating_sub(overhead_ms + reserve).max(1);
    let moves_left = u64::from(clock.movestogo.unwrap_or(25).clamp(1, 40));
    let mut soft = usable / moves_left + inc * 3 / 4;
    let mut hard = (soft * 4).min(usable * 6 / 10);
    if moves_left == 1 {
        hard = usable * 9 / 10;
        soft = soft.min(hard);
    }
    soft = soft.min(usable * 4 / 10).min(hard);
    TimeBudget {
        soft_ms: Some(soft.max(1)),
        hard_ms: Some(hard.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(b.hard_ms, Some(490));
        assert_eq!(
            budget(&Clock::default(), Color::White, 10),
            TimeBudget::default()
        );
    }
}
