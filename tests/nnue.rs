//! The network evaluation over UCI: the built-in network by default; `setoption name EvalFile`
//! loads a network file (the engine's `eval` then reports the network's score, the same as the
//! library computes from scratch, and searches with it); a missing or malformed file is an
//! `info string error` and the evaluation in use stays; `<empty>` is the hand-written evaluation.
//! A network with output buckets (file format version 2), and one with king buckets as well
//! (version 3), loads and plays the same way.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use shakmaty::{CastlingMode, Chess};
use trine::rng::Rng;

mod engine_process;
use engine_process::tempdir::TempDir;
use engine_process::{run_to_end, trine_bin, Engine};

/// How long any one answer, or one run of `trine`, may take.
const WAIT: Duration = Duration::from_secs(60);

const FEN: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";

/// A pseudo-random network file of hidden size `h` and `buckets` output buckets in the format of
/// docs/nnue.md: version 1 for one bucket, version 2 for more.
fn network_file(h: usize, buckets: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut next = move |range: i64| rng.below(2 * range as usize + 1) as i64 - range;
    let mut f = if buckets == 1 {
        b"TRINENN1"
    } else {
        b"TRINENN2"
    }
    .to_vec();
    f.extend((h as u32).to_le_bytes());
    f.extend(400u32.to_le_bytes());
    if buckets > 1 {
        f.extend((buckets as u32).to_le_bytes());
    }
    for _ in 0..768 * h {
        f.extend((next(60) as i16).to_le_bytes());
    }
    for _ in 0..h {
        f.extend((next(100) as i16 + 60).to_le_bytes());
    }
    for _ in 0..buckets * 2 * h {
        f.extend((next(127) as i16).to_le_bytes());
    }
    for _ in 0..buckets {
        f.extend((next(16_000) as i32).to_le_bytes());
    }
    f
}

/// The version-3 file of `network_file(h, buckets, seed)`'s network with four king buckets (the
/// king's file pair: a–b, c–d, e–f, g–h), each with feature weights of its own.
fn king_bucket_file(h: usize, buckets: usize, seed: u64) -> Vec<u8> {
    let v2 = network_file(h, buckets, seed);
    let mut rng = Rng::new(seed + 1);
    let mut f = b"TRINENN3".to_vec();
    f.extend_from_slice(&v2[8..20]);
    f.extend(4u32.to_le_bytes());
    f.extend((0..64).map(|sq| (sq % 8 / 2) as u8));
    for _ in 0..4 * 768 * h {
        f.extend((rng.below(121) as i16 - 60).to_le_bytes());
    }
    f.extend_from_slice(&v2[20 + 2 * 768 * h..]);
    f
}

/// Sends `line`, then `isready`; the lines before `readyok`.
fn say(e: &mut Engine, line: &str) -> Vec<String> {
    e.send(line);
    e.sync(WAIT)
}

/// The `eval` line's network score, if it names a network.
fn network_eval(e: &mut Engine) -> Option<i32> {
    let lines = say(e, "eval");
    let line = lines
        .iter()
        .find(|l| l.contains("eval "))
        .expect("an eval line");
    if !line.contains("network") {
        return None;
    }
    let after = line.split("eval ").nth(1).unwrap();
    Some(after.split_whitespace().next().unwrap().parse().unwrap())
}

fn legal_bestmove(e: &mut Engine, pos: &Chess, go: &str) {
    let out = e.search(go, WAIT);
    let mv = out.bestmove();
    let lines = &out.lines;
    let m: shakmaty::uci::UciMove = mv.parse().unwrap();
    assert!(
        m.to_move(pos).is_ok(),
        "illegal bestmove {mv}; lines {lines:#?}"
    );
}

fn set_eval_file(e: &mut Engine, path: &Path) -> Vec<String> {
    say(
        e,
        &format!("setoption name EvalFile value {}", path.display()),
    )
}

#[test]
fn a_network_is_loaded_used_and_kept_through_bad_files() {
    let dir = TempDir::new("nnue-load");
    let good = dir.join("good.nnue");
    std::fs::write(&good, network_file(32, 1, 11)).unwrap();
    let truncated = dir.join("truncated.nnue");
    let bytes = network_file(32, 1, 11);
    std::fs::write(&truncated, &bytes[..bytes.len() - 10]).unwrap();
    let pos: Chess = FEN
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let expected = trine::nnue::Network::load(&good).unwrap().evaluate(&pos);

    let mut e = Engine::start();
    let uci = say(&mut e, "uci");
    assert!(uci
        .iter()
        .any(|l| l == "option name EvalFile type string default <built-in>"));
    say(&mut e, &format!("position fen {FEN}"));
    // The built-in network by default.
    let built_in = trine::nnue::built_in().evaluate(&pos);
    assert_eq!(network_eval(&mut e), Some(built_in));
    say(&mut e, "setoption name EvalFile value <empty>");
    assert_eq!(network_eval(&mut e), None);

    // A missing file: an error, and still the hand-written evaluation.
    let out = set_eval_file(&mut e, &dir.join("missing.nnue"));
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string error") && l.contains("cannot read")),
        "{out:#?}"
    );
    assert_eq!(network_eval(&mut e), None);

    // A good file: loaded, reported, and the engine's score is the library's.
    let out = set_eval_file(&mut e, &good);
    assert!(
        out.iter().any(|l| l.contains("evaluation: network")),
        "{out:#?}"
    );
    assert_eq!(network_eval(&mut e), Some(expected));
    legal_bestmove(&mut e, &pos, "go depth 6");

    // A truncated file: an error, and the good network stays.
    let out = set_eval_file(&mut e, &truncated);
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string error") && l.contains("bytes")),
        "{out:#?}"
    );
    assert_eq!(network_eval(&mut e), Some(expected));

    // Back to the built-in network, and to the hand-written evaluation.
    say(&mut e, "setoption name EvalFile value <built-in>");
    assert_eq!(network_eval(&mut e), Some(built_in));
    say(&mut e, "setoption name EvalFile value <empty>");
    assert_eq!(network_eval(&mut e), None);
    legal_bestmove(&mut e, &pos, "go depth 4");
    e.quit();
}

/// Paths that hold no network and go on without end, or wait for a writer, or are no file at
/// all: refused at once with an error, the evaluation in use stays, and the engine plays on.
#[cfg(unix)]
#[test]
fn devices_pipes_and_directories_are_refused_promptly() {
    let dir = TempDir::new("nnue-special");
    let pipe = dir.join("pipe.nnue");
    let mut paths = vec![
        Path::new("/dev/zero").to_path_buf(),
        dir.path().to_path_buf(),
    ];
    if Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .is_ok_and(|s| s.success())
    {
        paths.push(pipe);
    }
    let pos: Chess = FEN
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let built_in = trine::nnue::built_in().evaluate(&pos);
    let mut e = Engine::start();
    say(&mut e, "uci");
    say(&mut e, &format!("position fen {FEN}"));
    for path in paths {
        e.send(&format!("setoption name EvalFile value {}", path.display()));
        let out = e.sync(Duration::from_secs(5));
        assert!(
            out.iter()
                .any(|l| l.starts_with("info string error: cannot read")
                    && l.ends_with("keeping EvalFile <built-in>")),
            "{}: {out:#?}",
            path.display()
        );
        assert_eq!(network_eval(&mut e), Some(built_in));
        legal_bestmove(&mut e, &pos, "go depth 3");
    }
    e.quit();
}

#[test]
fn a_network_with_output_buckets_is_loaded_and_played_with() {
    // Output bucket count 17: refused, and the evaluation in use stays.
    loaded_and_played_with(network_file(32, 8, 13), 16, "output bucket count 17");
}

#[test]
fn a_network_with_king_buckets_is_loaded_and_played_with() {
    // King bucket count 17: refused, and the evaluation in use stays.
    loaded_and_played_with(king_bucket_file(32, 8, 13), 20, "king bucket count 17");
}

/// Loads the network file `bytes` (8 output buckets) over UCI, compares the engine's `eval` with
/// the library's score and plays with it; then the same file with 17 written at byte `at` is
/// refused with `reason`, and the network stays.
fn loaded_and_played_with(bytes: Vec<u8>, at: usize, reason: &str) {
    let dir = TempDir::new("nnue-buckets");
    let good = dir.join("b8.nnue");
    std::fs::write(&good, &bytes).unwrap();
    let bad = dir.join("b17.nnue");
    let mut b17 = bytes.clone();
    b17[at..at + 4].copy_from_slice(&17u32.to_le_bytes());
    std::fs::write(&bad, &b17).unwrap();
    let net = trine::nnue::Network::load(&good).unwrap();
    assert_eq!(net.buckets(), 8);

    let mut e = Engine::start();
    say(&mut e, "uci");
    let out = set_eval_file(&mut e, &good);
    let kings = format!("8 output bucket(s), {} king bucket(s)", net.king_buckets());
    assert!(
        out.iter()
            .any(|l| l.contains("evaluation: network") && l.contains(&kings)),
        "{out:#?}"
    );
    // Positions of 30 down to 8 pieces (other buckets): the engine's score is the library's,
    // and it plays a legal move with the network.
    let fens = [
        FEN,
        "r4rk1/pp3ppp/2n1b3/3p4/3P4/2N5/PP3PPP/R4RK1 b - - 0 16",
        "6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 30",
        "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40",
    ];
    let mut scores = Vec::new();
    for fen in fens {
        let pos: Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        say(&mut e, &format!("position fen {fen}"));
        let expected = net.evaluate(&pos);
        assert_eq!(network_eval(&mut e), Some(expected), "{fen}");
        scores.push(expected);
        legal_bestmove(&mut e, &pos, "go depth 5");
    }
    assert!(scores.iter().any(|&s| s != 0), "{scores:?}");
    let out = set_eval_file(&mut e, &bad);
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string error") && l.contains(reason)),
        "{out:#?}"
    );
    assert_eq!(network_eval(&mut e), Some(*scores.last().unwrap()));
    // A game from the start: moves through captures, into other buckets.
    say(&mut e, "ucinewgame");
    say(
        &mut e,
        "position startpos moves e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 c7c6",
    );
    let start: Chess = "rnb1kbnr/pp2pppp/2p5/q7/3P4/2N5/PPP2PPP/R1BQKBNR w KQkq - 0 5"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    legal_bestmove(&mut e, &start, "go nodes 20000");
    e.quit();
}

#[test]
fn bench_runs_with_a_network_and_refuses_a_bad_one() {
    let dir = TempDir::new("nnue-bench");
    let good = dir.join("good.nnue");
    std::fs::write(&good, network_file(16, 1, 5)).unwrap();
    let run = |path: &Path| {
        run_to_end(
            Command::new(trine_bin())
                .args(["bench", "--depth", "4", "--evalfile"])
                .arg(path),
            WAIT,
        )
    };
    let ok = run(&good);
    assert_eq!(ok.code, Some(0));
    let text = &ok.stdout;
    let last = text.lines().last().unwrap();
    assert!(last.ends_with(" nps") && last.contains(" nodes "), "{text}");
    let plain = run(Path::new("<empty>"));
    // A different evaluation searches a different tree.
    assert_ne!(
        plain.stdout.lines().last().unwrap().split(' ').next(),
        last.split(' ').next()
    );
    let bad = run(&dir.join("missing.nnue"));
    assert_ne!(bad.code, Some(0));
    assert!(bad.stderr.contains("error: cannot read"));
}

#[test]
fn datagen_plays_with_a_network_and_refuses_a_bad_one() {
    let dir = TempDir::new("nnue-datagen");
    let net = dir.join("net.nnue");
    std::fs::write(&net, network_file(16, 1, 9)).unwrap();
    let run = |out: &Path, evalfile: Option<&Path>| {
        let mut c = Command::new(trine_bin());
        c.args([
            "datagen",
            "--games",
            "2",
            "--nodes",
            "300",
            "--threads",
            "1",
        ])
        .args(["--seed", "4", "--random-plies", "4", "--out"])
        .arg(out);
        if let Some(p) = evalfile {
            c.arg("--evalfile").arg(p);
        }
        run_to_end(&mut c, WAIT)
    };
    let (with, without) = (dir.join("with.txt"), dir.join("without.txt"));
    assert_eq!(run(&with, Some(&net)).code, Some(0));
    assert_eq!(run(&without, Some(Path::new("<empty>"))).code, Some(0));
    let (a, b) = (
        std::fs::read_to_string(&with).unwrap(),
        std::fs::read_to_string(&without).unwrap(),
    );
    assert!(a.lines().count() > 0 && b.lines().count() > 0);
    // The same openings, played by another evaluation: other games.
    assert_ne!(a, b);
    let bad = run(&dir.join("bad.txt"), Some(&dir.join("missing.nnue")));
    assert_eq!(bad.code, Some(1));
    assert!(bad.stderr.contains("error: cannot read"));
}
