//! Pure UCI parser: one input line → a [`Command`] plus warnings, or an error message. Never panics.

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionStart {
    /// The standard initial position (`position startpos`).
    StartPos,
    /// `position fen ...`: the FEN fields (4 to 6 of them, not validated here) joined by single spaces.
    Fen(String),
}

/// The parameters of a `go` command. Times are in milliseconds; `None` means "not given".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// White's remaining clock time.
    pub wtime: Option<u64>,
    /// Black's remaining clock time.
    pub btime: Option<u64>,
    /// White's increment per move.
    pub winc: Option<u64>,
    /// Black's increment per move.
    pub binc: Option<u64>,
    /// Moves left until the next time control (never `Some(0)`).
    pub movestogo: Option<u32>,
    /// Maximum search depth in plies (at most 255).
    pub depth: Option<u32>,
    /// Maximum number of nodes to search.
    pub nodes: Option<u64>,
    /// Search for exactly this long.
    pub movetime: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Start in pondering mode (the clock starts at `ponderhit`).
    pub ponder: bool,
    /// Restrict the root to these moves: raw move texts, validated later by the engine.
    pub searchmoves: Vec<String>,
}

/// One understood input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and list options.
    Uci,
    /// `isready`: answer `readyok`.
    IsReady,
    /// `ucinewgame`: forget everything learned from the previous game.
    UciNewGame,
    /// `position (startpos | fen <fields>) [moves ...]`.
    Position {
        /// The starting position.
        start: PositionStart,
        /// Raw move texts (4 or 5 ASCII letters/digits each), validated later by the engine.
        moves: Vec<String>,
    },
    /// `go ...`: start a search.
    Go(GoParams),
    /// `stop`: end the running search.
    Stop,
    /// `ponderhit`: the predicted move was played; switch from pondering to normal search.
    PonderHit,
    /// `quit`: leave as soon as possible.
    Quit,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option name as typed (case preserved, words joined by single spaces).
        name: String,
        /// The value as typed (words joined by single spaces); `None` when `value` is absent.
        value: Option<String>,
    },
    /// `debug on|off`.
    Debug(bool),
    /// non-standard helpers: `d` (display board) and `eval`
    Display,
    /// non-standard helper: `eval` (print the static evaluation).
    Eval,
    /// `bench [depth]` typed at the UCI prompt
    Bench {
        /// The requested depth, if one was given (1..=255).
        depth: Option<u32>,
    },
    /// `perft N`
    Perft {
        /// The perft depth (1..=20).
        depth: u32,
    },
    /// blank line / only whitespace: nothing to do
    Empty,
}

/// The result of parsing one line: the command and any warnings about parts that were ignored or adjusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The command to execute.
    pub command: Command,
    /// Human-readable notes about ignored or adjusted input (at most 17 of them).
    pub warnings: Vec<String>,
}

/// At most this many characters of a user token are quoted back in a message.
const MAX_QUOTE_CHARS: usize = 40;
/// At most this many individual warnings are kept; the rest are summarised in one extra line.
const MAX_WARNINGS: usize = 16;
/// The largest accepted search depth (`go depth`, `bench`).
const MAX_DEPTH: u64 = 255;
/// The largest accepted perft depth.
const MAX_PERFT_DEPTH: u64 = 20;

/// Every command keyword this parser knows (case-sensitive).
const COMMANDS: [&str; 15] = [
    "uci",
    "isready",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "setoption",
    "debug",
    "register",
    "d",
    "eval",
    "bench",
    "perft",
];

/// Every keyword that may appear inside a `go` command.
const GO_KEYWORDS: [&str; 12] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "movetime",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

/// Parses one line. Err(message) when the line cannot be understood at all; the message is shown to the user as `info string error: <message>`.
///
/// # Errors
///
/// Returns a short, single-line message (user tokens quoted, truncated to 40 characters and with
/// control characters escaped) when no known command is found or a command's arguments are unusable.
pub fn parse(line: &str) -> Result<Parsed, String> {
    // `split_whitespace` also swallows `\r`, tabs and any other Unicode white space.
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = tokens.first() else {
        return Ok(Parsed {
            command: Command::Empty,
            warnings: Vec::new(),
        });
    };
    // The UCI spec says unknown tokens are skipped until a known command appears.
    let Some(start) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
        return Err(format!("unknown command {}", quote(first)));
    };
    let (skipped, rest) = tokens.split_at(start);
    let Some((&keyword, args)) = rest.split_first() else {
        return Err(format!("unknown command {}", quote(first)));
    };
    let mut warnings = Warnings::default();
    for token in skipped {
        warnings.push_with(|| format!("ignored unknown token {}", quote(token)));
    }
    let command = match keyword {
        "uci" => simple(Command::Uci, keyword, args, &mut warnings),
        "isready" => simple(Command::IsReady, keyword, args, &mut warnings),
        "ucinewgame" => simple(Command::UciNewGame, keyword, args, &mut warnings),
        "stop" => simple(Command::Stop, keyword, args, &mut warnings),
        "ponderhit" => simple(Command::PonderHit, keyword, args, &mut warnings),
        "quit" => simple(Command::Quit, keyword, args, &mut warnings),
        "d" => simple(Command::Display, keyword, args, &mut warnings),
        "eval" => simple(Command::Eval, keyword, args, &mut warnings),
        "position" => parse_position(args)?,
        "go" => Command::Go(parse_go(args, &mut warnings)),
        "setoption" => parse_setoption(args)?,
        "debug" => parse_debug(args, &mut warnings)?,
        "bench" => parse_bench(args, &mut warnings)?,
        "perft" => parse_perft(args, &mut warnings)?,
        "register" => return Err("register is not needed".to_string()),
        _ => return Err(format!("unknown command {}", quote(first))),
    };
    Ok(Parsed {
        command,
        warnings: warnings.finish(),
    })
}

/// A bounded list of warnings: the first [`MAX_WARNINGS`] are kept, the rest only counted.
#[derive(Default)]
struct Warnings {
    list: Vec<String>,
    suppressed: usize,
}

impl Warnings {
    /// Records a warning; the message is only built when it will be kept.
    fn push_with(&mut self, message: impl FnOnce() -> String) {
        if self.list.len() < MAX_WARNINGS {
            self.list.push(message());
        } else {
            self.suppressed += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.suppressed > 0 {
            self.list
                .push(format!("{} more warnings not shown", self.suppressed));
        }
        self.list
    }
}

/// Quotes a user token for a message: at most [`MAX_QUOTE_CHARS`] characters, control characters
/// escaped so that the message can never break the line-based protocol.
fn quote(token: &str) -> String {
    let mut out = String::with_capacity(token.len().min(4 * MAX_QUOTE_CHARS) + 5);
    out.push('\'');
    for (index, c) in token.chars().enumerate() {
        if index == MAX_QUOTE_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// A command that takes no arguments: extra tokens only earn a warning.
fn simple(command: Command, keyword: &str, args: &[&str], warnings: &mut Warnings) -> Command {
    warn_extra(keyword, args, warnings);
    command
}

fn warn_extra(keyword: &str, extra: &[&str], warnings: &mut Warnings) {
    if let Some(first) = extra.first() {
        warnings.push_with(|| {
            format!(
                "{keyword}: ignored {} extra token(s) starting with {}",
                extra.len(),
                quote(first)
            )
        });
    }
}

/// `position startpos [moves ...]` or `position fen <4..=6 fields> [moves ...]`.
fn parse_position(args: &[&str]) -> Result<Command, String> {
    let Some((&kind, rest)) = args.split_first() else {
        return Err("position: expected 'startpos' or 'fen'".to_string());
    };
    let (start, move_tokens): (PositionStart, &[&str]) = match kind {
        "startpos" => match rest.split_first() {
            None => (PositionStart::StartPos, &[]),
            Some((&"moves", moves)) => (PositionStart::StartPos, moves),
            Some((token, _)) => {
                return Err(format!(
                    "position: unexpected token {} after 'startpos' (expected 'moves')",
                    quote(token)
                ))
            }
        },
        "fen" => {
            let field_count = rest
                .iter()
                .position(|t| *t == "moves")
                .unwrap_or(rest.len());
            let (fields, tail) = rest.split_at(field_count);
            if fields.is_empty() {
                return Err("position fen: missing FEN".to_string());
            }
            if !(4..=6).contains(&fields.len()) {
                return Err(format!(
                    "position fen: expected 4 to 6 FEN fields, got {}",
                    fields.len()
                ));
            }
            // `tail` is either empty or starts with the `moves` keyword.
            let moves = tail.split_first().map_or(&[][..], |(_, moves)| moves);
            (PositionStart::Fen(fields.join(" ")), moves)
        }
        other => {
            return Err(format!(
                "position: expected 'startpos' or 'fen', got {}",
                quote(other)
            ))
        }
    };
    let mut moves = Vec::with_capacity(move_tokens.len());
    for token in move_tokens {
        let plausible =
            (4..=5).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric());
        if !plausible {
            return Err(format!(
                "invalid move text {} (expected 4 or 5 characters such as e2e4 or e7e8q)",
                quote(token)
            ));
        }
        moves.push((*token).to_string());
    }
    Ok(Command::Position { start, moves })
}

/// A number as typed: sign, magnitude (saturated at `u64::MAX`) and whether it overflowed.
struct Number {
    negative: bool,
    magnitude: u64,
    overflow: bool,
}

/// Parses an optionally signed decimal integer of any length; `None` when it is not one.
fn parse_number(token: &str) -> Option<Number> {
    let (negative, digits) = match token.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, token.strip_prefix('+').unwrap_or(token)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut magnitude = 0u64;
    let mut overflow = false;
    for b in digits.bytes() {
        match magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(b - b'0')))
        {
            Some(m) => magnitude = m,
            None => {
                magnitude = u64::MAX;
                overflow = true;
                break;
            }
        }
    }
    Some(Number {
        // "-0" is simply zero.
        negative: negative && magnitude != 0,
        magnitude,
        overflow,
    })
}

fn is_go_keyword(token: &str) -> bool {
    GO_KEYWORDS.contains(&token)
}

/// Stores a `go` value, warning when the keyword was already given.
fn store<T>(slot: &mut Option<T>, value: Option<T>, key: &str, warnings: &mut Warnings) {
    if let Some(value) = value {
        if slot.is_some() {
            warnings
                .push_with(|| format!("go: '{key}' given more than once; using the last value"));
        }
        *slot = Some(value);
    }
}

/// A clock value (time, increment, movetime): negative clamps to 0, overflow to `u64::MAX`.
fn time_value(key: &str, token: &str, warnings: &mut Warnings) -> Option<u64> {
    match parse_number(token) {
        None => {
            warnings.push_with(|| format!("go: {} is not a number for '{key}'", quote(token)));
            None
        }
        Some(n) if n.negative => {
            warnings.push_with(|| {
                format!(
                    "go: negative value {} for '{key}' clamped to 0",
                    quote(token)
                )
            });
            Some(0)
        }
        Some(n) if n.overflow => {
            warnings.push_with(|| {
                format!(
                    "go: value {} for '{key}' is too large; clamped to {}",
                    quote(token),
                    u64::MAX
                )
            });
            Some(u64::MAX)
        }
        Some(n) => Some(n.magnitude),
    }
}

/// A count (depth, nodes, movestogo, mate): negative is ignored, too large clamps to `max`.
fn count_value(key: &str, token: &str, max: u64, warnings: &mut Warnings) -> Option<u64> {
    match parse_number(token) {
        None => {
            warnings.push_with(|| format!("go: {} is not a number for '{key}'", quote(token)));
            None
        }
        Some(n) if n.negative => {
            warnings
                .push_with(|| format!("go: negative value {} for '{key}' ignored", quote(token)));
            None
        }
        Some(n) if n.overflow || n.magnitude > max => {
            warnings.push_with(|| {
                format!(
                    "go: value {} for '{key}' is too large; clamped to {max}",
                    quote(token)
                )
            });
            Some(max)
        }
        Some(n) => Some(n.magnitude),
    }
}

fn to_u32(value: Option<u64>) -> Option<u32> {
    value.map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// `go [keyword value | flag | searchmoves m1 m2 ...]*`; problems are warnings, never errors.
fn parse_go(args: &[&str], warnings: &mut Warnings) -> GoParams {
    let mut params = GoParams::default();
    let mut i = 0;
    while let Some(&token) = args.get(i) {
        i += 1;
        match token {
            "infinite" => params.infinite = true,
            "ponder" => params.ponder = true,
            "searchmoves" => {
                let first = i;
                while args.get(i).is_some_and(|t| !is_go_keyword(t)) {
                    i += 1;
                }
                let moves = args.get(first..i).unwrap_or_default();
                if moves.is_empty() {
                    warnings.push_with(|| "go: 'searchmoves' without any moves".to_string());
                }
                params
                    .searchmoves
                    .extend(moves.iter().map(|m| (*m).to_string()));
            }
            key if is_go_keyword(key) => {
                let value = match args.get(i) {
                    Some(&value) if !is_go_keyword(value) => {
                        i += 1;
                        value
                    }
                    _ => {
                        warnings.push_with(|| format!("go: missing value for '{key}'"));
                        continue;
                    }
                };
                match key {
                    "wtime" => {
                        let v = time_value(key, value, warnings);
                        store(&mut params.wtime, v, key, warnings);
                    }
                    "btime" => {
                        let v = time_value(key, value, warnings);
                        store(&mut params.btime, v, key, warnings);
                    }
                    "winc" => {
                        let v = time_value(key, value, warnings);
                        store(&mut params.winc, v, key, warnings);
                    }
                    "binc" => {
                        let v = time_value(key, value, warnings);
                        store(&mut params.binc, v, key, warnings);
                    }
                    "movetime" => {
                        let v = time_value(key, value, warnings);
                        store(&mut params.movetime, v, key, warnings);
                    }
                    "nodes" => {
                        let v = count_value(key, value, u64::MAX, warnings);
                        store(&mut params.nodes, v, key, warnings);
                    }
                    "depth" => {
                        let v = to_u32(count_value(key, value, MAX_DEPTH, warnings));
                        store(&mut params.depth, v, key, warnings);
                    }
                    "mate" => {
                        let v = to_u32(count_value(key, value, u64::from(u32::MAX), warnings));
                        store(&mut params.mate, v, key, warnings);
                    }
                    "movestogo" => {
                        let mut v = to_u32(count_value(key, value, u64::from(u32::MAX), warnings));
                        if v == Some(0) {
                            warnings.push_with(|| "go: 'movestogo 0' ignored".to_string());
                            v = None;
                        }
                        store(&mut params.movestogo, v, key, warnings);
                    }
                    _ => warnings.push_with(|| format!("go: ignored unknown token {}", quote(key))),
                }
            }
            other => warnings.push_with(|| format!("go: ignored unknown token {}", quote(other))),
        }
    }
    params
}

/// `setoption name <words> [value <words>]`.
fn parse_setoption(args: &[&str]) -> Result<Command, String> {
    let Some((&first, rest)) = args.split_first() else {
        return Err("setoption: expected 'name <option name>'".to_string());
    };
    if first != "name" {
        return Err(format!("setoption: expected 'name', got {}", quote(first)));
    }
    let (name_tokens, value) = match rest.iter().position(|t| *t == "value") {
        Some(split) => {
            let (name_tokens, tail) = rest.split_at(split);
            let value_tokens = tail.split_first().map_or(&[][..], |(_, v)| v);
            (name_tokens, Some(value_tokens.join(" ")))
        }
        None => (rest, None),
    };
    if name_tokens.is_empty() {
        return Err("setoption: missing option name".to_string());
    }
    Ok(Command::SetOption {
        name: name_tokens.join(" "),
        value,
    })
}

/// `debug on|off`.
fn parse_debug(args: &[&str], warnings: &mut Warnings) -> Result<Command, String> {
    let Some((&mode, extra)) = args.split_first() else {
        return Err("debug: expected 'on' or 'off'".to_string());
    };
    let on = match mode {
        "on" => true,
        "off" => false,
        other => {
            return Err(format!(
                "debug: expected 'on' or 'off', got {}",
                quote(other)
            ))
        }
    };
    warn_extra("debug", extra, warnings);
    Ok(Command::Debug(on))
}

/// `bench [depth]`.
fn parse_bench(args: &[&str], warnings: &mut Warnings) -> Result<Command, String> {
    let Some((&token, extra)) = args.split_first() else {
        return Ok(Command::Bench { depth: None });
    };
    let depth = match parse_number(token) {
        Some(n) if !n.negative && n.magnitude >= 1 => {
            if n.overflow || n.magnitude > MAX_DEPTH {
                warnings
                    .push_with(|| format!("bench: depth {} clamped to {MAX_DEPTH}", quote(token)));
                MAX_DEPTH
            } else {
                n.magnitude
            }
        }
        _ => {
            return Err(format!(
                "bench: {} is not a valid depth (expected a number from 1 to {MAX_DEPTH})",
                quote(token)
            ))
        }
    };
    warn_extra("bench", extra, warnings);
    Ok(Command::Bench {
        depth: to_u32(Some(depth)),
    })
}

/// `perft N`, N clamped to 1..=20.
fn parse_perft(args: &[&str], warnings: &mut Warnings) -> Result<Command, String> {
    let Some((&token, extra)) = args.split_first() else {
        return Err("perft: missing depth".to_string());
    };
    let Some(n) = parse_number(token) else {
        return Err(format!("perft: {} is not a number", quote(token)));
    };
    let depth = if n.negative || n.magnitude < 1 {
        warnings.push_with(|| format!("perft: depth {} clamped to 1", quote(token)));
        1
    } else if n.overflow || n.magnitude > MAX_PERFT_DEPTH {
        warnings
            .push_with(|| format!("perft: depth {} clamped to {MAX_PERFT_DEPTH}", quote(token)));
        MAX_PERFT_DEPTH
    } else {
        n.magnitude
    };
    warn_extra("perft", extra, warnings);
    Ok(Command::Perft {
        depth: u32::try_from(depth).unwrap_or(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn go_all_parameters() {
        let (params, warnings) = go(
            "go wtime 300000 btime 290000 winc 2000 binc 1000 movestogo 40 depth 12 nodes 1000000 movetime 5000 mate 3 infinite ponder",
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            params,
            GoParams {
                wtime: Some(300_000),
                btime: Some(290_000),
                winc: Some(2000),
                binc: Some(1000),
                movestogo: Some(40),
                depth: Some(12),
                nodes: Some(1_000_000),
                movetime: Some(5000),
                mate: Some(3),
                infinite: true,
                ponder: true,
                searchmoves: vec![],
            }
        );
        let (params, warnings) = go("go");
        assert_eq!(params, GoParams::default());
        assert!(warnings.is_empty());
        let (params, _) = go("go\tdepth\t7\r");
        assert_eq!(params.depth, Some(7));
        let (params, warnings) = go("go depth +5");
        assert_eq!(params.depth, Some(5));
        assert!(warnings.is_empty());
    }

    #[test]
    fn go_searchmoves() {
        let (params, warnings) = go("go searchmoves e2e4 d2d4 depth 5");
        assert!(warnings.is_empty());
        assert_eq!(params.searchmoves, strings(&["e2e4", "d2d4"]));
        assert_eq!(params.depth, Some(5));
        let (params, _) = go("go infinite searchmoves g1f3");
        assert!(params.infinite);
        assert_eq!(params.searchmoves, strings(&["g1f3"]));
        // Raw texts, not validated here.
        let (params, _) = go("go searchmoves xyz e2e4 ponder");
        assert_eq!(params.searchmoves, strings(&["xyz", "e2e4"]));
        assert!(params.ponder);
        let (params, warnings) = go("go searchmoves");
        assert!(params.searchmoves.is_empty());
        assert_eq!(warnings.len(), 1);
        let (params, warnings) = go("go searchmoves depth 3");
        assert!(params.searchmoves.is_empty());
        assert_eq!(params.depth, Some(3));
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn go_missing_and_bad_values_warn() {
        let (params, warnings) = go("go depth");
        assert_eq!(params.depth, None);
        assert_eq!(warnings, vec!["go: missing value for 'depth'"]);
        let (params, warnings) = go("go wtime abc btime 100");
        assert_eq!(params.wtime, None);
        assert_eq!(params.btime, Some(100));
        assert_eq!(warnings, vec!["go: 'abc' is not a number for 'wtime'"]);
        // A keyword where a value should be: the value is missing, the keyword still counts.
        let (params, warnings) = go("go depth infinite");
        assert_eq!(params.depth, None);
        assert!(params.infinite);
        assert_eq!(warnings, vec!["go: missing value for 'depth'"]);
        let (params, warnings) = go("go movetime 1.5 nodes 1e6");
        assert_eq!(params.movetime, None);
        assert_eq!(params.nodes, None);
        assert_eq!(warnings.len(), 2);
        let (params, warnings) = go("go depth - mate +");
        assert_eq!((params.depth, params.mate), (None, None));
        assert_eq!(warnings.len(), 2);
    }

    #[test]
    fn go_negative_values() {
        let (params, warnings) = go("go wtime -100 btime -100 winc -5 binc -1 movetime -3");
        assert_eq!(params.wtime, Some(0));
        assert_eq!(params.btime, Some(0));
        assert_eq!(params.winc, Some(0));
        assert_eq!(params.binc, Some(0));
        assert_eq!(params.movetime, Some(0));
        assert_eq!(warnings.len(), 5);
        assert!(warnings[0].contains("'wtime'") && warnings[0].contains("-100"));
        let (params, warnings) = go("go depth -1 nodes -5 movestogo -2 mate -3");
        assert_eq!(params.depth, None);
        assert_eq!(params.nodes, None);
        assert_eq!(params.movestogo, None);
        assert_eq!(params.mate, None);
        assert_eq!(warnings.len(), 4);
        // Minus zero is just zero.
        let (params, warnings) = go("go wtime -0");
        assert_eq!(params.wtime, Some(0));
        assert!(warnings.is_empty());
    }

    #[test]
    fn go_huge_values_are_clamped() {
        let huge = "99999999999999999999999999999999";
        let (params, warnings) = go(&format!(
            "go wtime {huge} btime 18446744073709551616 winc {huge} binc {huge} movetime {huge} nodes {huge}"
        ));
        assert_eq!(params.wtime, Some(u64::MAX));
        assert_eq!(params.btime, Some(u64::MAX));
        assert_eq!(params.winc, Some(u64::MAX));
        assert_eq!(params.binc, Some(u64::MAX));
        assert_eq!(params.movetime, Some(u64::MAX));
        assert_eq!(params.nodes, Some(u64::MAX));
        assert_eq!(warnings.len(), 6);
        let (params, warnings) = go("go wtime 18446744073709551615 nodes 18446744073709551615");
        assert_eq!(params.wtime, Some(u64::MAX));
        assert_eq!(params.nodes, Some(u64::MAX));
        assert!(warnings.is_empty());
        let (params, warnings) = go("go depth 256");
        assert_eq!(params.depth, Some(255));
        assert_eq!(warnings.len(), 1);
        let (params, warnings) = go("go depth 255");
        assert_eq!(params.depth, Some(255));
        assert!(warnings.is_empty());
        let (params, warnings) = go(&format!("go depth {huge}"));
        assert_eq!(params.depth, Some(255));
        assert_eq!(warnings.len(), 1);
        let (params, warnings) = go("go movestogo 4294967296 mate 99999999999");
        assert_eq!(params.movestogo, Some(u32::MAX));
        assert_eq!(params.mate, Some(u32::MAX));
        assert_eq!(warnings.len(), 2);
        let (params, warnings) = go("go movestogo 4294967295");
        assert_eq!(params.movestogo, Some(u32::MAX));
        assert!(warnings.is_empty());
    }

    #[test]
    fn go_unknown_tokens_and_movestogo_zero() {
        let (params, warnings) = go("go fast depth 3 please");
        assert_eq!(params.depth, Some(3));
        assert_eq!(warnings.len(), 2);
        assert!(warnings[0].contains("'fast'"));
        let (params, warnings) = go("go movestogo 0 wtime 1000");
        assert_eq!(params.movestogo, None);
        assert_eq!(params.wtime, Some(1000));
        assert_eq!(warnings.len(), 1);
        // Repeated keywords: the last value wins, with a warning.
        let (params, warnings) = go("go depth 3 depth 6");
        assert_eq!(params.depth, Some(6));
        assert_eq!(warnings.len(), 1);
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

    /// A tiny deterministic xorshift64 generator for the fuzz test.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, n: usize) -> usize {
            // n is small, so the modulo bias is irrelevant here.
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    fn random_token(rng: &mut XorShift) -> String {
        const WORDS: [&str; 40] = [
            "uci",
            "isready",
            "ucinewgame",
            "position",
            "go",
            "stop",
            "ponderhit",
            "quit",
            "setoption",
            "debug",
            "register",
            "d",
            "eval",
            "bench",
            "perft",
            "startpos",
            "fen",
            "moves",
            "name",
            "value",
            "on",
            "off",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "depth",
            "nodes",
            "movetime",
            "mate",
            "infinite",
            "ponder",
            "searchmoves",
            "e2e4",
            "e7e8q",
            "0000",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "KQkq",
            "Hash",
        ];
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
            0 | 1 => rng.pick(&WORDS).to_string(),
            2 => {
                // Numbers: small, negative, huge, overflowing.
                match rng.below(5) {
                    0 => (rng.next() % 100).to_string(),
                    1 => format!("-{}", rng.next() % 1000),
                    2 => rng.next().to_string(),
                    3 => format!("{}{}", rng.next(), rng.next()),
                    _ => format!("-{}{}", rng.next(), rng.next()),
                }
            }
            3 => rng.pick(&ODD).to_string(),
            4 => {
                // Random printable ASCII garbage.
                let len = 1 + rng.below(8);
                (0..len)
                    .map(|_| char::from(b'!' + (rng.next() % 94) as u8))
                    .collect()
            }
            _ => {
                // Random scalar values, control characters included.
                let len = 1 + rng.below(4);
                let control = char::from((rng.next() % 32) as u8);
                let mut token: String = (0..len)
                    .filter_map(|_| char::from_u32((rng.next() % 0x11_0000) as u32))
                    .collect();
                token.push(control);
                token
            }
        }
    }

    #[test]
    fn fuzz_never_panics() {
        const SEPARATORS: [&str; 8] = [" ", " ", " ", "\t", "\r", "  ", "\u{a0}", ""];
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut oks = 0usize;
        for _ in 0..20_000 {
            let count = rng.below(12);
            let mut line = String::new();
            for _ in 0..count {
                line.push_str(&random_token(&mut rng));
                line.push_str(rng.pick(&SEPARATORS));
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
}
