//! The parser against every command form, the error and warning texts, huge inputs and random
//! token soup.

use super::*;
use crate::rng::Rng;

fn ok(line: &str) -> Parsed {
    match parse(line) {
        Ok(parsed) => parsed,
        Err(e) => panic!("expected {line:?} to parse, got error {e:?}"),
    }
}

fn cmd(line: &str) -> Command {
    ok(line).command
}

fn err(line: &str) -> String {
    match parse(line) {
        Ok(parsed) => panic!("expected {line:?} to fail, got {parsed:?}"),
        Err(e) => e,
    }
}

fn go(line: &str) -> (GoParams, Vec<String>) {
    let parsed = ok(line);
    match parsed.command {
        Command::Go(params) => (params, parsed.warnings),
        other => panic!("expected a go command from {line:?}, got {other:?}"),
    }
}

fn fen(s: &str) -> PositionStart {
    PositionStart::Fen(s.to_string())
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

#[test]
fn blank_lines_are_empty() {
    for line in ["", " ", "\t", "\r", "\r\n", " \t \r", "\n\n"] {
        let parsed = ok(line);
        assert_eq!(parsed.command, Command::Empty, "{line:?}");
        assert!(parsed.warnings.is_empty());
    }
}

#[test]
fn simple_commands() {
    let cases = [
        ("uci", Command::Uci),
        ("isready", Command::IsReady),
        ("ucinewgame", Command::UciNewGame),
        ("stop", Command::Stop),
        ("ponderhit", Command::PonderHit),
        ("quit", Command::Quit),
        ("d", Command::Display),
        ("eval", Command::Eval),
    ];
    for (line, expected) in cases {
        let parsed = ok(line);
        assert_eq!(parsed.command, expected);
        assert!(parsed.warnings.is_empty(), "{line}: {:?}", parsed.warnings);
        // Trailing \r, tabs and surrounding blanks are all white space.
        assert_eq!(cmd(&format!(" \t{line}\r")), expected);
        assert_eq!(cmd(&format!("{line}\r\n")), expected);
    }
}

#[test]
fn simple_commands_with_extra_tokens_warn() {
    let parsed = ok("isready now please");
    assert_eq!(parsed.command, Command::IsReady);
    assert_eq!(parsed.warnings.len(), 1);
    assert!(
        parsed.warnings[0].contains("'now'"),
        "{:?}",
        parsed.warnings
    );
    let parsed = ok("quit 1");
    assert_eq!(parsed.command, Command::Quit);
    assert_eq!(parsed.warnings.len(), 1);
}

#[test]
fn keywords_are_case_sensitive() {
    assert_eq!(err("UCI"), "unknown command 'UCI'");
    assert_eq!(err("Go depth 3"), "unknown command 'Go'");
    assert_eq!(err("ISREADY"), "unknown command 'ISREADY'");
    assert!(parse("position StartPos").is_err());
}

#[test]
fn unknown_leading_tokens_are_skipped() {
    let parsed = ok("joho debug on");
    assert_eq!(parsed.command, Command::Debug(true));
    assert_eq!(parsed.warnings, vec!["ignored unknown token 'joho'"]);
    let parsed = ok("foo bar isready");
    assert_eq!(parsed.command, Command::IsReady);
    assert_eq!(parsed.warnings.len(), 2);
    let (params, warnings) = go("xyz go depth 4");
    assert_eq!(params.depth, Some(4));
    assert_eq!(warnings.len(), 1);
}

#[test]
fn unknown_commands_are_errors() {
    assert_eq!(err("xyz"), "unknown command 'xyz'");
    assert_eq!(err("foo bar"), "unknown command 'foo'");
    assert_eq!(err("  hello\r"), "unknown command 'hello'");
    // Keywords are whole tokens only.
    assert_eq!(err("gogo"), "unknown command 'gogo'");
    assert_eq!(err("ucii"), "unknown command 'ucii'");
}

#[test]
fn quoted_tokens_are_truncated_and_escaped() {
    let long = "x".repeat(100);
    let message = err(&long);
    assert_eq!(message, format!("unknown command '{}...'", "x".repeat(40)));
    // Exactly 40 characters: not truncated.
    let forty = "é".repeat(40);
    assert_eq!(err(&forty), format!("unknown command '{forty}'"));
    // Multi-byte characters are never split.
    let message = err(&"♞".repeat(50));
    assert_eq!(message, format!("unknown command '{}...'", "♞".repeat(40)));
    // Control characters cannot leak into the output.
    let message = err("a\u{1b}[2Jb\u{0}");
    assert!(!message.chars().any(char::is_control), "{message:?}");
    assert!(message.contains("\\u{1b}"), "{message:?}");
}

#[test]
fn register_is_refused() {
    assert_eq!(err("register"), "register is not needed");
    assert_eq!(err("register later"), "register is not needed");
    assert_eq!(err("register name x code y"), "register is not needed");
}

#[test]
fn position_startpos() {
    assert_eq!(
        cmd("position startpos"),
        Command::Position {
            start: PositionStart::StartPos,
            moves: vec![]
        }
    );
    assert_eq!(
        cmd("position startpos moves e2e4 e7e5\tg1f3\r"),
        Command::Position {
            start: PositionStart::StartPos,
            moves: strings(&["e2e4", "e7e5", "g1f3"])
        }
    );
    assert_eq!(
        cmd("position startpos moves"),
        Command::Position {
            start: PositionStart::StartPos,
            moves: vec![]
        }
    );
    assert_eq!(
        cmd("position  startpos   moves   a7a8q  e1g1 "),
        Command::Position {
            start: PositionStart::StartPos,
            moves: strings(&["a7a8q", "e1g1"])
        }
    );
}

#[test]
fn position_fen() {
    let full = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(
        cmd(&format!("position fen {full}")),
        Command::Position {
            start: fen(full),
            moves: vec![]
        }
    );
    assert_eq!(
        cmd(&format!("position fen {full} moves e7e5 g1f3")),
        Command::Position {
            start: fen(full),
            moves: strings(&["e7e5", "g1f3"])
        }
    );
    // Fields are re-joined with single spaces.
    assert_eq!(
        cmd("position fen 8/8/8/8/8/8/8/K1k5   w\t-  - 0 1 moves"),
        Command::Position {
            start: fen("8/8/8/8/8/8/8/K1k5 w - - 0 1"),
            moves: vec![]
        }
    );
    // Four and five fields are accepted (clocks optional).
    assert_eq!(
        cmd("position fen 8/8/8/8/8/8/8/K1k5 w - -"),
        Command::Position {
            start: fen("8/8/8/8/8/8/8/K1k5 w - -"),
            moves: vec![]
        }
    );
    assert_eq!(
        cmd("position fen 8/8/8/8/8/8/8/K1k5 w - - 3 moves a1a2"),
        Command::Position {
            start: fen("8/8/8/8/8/8/8/K1k5 w - - 3"),
            moves: strings(&["a1a2"])
        }
    );
    // The FEN content itself is not validated here.
    assert_eq!(
        cmd("position fen garbage w - -"),
        Command::Position {
            start: fen("garbage w - -"),
            moves: vec![]
        }
    );
}

#[test]
fn position_errors() {
    assert!(err("position").contains("startpos"));
    assert!(parse("position moves e2e4").is_err());
    assert!(parse("position foo").is_err());
    assert!(parse("position fen").is_err());
    assert!(parse("position fen moves e2e4").is_err());
    assert!(err("position fen garbage").contains("got 1"));
    assert!(parse("position fen 8/8/8/8/8/8/8/K1k5 w -").is_err());
    assert!(err("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 extra").contains("got 7"));
    assert!(parse("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 x moves e2e4").is_err());
    assert!(parse("position startpos e2e4").is_err());
    assert!(parse("position startpos fen 8/8/8/8/8/8/8/K1k5 w - - 0 1").is_err());
}

#[test]
fn position_move_texts_are_checked() {
    for bad in ["e2e", "e2e4qq", "é2e4", "e2-e4", "e2e\u{0}", "O-O", "ab"] {
        let line = format!("position startpos moves e2e4 {bad}");
        let message = err(&line);
        assert!(
            message.starts_with("invalid move text"),
            "{line:?}: {message}"
        );
    }
    // Shape only: legality is the engine's business.
    assert_eq!(
        cmd("position startpos moves zzzz 0000 e2e5"),
        Command::Position {
            start: PositionStart::StartPos,
            moves: strings(&["zzzz", "0000", "e2e5"])
        }
    );
}

#[test]
fn setoption_forms() {
    assert_eq!(
        cmd("setoption name Hash value 64"),
        Command::SetOption {
            name: "Hash".to_string(),
            value: Some("64".to_string())
        }
    );
    assert_eq!(
        cmd("setoption name  Move   Overhead value\t 30 "),
        Command::SetOption {
            name: "Move Overhead".to_string(),
            value: Some("30".to_string())
        }
    );
    assert_eq!(
        cmd("setoption name Clear Hash"),
        Command::SetOption {
            name: "Clear Hash".to_string(),
            value: None
        }
    );
    assert_eq!(
        cmd("setoption name SyzygyPath value /a b/c  d"),
        Command::SetOption {
            name: "SyzygyPath".to_string(),
            value: Some("/a b/c d".to_string())
        }
    );
    assert_eq!(
        cmd("setoption name Debug Log File value"),
        Command::SetOption {
            name: "Debug Log File".to_string(),
            value: Some(String::new())
        }
    );
    // Case preserved; a second `value` belongs to the value.
    assert_eq!(
        cmd("setoption name uCi_cHeSs960 value true value name"),
        Command::SetOption {
            name: "uCi_cHeSs960".to_string(),
            value: Some("true value name".to_string())
        }
    );
}

#[test]
fn setoption_errors() {
    assert!(parse("setoption").is_err());
    assert!(parse("setoption Hash value 3").is_err());
    assert!(parse("setoption name").is_err());
    assert!(parse("setoption name value 3").is_err());
    assert!(parse("setoption value 3 name Hash").is_err());
}

#[test]
fn debug_forms() {
    assert_eq!(cmd("debug on"), Command::Debug(true));
    assert_eq!(cmd("debug off"), Command::Debug(false));
    assert!(parse("debug").is_err());
    assert!(parse("debug ON").is_err());
    assert!(parse("debug yes").is_err());
    let parsed = ok("debug off now");
    assert_eq!(parsed.command, Command::Debug(false));
    assert_eq!(parsed.warnings.len(), 1);
}

#[test]
fn bench_forms() {
    assert_eq!(cmd("bench"), Command::Bench { depth: None });
    assert_eq!(cmd("bench 9"), Command::Bench { depth: Some(9) });
    for bad in ["bench abc", "bench -3", "bench 0", "bench 1.5"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
    let parsed = ok("bench 1000");
    assert_eq!(parsed.command, Command::Bench { depth: Some(255) });
    assert_eq!(parsed.warnings.len(), 1);
    let parsed = ok("bench 99999999999999999999999");
    assert_eq!(parsed.command, Command::Bench { depth: Some(255) });
    let parsed = ok("bench 5 extra");
    assert_eq!(parsed.command, Command::Bench { depth: Some(5) });
    assert_eq!(parsed.warnings.len(), 1);
}

#[test]
fn perft_forms() {
    assert_eq!(cmd("perft 5"), Command::Perft { depth: 5 });
    assert!(ok("perft 5").warnings.is_empty());
    assert!(parse("perft").is_err());
    assert!(parse("perft abc").is_err());
    assert!(parse("perft 2.5").is_err());
    for (line, depth) in [
        ("perft 0", 1),
        ("perft -4", 1),
        ("perft 21", 20),
        ("perft 99999999999999999999999", 20),
    ] {
        let parsed = ok(line);
        assert_eq!(parsed.command, Command::Perft { depth }, "{line}");
        assert_eq!(parsed.warnings.len(), 1, "{line}");
    }
    assert_eq!(cmd("perft 20"), Command::Perft { depth: 20 });
    assert_eq!(cmd("perft 1"), Command::Perft { depth: 1 });
}

#[test]
fn huge_inputs() {
    // 2 MB of 'a': one unknown token, quoted back only in part.
    let line = "a".repeat(2 << 20);
    let message = err(&line);
    assert!(message.len() < 100, "{}", message.len());

    // Many unknown tokens before a command: the warnings stay bounded.
    let line = format!("{}isready", "junk ".repeat(200_000));
    let parsed = ok(&line);
    assert_eq!(parsed.command, Command::IsReady);
    assert_eq!(parsed.warnings.len(), MAX_WARNINGS + 1);
    assert!(parsed.warnings[MAX_WARNINGS].contains("199984"));

    // Many unknown go tokens.
    let (params, warnings) = go(&format!("go {} depth 2", "x ".repeat(200_000)));
    assert_eq!(params.depth, Some(2));
    assert_eq!(warnings.len(), MAX_WARNINGS + 1);

    // A very long move list.
    let line = format!("position startpos moves {}", "g1f3 f3g1 ".repeat(100_000));
    match cmd(&line) {
        Command::Position { moves, .. } => assert_eq!(moves.len(), 200_000),
        other => panic!("unexpected {other:?}"),
    }

    // A very long option value.
    let line = format!("setoption name X value {}", "v ".repeat(300_000));
    match cmd(&line) {
        Command::SetOption {
            value: Some(value), ..
        } => assert_eq!(value.len(), 599_999),
        other => panic!("unexpected {other:?}"),
    }
}

/// One of `items`, drawn by `rng`.
fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

fn random_token(rng: &mut Rng) -> String {
    // The parser's own keywords, with the words that follow them.
    const ARGUMENTS: [&str; 7] = ["startpos", "fen", "moves", "name", "value", "on", "off"];
    const MOVES_AND_MORE: [&str; 6] = [
        "e2e4",
        "e7e8q",
        "0000",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        "KQkq",
        "Hash",
    ];
    const WORDS: [&[&str]; 4] = [&COMMANDS, &ARGUMENTS, &go::GO_KEYWORDS, &MOVES_AND_MORE];
    const ODD: [&str; 16] = [
        "é",
        "♞",
        "日本語",
        "\u{202e}",
        "\u{200b}",
        "\u{0}",
        "\u{1}",
        "\u{1b}[2J",
        "\u{7f}",
        "\u{feff}",
        "𝕏",
        "\u{10ffff}",
        "-",
        "+",
        "--5",
        "1e9",
    ];
    match rng.below(6) {
        0 | 1 => {
            // One draw over all the word lists, as over their concatenation.
            let mut i = rng.below(WORDS.iter().map(|w| w.len()).sum());
            for list in WORDS {
                if i < list.len() {
                    return list[i].to_string();
                }
                i -= list.len();
            }
            unreachable!("i is below the total length")
        }
        2 => {
            // Numbers: small, negative, huge, overflowing.
            match rng.below(5) {
                0 => (rng.next_u64() % 100).to_string(),
                1 => format!("-{}", rng.next_u64() % 1000),
                2 => rng.next_u64().to_string(),
                3 => format!("{}{}", rng.next_u64(), rng.next_u64()),
                _ => format!("-{}{}", rng.next_u64(), rng.next_u64()),
            }
        }
        3 => pick(rng, &ODD).to_string(),
        4 => {
            // Random printable ASCII garbage.
            let len = 1 + rng.below(8);
            (0..len)
                .map(|_| char::from(b'!' + (rng.next_u64() % 94) as u8))
                .collect()
        }
        _ => {
            // Random scalar values, control characters included.
            let len = 1 + rng.below(4);
            let control = char::from((rng.next_u64() % 32) as u8);
            let mut token: String = (0..len)
                .filter_map(|_| char::from_u32((rng.next_u64() % 0x11_0000) as u32))
                .collect();
            token.push(control);
            token
        }
    }
}

#[test]
fn fuzz_never_panics() {
    const SEPARATORS: [&str; 8] = [" ", " ", " ", "\t", "\r", "  ", "\u{a0}", ""];
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut oks = 0usize;
    for _ in 0..20_000 {
        let count = rng.below(12);
        let mut line = String::new();
        for _ in 0..count {
            line.push_str(&random_token(&mut rng));
            line.push_str(pick(&mut rng, &SEPARATORS));
        }
        if rng.below(4) == 0 {
            line.push('\r');
        }
        match parse(&line) {
            Ok(parsed) => {
                oks += 1;
                assert!(parsed.warnings.len() <= MAX_WARNINGS + 1, "{line:?}");
                for warning in &parsed.warnings {
                    assert!(!warning.is_empty());
                    assert!(!warning.chars().any(char::is_control), "{warning:?}");
                }
                if let Command::Position { moves, .. } = &parsed.command {
                    assert!(moves
                        .iter()
                        .all(|m| (4..=5).contains(&m.len()) && m.is_ascii()));
                }
                if let Command::Go(params) = &parsed.command {
                    assert!(params.depth.is_none_or(|d| d <= 255));
                    assert_ne!(params.movestogo, Some(0));
                }
                if let Command::Perft { depth } = parsed.command {
                    assert!((1..=20).contains(&depth));
                }
            }
            Err(message) => {
                assert!(!message.is_empty());
                assert!(!message.chars().any(char::is_control), "{message:?}");
                assert!(message.len() < 1000, "{message:?}");
            }
        }
    }
    // The mix must exercise both outcomes.
    assert!(oks > 1000 && oks < 19_000, "{oks}");
}
