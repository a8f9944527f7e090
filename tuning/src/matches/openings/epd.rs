//! EPD opening files: one position a line, the four FEN fields (placement, side to move,
//! castling, en passant) then either the two FEN counters or EPD opcodes (`hmvc`, `fmvn` are
//! honoured, the rest ignored). Blank lines and lines starting with `#` are skipped.

use super::Opening;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// Parses the positions of an EPD text; an invalid line is an error naming its number.
pub fn parse_epd(text: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = parse_line(line).map_err(|e| format!("line {}: {e}", index + 1))?;
        out.push(Opening::from_position(pos, Vec::new()));
    }
    Ok(out)
}

fn parse_line(line: &str) -> Result<Chess, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(format!("expected at least 4 FEN fields in '{line}'"));
    }
    let (mut halfmoves, mut fullmoves) = (0u32, 1u32);
    let rest = &fields[4..];
    let counters = rest.len() >= 2
        && rest[0].parse::<u32>().is_ok()
        && rest[1].trim_end_matches(';').parse::<u32>().is_ok();
    if counters {
        halfmoves = rest[0].parse().unwrap_or(0);
        fullmoves = rest[1].trim_end_matches(';').parse().unwrap_or(1);
    } else {
        let ops = rest.join(" ");
        for op in ops.split(';') {
            let mut parts = op.split_whitespace();
            match (parts.next(), parts.next()) {
                (Some("hmvc"), Some(v)) => halfmoves = v.parse().unwrap_or(0),
                (Some("fmvn"), Some(v)) => fullmoves = v.parse().unwrap_or(1),
                _ => {}
            }
        }
    }
    let fen_text = format!(
        "{} {} {} {} {} {}",
        fields[0],
        fields[1],
        fields[2],
        fields[3],
        halfmoves,
        fullmoves.max(1)
    );
    let fen: Fen = fen_text
        .parse()
        .map_err(|e| format!("bad FEN '{fen_text}': {e}"))?;
    fen.into_position(CastlingMode::Standard)
        .map_err(|e| format!("impossible position '{fen_text}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, Position};

    #[test]
    fn reads_fields_opcodes_and_counters() {
        let text = "\
# comment
rnbqkb1r/ppp2pp1/4pn1p/3p4/2PP4/2N1P3/PP3PPP/R1BQKBNR w KQkq -

4k3/8/8/8/8/8/8/4K2R w K - hmvc 12; fmvn 40; id \"x\";
4k3/8/8/8/8/8/8/4K2R b K - 3 17
";
        let o = parse_epd(text).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].start.turn(), Color::White);
        assert_eq!(o[0].start.fullmoves().get(), 1);
        assert!(o[0].fen.is_some());
        assert_eq!(o[1].start.halfmoves(), 12);
        assert_eq!(o[1].start.fullmoves().get(), 40);
        assert_eq!(o[2].start.turn(), Color::Black);
        assert_eq!(o[2].start.halfmoves(), 3);
        assert_eq!(o[2].fen.as_deref(), Some("4k3/8/8/8/8/8/8/4K2R b K - 3 17"));
    }

    #[test]
    fn bad_lines_are_errors_with_line_numbers() {
        let err = parse_epd("8/8/8/8/8/8/8/8 w - -\n").unwrap_err();
        assert!(err.starts_with("line 1:"), "{err}");
        let err = parse_epd("\n\nxyz w\n").unwrap_err();
        assert!(err.starts_with("line 3:"), "{err}");
    }
}
