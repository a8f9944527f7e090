//! Criterion micro-benchmarks of the engine's hot paths: move generation + copy-make (with the
//! incremental key), static evaluation, and transposition-table probe/store.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use shakmaty::Position;

use trine::board::Board;
use trine::eval::evaluate;
use trine::rng::Rng;
use trine::tt::{Bound, NewEntry, PackedMove, Table};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

fn boards() -> Vec<Board> {
    FENS.iter()
        .map(|f| Board::from_fen(f, false).expect("valid FEN"))
        .collect()
}

fn movegen_make(c: &mut Criterion) {
    let boards = boards();
    c.bench_function("movegen+make (4 positions)", |b| {
        b.iter(|| {
            let mut keys = 0u64;
            for board in &boards {
                for m in board.pos().legal_moves() {
                    keys ^= board.play(m).key();
                }
            }
            black_box(keys)
        })
    });
}

fn eval(c: &mut Criterion) {
    let boards = boards();
    c.bench_function("evaluate (4 positions)", |b| {
        b.iter(|| {
            let mut sum = 0;
            for board in &boards {
                sum += evaluate(black_box(board.pos()));
            }
            black_box(sum)
        })
    });
}

fn tt(c: &mut Criterion) {
    let table = Table::new(16).expect("16 MB");
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    c.bench_function("tt store+probe", |b| {
        b.iter(|| {
            let key = rng.next_u64();
            table.store(
                key,
                NewEntry {
                    mv: PackedMove(0x123),
                    score: 17,
                    eval: -4,
                    depth: 9,
                    bound: Bound::Lower,
                    pinned: false,
                },
            );
            black_box(table.probe(key))
        })
    });
}

criterion_group!(benches, movegen_make, eval, tt);
criterion_main!(benches);
