//! The trainer against the engine: a network trained by `trine_tuning::nnue` and written in the
//! file format of `docs/nnue.md` is read by the engine (`trine::nnue::Network`), whose integer
//! evaluation agrees with the trainer's float forward pass on every position of the sample data,
//! and exactly with the trainer's integer reference, with one output bucket, with eight, and with
//! eight king buckets as well.

use std::path::PathBuf;

use shakmaty::Position;

use trine_tuning::data::Split;
use trine_tuning::nnue::data::Loaded;
use trine_tuning::nnue::export::Quantised;
use trine_tuning::nnue::train::{train, Config};
use trine_tuning::nnue::KingBuckets;

#[test]
fn the_engine_evaluates_a_trained_network_as_the_trainer_does() {
    for buckets in [1, 8] {
        engine_agrees(buckets, KingBuckets::NONE);
    }
    engine_agrees(8, KingBuckets::layout(8).unwrap());
}

/// Trains a network of `buckets` output buckets and the king buckets `kings` on the sample and
/// compares the engine's scores with the trainer's on every sample position (their piece counts
/// reach most buckets).
fn engine_agrees(buckets: usize, kings: KingBuckets) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt");
    let loaded = Loaded::load(&[&path], Split::NONE).unwrap();
    let cfg = Config {
        hidden: 32,
        buckets,
        kings,
        epochs: 3,
        batch: 256,
        lr: 0.01,
        patience: 0,
        ..Config::default()
    };
    let net = train(
        &loaded.train,
        &loaded.validation,
        &cfg,
        None,
        &mut |_, _| Ok(()),
    )
    .unwrap()
    .best;
    let q = Quantised::from_network(&net);
    let engine = trine::nnue::Network::from_bytes(&q.to_bytes()).unwrap();
    assert_eq!(engine.buckets(), buckets);
    assert_eq!(engine.king_buckets(), kings.count);
    // The float network the file stands for; the float network as trained differs from it by
    // the rounding of the weights (up to 1/510 per W1 weight, 1/128 per w2 weight).
    let dequantised = q.to_network();
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut n, mut exact, mut spread, mut worst_raw, mut sum_raw) = (0, 0, 0.0f32, 0.0f32, 0.0);
    let mut per_bucket = [0usize; 16];
    let mut per_king_bucket = [0usize; 16];
    for line in text.lines() {
        let pos = trine::tools::datagen::parse_line(line).unwrap().pos;
        per_bucket[engine.bucket_of(pos.board())] += 1;
        per_king_bucket[engine.king_offset(pos.board(), pos.turn()) / 768] += 1;
        let cp = engine.evaluate(&pos);
        let float = dequantised.evaluate(&pos);
        assert!(
            (cp as f32 - float).abs() <= 3.0 + 0.02 * float.abs(),
            "{line}: engine {cp}, trainer {float}"
        );
        let raw = net.evaluate(&pos);
        worst_raw = worst_raw.max((cp as f32 - raw).abs());
        sum_raw += f64::from((cp as f32 - raw).abs());
        exact += usize::from(cp == q.evaluate(&pos));
        spread = spread.max(float.abs());
        n += 1;
    }
    assert!(n > 2000);
    assert!(spread > 100.0, "a degenerate network: |cp| ≤ {spread}");
    let used = per_bucket.iter().filter(|&&c| c > 0).count();
    assert!(
        used >= buckets.min(6),
        "positions per bucket: {per_bucket:?}"
    );
    let kings_used = per_king_bucket.iter().filter(|&&c| c > 0).count();
    assert!(
        kings_used >= kings.count.min(6),
        "positions per king bucket: {per_king_bucket:?}"
    );
    // The engine computes the documented integer formula, as the trainer's reference does.
    assert_eq!(
        exact, n,
        "the engine and the trainer's integer formula differ ({buckets} buckets, {} king buckets)",
        kings.count
    );
    // Before rounding the float network is a few centipawns off on average (w2 is stored in
    // steps of 1/64 of a unit, 6.25 cp at SCALE 400).
    assert!(sum_raw / (n as f64) < 8.0, "mean {}", sum_raw / n as f64);
    eprintln!(
        "{buckets} bucket(s), {n} positions (per bucket {:?}), |cp| up to {spread:.0}; engine vs \
         float before rounding: mean {:.2} cp, worst {worst_raw:.1} cp",
        &per_bucket[..buckets],
        sum_raw / n as f64
    );
}
