//! Pure UCI parser: one input line → a [`Command`] plus warnings, or an error message. Never panics.
//! The parameters of `go` are read by `parse/go.rs`.

mod go;

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
        "go" => Command::Go(go::parse_go(args, &mut warnings)),
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

fn to_u32(value: Option<u64>) -> Option<u32> {
    value.map(|v| u32::try_from(v).unwrap_or(u32::MAX))
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
mod tests;
