//! The Texel tuner (`trine_tuning::texel`, `trine-tune`): it lowers the training error on the
//! sample data, recovers a known weight and a known K from synthetic labels, holds a weight back
//! toward its start under an L2 penalty, parses good lines and counts bad ones, writes a weights
//! source that round-trips (also with zero epochs and a `--scale-mg` group scaling), and its
//! trace model agrees with the engine's own evaluation; a stale build refuses to start from its
//! built-in weights over an engine weights file that holds others.

use std::io::Cursor;
use std::path::PathBuf;
use std::process::Command;

use shakmaty::{Color, Position};
use trine::eval::params::{self, weights_source, GROUPS, LEN, S};
use trine::eval::{self, DEFAULT_PARAMS};
use trine_tuning::data::{parse_line, Split};
use trine_tuning::texel::data::{Dataset, Loaded};
use trine_tuning::texel::model::{self, from_table, sigmoid, Against};
use trine_tuning::texel::optimise::{fit_k, group, trainable};
use trine_tuning::texel::report::{largest_changes, parse_weights_source, read_table};
use trine_tuning::texel::{tune, Config};

fn sample_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt")
}

fn sample() -> Dataset {
    let loaded = Loaded::load(&[sample_path()], Split::NONE).expect("tuning/data/sample.txt");
    assert_eq!(loaded.stats.malformed, 0, "{:?}", loaded.stats.examples);
    assert!(
        loaded.train.len() > 1000,
        "sample has {}",
        loaded.train.len()
    );
    loaded.train
}

fn quiet(_: &str) {}

#[test]
fn tuning_lowers_the_training_error_on_the_sample() {
    let mut train = sample();
    let mut validation = Dataset::new();
    let cfg = Config {
        epochs: 8,
        lr: 1.0,
        ..Config::default()
    };
    let out = tune(
        &mut train,
        &mut validation,
        &DEFAULT_PARAMS.w,
        &cfg,
        &mut quiet,
    )
    .unwrap();
    assert!(out.k > 0.1 && out.k < 20.0, "K = {}", out.k);
    assert_eq!(out.epochs_run, 8);
    assert!(out.validation_error.is_none());
    let (before, after) = out.train_error;
    assert!(after < before * 0.97, "training error {before} -> {after}");
    // The error reported after is that of the rounded table.
    let rounded = from_table(&out.table());
    let again = model::error(&train, &rounded, out.k, Against::Targets);
    assert!((again - after).abs() < 1e-12);
    // Something moved, the king's material did not.
    assert!(!largest_changes(&DEFAULT_PARAMS.w, &out.table(), 5).is_empty());
    assert_eq!(out.table()[params::MATERIAL + 5], S { mg: 0, eg: 0 });
}

/// The sample positions that have a bishop pair, labelled with the win probability (K = 2) of the
/// default weights but with the bishop pair set to (80, 120) centipawns; the start has it at
/// (0, 0), and every group but `bishop_pair` is frozen. Returns (training set, start, K, frozen
/// groups).
fn synthetic_bishop_pair() -> (Dataset, [S; LEN], f64, Vec<String>) {
    let bp = params::BISHOP_PAIR as u16;
    let mut train = sample().filter(|d, i| d.terms(i).iter().any(|t| t.index == bp));
    assert!(
        train.len() >= 100,
        "{} positions with a bishop pair",
        train.len()
    );
    let mut truth = DEFAULT_PARAMS.w;
    truth[params::BISHOP_PAIR] = S {
        mg: 80 * params::UNIT,
        eg: 120 * params::UNIT,
    };
    let mut start = DEFAULT_PARAMS.w;
    start[params::BISHOP_PAIR] = S { mg: 0, eg: 0 };
    let k = 2.0;
    let wt = from_table(&truth);
    train.set_results(|d, i| sigmoid(k, model::evaluate(d, i, &wt)));
    let freeze: Vec<String> = GROUPS
        .iter()
        .map(|g| g.0.to_string())
        .filter(|g| g != "bishop_pair")
        .collect();
    (train, start, k, freeze)
}

#[test]
fn a_known_bishop_pair_weight_is_recovered_from_synthetic_labels() {
    let (mut train, start, k, freeze) = synthetic_bishop_pair();
    let cfg = Config {
        epochs: 400,
        lr: 4.0,
        lambda: 1.0,
        k: Some(k),
        freeze,
        patience: 400,
        report_every: 1000,
        l2: 0.0,
    };
    let out = tune(&mut train, &mut Dataset::new(), &start, &cfg, &mut quiet).unwrap();
    let got = out.table();
    let b = got[params::BISHOP_PAIR];
    eprintln!("bishop pair tuned to {b:?} in {} epochs", out.epochs_run);
    assert!(
        (b.mg - 80 * params::UNIT).abs() <= 3 * params::UNIT
            && (b.eg - 120 * params::UNIT).abs() <= 3 * params::UNIT,
        "bishop pair tuned to {b:?} quarter centipawns, expected (80, 120) centipawns"
    );
    for i in (0..LEN).filter(|&i| i != params::BISHOP_PAIR) {
        assert_eq!(got[i], start[i], "frozen weight {} moved", params::name(i));
    }
    assert!(out.train_error.1 < 1e-5, "error left {}", out.train_error.1);
}

/// The synthetic bishop pair, tuned with an L2 penalty toward its start (0): the
/// stronger the penalty, the nearer the start it stops (measured as the squared distance
/// mg² + eg², since the penalty is on the sum), and a very strong one keeps it near the start.
#[test]
fn an_l2_penalty_holds_a_weight_back_toward_its_start() {
    let (train, start, k, freeze) = synthetic_bishop_pair();
    let tuned = |l2: f64| {
        let cfg = Config {
            epochs: 600,
            lr: 4.0,
            lambda: 1.0,
            k: Some(k),
            freeze: freeze.clone(),
            patience: 600,
            report_every: 1000,
            l2,
        };
        let mut train = train.clone();
        let out = tune(&mut train, &mut Dataset::new(), &start, &cfg, &mut quiet).unwrap();
        out.table()[params::BISHOP_PAIR]
    };
    let free = tuned(0.0);
    let weak = tuned(1e-7);
    let strong = tuned(1e-6);
    let huge = tuned(1e-4);
    eprintln!("bishop pair: l2 = 0 {free:?}, 1e-7 {weak:?}, 1e-6 {strong:?}, 1e-4 {huge:?}");
    let dist = |b: S| b.mg * b.mg + b.eg * b.eg;
    let u = params::UNIT;
    assert!(
        (free.mg - 80 * u).abs() <= 3 * u && (free.eg - 120 * u).abs() <= 3 * u,
        "{free:?}"
    );
    assert!(dist(weak) < dist(free) * 9 / 10, "{weak:?} vs {free:?}");
    assert!(dist(strong) < dist(weak) * 9 / 10, "{strong:?} vs {weak:?}");
    // Adam with step 4 (centipawns) ends within a step or two of the optimum.
    assert!(dist(huge) <= 2 * (5 * u) * (5 * u), "{huge:?}");
    assert!(tune(
        &mut train.clone(),
        &mut Dataset::new(),
        &start,
        &Config {
            l2: -1.0,
            ..Config::default()
        },
        &mut quiet
    )
    .is_err());
}

#[test]
fn k_is_recovered_from_synthetic_labels() {
    let mut data = sample();
    let w = from_table(&DEFAULT_PARAMS.w);
    data.set_results(|d, i| sigmoid(1.7, model::evaluate(d, i, &w)));
    let (k, err) = fit_k(&data, &w);
    assert!((k - 1.7).abs() < 1e-3, "K = {k}");
    assert!(err < 1e-10, "error {err}");
}

#[test]
fn good_lines_parse_and_bad_lines_are_counted() {
    let good = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 15 | 0.5",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | -7 | 1.0",
        "8/8/1p4p1/p1p2k1p/P2n1P1P/4K1P1/1P6/6R1 b - - 6 59|-120|0.0",
    ];
    for line in good {
        parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    let s = parse_line(good[1]).unwrap();
    assert_eq!((s.score, s.result), (-7, 1.0));
    assert_eq!(s.pos.turn(), Color::White);

    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let bad = [
        format!("{start} | 12"),
        format!("{start} | 12 | 1.0 | extra"),
        format!("{start} | 1.5 | 1.0"),
        format!("{start} | 12 | 0.25"),
        format!("{start} | twelve | 1.0"),
        "not a fen | 0 | 0.5".to_string(),
        "8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5".to_string(),
        "4k3/8/8/8/8/8/8/4RK2 w - - 0 1 | 0 | 0.5".to_string(),
    ];
    for line in &bad {
        assert!(parse_line(line).is_err(), "{line}");
    }

    // A file mixing them: blank lines are ignored, bad ones (non-UTF-8 too) counted, never fatal.
    let mut bytes = Vec::new();
    for (i, line) in bad.iter().enumerate() {
        bytes.extend_from_slice(good[i % good.len()].as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(b"\n\n");
    }
    bytes.extend_from_slice(b"\xff\xfe | 0 | 0.5\n");
    bytes.extend_from_slice(good[0].as_bytes()); // no final newline
    let mut loaded = Loaded::new();
    loaded
        .read(Cursor::new(bytes), "mixed", Split::NONE)
        .unwrap();
    let st = &loaded.stats;
    assert_eq!(st.positions, bad.len() as u64 + 1);
    assert_eq!(st.malformed, bad.len() as u64 + 1);
    assert_eq!(st.lines, st.positions + st.malformed);
    assert_eq!(loaded.train.len() as u64, st.positions);
    assert!(st.examples[0].starts_with("mixed:2: "), "{:?}", st.examples);

    // The validation split keeps games whole and holds out about the fraction asked for.
    let split = Split {
        fraction: 0.3,
        seed: 5,
    };
    let loaded = Loaded::load(&[sample_path()], split).unwrap();
    let held = loaded.validation.len() as f64 / loaded.stats.positions as f64;
    assert!(loaded.stats.games >= 20, "{} games", loaded.stats.games);
    assert!(held > 0.05 && held < 0.6, "held out {held}");
}

#[test]
fn the_written_source_has_every_pair_and_round_trips() {
    let mut w = DEFAULT_PARAMS.w;
    for (i, s) in w.iter_mut().enumerate() {
        s.mg += (i as i32 * 7) % 23 - 11;
        s.eg -= (i as i32 * 5) % 19 - 9;
    }
    let src = weights_source(&w, "Tuned by a test.\nSecond line with s(1, 2) in it.");
    let pairs = parse_weights_source(&src).unwrap();
    assert_eq!(pairs.len(), LEN);
    assert_eq!(read_table(&src).unwrap(), w);
    // The engine's own file reads back as its table.
    let engine = include_str!("../../src/eval/weights.rs");
    assert_eq!(read_table(engine).unwrap(), DEFAULT_PARAMS.w);
    assert!(read_table("s(1, 2), s(3, 4)").is_err());
    assert!(trainable(&["no_such_group"]).is_err());
    assert!(trainable(&["material", "pst"]).is_ok());
}

#[test]
fn trace_model_agrees_with_the_engine_evaluation() {
    let text = std::fs::read_to_string(sample_path()).unwrap();
    let mut worst = 0.0f64;
    for line in text.lines() {
        let s = parse_line(line).unwrap();
        let t = eval::trace(&s.pos);
        let (mut mg, mut eg) = (0, 0);
        for &(i, n) in &t.terms {
            mg += i32::from(n) * DEFAULT_PARAMS.w[usize::from(i)].mg;
            eg += i32::from(n) * DEFAULT_PARAMS.w[usize::from(i)].eg;
        }
        let white = eval::taper(mg, eg, t.phase, t.eg_scale);
        let stm = if s.pos.turn() == Color::White {
            white
        } else {
            -white
        };
        assert_eq!(eval::evaluate(&s.pos), stm, "{line}");
        let mut d = Dataset::new();
        d.push(&t, s.score, s.result);
        let f = model::evaluate(&d, 0, &from_table(&DEFAULT_PARAMS.w));
        worst = worst.max((f - f64::from(white)).abs());
    }
    // Only the engine's integer truncations separate the two.
    assert!(worst < 2.0, "worst difference {worst}");
}

/// Runs `trine-tune` on the sample data with `args`, writing to `weights.rs` in a fresh temporary
/// folder named after `tag`; returns the folder (to remove), its stderr and the written source.
fn tune_sample(tag: &str, args: &[&str]) -> (PathBuf, String, String) {
    let dir = std::env::temp_dir().join(format!("trine-tune-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("weights.rs");
    let run = Command::new(env!("CARGO_BIN_EXE_trine-tune"))
        .args(["--data", sample_path().to_str().unwrap()])
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{stderr}");
    let src = std::fs::read_to_string(&out).unwrap();
    (dir, stderr, src)
}

#[test]
fn the_cli_writes_a_weights_file() {
    let (dir, stderr, src) = tune_sample(
        "test",
        &["--epochs", "3", "--freeze", "pst", "--threads", "2"],
    );
    assert!(stderr.contains("0 malformed lines skipped"), "{stderr}");
    let table = read_table(&src).unwrap();
    let pst = params::PST..params::PST + 6 * 64;
    assert_eq!(table[pst.clone()], DEFAULT_PARAMS.w[pst]);
    for needle in [
        "sample.txt",
        "K = ",
        "lambda = 0.5",
        "Epochs 3 of 3",
        "frozen: `material[king]`, `pst`",
    ] {
        assert!(src.contains(needle), "header lacks '{needle}':\n{src}");
    }
    let bad = Command::new(env!("CARGO_BIN_EXE_trine-tune"))
        .args(["--data", sample_path().to_str().unwrap()])
        .args(["--scale-mg", "king_danger"])
        .output()
        .unwrap();
    assert!(
        !bad.status.success(),
        "--scale-mg without a factor was accepted"
    );
    refuses_an_unknown_group("--freeze");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `trine-tune` with `FLAG nonsense` fails and names the problem.
fn refuses_an_unknown_group(flag: &str) {
    let bad = Command::new(env!("CARGO_BIN_EXE_trine-tune"))
        .args(["--data", sample_path().to_str().unwrap(), flag, "nonsense"])
        .output()
        .unwrap();
    assert!(!bad.status.success(), "{flag} nonsense was accepted");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown group"));
}

#[test]
fn zero_epochs_with_a_midgame_scale_write_the_scaled_table() {
    let (dir, _, src) = tune_sample("scale", &["--epochs", "0", "--scale-mg", "king_danger=2"]);
    assert!(
        src.contains("Starting weights: the engine's, midgame `king_danger` x2."),
        "{src}"
    );
    let table = read_table(&src).unwrap();
    let kd = params::KING_DANGER..params::KING_DANGER + params::KING_DANGER_CAP as usize + 1;
    for (i, (got, w)) in table.iter().zip(DEFAULT_PARAMS.w).enumerate() {
        let want = if kd.contains(&i) {
            S {
                mg: 2 * w.mg,
                eg: w.eg,
            }
        } else {
            w
        };
        assert_eq!(*got, want, "weight {i}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_tunes_the_named_groups_and_list_groups_names_them_all() {
    let (dir, _, src) = tune_sample(
        "only",
        &["--epochs", "5", "--only", "bishop_pair", "--threads", "2"],
    );
    let table = read_table(&src).unwrap();
    let (first, len) = group("bishop_pair").unwrap();
    let pair = first..first + len;
    for (i, (got, w)) in table.iter().zip(DEFAULT_PARAMS.w).enumerate() {
        if !pair.contains(&i) {
            assert_eq!(*got, w, "weight {i} moved outside bishop_pair");
        }
    }
    assert_ne!(
        table[pair.clone()],
        DEFAULT_PARAMS.w[pair],
        "bishop_pair did not move"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    refuses_an_unknown_group("--only");

    let list = Command::new(env!("CARGO_BIN_EXE_trine-tune"))
        .arg("--list-groups")
        .output()
        .unwrap();
    assert!(list.status.success());
    let text = String::from_utf8_lossy(&list.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), params::GROUPS.len());
    for (line, &(label, first, len)) in lines.iter().zip(params::GROUPS) {
        assert_eq!(*line, format!("{label} {first} {len}"));
    }
}

#[test]
fn a_stale_build_refuses_to_overwrite_other_engine_weights() {
    let dir = std::env::temp_dir().join(format!("trine-tune-stale-{}", std::process::id()));
    let eval = dir.join("src").join("eval");
    std::fs::create_dir_all(&eval).unwrap();
    let out = eval.join("weights.rs");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_trine-tune"))
            .args(["--data", sample_path().to_str().unwrap(), "--epochs", "0"])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap()
    };
    // Writes `src` to the file, runs without `--start`, and checks the refusal and the file.
    let refused = |src: &str, what: &str| {
        std::fs::write(&out, src).unwrap();
        let stale = run(&[]);
        assert!(
            !stale.status.success(),
            "a stale start over {what} was accepted"
        );
        let stderr = String::from_utf8_lossy(&stale.stderr);
        assert!(stderr.contains("stale build"), "{what}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            src,
            "{what} changed"
        );
    };
    // A table other than the one this binary was built with, as after a refit not yet rebuilt,
    // and one with a pair more, as after a new term was added.
    let mut other = DEFAULT_PARAMS.w;
    other[params::BISHOP_PAIR].mg += 7;
    let other_src = weights_source(&other, "//! another table");
    refused(&other_src, "other weights");
    let longer = other_src.replace("];", "    s(0, 0),\n];");
    assert_ne!(longer, other_src);
    refused(&longer, "a longer table");
    std::fs::write(&out, &other_src).unwrap();

    // Starting from that file is what the message offers, and it works.
    let from_file = run(&["--start", out.to_str().unwrap()]);
    assert!(
        from_file.status.success(),
        "{}",
        String::from_utf8_lossy(&from_file.stderr)
    );
    assert_eq!(
        read_table(&std::fs::read_to_string(&out).unwrap()).unwrap(),
        other
    );

    // The file holding the engine's own table is overwritten as before.
    std::fs::write(&out, weights_source(&DEFAULT_PARAMS.w, "//! the engine's")).unwrap();
    assert!(run(&[]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}
