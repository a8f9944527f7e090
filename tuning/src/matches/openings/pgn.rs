//! PGN opening files: each game's main line (comments, variations, NAGs, move numbers and
//! annotation glyphs skipped) is played from the standard start or from its `FEN` tag, with
//! every SAN move parsed and checked for legality by shakmaty.

use super::Opening;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Position};

/// One game as read from the text: its tags and main-line move tokens.
#[derive(Default)]
struct RawGame {
    fen: Option<String>,
    sans: Vec<String>,
    has_content: bool,
}

/// Parses every game of a PGN text into an opening, using at most `plies` moves of each
/// (all of them when `None`). An illegal or unparsable move is an error naming the game.
pub fn parse_pgn(text: &str, plies: Option<usize>) -> Result<Vec<Opening>, String> {
    let raw = scan(text);
    raw.into_iter()
        .enumerate()
        .map(|(i, g)| build(g, plies).map_err(|e| format!("game {}: {e}", i + 1)))
        .collect()
}

fn build(game: RawGame, plies: Option<usize>) -> Result<Opening, String> {
    let start: Chess = match &game.fen {
        Some(f) => {
            let fen: Fen = f.parse().map_err(|e| format!("bad FEN tag '{f}': {e}"))?;
            fen.into_position(CastlingMode::Standard)
                .map_err(|e| format!("impossible FEN tag '{f}': {e}"))?
        }
        None => Chess::default(),
    };
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let limit = plies.unwrap_or(usize::MAX);
    for token in game.sans.iter().take(limit) {
        let normalized = token.replace('0', "O");
        let san: SanPlus = normalized
            .parse()
            .map_err(|_| format!("cannot parse move '{token}'"))?;
        let m = san
            .san
            .to_move(&pos)
            .map_err(|e| format!("move '{token}' is not legal here ({e})"))?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(Opening::from_position(start, moves))
}

/// Splits the text into games: tags (only `FEN` is kept) and main-line SAN tokens.
fn scan(text: &str) -> Vec<RawGame> {
    let mut games = Vec::new();
    let mut cur = RawGame::default();
    let mut token = String::new();
    let mut chars = text.chars().peekable();
    let mut depth = 0usize; // variation nesting
    let mut line_start = true;
    while let Some(c) = chars.next() {
        let at_line_start = line_start;
        line_start = c == '\n';
        match c {
            '{' => {
                finish_token(&mut token, &mut cur, &mut games);
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
            }
            ';' => {
                finish_token(&mut token, &mut cur, &mut games);
                for d in chars.by_ref() {
                    if d == '\n' {
                        line_start = true;
                        break;
                    }
                }
            }
            '%' if at_line_start => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        line_start = true;
                        break;
                    }
                }
            }
            '(' => {
                finish_token(&mut token, &mut cur, &mut games);
                depth += 1;
            }
            ')' => {
                finish_token(&mut token, &mut cur, &mut games);
                depth = depth.saturating_sub(1);
            }
            '[' if depth == 0 && token.is_empty() => {
                if !cur.sans.is_empty() {
                    games.push(std::mem::take(&mut cur));
                }
                let tag = read_tag(&mut chars);
                cur.has_content = true;
                if let Some((name, value)) = tag {
                    if name == "FEN" {
                        cur.fen = Some(value);
                    }
                }
            }
            c if c.is_whitespace() => finish_token(&mut token, &mut cur, &mut games),
            c if depth > 0 => {
                let _ = c;
            }
            c => token.push(c),
        }
    }
    finish_token(&mut token, &mut cur, &mut games);
    if cur.has_content {
        games.push(cur);
    }
    games
}

/// Reads `Name "value"]` after a `[`, handling backslash escapes in the value.
fn read_tag(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<(String, String)> {
    let mut name = String::new();
    let mut value = String::new();
    let mut in_quotes = false;
    let mut seen_value = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_quotes => {
                if let Some(n) = chars.next() {
                    value.push(n);
                }
            }
            '"' => {
                in_quotes = !in_quotes;
                seen_value = true;
            }
            ']' if !in_quotes => break,
            c if in_quotes => value.push(c),
            c if !seen_value && !c.is_whitespace() => name.push(c),
            _ => {}
        }
    }
    (!name.is_empty()).then_some((name, value))
}

/// Classifies a finished token: a result ends the game, move numbers and glyphs are
/// dropped, and what remains is a SAN move of the main line.
fn finish_token(token: &mut String, cur: &mut RawGame, games: &mut Vec<RawGame>) {
    if token.is_empty() {
        return;
    }
    let t = std::mem::take(token);
    if matches!(t.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
        cur.has_content = true;
        games.push(std::mem::take(cur));
        return;
    }
    if t.starts_with('$') {
        return;
    }
    // "12." / "12..." / "12.e4": drop the move number.
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if rest.len() < t.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        t.as_str()
    };
    let san = rest.trim_end_matches(['!', '?']);
    if !san.is_empty() {
        cur.has_content = true;
        cur.sans.push(san.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_GAMES: &str = r#"[Event "book"]
[White "a"]
[Black "b"]

1. e4 e5 {open game} 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) Nc6 $1 3. Bb5!? a6 1/2-1/2

[Event "from fen"]
[FEN "4k3/8/8/8/8/8/8/R3K3 w Q - 0 30"]
[SetUp "1"]

30. O-O-O Kf7 ; line comment
31. Rd7+ *
"#;

    #[test]
    fn reads_main_lines_and_fen_tags() {
        let o = parse_pgn(TWO_GAMES, None).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].fen, None);
        assert_eq!(
            o[0].uci_moves(),
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
        );
        assert_eq!(o[1].fen.as_deref(), Some("4k3/8/8/8/8/8/8/R3K3 w Q - 0 30"));
        assert_eq!(o[1].uci_moves(), ["e1c1", "e8f7", "d1d7"]);
    }

    #[test]
    fn plies_limit_and_zero_castling() {
        let o = parse_pgn("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 *", Some(3)).unwrap();
        assert_eq!(o[0].moves.len(), 3);
        let o = parse_pgn("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 *", None).unwrap();
        assert_eq!(o[0].uci_moves().last().map(String::as_str), Some("e1g1"));
    }

    #[test]
    fn illegal_moves_are_errors() {
        let err = parse_pgn("1. e4 e5 *\n\n1. e5 *", None).unwrap_err();
        assert!(err.starts_with("game 2:"), "{err}");
        assert!(parse_pgn("1. Xz9 *", None).is_err());
    }
}
