//! Time odds with real clocks: an engine given its own `tc=` plays on that clock, sees it (and
//! its own increment) in every `go`, and the PGN names each side's clock.

mod common;

use common::*;
use std::time::Duration;

/// The values of `key` (`wtime`, `binc`, ...) in a `go` line.
fn go_value(line: &str, key: &str) -> u64 {
    let mut words = line.split_whitespace();
    words
        .find(|w| *w == key)
        .unwrap_or_else(|| panic!("no {key} in '{line}'"));
    words
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{line}"))
}

#[test]
fn an_engine_with_its_own_clock_plays_on_it() {
    let dir = scratch("time-odds");
    let trine = trine_bin().display().to_string();
    let pgn = dir.join("games.pgn");
    let run = run_match(
        &args(&format!(
            "--engine cmd={trine} name=Slow --engine cmd={trine} name=Fast tc=0.5+0.005 \
             --each option.Hash=1 --tc 1+0.01 --openings {} --games 2 --maxmoves 3 --debug \
             --pgn {}",
            write_openings(&dir).display(),
            pgn.display()
        )),
        Duration::from_secs(60),
    );
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(run.output.contains("Fast: time losses 0"), "{}", run.output);

    // Game 1: Slow is White; game 2: Fast is White.
    let tags = |name| tag_values(&text, name);
    assert_eq!(tags("WhiteTimeControl"), ["1+0.01", "0.5+0.005"], "{text}");
    assert_eq!(tags("BlackTimeControl"), ["0.5+0.005", "1+0.01"], "{text}");
    assert!(tags("TimeControl").is_empty(), "{text}");

    // Every `go` gives each side its own increment, and Fast's clock never shows more than its
    // half second plus the increments it earned (three moves a game).
    let gos: Vec<(&str, &str)> = run
        .output
        .lines()
        .filter_map(|l| l.split_once(" < go "))
        .collect();
    assert_eq!(gos.len(), 12, "{}", run.output);
    for (i, (engine, go)) in gos.iter().enumerate() {
        let fast_is_white = i >= 6;
        let (fast, slow) = if fast_is_white {
            ("w", "b")
        } else {
            ("b", "w")
        };
        assert_eq!(go_value(go, &format!("{fast}inc")), 5, "{go}");
        assert_eq!(go_value(go, &format!("{slow}inc")), 10, "{go}");
        assert!(go_value(go, &format!("{fast}time")) <= 515, "{go}");
        assert!(go_value(go, &format!("{slow}time")) > 515, "{go}");
        let to_move = if (i % 6) % 2 == 0 { "w" } else { "b" };
        let expected = if to_move == fast { "Fast" } else { "Slow" };
        assert_eq!(*engine, expected, "{go}");
    }
}
