//! The NNUE trainer (`trine_tuning::nnue`, `trine-nnue`): training lowers the loss on the sample
//! data (with and without output buckets), the run keeps the best network and stops early, and the
//! command line writes a file of the documented layout (version 1, or 2 with `--buckets`) that
//! reads back to the network it trained, and starts from a file of the same or of one bucket.

use std::path::PathBuf;
use std::process::Command;

use trine_tuning::data::Split;
use trine_tuning::nnue::export::{file_len, Quantised};
use trine_tuning::nnue::train::{mean_loss, train, Config, EpochReport};
use trine_tuning::nnue::{Dataset, Loaded, Network};

fn sample_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt")
}

fn sample() -> Dataset {
    let loaded = Loaded::load(&[sample_path()], Split::NONE).expect("tuning/data/sample.txt");
    assert_eq!(loaded.stats.malformed, 0, "{:?}", loaded.stats.examples);
    assert!(
        loaded.train.len() > 2000,
        "sample has {}",
        loaded.train.len()
    );
    loaded.train
}

fn small() -> Config {
    Config {
        hidden: 16,
        epochs: 4,
        batch: 256,
        lr: 0.01,
        patience: 0,
        ..Config::default()
    }
}

#[test]
fn training_lowers_the_loss_on_the_sample() {
    for buckets in [1, 8] {
        training_lowers_the_loss(buckets);
    }
}

fn training_lowers_the_loss(buckets: usize) {
    let data = sample();
    let cfg = Config { buckets, ..small() };
    let start = Network::random(cfg.hidden, cfg.buckets, cfg.seed);
    let before = mean_loss(&start, &data, cfg.k, cfg.lambda);
    let mut reports: Vec<EpochReport> = Vec::new();
    let outcome = train(&data, &Dataset::new(), &cfg, None, &mut |r, _| {
        reports.push(r.clone());
        Ok(())
    })
    .unwrap();
    let after = mean_loss(&outcome.best, &data, cfg.k, cfg.lambda);
    assert!(after < 0.5 * before, "loss {before} -> {after}");
    assert_eq!(reports.len(), 4);
    assert_eq!(outcome.epochs_run, 4);
    for w in reports.windows(2) {
        assert!(w[1].train_loss < w[0].train_loss, "{reports:?}");
    }
    // Without a validation set the training loss decides, and the last epoch was the best.
    assert_eq!(outcome.best_epoch, 4);
    assert!(outcome.best.params.iter().all(|w| w.abs() <= 1.98));
    assert_eq!(outcome.best.buckets(), buckets);
    // Every bucket the data reaches has learnt its own output layer.
    let (h, l) = (cfg.hidden, outcome.best.layers());
    let first = &l.w2[..2 * h];
    let differ = (1..buckets)
        .filter(|b| &l.w2[b * 2 * h..][..2 * h] != first)
        .count();
    assert_eq!(differ, buckets - 1);
    // The same seed gives the same network on one thread count.
    let again = train(&data, &Dataset::new(), &cfg, None, &mut |_, _| Ok(())).unwrap();
    assert_eq!(again.best, outcome.best);
}

#[test]
fn early_stopping_keeps_the_best_network() {
    let data = sample();
    // A step size far too large: the validation loss gets worse, and the run stops after
    // `patience` epochs without improvement, keeping the starting network (epoch 0).
    let loaded = Loaded::load(
        &[sample_path()],
        Split {
            fraction: 0.2,
            seed: 3,
        },
    )
    .unwrap();
    let cfg = Config {
        hidden: 16,
        epochs: 20,
        batch: 64,
        lr: 1.0,
        patience: 2,
        ..Config::default()
    };
    let start = Network::random(16, 1, 77);
    let mut reports: Vec<EpochReport> = Vec::new();
    let outcome = train(
        &loaded.train,
        &loaded.validation,
        &cfg,
        Some(start.clone()),
        &mut |r, _| {
            reports.push(r.clone());
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(reports[0].epoch, 0);
    let best = reports
        .iter()
        .min_by(|a, b| a.validation_loss.total_cmp(&b.validation_loss))
        .unwrap();
    assert_eq!(outcome.best_epoch, best.epoch);
    assert_eq!(outcome.best_loss, best.validation_loss);
    assert!(outcome.epochs_run < 20, "{reports:?}");
    assert_eq!(outcome.epochs_run, outcome.best_epoch + 2);
    if outcome.best_epoch == 0 {
        assert_eq!(outcome.best, start);
    }
    assert!(data.len() > loaded.train.len());
}

#[test]
fn the_command_line_writes_the_documented_file() {
    let dir = std::env::temp_dir().join(format!("trine-nnue-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("net.nnue");
    let run = Command::new(env!("CARGO_BIN_EXE_trine-nnue"))
        .args(["--data"])
        .arg(sample_path())
        .args(["--data"])
        .arg(sample_path())
        .args([
            "--hidden",
            "24",
            "--epochs",
            "2",
            "--batch",
            "512",
            "--threads",
            "2",
        ])
        .args(["--lr", "0.01", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("epoch   2"), "{stderr}");
    assert!(stderr.contains("0 malformed"), "{stderr}");
    let bytes = std::fs::read(&out).unwrap();
    let h = 24;
    assert_eq!(bytes.len(), 8 + 4 + 4 + 2 * (768 * h + h + 2 * h) + 4);
    assert_eq!(bytes.len(), file_len(h, 1, 1));
    assert_eq!(&bytes[..8], b"TRINENN1");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 24);
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 400);
    let q = Quantised::from_bytes(&bytes).unwrap();
    assert!(q.w1.iter().any(|&w| w != 0) && q.w2.iter().any(|&w| w != 0));
    // Starting from the file with no epochs writes the same file back.
    let out2 = dir.join("again.nnue");
    let run = Command::new(env!("CARGO_BIN_EXE_trine-nnue"))
        .arg("--data")
        .arg(sample_path())
        .args(["--hidden", "24", "--epochs", "0", "--init"])
        .arg(&out)
        .arg("--out")
        .arg(&out2)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(std::fs::read(&out2).unwrap(), bytes);
    // Output buckets: a version-2 file, read back and written again from itself unchanged.
    let run_nnue = |args: &[&str], init: Option<&PathBuf>, out: &PathBuf| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_trine-nnue"));
        c.arg("--data").arg(sample_path()).args(args);
        if let Some(p) = init {
            c.arg("--init").arg(p);
        }
        let run = c.arg("--out").arg(out).output().unwrap();
        (
            run.status.success(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        )
    };
    let buckets = dir.join("buckets.nnue");
    let args = [
        "--hidden",
        "24",
        "--buckets",
        "4",
        "--epochs",
        "2",
        "--lr",
        "0.01",
    ];
    let (ok, stderr) = run_nnue(&args, None, &buckets);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("4 output bucket(s)"), "{stderr}");
    let b4 = std::fs::read(&buckets).unwrap();
    assert_eq!(b4.len(), 20 + 2 * (768 * h + h + 4 * 2 * h) + 4 * 4);
    assert_eq!(b4.len(), file_len(h, 4, 1));
    assert_eq!(&b4[..8], b"TRINENN2");
    assert_eq!(u32::from_le_bytes(b4[16..20].try_into().unwrap()), 4);
    let q4 = Quantised::from_bytes(&b4).unwrap();
    assert_eq!((q4.buckets, q4.w2.len(), q4.b2.len()), (4, 4 * 2 * h, 4));
    assert!(trine::nnue::Network::from_bytes(&b4).is_ok());
    let again = dir.join("buckets-again.nnue");
    let (ok, stderr) = run_nnue(
        &["--hidden", "24", "--buckets", "4", "--epochs", "0"],
        Some(&buckets),
        &again,
    );
    assert!(ok, "{stderr}");
    assert_eq!(std::fs::read(&again).unwrap(), b4);
    // A one-bucket file starts a bucketed network: its output layer in every bucket.
    let spread = dir.join("spread.nnue");
    let (ok, stderr) = run_nnue(
        &["--hidden", "24", "--buckets", "4", "--epochs", "0"],
        Some(&out),
        &spread,
    );
    assert!(ok, "{stderr}");
    let s = Quantised::from_bytes(&std::fs::read(&spread).unwrap()).unwrap();
    assert_eq!((s.buckets, &s.w1, &s.b1), (4, &q.w1, &q.b1));
    for b in 0..4 {
        assert_eq!(&s.w2[b * 2 * h..][..2 * h], &q.w2[..]);
        assert_eq!(s.b2[b], q.b2[0]);
    }
    // King buckets: a version-3 file whose every king block is the starting file's W1, so the
    // engine scores every position as it scores them with the version-2 file.
    let kings = dir.join("kings.nnue");
    let args = ["--hidden", "24", "--buckets", "4", "--king-buckets", "8"];
    let (ok, stderr) = run_nnue(
        &[&args[..], &["--epochs", "0"]].concat(),
        Some(&buckets),
        &kings,
    );
    assert!(ok, "{stderr}");
    assert!(stderr.contains("x 8 king bucket(s)"), "{stderr}");
    let k8 = std::fs::read(&kings).unwrap();
    assert_eq!((&k8[..8], k8.len()), (&b"TRINENN3"[..], file_len(h, 4, 8)));
    let (two, three) = (
        trine::nnue::Network::from_bytes(&b4).unwrap(),
        trine::nnue::Network::from_bytes(&k8).unwrap(),
    );
    assert_eq!(three.king_buckets(), 8);
    let text = std::fs::read_to_string(sample_path()).unwrap();
    for line in text.lines().step_by(50) {
        let pos = trine::tools::datagen::parse_line(line).unwrap().pos;
        assert_eq!(two.evaluate(&pos), three.evaluate(&pos), "{line}");
    }
    // Trained on, its blocks part; it starts the same run again unchanged; a layout that does not
    // exist, or other king buckets than the file's, is refused.
    let trained = dir.join("kings-trained.nnue");
    let more = [
        "--epochs",
        "2",
        "--batch",
        "256",
        "--lr",
        "0.01",
        "--validation",
        "0",
    ];
    let (ok, stderr) = run_nnue(&[&args[..], &more].concat(), Some(&kings), &trained);
    assert!(ok, "{stderr}");
    let kt = Quantised::from_bytes(&std::fs::read(&trained).unwrap()).unwrap();
    let block = |k: usize| &kt.w1[k * 768 * h..(k + 1) * 768 * h];
    assert!(
        (1..8).any(|k| block(k) != block(0)),
        "the king blocks stayed copies"
    );
    let (ok, stderr) = run_nnue(&["--hidden", "24", "--king-buckets", "3"], None, &trained);
    assert!(!ok && stderr.contains("king bucket count 3"), "{stderr}");
    let (ok, stderr) = run_nnue(
        &[
            "--hidden",
            "24",
            "--buckets",
            "4",
            "--king-buckets",
            "4",
            "--epochs",
            "0",
        ],
        Some(&kings),
        &dir.join("no.nnue"),
    );
    assert!(
        !ok && stderr.contains("8 king buckets, not --king-buckets 4"),
        "{stderr}"
    );
    // Another bucket count is refused.
    let (ok, stderr) = run_nnue(
        &["--hidden", "24", "--buckets", "2", "--epochs", "0"],
        Some(&buckets),
        &dir.join("no.nnue"),
    );
    assert!(
        !ok && stderr.contains("4 output buckets, not --buckets 2"),
        "{stderr}"
    );
    // A larger hidden size widens the file: the engine scores every position as before. A
    // smaller one is refused.
    let wide = dir.join("wide.nnue");
    let (ok, stderr) = run_nnue(
        &["--hidden", "32", "--buckets", "4", "--epochs", "0"],
        Some(&buckets),
        &wide,
    );
    assert!(ok, "{stderr}");
    let w32 = trine::nnue::Network::from_bytes(&std::fs::read(&wide).unwrap()).unwrap();
    assert_eq!(w32.hidden(), 32);
    for line in text.lines().step_by(50) {
        let pos = trine::tools::datagen::parse_line(line).unwrap().pos;
        assert_eq!(two.evaluate(&pos), w32.evaluate(&pos), "{line}");
    }
    // Widened by copies, it scores as before up to the rounding of the halved output weights
    // (at most one step of w2 a copied unit, 400/64 cp); more than twice the units is refused.
    let copies = dir.join("copies.nnue");
    let (ok, stderr) = run_nnue(
        &[
            "--hidden",
            "32",
            "--buckets",
            "4",
            "--epochs",
            "0",
            "--widen-copies",
            "0",
        ],
        Some(&buckets),
        &copies,
    );
    assert!(ok, "{stderr}");
    let c32 = trine::nnue::Network::from_bytes(&std::fs::read(&copies).unwrap()).unwrap();
    assert_eq!(c32.hidden(), 32);
    for line in text.lines().step_by(50) {
        let pos = trine::tools::datagen::parse_line(line).unwrap().pos;
        let (a, b) = (two.evaluate(&pos), c32.evaluate(&pos));
        assert!((a - b).abs() <= 2 * 8 * 7, "{line}: {a} vs {b}");
    }
    let (ok, stderr) = run_nnue(
        &[
            "--hidden",
            "56",
            "--buckets",
            "4",
            "--epochs",
            "0",
            "--widen-copies",
            "0.1",
        ],
        Some(&buckets),
        &dir.join("no.nnue"),
    );
    assert!(
        !ok && stderr.contains("cannot become one of 56 by copying"),
        "{stderr}"
    );
    let (ok, stderr) = run_nnue(
        &["--hidden", "16", "--buckets", "4", "--epochs", "0"],
        Some(&buckets),
        &dir.join("no.nnue"),
    );
    assert!(
        !ok && stderr.contains("hidden size 24 cannot become one of 16"),
        "{stderr}"
    );
    let (ok, stderr) = run_nnue(&["--buckets", "17"], None, &dir.join("no.nnue"));
    assert!(!ok && stderr.contains("bucket count 17"), "{stderr}");
    // A hidden size that is not a multiple of 8 is refused before loading.
    let bad = Command::new(env!("CARGO_BIN_EXE_trine-nnue"))
        .args(["--data", "/nonexistent", "--hidden", "12", "--out"])
        .arg(dir.join("bad.nnue"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("multiple of 8"));
    std::fs::remove_dir_all(&dir).unwrap();
}
