//! Tests of the network reader and the incremental evaluator against a random network.

use std::sync::Arc;

use shakmaty::{Chess, Color, Position};

use super::features::INPUTS;
use super::network::{MAGIC, QA, QB};
use super::{Evaluator, Network};

/// A deterministic pseudo-random network file of hidden size `h`.
pub fn random_file(h: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut next = move |range: i32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % (2 * range as u64 + 1)) as i32 - range
    };
    let mut f = MAGIC.to_vec();
    f.extend((h as u32).to_le_bytes());
    f.extend(400u32.to_le_bytes());
    for _ in 0..INPUTS * h {
        f.extend((next(60) as i16).to_le_bytes());
    }
    for _ in 0..h {
        f.extend((next(100) as i16 + 60).to_le_bytes());
    }
    for _ in 0..2 * h {
        f.extend((next(127) as i16).to_le_bytes());
    }
    f.extend((next(QA * QB)).to_le_bytes());
    f
}

fn net() -> Arc<Network> {
    Arc::new(Network::from_bytes(&random_file(32, 7)).unwrap())
}

#[test]
fn malformed_files_are_refused_with_a_reason() {
    let good = random_file(16, 3);
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
    let parse = |f: &str| -> Chess {
        f.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    };
    assert_eq!(net.evaluate(&parse("4k3/8/8/8/8/8/8/4K3 b - - 0 1")), 61);
    // With Black's king on d8 only White's accumulator has the unit: it counts for White to move
    // and, weighted 0 as the other side's, not for Black to move.
    assert_eq!(net.evaluate(&parse("3k4/8/8/8/8/8/8/4K3 w - - 0 1")), 61);
    assert_eq!(net.evaluate(&parse("3k4/8/8/8/8/8/8/4K3 b - - 0 1")), 0);
}

#[test]
fn colour_flipped_positions_score_the_same() {
    let net = net();
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
    let flipped = "r2qkb1r/pp2bppp/2n2n2/2pp4/3P4/2N1PN2/PP2BPPP/R1BQ1RK1 b kq - 0 8";
    let parse = |f: &str| -> Chess {
        f.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    };
    assert_eq!(net.evaluate(&parse(fen)), net.evaluate(&parse(flipped)));
    assert_ne!(net.evaluate(&parse(fen)), 0);
}

#[test]
fn incremental_evaluation_equals_evaluation_from_scratch() {
    let net = net();
    let mut ev = Evaluator::new(Arc::clone(&net), 20);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut checked = 0;
    for _game in 0..40 {
        // A random walk down and up the ply stack, as a search does: sometimes back to an
        // earlier ply, sometimes a null move, sometimes skipping a ply's evaluation.
        let mut path = vec![Chess::default()];
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
                assert_eq!(
                    ev.evaluate(pos, ply),
                    net.evaluate(pos).clamp(-20_000, 20_000)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 2000, "{checked}");
    // The same evaluator, asked about any position at any ply, is still exact.
    let pos = Chess::default();
    assert_eq!(ev.evaluate(&pos, 5), net.evaluate(&pos));
    assert_eq!(pos.turn(), Color::White);
}
