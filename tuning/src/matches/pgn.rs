//! PGN output of finished games: the seven-tag roster plus `FEN`/`SetUp` for games from a
//! position, `TimeControl`, `Termination` and `PlyCount`; SAN moves with their comments, the
//! detailed reason of the ending as the final comment, lines kept under 80 characters.

use crate::matches::game::GameRecord;
use shakmaty::{Color, Position};
use std::time::{SystemTime, UNIX_EPOCH};

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn comment(s: &str) -> String {
    format!("{{{}}}", s.replace('}', ")"))
}

/// Formats one game as PGN text (ending with a blank line).
pub fn format_game(
    game: &GameRecord,
    event: &str,
    round: usize,
    time_controls: [&str; 2],
    date: &str,
) -> String {
    let result = game.result.pgn_result();
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    };
    tag("Event", event);
    tag("Site", "?");
    tag("Date", date);
    tag("Round", &round.to_string());
    tag("White", &game.white);
    tag("Black", &game.black);
    tag("Result", result);
    if let Some(fen) = &game.opening.fen {
        tag("FEN", fen);
        tag("SetUp", "1");
    }
    // One tag when both sides ran the same clock; per side otherwise, as cutechess-cli writes.
    let [white_tc, black_tc] = time_controls;
    if white_tc == black_tc {
        tag("TimeControl", white_tc);
    } else {
        tag("WhiteTimeControl", white_tc);
        tag("BlackTimeControl", black_tc);
    }
    tag("Termination", game.result.termination.pgn_tag());
    tag("PlyCount", &game.moves.len().to_string());
    out.push('\n');

    let start = &game.opening.start;
    let mut number = start.fullmoves().get();
    let mut turn = start.turn();
    let mut tokens = Vec::new();
    for (i, mv) in game.moves.iter().enumerate() {
        match turn {
            Color::White => tokens.push(format!("{number}.")),
            Color::Black if i == 0 => tokens.push(format!("{number}...")),
            Color::Black => {}
        }
        tokens.push(mv.san.clone());
        if let Some(c) = &mv.comment {
            tokens.push(comment(c));
        }
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    if !game.result.reason.is_empty() {
        tokens.push(comment(&game.result.reason));
    }
    tokens.push(result.to_string());

    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::game::{GameResult, PlayedMove, Termination};
    use crate::matches::openings::{parse_epd, parse_pgn};

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn game_from_fen_with_black_to_move() {
        let opening = parse_epd("4k3/8/8/8/8/8/8/R3K3 b Q - 0 30")
            .unwrap()
            .remove(0);
        let record = GameRecord {
            white: "A \"x\"".into(),
            black: "B".into(),
            opening,
            moves: vec![
                PlayedMove {
                    san: "Kf7".into(),
                    comment: Some("-5.00/3 0.010s".into()),
                },
                PlayedMove {
                    san: "Ra7+".into(),
                    comment: None,
                },
            ],
            result: GameResult::win(
                Color::Black,
                Termination::TimeForfeit,
                "White loses on time",
            ),
            overruns: Default::default(),
        };
        let text = format_game(&record, "ev", 3, ["8+0.08"; 2], "2024.01.01");
        assert!(text.contains("[White \"A \\\"x\\\"\"]"));
        assert!(text.contains("[FEN \"4k3/8/8/8/8/8/8/R3K3 b Q - 0 30\"]\n[SetUp \"1\"]"));
        assert!(text.contains("[TimeControl \"8+0.08\"]"));
        assert!(text.contains("[Termination \"time forfeit\"]"));
        // Different clocks: one tag per side and no common one.
        let odds = format_game(&record, "ev", 3, ["8+0.08", "2+0.02"], "2024.01.01");
        assert!(odds.contains("[WhiteTimeControl \"8+0.08\"]\n[BlackTimeControl \"2+0.02\"]"));
        assert!(!odds.contains("[TimeControl "));
        assert!(text.contains("[Result \"0-1\"]"));
        assert!(text.contains("30... Kf7 {-5.00/3 0.010s} 31. Ra7+ {White loses on time} 0-1"));
        // The written game reads back as an opening with the same moves.
        let back = parse_pgn(&text, None).unwrap();
        assert_eq!(back[0].moves.len(), 2);
    }

    #[test]
    fn long_games_wrap() {
        let opening = parse_pgn("*", None).unwrap().remove(0);
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8"]
            .iter()
            .cycle()
            .take(60)
            .map(|s| PlayedMove {
                san: s.to_string(),
                comment: Some("book".into()),
            })
            .collect();
        let record = GameRecord {
            white: "A".into(),
            black: "B".into(),
            opening,
            moves,
            result: GameResult::draw(Termination::Repetition, "Draw by threefold repetition"),
            overruns: Default::default(),
        };
        let text = format_game(&record, "ev", 1, ["-"; 2], "2024.01.01");
        assert!(text.lines().all(|l| l.len() < 80));
        assert!(!text.contains("[FEN"));
    }
}
