//! Short matches of Trine against itself through `trine-match`: fixed depth, nodes and a real
//! clock, EPD and PGN openings, concurrency, adjudication, PGN output that reads back as
//! legal games, and an SPRT that stops the match.

mod common;

use common::*;
use std::time::Duration;
use trine_tuning::matches::openings::parse_pgn;

const LIMIT: Duration = Duration::from_secs(180);

fn engines() -> String {
    let trine = trine_bin().display().to_string();
    format!(
        "--engine cmd={trine} name=A --engine cmd={trine} name=B --each option.Hash=16 option.Threads=1"
    )
}

fn assert_clean(output: &str) {
    for name in ["A", "B"] {
        let clean = format!("{name}: time losses 0, illegal moves 0, crashes 0, stalls 0");
        assert!(output.contains(&clean), "{output}");
    }
}

#[test]
fn depth_three_match_with_pgn() {
    let dir = scratch("selfplay-depth");
    let pgn = dir.join("games.pgn");
    let a = args(&format!(
        "{} --openings {} --games 4 --depth 3 --concurrency 2 --pgn {} --report every=2",
        engines(),
        write_openings(&dir).display(),
        pgn.display()
    ));
    let run = run_match(&a, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert_eq!(
        run.output.matches("Finished game").count(),
        4,
        "{}",
        run.output
    );
    assert!(
        run.output.contains("Results of A vs B (4 games)"),
        "{}",
        run.output
    );
    assert!(run.output.contains("Ptnml(0-2)"), "{}", run.output);
    assert!(run.output.contains("(2 pairs)"), "{}", run.output);
    assert!(run.output.contains("Elo: "), "{}", run.output);
    assert_clean(&run.output);

    let text = std::fs::read_to_string(&pgn).expect("PGN written");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(results(&text).len(), 4);
    for t in terminations(&text) {
        assert!(["normal", "adjudication"].contains(&t.as_str()), "{t}");
    }
    assert_eq!(text.matches("[SetUp \"1\"]").count(), 4);
    assert_eq!(text.matches("[TimeControl \"-\"]").count(), 4);
    // Every game reads back: all its SAN moves are legal from its FEN.
    let games = parse_pgn(&text, None).expect("PGN output parses back");
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| !g.moves.is_empty()));
}

#[test]
fn clock_match_with_adjudication_has_no_time_losses() {
    let dir = scratch("selfplay-clock");
    let pgn = dir.join("games.pgn");
    // The margin is raised from the default 0 to 200 ms because tests run in parallel on a
    // small machine; a real clock-handling bug overruns by far more.
    let a = args(&format!(
        "{} --openings {} --games 2 --tc 2+0.02 --time-margin 200 --resign movecount=3 score=600 \
         --draw movenumber=20 movecount=4 score=20 --maxmoves 80 --pgn {}",
        engines(),
        write_openings(&dir).display(),
        pgn.display()
    ));
    let run = run_match(&a, LIMIT);
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert_clean(&run.output);
    assert_eq!(
        text.matches("[TimeControl \"2+0.02\"]").count(),
        2,
        "{text}"
    );
}

#[test]
fn pgn_openings_and_sprt_stop() {
    let dir = scratch("selfplay-sprt");
    let book = dir.join("book.pgn");
    std::fs::write(
        &book,
        "[Event \"book\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n1. d4 d5 2. c4 e6 *\n",
    )
    .expect("write book");
    let pgn = dir.join("games.pgn");
    // Equal engines against H0 = +500 Elo: H0 is accepted after the first pair.
    let a = args(&format!(
        "{} --openings {} --plies 4 --games 20 --nodes 2000 --sprt elo0=500 elo1=600 alpha=0.4 beta=0.4 --pgn {}",
        engines(),
        book.display(),
        pgn.display()
    ));
    let run = run_match(&a, LIMIT);
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(
        run.output
            .contains("Stopped early: SPRT H0 accepted after 2 games"),
        "{}",
        run.output
    );
    assert!(
        run.output.contains("Results of A vs B (2 games)"),
        "{}",
        run.output
    );
    assert!(
        run.output.contains("(logistic Elo, pentanomial GSPRT)"),
        "{}",
        run.output
    );
    // PGN openings from the standard start: no FEN tag, the 4 book plies are in the game.
    assert!(!text.contains("[FEN"), "{text}");
    assert!(text.starts_with("[Event"), "{text}");
    assert!(
        text.contains("1. e4 {book} e5 {book} 2. Nf3 {book} Nc6 {book}"),
        "{text}"
    );
}

#[test]
fn bad_command_lines_fail_cleanly() {
    let dir = scratch("selfplay-bad");
    let openings = write_openings(&dir);
    let missing = args(&format!(
        "--engine cmd=/nonexistent/engine --engine cmd={} --openings {} --depth 1",
        trine_bin().display(),
        openings.display()
    ));
    let run = run_match(&missing, Duration::from_secs(30));
    assert_eq!(run.code, Some(1), "{}", run.output);
    assert!(run.output.contains("failed to start"), "{}", run.output);
    let no_limit = args(&format!("{} --openings {}", engines(), openings.display()));
    let run = run_match(&no_limit, Duration::from_secs(30));
    assert_eq!(run.code, Some(1), "{}", run.output);
    assert!(run.output.contains("give one of --tc"), "{}", run.output);
    let _ = std::fs::remove_dir_all(&dir);
}
