//! Search limits of a match — a clock (`moves/base+increment`), a fixed time per move, a node
//! count or a depth — with the `go` command each produces, the chess clock that decides time
//! forfeits (`used > remaining + margin`, as in cutechess-cli, whose default margin of 0 is
//! [`DEFAULT_MARGIN_MS`]), and the count of overruns: moves that ended past the time allowed
//! but within the margin, so the game went on.

use std::fmt;

/// A clock time control: optional moves per period, base time and increment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Moves per period (`40/...`); `None` for the whole game.
    pub moves: Option<u32>,
    /// Base time per period, milliseconds.
    pub base_ms: u64,
    /// Increment per move, milliseconds.
    pub inc_ms: u64,
}

impl TimeControl {
    /// Parses `base[+inc]` or `moves/base[+inc]`, times in seconds (`8+0.08`, `40/60+0.6`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("bad time control '{text}' (expected e.g. 8+0.08 or 40/60+0.6)");
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => (Some(m.parse::<u32>().map_err(|_| bad())?), r),
            None => (None, text),
        };
        if moves == Some(0) {
            return Err(bad());
        }
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (b, i),
            None => (rest, "0"),
        };
        let secs = |s: &str| -> Result<u64, String> {
            let v: f64 = s.parse().map_err(|_| bad())?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad());
            }
            Ok((v * 1000.0).round() as u64)
        };
        let tc = Self {
            moves,
            base_ms: secs(base)?,
            inc_ms: secs(inc)?,
        };
        if tc.base_ms == 0 && tc.inc_ms == 0 {
            return Err(bad());
        }
        Ok(tc)
    }
}

fn secs(ms: u64) -> String {
    let s = format!("{:.3}", ms as f64 / 1000.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl fmt::Display for TimeControl {
    /// PGN `TimeControl` form: `8+0.08`, `40/60+0.6`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", secs(self.base_ms))?;
        if self.inc_ms > 0 {
            write!(f, "+{}", secs(self.inc_ms))?;
        }
        Ok(())
    }
}

/// How each search is limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A chess clock per side.
    Clock(TimeControl),
    /// Fixed time per move, milliseconds.
    MoveTime(u64),
    /// Fixed node count per move.
    Nodes(u64),
    /// Fixed depth per move.
    Depth(u32),
}

impl Limit {
    /// The PGN `TimeControl` tag value: the clock, `*S` seconds per move, or `-`.
    pub fn pgn_tag(&self) -> String {
        match self {
            Limit::Clock(tc) => tc.to_string(),
            Limit::MoveTime(ms) => format!("*{}", secs(*ms)),
            Limit::Nodes(_) | Limit::Depth(_) => "-".to_string(),
        }
    }

    /// Whether running out of time loses the game.
    pub fn is_timed(&self) -> bool {
        matches!(self, Limit::Clock(_) | Limit::MoveTime(_))
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Clock(tc) => write!(f, "tc {tc}"),
            Limit::MoveTime(ms) => write!(f, "movetime {ms} ms"),
            Limit::Nodes(n) => write!(f, "{n} nodes"),
            Limit::Depth(d) => write!(f, "depth {d}"),
        }
    }
}

/// The margin a move may run past its clock (or movetime) before it loses on time, ms, when
/// none is given: 0, the default of cutechess-cli's `timemargin`.
pub const DEFAULT_MARGIN_MS: u64 = 0;

/// How the time a move used compares with the time it was allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeCheck {
    /// The move ended within the time allowed.
    InTime,
    /// The move ended this many ms past the time allowed, but within the margin: it stands.
    Overrun(u64),
    /// The move ended past the time allowed plus the margin: a loss on time.
    Forfeit,
}

impl TimeCheck {
    /// Checks a move that used `used_ms` of `allowed_ms` (plus `margin_ms` of grace).
    pub fn of(used_ms: u64, allowed_ms: u64, margin_ms: u64) -> Self {
        if used_ms <= allowed_ms {
            TimeCheck::InTime
        } else if used_ms <= allowed_ms + margin_ms {
            TimeCheck::Overrun(used_ms - allowed_ms)
        } else {
            TimeCheck::Forfeit
        }
    }
}

/// One engine's overruns: moves that ended past the time allowed but within the margin.
/// Forfeits are not counted here; they are losses on time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overruns {
    /// How many moves overran.
    pub count: u64,
    /// The largest overrun, ms.
    pub max_ms: u64,
}

impl Overruns {
    /// Counts `check` if it is an overrun.
    pub fn record(&mut self, check: TimeCheck) {
        if let TimeCheck::Overrun(ms) = check {
            self.count += 1;
            self.max_ms = self.max_ms.max(ms);
        }
    }

    /// Adds the overruns of `other` (another game).
    pub fn add(&mut self, other: &Overruns) {
        self.count += other.count;
        self.max_ms = self.max_ms.max(other.max_ms);
    }
}

impl fmt::Display for Overruns {
    /// `0`, or `3 (max 4 ms)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.count)?;
        if self.count > 0 {
            write!(f, " (max {} ms)", self.max_ms)?;
        }
        Ok(())
    }
}

/// One side's chess clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    tc: TimeControl,
    remaining_ms: u64,
    moves_made: u32,
}

impl Clock {
    /// A full clock at the start of a game.
    pub fn new(tc: TimeControl) -> Self {
        Self {
            tc,
            remaining_ms: tc.base_ms,
            moves_made: 0,
        }
    }

    /// Time left, milliseconds.
    pub fn remaining_ms(&self) -> u64 {
        self.remaining_ms
    }

    /// Moves left in the current period, for `movestogo`.
    pub fn moves_to_go(&self) -> Option<u32> {
        self.tc.moves.map(|m| m - self.moves_made % m)
    }

    /// Charges `used_ms` for one move and says how it compares with the remaining time: a
    /// [`TimeCheck::Forfeit`] (more than the remaining time plus `margin_ms`) leaves the clock
    /// as it was; otherwise the clock is reduced (not below zero), the increment added and, at
    /// the end of a period, the base time.
    pub fn charge(&mut self, used_ms: u64, margin_ms: u64) -> TimeCheck {
        let check = TimeCheck::of(used_ms, self.remaining_ms, margin_ms);
        if check == TimeCheck::Forfeit {
            return check;
        }
        self.remaining_ms = self.remaining_ms.saturating_sub(used_ms) + self.tc.inc_ms;
        self.moves_made += 1;
        if let Some(m) = self.tc.moves {
            if self.moves_made.is_multiple_of(m) {
                self.remaining_ms += self.tc.base_ms;
            }
        }
        check
    }
}

/// The `go` command for a search: `white` and `black` are the clocks for [`Limit::Clock`],
/// each with its own increment (the two differ under per-engine time controls); the side to
/// move's `movestogo` is given by `to_move_clock`.
pub fn go_command(limit: &Limit, white: &Clock, black: &Clock, to_move_clock: &Clock) -> String {
    match limit {
        Limit::Clock(_) => {
            let mut s = format!(
                "go wtime {} btime {} winc {} binc {}",
                white.remaining_ms(),
                black.remaining_ms(),
                white.tc.inc_ms,
                black.tc.inc_ms
            );
            if let Some(m) = to_move_clock.moves_to_go() {
                s.push_str(&format!(" movestogo {m}"));
            }
            s
        }
        Limit::MoveTime(ms) => format!("go movetime {ms}"),
        Limit::Nodes(n) => format!("go nodes {n}"),
        Limit::Depth(d) => format!("go depth {d}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display() {
        let tc = TimeControl::parse("8+0.08").unwrap();
        assert_eq!((tc.moves, tc.base_ms, tc.inc_ms), (None, 8000, 80));
        assert_eq!(tc.to_string(), "8+0.08");
        let tc = TimeControl::parse("40/60+0.6").unwrap();
        assert_eq!((tc.moves, tc.base_ms, tc.inc_ms), (Some(40), 60000, 600));
        assert_eq!(tc.to_string(), "40/60+0.6");
        assert_eq!(TimeControl::parse("10").unwrap().to_string(), "10");
        for bad in ["", "x", "0/10", "-1+1", "0+0", "1+y"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Limit::MoveTime(250).pgn_tag(), "*0.25");
        assert_eq!(Limit::Nodes(5).pgn_tag(), "-");
    }

    #[test]
    fn clock_charges_with_margin_and_increment() {
        let tc = TimeControl::parse("1+0.1").unwrap();
        let mut c = Clock::new(tc);
        assert_eq!(c.charge(300, 100), TimeCheck::InTime);
        assert_eq!(c.remaining_ms(), 800);
        // overrun inside the margin: clock floors at zero, then the increment
        assert_eq!(c.charge(850, 100), TimeCheck::Overrun(50));
        assert_eq!(c.remaining_ms(), 100);
        // beyond remaining + margin: forfeit, the clock untouched
        assert_eq!(c.charge(201, 100), TimeCheck::Forfeit);
        assert_eq!(c.remaining_ms(), 100);
        assert_eq!(c.charge(200, 100), TimeCheck::Overrun(100));
        // using exactly the time left is in time
        assert_eq!(c.charge(100, 100), TimeCheck::InTime);
    }

    #[test]
    fn default_margin_forfeits_any_overrun() {
        let tc = TimeControl::parse("1").unwrap();
        let mut c = Clock::new(tc);
        assert_eq!(c.charge(1000, DEFAULT_MARGIN_MS), TimeCheck::InTime);
        let mut c = Clock::new(tc);
        assert_eq!(c.charge(1001, DEFAULT_MARGIN_MS), TimeCheck::Forfeit);
        assert_eq!(
            TimeCheck::of(251, 250, DEFAULT_MARGIN_MS),
            TimeCheck::Forfeit
        );
    }

    #[test]
    fn overruns_are_counted_with_their_maximum() {
        let mut o = Overruns::default();
        assert_eq!(o.to_string(), "0");
        for check in [
            TimeCheck::of(90, 100, 10),
            TimeCheck::of(101, 100, 10),
            TimeCheck::of(104, 100, 10),
            TimeCheck::of(102, 100, 10),
            TimeCheck::of(111, 100, 10),
        ] {
            o.record(check);
        }
        // one in time, three overruns, one forfeit (not an overrun)
        assert_eq!(
            o,
            Overruns {
                count: 3,
                max_ms: 4
            }
        );
        assert_eq!(o.to_string(), "3 (max 4 ms)");
        let mut total = Overruns {
            count: 1,
            max_ms: 7,
        };
        total.add(&o);
        assert_eq!(
            total,
            Overruns {
                count: 4,
                max_ms: 7
            }
        );
    }

    #[test]
    fn periods_and_go_commands() {
        let tc = TimeControl::parse("2/1").unwrap();
        let mut c = Clock::new(tc);
        assert_eq!(c.moves_to_go(), Some(2));
        assert_eq!(c.charge(100, 0), TimeCheck::InTime);
        assert_eq!(c.moves_to_go(), Some(1));
        assert_eq!(c.charge(100, 0), TimeCheck::InTime);
        assert_eq!(c.remaining_ms(), 1800);
        assert_eq!(c.moves_to_go(), Some(2));
        let w = Clock::new(TimeControl::parse("8+0.08").unwrap());
        let b = w;
        assert_eq!(
            go_command(
                &Limit::Clock(TimeControl::parse("8+0.08").unwrap()),
                &w,
                &b,
                &w
            ),
            "go wtime 8000 btime 8000 winc 80 binc 80"
        );
        assert_eq!(go_command(&Limit::Depth(3), &w, &b, &w), "go depth 3");
    }

    #[test]
    fn each_side_sees_its_own_clock_and_increment() {
        let match_tc = TimeControl::parse("8+0.08").unwrap();
        let mut w = Clock::new(match_tc);
        let mut b = Clock::new(TimeControl::parse("2+0.02").unwrap());
        assert_eq!(w.charge(500, 0), TimeCheck::InTime);
        assert_eq!(b.charge(500, 0), TimeCheck::InTime);
        // Black's spending comes off its own 2 s: nothing scales it back.
        assert_eq!((w.remaining_ms(), b.remaining_ms()), (7580, 1520));
        assert_eq!(
            go_command(&Limit::Clock(match_tc), &w, &b, &b),
            "go wtime 7580 btime 1520 winc 80 binc 20"
        );
        assert_eq!(b.charge(1521, 0), TimeCheck::Forfeit);
    }
}
