//! The parameters of a `go` command: clock values, counts, flags and `searchmoves`; every
//! problem is a warning, never an error.

use super::{parse_number, quote, to_u32, GoParams, Warnings, MAX_DEPTH};

/// Every keyword that may appear inside a `go` command.
pub(super) const GO_KEYWORDS: [&str; 12] = [
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

/// `go [keyword value | flag | searchmoves m1 m2 ...]*`; problems are warnings, never errors.
pub(super) fn parse_go(args: &[&str], warnings: &mut Warnings) -> GoParams {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::parse::{parse, Command};

    fn go(line: &str) -> (GoParams, Vec<String>) {
        let parsed = match parse(line) {
            Ok(parsed) => parsed,
            Err(e) => panic!("expected {line:?} to parse, got error {e:?}"),
        };
        match parsed.command {
            Command::Go(params) => (params, parsed.warnings),
            other => panic!("expected a go command from {line:?}, got {other:?}"),
        }
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_string()).collect()
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
}
