//! Adjudication rules that end a game early from the engines' reported scores
//! (cutechess/fastchess style):
//!
//! * resign `movecount=N score=S [twosided=true]`: a side whose own score is `-S` or worse for
//!   `N` consecutive moves of its own loses; two-sided also needs the opponent to report `+S`
//!   or better for its last `N` moves.
//! * draw `movenumber=M movecount=N score=S`: once `M` full moves have been played (book moves
//!   included), a game in which both sides reported scores within `±S` for their last `N`
//!   moves each (`2N` consecutive plies) is a draw.
//!
//! A move without a score breaks every streak. Mate scores count as very large scores.

use shakmaty::Color;

/// The resign rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// Consecutive own moves with a losing score needed.
    pub move_count: u32,
    /// Score threshold in centipawns.
    pub score: i32,
    /// Whether the winner must agree.
    pub two_sided: bool,
}

/// The draw rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// Full moves that must have been played before the rule applies.
    pub move_number: u32,
    /// Consecutive moves per side with a drawish score needed.
    pub move_count: u32,
    /// Score threshold in centipawns.
    pub score: i32,
}

fn key_values(tokens: &[String]) -> Result<Vec<(&str, &str)>, String> {
    tokens
        .iter()
        .map(|t| {
            t.split_once('=')
                .ok_or_else(|| format!("'{t}' is not key=value"))
        })
        .collect()
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("bad value '{value}' for {key}"))
}

impl ResignRule {
    /// Parses `movecount=N score=S [twosided=true|false]`.
    pub fn parse(tokens: &[String]) -> Result<Self, String> {
        let mut rule = Self {
            move_count: 3,
            score: 1000,
            two_sided: false,
        };
        for (k, v) in key_values(tokens)? {
            match k {
                "movecount" => rule.move_count = number(k, v)?,
                "score" => rule.score = number(k, v)?,
                "twosided" => rule.two_sided = number(k, v)?,
                _ => return Err(format!("unknown resign setting '{k}'")),
            }
        }
        if rule.move_count == 0 || rule.score <= 0 {
            return Err("resign needs movecount >= 1 and score > 0".to_string());
        }
        Ok(rule)
    }
}

impl DrawRule {
    /// Parses `movenumber=M movecount=N score=S`.
    pub fn parse(tokens: &[String]) -> Result<Self, String> {
        let mut rule = Self {
            move_number: 40,
            move_count: 8,
            score: 10,
        };
        for (k, v) in key_values(tokens)? {
            match k {
                "movenumber" => rule.move_number = number(k, v)?,
                "movecount" => rule.move_count = number(k, v)?,
                "score" => rule.score = number(k, v)?,
                _ => return Err(format!("unknown draw setting '{k}'")),
            }
        }
        if rule.move_count == 0 || rule.score < 0 {
            return Err("draw needs movecount >= 1 and score >= 0".to_string());
        }
        Ok(rule)
    }
}

/// What the adjudicator decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `loser` resigns by the resign rule.
    Resign {
        /// The side that loses.
        loser: Color,
    },
    /// Drawn by the draw rule.
    Draw,
}

/// Follows the scores of one game and applies the rules.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    resign: Option<ResignRule>,
    draw: Option<DrawRule>,
    losing: [u32; 2],
    winning: [u32; 2],
    drawish_plies: u32,
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl Adjudicator {
    /// An adjudicator with the given rules (either may be off).
    pub fn new(resign: Option<ResignRule>, draw: Option<DrawRule>) -> Self {
        Self {
            resign,
            draw,
            losing: [0; 2],
            winning: [0; 2],
            drawish_plies: 0,
        }
    }

    /// Records the score (centipawns, mover's point of view) that `mover` reported for the move
    /// it just played; `plies_played` counts every ply of the game so far, book included.
    pub fn record(
        &mut self,
        mover: Color,
        score: Option<i32>,
        plies_played: u32,
    ) -> Option<Verdict> {
        let i = idx(mover);
        match score {
            Some(s) => {
                if let Some(r) = self.resign {
                    self.losing[i] = if s <= -r.score { self.losing[i] + 1 } else { 0 };
                    self.winning[i] = if s >= r.score { self.winning[i] + 1 } else { 0 };
                }
                if let Some(d) = self.draw {
                    self.drawish_plies = if s.abs() <= d.score {
                        self.drawish_plies + 1
                    } else {
                        0
                    };
                }
            }
            None => {
                self.losing[i] = 0;
                self.winning[i] = 0;
                self.drawish_plies = 0;
            }
        }
        if let Some(r) = self.resign {
            let agreed = !r.two_sided || self.winning[1 - i] >= r.move_count;
            if self.losing[i] >= r.move_count && agreed {
                return Some(Verdict::Resign { loser: mover });
            }
        }
        if let Some(d) = self.draw {
            if plies_played / 2 >= d.move_number && self.drawish_plies >= 2 * d.move_count {
                return Some(Verdict::Draw);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parsing() {
        let r = ResignRule::parse(&toks("movecount=3 score=1000")).unwrap();
        assert_eq!((r.move_count, r.score, r.two_sided), (3, 1000, false));
        assert!(
            ResignRule::parse(&toks("movecount=3 score=400 twosided=true"))
                .unwrap()
                .two_sided
        );
        let d = DrawRule::parse(&toks("movenumber=40 movecount=8 score=10")).unwrap();
        assert_eq!((d.move_number, d.move_count, d.score), (40, 8, 10));
        assert!(DrawRule::parse(&toks("movenumber=x")).is_err());
        assert!(ResignRule::parse(&toks("moves=3")).is_err());
        assert!(ResignRule::parse(&toks("movecount=0")).is_err());
    }

    #[test]
    fn one_sided_resign_after_consecutive_losing_scores() {
        let rule = ResignRule::parse(&toks("movecount=3 score=500")).unwrap();
        let mut a = Adjudicator::new(Some(rule), None);
        let mut ply = 10;
        let mut step = |a: &mut Adjudicator, c, s| {
            ply += 1;
            a.record(c, s, ply)
        };
        assert_eq!(step(&mut a, Color::White, Some(-600)), None);
        assert_eq!(step(&mut a, Color::Black, Some(600)), None);
        assert_eq!(step(&mut a, Color::White, Some(-600)), None);
        // a move without a score breaks the streak
        assert_eq!(step(&mut a, Color::Black, Some(600)), None);
        assert_eq!(step(&mut a, Color::White, None), None);
        assert_eq!(step(&mut a, Color::White, Some(-600)), None);
        assert_eq!(step(&mut a, Color::White, Some(-99_990)), None);
        assert_eq!(
            step(&mut a, Color::White, Some(-500)),
            Some(Verdict::Resign {
                loser: Color::White
            })
        );
    }

    #[test]
    fn two_sided_resign_needs_agreement() {
        let rule = ResignRule::parse(&toks("movecount=2 score=300 twosided=true")).unwrap();
        let mut a = Adjudicator::new(Some(rule), None);
        // Black thinks it is losing, White does not agree it is winning.
        assert_eq!(a.record(Color::White, Some(0), 1), None);
        assert_eq!(a.record(Color::Black, Some(-400), 2), None);
        assert_eq!(a.record(Color::White, Some(0), 3), None);
        assert_eq!(a.record(Color::Black, Some(-400), 4), None);
        assert_eq!(a.record(Color::White, Some(350), 5), None);
        assert_eq!(a.record(Color::Black, Some(-400), 6), None);
        assert_eq!(a.record(Color::White, Some(350), 7), None);
        assert_eq!(
            a.record(Color::Black, Some(-400), 8),
            Some(Verdict::Resign {
                loser: Color::Black
            })
        );
    }

    #[test]
    fn draw_rule_waits_for_move_number_and_streak() {
        let rule = DrawRule::parse(&toks("movenumber=10 movecount=2 score=10")).unwrap();
        let mut a = Adjudicator::new(None, Some(rule));
        let mut verdicts = Vec::new();
        for ply in 1..=24u32 {
            let mover = if ply % 2 == 1 {
                Color::White
            } else {
                Color::Black
            };
            let score = if ply == 19 { 50 } else { 5 };
            verdicts.push(a.record(mover, Some(score), ply));
        }
        // The streak restarts after ply 19, so four quiet plies end at ply 23.
        let first = verdicts.iter().position(|v| v.is_some()).map(|i| i + 1);
        assert_eq!(first, Some(23));
        // Without the spike the rule would fire as soon as 10 full moves were played.
        let mut b = Adjudicator::new(None, Some(rule));
        let first = (1..=30u32).find(|&ply| b.record(Color::White, Some(0), ply).is_some());
        assert_eq!(first, Some(20));
    }
}
