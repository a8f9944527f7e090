//! EPD import and export of learned positions ([`LearnEntry`]), so that a learn
//! file can be read by people and other tools, and positions from elsewhere can be taught.
//!
//! One entry per line: the position's first four FEN fields, then
//! `bm <SAN>; ce <score>; [dm <moves>;] acd <depth>; c0 "<origin>";`. `ce` is the score from the
//! side to move's view, in centipawns, or the search's mate score as it is; mates add `dm`
//! (moves to mate, negative when the side to move is mated). `bm` is left out when there is no
//! best move. On import `bm` may be SAN or UCI, `ce` is required, `acd` defaults to 1, `c0`
//! gives the origin (`search`, `imported`, `human`; anything else is a plain comment and the
//! origin is `imported`), `hmvc`/`fmvn` or two FEN counters after the fourth field set the
//! move counters, and other opcodes are ignored.

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, PositionError};

use super::{LearnEntry, LearnError, Origin};
use crate::board::parse_uci_move;
use crate::score::{is_mate, mate_moves, MATE};

/// The EPD line for one entry (no trailing newline), or why its position cannot be rebuilt.
pub fn entry_to_epd(e: &LearnEntry) -> Result<String, LearnError> {
    let pos = e.position()?;
    let mut line = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
    if let Some(m) = e.best_move_in(&pos) {
        line.push_str(&format!(" bm {};", San::from_move(&pos, m)));
    }
    line.push_str(&format!(" ce {};", e.score));
    if is_mate(i32::from(e.score)) {
        line.push_str(&format!(" dm {};", mate_moves(i32::from(e.score))));
    }
    line.push_str(&format!(" acd {}; c0 \"{}\";", e.depth, e.origin.name()));
    Ok(line)
}

/// The EPD text of `entries` (one line each, newline-terminated) and the errors of the entries
/// that could not be written.
pub fn export_epd<'a>(
    entries: impl IntoIterator<Item = &'a LearnEntry>,
) -> (String, Vec<LearnError>) {
    let mut text = String::new();
    let mut errors = Vec::new();
    for e in entries {
        match entry_to_epd(e) {
            Ok(line) => {
                text.push_str(&line);
                text.push('\n');
            }
            Err(err) => errors.push(err),
        }
    }
    (text, errors)
}

/// Parses EPD text: the accepted entries, and the rejected lines as `line N: reason` (1-based).
/// Blank lines and lines starting with `#` are skipped. `Err` ([`LearnError::NotText`]) only when
/// the text is not text at all (it contains NUL bytes).
pub fn import_epd(text: &str) -> Result<(Vec<LearnEntry>, Vec<String>), LearnError> {
    if text.contains('\0') {
        return Err(LearnError::NotText);
    }
    let mut entries = Vec::new();
    let mut rejected = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Ok(e) => entries.push(e),
            Err(why) => rejected.push(format!("line {}: {why}", i + 1)),
        }
    }
    Ok((entries, rejected))
}

/// Splits off the first whitespace-separated token.
fn next_token(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    Some((&s[..end], &s[end..]))
}

/// Splits the operations part into `(opcode, operands)` pairs. Operations end with `;` (the last
/// one may end the line instead); operands in double quotes may contain `;` and spaces.
fn operations(s: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut ops = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ';') {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(ops);
        }
        let mut opcode = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == ';' {
                break;
            }
            opcode.push(c);
            chars.next();
        }
        if !opcode.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(format!("'{opcode}' is not an EPD opcode"));
        }
        let mut operands = Vec::new();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            match chars.peek() {
                None => break,
                Some(';') => {
                    chars.next();
                    break;
                }
                Some('"') => {
                    chars.next();
                    let mut s = String::new();
                    loop {
                        match chars.next() {
                            None => return Err(format!("unterminated string after {opcode}")),
                            Some('"') => break,
                            Some(c) => s.push(c),
                        }
                    }
                    operands.push(s);
                }
                Some(_) => {
                    let mut s = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_whitespace() || c == ';' {
                            break;
                        }
                        s.push(c);
                        chars.next();
                    }
                    operands.push(s);
                }
            }
        }
        ops.push((opcode, operands));
    }
}

fn parse_position(fen: &str) -> Result<Chess, String> {
    let fen: Fen = fen.parse().map_err(|e| format!("bad FEN: {e}"))?;
    for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
        if let Ok(pos) = fen.clone().into_position(mode) {
            return Ok(pos);
        }
    }
    fen.into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_too_much_material)
        .or_else(PositionError::ignore_impossible_check)
        .map_err(|e| format!("illegal position: {e}"))
}

fn parse_move(pos: &Chess, text: &str) -> Result<shakmaty::Move, String> {
    if let Ok(m) = SanPlus::from_ascii(text.as_bytes())
        .map_err(|_| ())
        .and_then(|s| s.san.to_move(pos).map_err(|_| ()))
    {
        return Ok(m);
    }
    parse_uci_move(pos, text).map_err(|_| format!("bm '{text}' is not a legal move (SAN or UCI)"))
}

fn parse_line(line: &str) -> Result<LearnEntry, String> {
    let mut fields = Vec::with_capacity(4);
    let mut rest = line;
    for _ in 0..4 {
        let (tok, r) = next_token(rest).ok_or("fewer than four FEN fields")?;
        fields.push(tok);
        rest = r;
    }
    // Optional FEN move counters before the operations.
    let mut halfmoves: Option<u32> = None;
    let mut fullmoves: Option<u32> = None;
    for slot in [&mut halfmoves, &mut fullmoves] {
        match next_token(rest) {
            Some((tok, r)) if !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit()) => {
                *slot = Some(
                    tok.parse()
                        .map_err(|_| format!("bad move counter '{tok}'"))?,
                );
                rest = r;
            }
            _ => break,
        }
    }
    let mut bm: Option<String> = None;
    let mut ce: Option<i32> = None;
    let mut acd: u8 = 1;
    let mut origin = Origin::Imported;
    for (opcode, operands) in operations(rest)? {
        let first = operands.first();
        let need = || format!("{opcode} needs a value");
        match opcode.as_str() {
            "bm" => bm = Some(first.ok_or_else(need)?.clone()),
            "ce" => {
                let v = first.ok_or_else(need)?;
                let score: i32 = v.parse().map_err(|_| format!("ce '{v}' is not a number"))?;
                if score.abs() > MATE {
                    return Err(format!("ce {score} is outside -{MATE}..{MATE}"));
                }
                ce = Some(score);
            }
            "acd" => {
                let v = first.ok_or_else(need)?;
                acd = v
                    .parse()
                    .map_err(|_| format!("acd '{v}' is not a depth 0..255"))?;
            }
            "c0" => {
                if let Some(o) = first.and_then(|v| Origin::from_name(v)) {
                    origin = o;
                }
            }
            "hmvc" | "fmvn" => {
                let v = first.ok_or_else(need)?;
                let n: u32 = v
                    .parse()
                    .map_err(|_| format!("{opcode} '{v}' is not a number"))?;
                if opcode == "hmvc" {
                    halfmoves = Some(n);
                } else {
                    fullmoves = Some(n);
                }
            }
            _ => {}
        }
    }
    let score = ce.ok_or("no ce (score)")?;
    let fen = format!(
        "{} {} {} {} {} {}",
        fields[0],
        fields[1],
        fields[2],
        fields[3],
        halfmoves.unwrap_or(0),
        fullmoves.unwrap_or(1).max(1)
    );
    let pos = parse_position(&fen)?;
    let best = match bm.as_deref() {
        None | Some("0000") | Some("none") => None,
        Some(text) => Some(parse_move(&pos, text)?),
    };
    let game_ply = match fullmoves {
        Some(n) => {
            let ply = (u64::from(n.max(1)) - 1) * 2 + u64::from(pos.turn() == Color::Black);
            u16::try_from(ply).unwrap_or(u16::MAX)
        }
        None => 0,
    };
    Ok(LearnEntry::from_position(
        &pos,
        acd,
        score as i16,
        best,
        game_ply,
        origin,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::full_key;
    use crate::tt::PackedMove;

    fn entry(fen: &str, depth: u8, score: i16, bm: Option<&str>, origin: Origin) -> LearnEntry {
        let pos = parse_position(fen).expect("fen");
        let m = bm.map(|t| parse_uci_move(&pos, t).expect("move"));
        LearnEntry::from_position(&pos, depth, score, m, 0, origin)
    }

    #[test]
    fn export_writes_the_documented_line() {
        let e = entry(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            12,
            -35,
            Some("g8f6"),
            Origin::Search,
        );
        assert_eq!(
            entry_to_epd(&e).expect("export"),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm Nf6; ce -35; acd 12; c0 \"search\";"
        );
        let none = entry("8/8/8/8/8/4k3/8/4K3 w - - 0 1", 0, 0, None, Origin::Human);
        assert_eq!(
            entry_to_epd(&none).expect("export"),
            "8/8/8/8/8/4k3/8/4K3 w - - ce 0; acd 0; c0 \"human\";"
        );
        // Mate in 2 for the side to move: ce as the search writes it, plus dm.
        let mate = entry(
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
            5,
            (MATE - 1) as i16,
            Some("a1a8"),
            Origin::Search,
        );
        let line = entry_to_epd(&mate).expect("export");
        assert!(
            line.contains(&format!("bm Ra8; ce {}; dm 1; acd 5;", MATE - 1)),
            "{line}"
        );
        let mated = entry(
            "8/8/8/8/8/8/8/k1K5 b - - 0 1",
            3,
            (4 - MATE) as i16,
            None,
            Origin::Search,
        );
        assert!(entry_to_epd(&mated).expect("export").contains("dm -2;"));
    }

    #[test]
    fn export_then_import_round_trips() {
        let es = vec![
            entry(
                "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
                9,
                120,
                Some("e1g1"),
                Origin::Imported,
            ),
            entry(
                "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
                9,
                120,
                Some("e5d6"),
                Origin::Human,
            ),
            entry(
                "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
                20,
                900,
                Some("b7b8n"),
                Origin::Search,
            ),
            entry("8/8/8/8/8/4k3/8/4K3 b - - 0 1", 1, -3, None, Origin::Search),
        ];
        let (text, errors) = export_epd(&es);
        assert!(errors.is_empty());
        let (back, rejected) = import_epd(&text).expect("import");
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(back, es);
        assert_eq!(
            PackedMove(back[2].best_move).promotion(),
            Some(shakmaty::Role::Knight)
        );
    }

    #[test]
    fn import_accepts_uci_moves_defaults_and_unknown_opcodes() {
        let text = "\
# a comment line

rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e2e4; ce 30; id \"start; with semicolon\";
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12 bm Nc6; ce -20; acd 7; c0 \"human\";
8/8/8/8/8/4k3/8/4K3 w - - ce 0; c0 \"from a test suite\"; fmvn 3;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf3+; ce 5
";
        let (es, rejected) = import_epd(text).expect("import");
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!(es.len(), 4);
        let start = shakmaty::Chess::default();
        assert_eq!(es[0].key, full_key(&start));
        let e4 = parse_uci_move(&start, "e2e4").expect("e4");
        assert_eq!(es[0].best_move, PackedMove::new(e4).0);
        assert_eq!(
            (es[0].depth, es[0].score, es[0].origin),
            (1, 30, Origin::Imported)
        );
        assert_eq!(es[0].game_ply, 0);
        assert_eq!(
            (es[1].depth, es[1].score, es[1].origin),
            (7, -20, Origin::Human)
        );
        assert_eq!(es[1].game_ply, 23, "fullmove 12, black to move");
        assert_eq!(
            (es[2].origin, es[2].game_ply, es[2].best_move),
            (Origin::Imported, 4, 0)
        );
        assert_ne!(es[3].best_move, 0);
    }

    #[test]
    fn import_rejects_bad_lines_with_their_numbers() {
        let text = "\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; ce 30;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; acd 4;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e5; ce 1;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce lots;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 40000;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 1; acd 300;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPX/RNBQKBNR w KQkq - ce 1;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq
8/8/8/8/8/8/8/8 w - - ce 1;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 1; c0 \"open
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ce -2;
";
        let (es, rejected) = import_epd(text).expect("import");
        assert_eq!(es.len(), 2);
        let lines: Vec<&str> = rejected
            .iter()
            .map(|r| r.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(
            lines,
            [
                "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9",
                "line 10"
            ]
        );
        assert!(rejected[0].contains("ce"), "{}", rejected[0]);
        assert!(rejected[1].contains("e5"), "{}", rejected[1]);
        assert!(matches!(import_epd("abc\0def"), Err(LearnError::NotText)));
        assert_eq!(
            import_epd("").ok().map(|(e, r)| (e.len(), r.len())),
            Some((0, 0))
        );
    }
}
