//! Position learning end to end over UCI: a shallow search walks into a line that a deeper search
//! refutes; after one game fragment with `Learning` on, a fresh process with `Learning` on avoids it
//! within the same shallow budget, and with `Learning` off it does not. A corrupt learn file is moved
//! aside with an `info string` and the engine carries on.

use std::path::Path;
use std::time::Duration;

mod engine_process;
use engine_process::tempdir::TempDir;
use engine_process::Engine;

/// How long any one answer may take.
const WAIT: Duration = Duration::from_secs(60);

/// White's shallow search (depth 1) likes Nc3 here; deeper, ...cxd4 refutes it (the queen on b6 and
/// the pawn on c5 win material), which a depth-7 search sees. (Depth 3 liked Nc3 too until round 9
/// of the evaluation, which prefers dxc5 there.)
const TRAP: &str = "rnb1kbnr/pp2pppp/1q6/2pp4/3P4/6P1/PPP1PP1P/RNBQKBNR w KQkq - 0 1";
const LURE: &str = "b1c3";
const REFUTATION: &str = "c5d4";
/// The shallow budget.
const SHALLOW: &str = "go depth 1";

/// The best move of `go`.
fn bestmove(e: &mut Engine, go: &str) -> String {
    e.search(go, WAIT).bestmove().to_string()
}

/// An engine learning (`on`) in `file`. The trap above was found with the hand-written
/// evaluation, so these engines use it.
fn engine_with_learning(file: &Path, on: bool) -> Engine {
    engine_with_learning_eval(file, on, "<empty>")
}

fn engine_with_learning_eval(file: &Path, on: bool, eval: &str) -> Engine {
    let mut e = Engine::start();
    e.send(&format!("setoption name EvalFile value {eval}"));
    e.send(&format!(
        "setoption name Learn File value {}",
        file.display()
    ));
    e.send(&format!("setoption name Learning value {on}"));
    e.sync(WAIT);
    e
}

#[test]
fn a_learned_refutation_is_avoided_in_a_fresh_process() {
    let dir = TempDir::new("learning-trap");
    let file = dir.join("trine.learn");

    // Without any learning the shallow search falls for the lure.
    let mut plain = engine_with_learning(&file, false);
    plain.send(&format!("position fen {TRAP}"));
    let mv = bestmove(&mut plain, SHALLOW);
    assert_eq!(
        mv, LURE,
        "precondition: the shallow search prefers the lure"
    );
    plain.quit();
    assert!(!file.exists(), "Learning off writes nothing");

    // One game fragment: play the lure, meet the refutation, and see the score drop.
    let mut learner = engine_with_learning(&file, true);
    learner.send("ucinewgame");
    learner.send(&format!("position fen {TRAP}"));
    let mv = bestmove(&mut learner, SHALLOW);
    assert_eq!(mv, LURE);
    learner.send(&format!("position fen {TRAP} moves {LURE} {REFUTATION}"));
    let lines = learner.search("go depth 7", WAIT).lines;
    // The score drop is noticed once the engine settles the search (at the next command).
    learner.send("isready");
    let after = learner.until("readyok", WAIT);
    let learned = lines
        .iter()
        .chain(after.iter())
        .any(|l| l.starts_with("info string learned"));
    assert!(learned, "no 'learned' message: {lines:#?} {after:#?}");
    learner.quit();
    assert!(file.exists());

    // A fresh process with Learning on avoids the lure within the same shallow budget...
    let mut fresh = engine_with_learning(&file, true);
    fresh.send(&format!("position fen {TRAP}"));
    let mv = bestmove(&mut fresh, SHALLOW);
    assert_ne!(
        mv, LURE,
        "the learned refutation should steer the shallow search away"
    );
    fresh.quit();

    // ...and with Learning off it does not.
    let mut off = engine_with_learning(&file, false);
    off.send(&format!("position fen {TRAP}"));
    let mv = bestmove(&mut off, SHALLOW);
    assert_eq!(mv, LURE);
    off.quit();

    // The file holds the hand-written evaluation's scores: an engine on the built-in network
    // refuses it, says so, and leaves it as it is.
    let before = std::fs::read(&file).unwrap();
    let mut net = engine_with_learning_eval(&file, true, "<built-in>");
    net.send(&format!("position fen {TRAP}"));
    net.send(SHALLOW);
    let lines = net.until("bestmove", WAIT);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("evaluation version")),
        "{lines:#?}"
    );
    net.quit();
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn a_corrupt_learn_file_is_moved_aside_and_the_engine_carries_on() {
    let dir = TempDir::new("learning-corrupt");
    let file = dir.join("trine.learn");
    std::fs::write(
        &file,
        b"this is not a learn file at all, just garbage bytes",
    )
    .unwrap();
    let mut e = engine_with_learning(&file, true);
    e.send("position startpos");
    let out = e.search("go depth 3", WAIT);
    let (mv, lines) = (out.bestmove(), &out.lines);
    assert!(mv.len() >= 4);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error:") && l.contains("moved aside")),
        "{lines:#?}"
    );
    e.quit();
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|d| d.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("trine.learn.corrupt-")),
        "{names:?}"
    );
    let kept = names
        .iter()
        .find(|n| n.starts_with("trine.learn.corrupt-"))
        .unwrap();
    assert_eq!(
        std::fs::read(dir.join(kept)).unwrap(),
        b"this is not a learn file at all, just garbage bytes",
        "the corrupt file is kept byte for byte"
    );
}

#[test]
fn an_unwritable_learn_file_is_an_error_message_not_a_crash() {
    let dir = TempDir::new("learning-unwritable");
    // A path below a regular file can never be created.
    let blocker = dir.join("plain-file");
    std::fs::write(&blocker, b"x").unwrap();
    let file = blocker.join("trine.learn");
    let mut e = engine_with_learning(&file, true);
    e.send(&format!("position fen {TRAP}"));
    e.search(SHALLOW, WAIT);
    e.send(&format!("position fen {TRAP} moves {LURE} {REFUTATION}"));
    e.search("go depth 7", WAIT);
    e.send("isready");
    let after = e.until("readyok", WAIT);
    assert!(
        after.iter().any(|l| l.starts_with("info string error:")),
        "{after:#?}"
    );
    // Still alive and searching.
    e.send("position startpos");
    let mv = bestmove(&mut e, "go depth 2");
    assert!(mv.len() >= 4);
    e.quit();
}
