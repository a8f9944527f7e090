//! Helpers of the tablebase tests: the repository's test tables and scratch directories.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::Tablebases;

/// The directory of the test tables (3 and 4 men: KQvK, KRvK, KPvK, KBNvK, KBvK, KNvK).
pub(crate) const TEST_TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

/// The test tables, loaded.
pub(crate) fn test_tables() -> Arc<Tablebases> {
    Arc::new(Tablebases::load(TEST_TABLES).expect("the test tables load"))
}

/// A scratch directory, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("trine-tb-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Copies the test table `name` (e.g. `KQvK.rtbw`) in.
    pub(crate) fn copy_table(&self, name: &str) {
        std::fs::copy(Path::new(TEST_TABLES).join(name), self.0.join(name)).expect("copy table");
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
