//! Criterion benchmarks of the learn file (position learning's on-disk store): loading a full
//! 65,536-entry file into a table, and storing one entry into a full file (lock, re-read, merge,
//! write, fsync, rename).

use std::path::PathBuf;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use trine::learn::random::{random_entries, LONG_GAMES};
use trine::learn::{LearnFile, DEFAULT_CAPACITY};

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn learn_file(c: &mut Criterion) {
    let dir =
        Scratch(std::env::temp_dir().join(format!("trine-learn-bench-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("create scratch dir");
    let all = random_entries(DEFAULT_CAPACITY + 4096, 0x9e37_79b9_7f4a_7c15, LONG_GAMES);
    let (full, extra) = all.split_at(DEFAULT_CAPACITY);
    let file = LearnFile::new(dir.0.join("learn.bin"), DEFAULT_CAPACITY);
    let n = file.store(full).expect("write the full file");
    assert_eq!(n, DEFAULT_CAPACITY);

    let mut group = c.benchmark_group("learn file");
    group.sample_size(20);
    group.bench_function("load 65536 entries", |b| {
        b.iter(|| {
            let (table, _) = file.load().expect("load");
            black_box(table.len())
        })
    });
    let mut next = extra.iter().cycle();
    group.bench_function("store 1 entry into a full file", |b| {
        b.iter(|| {
            let e = next.next().expect("cycle never ends");
            black_box(file.store(std::slice::from_ref(e)).expect("store"))
        })
    });
    group.finish();
}

criterion_group!(benches, learn_file);
criterion_main!(benches);
