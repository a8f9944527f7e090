//! Helpers of the learning tests: scratch directories and sample entries from random games.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::format::{checksum, CHECKSUM_OFFSET, HEADER_SIZE};
use super::random::{random_entries, RandomGames};
use super::{encode, LearnEntry, LearnTable, EVAL_VERSION};

/// A scratch directory, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("trine-learn-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }

    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Names in the directory that start with `prefix`.
    pub(crate) fn names(&self, prefix: &str) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&self.0)
            .expect("read temp dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix))
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// `n` entries with distinct keys from short random games (seeded), with their best moves.
pub(crate) fn sample(n: usize, seed: u64) -> Vec<LearnEntry> {
    let games = RandomGames {
        plies: 80,
        score_span: 300,
        max_depth: 20,
    };
    random_entries(n, seed, games)
}

pub(crate) fn keys(t: &LearnTable) -> Vec<u64> {
    t.entries().map(|e| e.key).collect()
}

/// The bytes of a valid file of ten entries.
pub(crate) fn good_file_bytes() -> Vec<u8> {
    let mut t = LearnTable::new(100);
    for e in sample(10, 21) {
        t.insert(e);
    }
    encode(&t, EVAL_VERSION, 1)
}

/// `t` in format version 1 (a 36-byte header without capacity and generation), as Trine wrote it
/// before version 2.
pub(crate) fn v1_bytes(t: &LearnTable) -> Vec<u8> {
    let v2 = encode(t, EVAL_VERSION, 0);
    let mut b = v2[..32].to_vec();
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(&v2[HEADER_SIZE..]);
    let sum = checksum(&b);
    b[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
    b
}
