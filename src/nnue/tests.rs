//! Tests of the network reader and the incremental evaluator against random networks, with and
//! without output buckets.

use std::sync::Arc;

use shakmaty::{Chess, Color, Position};

use super::features::INPUTS;
use super::network::{bucket, MAGIC, MAGIC_V2, MAGIC_V3, MAX_FILE_LEN, MAX_SCORE, QA, QB};
use super::refresh_cache::RefreshCache;
use super::{Evaluator, Network};
use crate::rng::Rng;

/// A deterministic pseudo-random network file of hidden size `h` with `buckets` output buckets:
/// version 1 for one bucket, version 2 for more.
pub fn random_file(h: usize, buckets: usize, seed: u64) -> Vec<u8> {
    random_network(h, buckets, None, seed)
}

/// A deterministic pseudo-random network file: hidden size `h`, `buckets` output buckets and,
/// with a king-bucket map, one block of feature weights per king bucket of the map (its largest
/// entry + 1) in version 3; else version 1 for one output bucket, version 2 for more.
fn random_network(h: usize, buckets: usize, king_map: Option<&[u8; 64]>, seed: u64) -> Vec<u8> {
    let kings = king_map.map_or(1, |m| usize::from(*m.iter().max().unwrap()) + 1);
    let mut rng = Rng::new(seed);
    let mut next = move |range: i32| rng.below(2 * range as usize + 1) as i32 - range;
    let magic = match (king_map, buckets) {
        (Some(_), _) => MAGIC_V3,
        (None, 1) => MAGIC,
        (None, _) => MAGIC_V2,
    };
    let mut f = magic.to_vec();
    f.extend((h as u32).to_le_bytes());
    f.extend(400u32.to_le_bytes());
    if magic != MAGIC {
        f.extend((buckets as u32).to_le_bytes());
    }
    if let Some(map) = king_map {
        f.extend((kings as u32).to_le_bytes());
        f.extend_from_slice(map);
    }
    for _ in 0..kings * INPUTS * h {
        f.extend((next(60) as i16).to_le_bytes());
    }
    for _ in 0..h {
        f.extend((next(100) as i16 + 60).to_le_bytes());
    }
    for _ in 0..buckets * 2 * h {
        f.extend((next(127) as i16).to_le_bytes());
    }
    for _ in 0..buckets {
        f.extend((next(QA * QB)).to_le_bytes());
    }
    f
}

/// A king-bucket map of four buckets by file pairs (a–b, c–d, e–f, g–h), so that king moves
/// often change bucket.
const FILE_PAIRS: [u8; 64] = {
    let mut m = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        m[sq] = (sq % 8 / 2) as u8;
        sq += 1;
    }
    m
};

/// [`random_network`] in version 3 with the king buckets of `king_map`.
fn random_file_v3(h: usize, buckets: usize, king_map: &[u8; 64], seed: u64) -> Vec<u8> {
    random_network(h, buckets, Some(king_map), seed)
}

/// The version-3 file of a version-2 file's network with its feature weights copied into each
/// king bucket of `king_map`.
fn spread_to_v3(v2: &[u8], king_map: &[u8; 64]) -> Vec<u8> {
    assert_eq!(&v2[..8], MAGIC_V2);
    let kings = usize::from(*king_map.iter().max().unwrap()) + 1;
    let h = u32::from_le_bytes(v2[8..12].try_into().unwrap()) as usize;
    let (w1, rest) = v2[20..].split_at(2 * INPUTS * h);
    let mut f = MAGIC_V3.to_vec();
    f.extend_from_slice(&v2[8..20]);
    f.extend((kings as u32).to_le_bytes());
    f.extend_from_slice(king_map);
    for _ in 0..kings {
        f.extend_from_slice(w1);
    }
    f.extend_from_slice(rest);
    f
}

/// The version-2 file of a version-1 file's network with its output layer (w2 and b2) copied
/// into each of `buckets` buckets.
fn spread_to_v2(v1: &[u8], buckets: usize) -> Vec<u8> {
    assert_eq!(&v1[..8], MAGIC);
    let h = u32::from_le_bytes(v1[8..12].try_into().unwrap()) as usize;
    let body = 16 + 2 * (INPUTS * h + h);
    let (w2, b2) = v1[body..].split_at(4 * h);
    let mut f = MAGIC_V2.to_vec();
    f.extend_from_slice(&v1[8..16]);
    f.extend((buckets as u32).to_le_bytes());
    f.extend_from_slice(&v1[16..body]);
    for _ in 0..buckets {
        f.extend_from_slice(w2);
    }
    for _ in 0..buckets {
        f.extend_from_slice(b2);
    }
    f
}

fn parse(fen: &str) -> Chess {
    fen.parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap()
}

/// Positions of 32 down to 2 pieces, either side to move.
const FENS: [&str; 10] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
    "r4rk1/pp3ppp/2n1b3/3p4/3P4/2N5/PP3PPP/R4RK1 b - - 0 16",
    "6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 30",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40",
    "8/8/4k3/8/8/3K4/4P3/8 w - - 0 60",
    "8/8/4k3/8/8/3K4/8/8 b - - 0 70",
    "8/8/4k3/3r4/8/3K4/4PP2/5N2 w - - 0 60",
    "rnbqkbnr/pppppp2/8/8/8/8/PPPPPP2/RNBQKBNR b - - 0 9",
    "rnbqkbnr/ppp5/8/8/8/8/PPPP4/RNBQKBNR w - - 0 12",
];

fn net(buckets: usize) -> Arc<Network> {
    Arc::new(Network::from_bytes(&random_file(32, buckets, 7)).unwrap())
}

#[test]
fn the_built_in_network_evaluates_as_recorded() {
    // Scores of nets/default.nnue (n22: H = 256, 8 output buckets, 4 king buckets) recorded
    // when it became the built-in network, so that a change to inference that moves a score is
    // caught. A new built-in network records its own.
    let net = super::built_in();
    assert_eq!(
        (net.hidden(), net.buckets(), net.king_buckets()),
        (256, 8, 4)
    );
    let fens = [FENS[0], FENS[1], FENS[4], FENS[5], FENS[3]];
    let scores: Vec<i32> = fens.iter().map(|f| net.evaluate(&parse(f))).collect();
    assert_eq!(scores, [20, -30, 17, 305, -808]);
}

#[test]
fn buckets_split_the_piece_counts_as_documented() {
    assert_eq!(bucket(32, 1), 0);
    assert_eq!(bucket(2, 1), 0);
    assert_eq!(bucket(0, 8), 0);
    assert_eq!(bucket(5, 8), 0);
    assert_eq!(bucket(6, 8), 1);
    assert_eq!(bucket(29, 8), 6);
    assert_eq!(bucket(30, 8), 7);
    assert_eq!(bucket(32, 8), 7);
    assert_eq!(bucket(32, 16), 15);
    for b in 1..=16 {
        assert_eq!(bucket(32, b), b - 1);
        assert!((2..=32).all(|n| bucket(n, b) <= bucket(n + 1, b)));
    }
    // A network of eight buckets, all output weights zero and bucket b's bias worth
    // 100 · (b + 1) centipawns: the score names the bucket.
    let h = 8;
    let mut f = MAGIC_V2.to_vec();
    for v in [h as u32, 400, 8] {
        f.extend(v.to_le_bytes());
    }
    f.extend(std::iter::repeat_n(0u8, 2 * (INPUTS * h + h + 8 * 2 * h)));
    for b in 0..8 {
        // 4080 · 400 / (255 · 64) = 100.
        f.extend((4080 * (b + 1i32)).to_le_bytes());
    }
    let net = Network::from_bytes(&f).unwrap();
    assert_eq!(net.buckets(), 8);
    // Pieces: 32, 30, 21, 10, 8, 3, 2, 6, 28, 23.
    let expected = [800, 800, 500, 300, 200, 100, 100, 200, 700, 600];
    for (fen, cp) in FENS.into_iter().zip(expected) {
        let pos = parse(fen);
        let n = pos.board().occupied().count();
        assert_eq!(net.evaluate(&pos), cp, "{fen}: {n} pieces");
        assert_eq!(cp, 100 * (bucket(n, 8) as i32 + 1));
        let mut ev = Evaluator::new(Arc::new(net.clone()), 4);
        assert_eq!(ev.evaluate(&pos, 0), cp);
    }
}

#[test]
fn a_version_one_network_reads_the_same_as_version_two() {
    let v1 = random_file(16, 1, 5);
    let one = Network::from_bytes(&v1).unwrap();
    for buckets in [1, 8, 16] {
        let v2 = spread_to_v2(&v1, buckets);
        let net = Network::from_bytes(&v2).unwrap();
        assert_eq!(net.buckets(), buckets);
        // The fingerprint is the file's: another file, another fingerprint.
        assert_ne!(net.fingerprint(), one.fingerprint());
        for fen in FENS {
            let pos = parse(fen);
            assert_eq!(net.evaluate(&pos), one.evaluate(&pos), "{fen}");
        }
    }
    // A bucketed network is not the unbucketed one: its buckets differ.
    let many = net(8);
    let scores: Vec<i32> = FENS.iter().map(|f| many.evaluate(&parse(f))).collect();
    assert!(scores.iter().any(|&s| s != 0), "{scores:?}");
}

#[test]
fn a_version_two_network_reads_the_same_as_version_three_with_copied_king_blocks() {
    let v2 = random_file(16, 8, 5);
    let two = Network::from_bytes(&v2).unwrap();
    let three = Network::from_bytes(&spread_to_v3(&v2, &FILE_PAIRS)).unwrap();
    assert_eq!((three.buckets(), three.king_buckets()), (8, 4));
    assert_eq!(three.king_map(), &FILE_PAIRS);
    assert_eq!(two.king_buckets(), 1);
    for fen in FENS {
        let pos = parse(fen);
        assert_eq!(three.evaluate(&pos), two.evaluate(&pos), "{fen}");
    }
    // With blocks of their own, the king's file changes the score: the same pieces, the white
    // king on g1 (bucket 3) or on f1 (bucket 2), and the black king (bucket 2 from its side)
    // on f8 or on g8.
    let own = Network::from_bytes(&random_file_v3(16, 8, &FILE_PAIRS, 5)).unwrap();
    let g1 = parse("5k2/pp3ppp/8/8/8/8/PP3PPP/6K1 w - - 0 1");
    let f1 = parse("5k2/pp3ppp/8/8/8/8/PP3PPP/5K2 w - - 0 1");
    assert_ne!(own.evaluate(&g1), own.evaluate(&f1));
    assert_eq!(two.evaluate(&g1), spread(&v2).evaluate(&g1));
}

/// `v2`'s network as a version-3 file of four copied king blocks.
fn spread(v2: &[u8]) -> Network {
    Network::from_bytes(&spread_to_v3(v2, &FILE_PAIRS)).unwrap()
}

#[test]
fn malformed_files_are_refused_with_a_reason() {
    let good = random_file(16, 1, 3);
    assert!(Network::from_bytes(&good).is_ok());
    let e = Network::from_bytes(b"hello").unwrap_err();
    assert!(e.contains("TRINENN1"), "{e}");
    let e = Network::from_bytes(&good[..good.len() - 1]).unwrap_err();
    assert!(e.contains("bytes"), "{e}");
    let mut odd = good.clone();
    odd[8..12].copy_from_slice(&12u32.to_le_bytes());
    assert!(Network::from_bytes(&odd)
        .unwrap_err()
        .contains("multiple of 8"));
    let mut big = good.clone();
    let w2 = 16 + 2 * (INPUTS * 16 + 16);
    big[w2..w2 + 2].copy_from_slice(&500i16.to_le_bytes());
    assert!(Network::from_bytes(&big)
        .unwrap_err()
        .contains("output weight"));
    // Version 2: a bucket count out of 1..=16, a wrong length, a short header.
    let good = random_file(16, 8, 3);
    assert!(Network::from_bytes(&good).is_ok());
    assert!(Network::from_bytes(&spread_to_v2(&random_file(16, 1, 3), 1)).is_ok());
    for b in [0u32, 17, 1 << 31] {
        let mut bad = good.clone();
        bad[16..20].copy_from_slice(&b.to_le_bytes());
        let e = Network::from_bytes(&bad).unwrap_err();
        assert!(e.contains("bucket count"), "{e}");
    }
    let mut fewer = good.clone();
    fewer[16..20].copy_from_slice(&7u32.to_le_bytes());
    let e = Network::from_bytes(&fewer).unwrap_err();
    assert!(e.contains("bytes") && e.contains("7 output"), "{e}");
    let e = Network::from_bytes(&good[..good.len() - 4]).unwrap_err();
    assert!(e.contains("bytes"), "{e}");
    let mut longer = good.clone();
    longer.extend([0, 0]);
    assert!(Network::from_bytes(&longer).unwrap_err().contains("bytes"));
    let e = Network::from_bytes(&good[..18]).unwrap_err();
    assert!(e.contains("header"), "{e}");
    // A version-1 file under the version-2 magic lacks B and is refused.
    let mut relabelled = random_file(16, 1, 3);
    relabelled[..8].copy_from_slice(MAGIC_V2);
    assert!(Network::from_bytes(&relabelled).is_err());
    // An output weight beyond ±127 in the last bucket.
    let mut big = good.clone();
    let last_w2 = 20 + 2 * (INPUTS * 16 + 16) + 2 * (8 * 2 * 16 - 1);
    big[last_w2..last_w2 + 2].copy_from_slice(&(-300i16).to_le_bytes());
    assert!(Network::from_bytes(&big)
        .unwrap_err()
        .contains("output weight"));
    // Version 3: a king bucket count out of 1..=16, a map entry not below it, a wrong length.
    let good = random_file_v3(16, 8, &FILE_PAIRS, 3);
    assert!(Network::from_bytes(&good).is_ok());
    for k in [0u32, 17, 1 << 31] {
        let mut bad = good.clone();
        bad[20..24].copy_from_slice(&k.to_le_bytes());
        let e = Network::from_bytes(&bad).unwrap_err();
        assert!(e.contains("king bucket count"), "{e}");
    }
    let mut bad = good.clone();
    bad[24 + 63] = 4;
    let e = Network::from_bytes(&bad).unwrap_err();
    assert!(e.contains("king square 63"), "{e}");
    let mut fewer = good.clone();
    fewer[20..24].copy_from_slice(&5u32.to_le_bytes());
    let e = Network::from_bytes(&fewer).unwrap_err();
    assert!(e.contains("bytes") && e.contains("5 king"), "{e}");
    let e = Network::from_bytes(&good[..good.len() - 2]).unwrap_err();
    assert!(e.contains("bytes"), "{e}");
    let e = Network::from_bytes(&good[..60]).unwrap_err();
    assert!(e.contains("header"), "{e}");
    let e = Network::load(std::path::Path::new("/nonexistent/net.nnue")).unwrap_err();
    assert!(e.contains("cannot read"), "{e}");
}

#[test]
fn the_score_is_the_documented_integer_formula() {
    // One hidden unit pair, everything else zero: a single feature row decides the score.
    let h = 8;
    let mut f = MAGIC.to_vec();
    f.extend((h as u32).to_le_bytes());
    f.extend(400u32.to_le_bytes());
    let mut w1 = vec![0i16; INPUTS * h];
    // White king on e1 (feature 324 from White's view) raises unit 0 by 100.
    w1[324 * h] = 100;
    for w in w1 {
        f.extend(w.to_le_bytes());
    }
    f.extend(std::iter::repeat_n(0u8, 2 * h));
    let mut w2 = vec![0i16; 2 * h];
    w2[0] = 64;
    for w in w2 {
        f.extend(w.to_le_bytes());
    }
    f.extend(0i32.to_le_bytes());
    let net = Network::from_bytes(&f).unwrap();
    let pos = Chess::default();
    // (100² · 64 / 255) · 400 / (255 · 64) = 2509 · 400 / 16320 = 61 for White to move.
    assert_eq!(net.evaluate(&pos), 61);
    // Black's king on e8 is the same feature from Black's view: with Black to move, 61 again.
    assert_eq!(net.evaluate(&parse("4k3/8/8/8/8/8/8/4K3 b - - 0 1")), 61);
    // With Black's king on d8 only White's accumulator has the unit: it counts for White to move
    // and, weighted 0 as the other side's, not for Black to move.
    assert_eq!(net.evaluate(&parse("3k4/8/8/8/8/8/8/4K3 w - - 0 1")), 61);
    assert_eq!(net.evaluate(&parse("3k4/8/8/8/8/8/8/4K3 b - - 0 1")), 0);
}

#[test]
fn colour_flipped_positions_score_the_same() {
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
    let flipped = "r2qkb1r/pp2bppp/2n2n2/2pp4/3P4/2N1PN2/PP2BPPP/R1BQ1RK1 b kq - 0 8";
    let kings = Arc::new(Network::from_bytes(&random_file_v3(32, 8, &FILE_PAIRS, 7)).unwrap());
    for net in [net(1), net(8), kings] {
        assert_eq!(net.evaluate(&parse(fen)), net.evaluate(&parse(flipped)));
        assert_ne!(net.evaluate(&parse(fen)), 0);
    }
}

#[test]
fn incremental_evaluation_equals_evaluation_from_scratch() {
    // H = 32 takes the kernels' row-by-row loop, H = 128 their 64-lane tiles.
    for (hidden, buckets) in [(32, 1), (32, 8), (128, 8)] {
        incremental_equals_from_scratch(&random_file(hidden, buckets, 7));
    }
    // King buckets: a king move across a bucket edge recomputes that side's accumulator.
    for hidden in [32, 128] {
        incremental_equals_from_scratch(&random_file_v3(hidden, 8, &FILE_PAIRS, 7));
    }
}

/// Random walks through the ply stack with the network of `file`: every incremental score is the
/// from-scratch one (and, with buckets, most output buckets and every king bucket are met).
fn incremental_equals_from_scratch(file: &[u8]) {
    let net = Arc::new(Network::from_bytes(file).unwrap());
    let buckets = net.buckets();
    let mut seen = [false; 16];
    let mut kings_seen = [false; 16];
    let mut ev = Evaluator::new(Arc::clone(&net), 20);
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut rand = move |n: usize| rng.below(n);
    let mut checked = 0;
    for game in 0..40 {
        // A random walk down and up the ply stack, as a search does: sometimes back to an
        // earlier ply, sometimes a null move, sometimes skipping a ply's evaluation. Every other
        // walk starts from a position with fewer pieces, so that captures cross buckets.
        let start = match game % 2 {
            0 => Chess::default(),
            _ => parse(FENS[1 + game / 2 % (FENS.len() - 1)]),
        };
        let mut path = vec![start];
        for _ in 0..120 {
            let pos = path.last().unwrap().clone();
            let moves = pos.legal_moves();
            let r = rand(10);
            if moves.is_empty() || (r == 0 && path.len() > 1) {
                let back = 1 + rand(path.len().min(4) - 1).min(path.len() - 1);
                path.truncate(path.len() - back.min(path.len() - 1));
                continue;
            }
            let next = if r == 1 {
                match pos.clone().swap_turn() {
                    Ok(p) => p,
                    Err(_) => continue,
                }
            } else {
                let mut p = pos.clone();
                p.play_unchecked(moves[rand(moves.len())]);
                p
            };
            path.push(next);
            if path.len() >= 19 {
                path.truncate(3);
            }
            if rand(4) != 0 {
                let ply = path.len() - 1;
                let pos = path.last().unwrap();
                seen[net.bucket_of(pos.board())] = true;
                for p in [Color::White, Color::Black] {
                    kings_seen[net.king_offset(pos.board(), p) / INPUTS] = true;
                }
                assert_eq!(
                    ev.evaluate(pos, ply),
                    net.evaluate(pos).clamp(-20_000, 20_000)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 2000, "{checked}");
    let met = seen.iter().filter(|&&s| s).count();
    assert!(met >= buckets.min(6), "{met} buckets met");
    let kings_met = kings_seen.iter().filter(|&&s| s).count();
    assert_eq!(kings_met, net.king_buckets(), "king buckets met");
    // The same evaluator, asked about any position at any ply, is still exact.
    let pos = Chess::default();
    assert_eq!(ev.evaluate(&pos, 5), net.evaluate(&pos));
    assert_eq!(pos.turn(), Color::White);
}

#[test]
fn the_refresh_cache_gives_the_accumulator_from_scratch() {
    // Each position of FENS and every position one move from it, in that order, then all of
    // them again backwards: near boards (a king step, within or across a bucket edge), far ones
    // (32 pieces after 2) and repeats, for both perspectives.
    let mut boards = Vec::new();
    for fen in FENS {
        let pos = parse(fen);
        boards.push(pos.board().clone());
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            boards.push(child.board().clone());
        }
    }
    let back: Vec<_> = boards.iter().rev().cloned().collect();
    boards.extend(back);
    for file in [
        random_file(32, 1, 5),
        random_file_v3(128, 8, &FILE_PAIRS, 5),
    ] {
        let net = Network::from_bytes(&file).unwrap();
        let mut cache = RefreshCache::new(&net);
        let h = net.hidden();
        let (mut cached, mut scratch) = (vec![0i16; h], vec![0i16; h]);
        for board in &boards {
            for p in [Color::White, Color::Black] {
                cache.refresh(&net, board, p, &mut cached);
                net.refresh(board, p, &mut scratch);
                assert_eq!(cached, scratch, "{p:?} {board:?}");
            }
        }
    }
}

/// A version-2 network file whose every W1, b1 and w2 value is `w1`, `b1`, `w2`, and every
/// output bias `b2`.
fn uniform_file(h: usize, buckets: usize, scale: u32, w: (i16, i16, i16), b2: i32) -> Vec<u8> {
    let (w1, b1, w2) = w;
    let mut f = MAGIC_V2.to_vec();
    for v in [h as u32, scale, buckets as u32] {
        f.extend(v.to_le_bytes());
    }
    for (n, v) in [(INPUTS * h, w1), (h, b1), (buckets * 2 * h, w2)] {
        f.extend(std::iter::repeat_n(v.to_le_bytes(), n).flatten());
    }
    for _ in 0..buckets {
        f.extend(b2.to_le_bytes());
    }
    f
}

#[test]
fn extreme_weights_and_biases_evaluate_inside_the_score_range() {
    // The largest network with every accumulator lane at its top (b1 = i16::MAX, W1 = 0: every
    // lane saturates the activation), every output weight at ±127, SCALE at its maximum and the
    // output bias at either end of i32: the extremes of the integer formula.
    let h = 4096;
    for (w2, b2) in [
        (127, i32::MAX),
        (-127, i32::MIN),
        (0, i32::MAX),
        (-127, i32::MAX),
    ] {
        let f = uniform_file(h, 1, 10_000, (0, i16::MAX, w2), b2);
        assert_eq!(f.len(), 20 + 2 * (INPUTS * h + h + 2 * h) + 4);
        let net = Arc::new(Network::from_bytes(&f).unwrap());
        let mut ev = Evaluator::new(Arc::clone(&net), 4);
        // The formula's value, exactly: far beyond any centipawn score.
        let s = 2 * h as i128 * 255 * 255 * i128::from(w2);
        let raw = (s / 255 + i128::from(b2)) * 10_000 / i128::from(QA * QB);
        let want = raw.clamp(-i128::from(MAX_SCORE), i128::from(MAX_SCORE)) as i32;
        assert!(raw.abs() > 1 << 28, "{raw}");
        for fen in FENS {
            let pos = parse(fen);
            let score = net.evaluate(&pos);
            assert_eq!(score, want, "{fen}: w2 {w2}, b2 {b2}");
            assert_eq!(ev.evaluate(&pos, 0), want, "{fen}");
            assert!(score.abs() < crate::score::MATE_BOUND);
        }
    }
}

/// A reader that counts the bytes it hands out.
struct Counted<R> {
    inner: R,
    read: usize,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n;
        Ok(n)
    }
}

/// Reads a network from `head` followed by endless zero bytes; the error (or the network) and
/// how many bytes were read.
fn read_endless(head: &[u8]) -> (Result<Network, String>, usize) {
    use std::io::Read;
    let mut source = Counted {
        inner: head.chain(std::io::repeat(0)),
        read: 0,
    };
    let net = Network::read(&mut source);
    (net, source.read)
}

#[test]
fn reading_stops_at_the_length_the_header_gives() {
    let good = random_file(16, 8, 3);
    let net = Network::read(&good[..]).unwrap();
    assert_eq!(net, Network::from_bytes(&good).unwrap());
    // An endless source: refused once a byte past the network has come.
    let (net, read) = read_endless(&good);
    let e = net.unwrap_err();
    assert!(e.contains("past its end"), "{e}");
    assert_eq!(read, good.len() + 1);
    // Nothing but zeros: refused after the longest header (88 bytes, version 3).
    let (net, read) = read_endless(&[]);
    assert!(net.unwrap_err().contains("TRINENN1"));
    assert_eq!(read, 88);
    // Headers that promise absurd sizes: refused after the longest header, nothing allocated for
    // them.
    for (hidden, buckets) in [(!7, 1), (1 << 31, 8), (4104, 8), (64, u32::MAX)] {
        let mut head = MAGIC_V2.to_vec();
        for v in [hidden, 400, buckets] {
            head.extend(v.to_le_bytes());
        }
        let (net, read) = read_endless(&head);
        let e = net.unwrap_err();
        assert!(
            e.contains("hidden size") || e.contains("bucket count"),
            "{e}"
        );
        assert_eq!(read, 88);
    }
    for kings in [0, 17, u32::MAX] {
        let mut head = MAGIC_V3.to_vec();
        for v in [64, 400, 8, kings] {
            head.extend(v.to_le_bytes());
        }
        let (net, read) = read_endless(&head);
        assert!(net.unwrap_err().contains("king bucket count"));
        assert_eq!(read, 88);
    }
    // The largest header the format allows: read to its exact length, no further.
    let mut head = MAGIC_V3.to_vec();
    for v in [4096u32, 400, 16, 16] {
        head.extend(v.to_le_bytes());
    }
    head.extend([15; 64]);
    let (net, read) = read_endless(&head);
    assert_eq!(MAX_FILE_LEN, 100_933_784);
    assert!(net.unwrap_err().contains("past its end"));
    assert_eq!(read, MAX_FILE_LEN + 1);
    // Truncated anywhere: refused with the lengths.
    for cut in [good.len() - 1, good.len() / 2, 21, 20, 19, 9, 0] {
        let e = Network::read(&good[..cut]).unwrap_err();
        assert!(e.contains("bytes") || e.contains("TRINENN1"), "{cut}: {e}");
    }
}

/// A scratch directory for network files, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("trine-nnue-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn only_a_regular_file_of_the_right_length_is_loaded() {
    let dir = Scratch::new("load");
    let good = random_file(16, 1, 3);
    let net = Network::load(&dir.write("good.nnue", &good)).unwrap();
    assert_eq!(net, Network::from_bytes(&good).unwrap());
    let e = Network::load(&dir.write("short.nnue", &good[..good.len() - 2])).unwrap_err();
    assert!(e.contains("short.nnue") && e.contains("bytes"), "{e}");
    let mut longer = good.clone();
    longer.push(0);
    let e = Network::load(&dir.write("long.nnue", &longer)).unwrap_err();
    assert!(e.contains(&format!("{} bytes", longer.len())), "{e}");
    // A header promising the largest network, and nothing after it.
    let mut head = MAGIC_V2.to_vec();
    for v in [4096u32, 400, 16] {
        head.extend(v.to_le_bytes());
    }
    let e = Network::load(&dir.write("head.nnue", &head)).unwrap_err();
    assert!(e.contains("file is 20 bytes"), "{e}");
    let e = Network::load(&dir.0).unwrap_err();
    assert!(e.contains("directory"), "{e}");
    #[cfg(unix)]
    {
        let e = Network::load(std::path::Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        // A pipe nobody writes to: opening it to read would wait for a writer forever.
        let fifo = dir.0.join("fifo.nnue");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = Network::load(&fifo).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
    }
}
