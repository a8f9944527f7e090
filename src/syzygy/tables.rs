//! The tables `SyzygyPath` names: one or more directories (`:`-separated, `;` on Windows, as
//! Stockfish reads the option), every `.rtbw` (WDL) and `.rtbz` (DTZ) file in them registered
//! with a `shakmaty-syzygy` [`Tablebase`]. Files are opened lazily, at their first probe. A
//! directory that cannot be read, holds no table, or holds a table file whose size says it is
//! corrupt makes the whole path an error, so the caller keeps what it had.

use std::io;
use std::path::Path;

use shakmaty::Chess;
use shakmaty_syzygy::{Dtz, Tablebase, Wdl};

/// Separator of the directories in `SyzygyPath`.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// A loaded set of tables, shared by every search thread.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    wdl_files: usize,
    dtz_files: usize,
    directories: usize,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("wdl_files", &self.wdl_files)
            .field("dtz_files", &self.dtz_files)
            .field("max_pieces", &self.max_pieces())
            .finish_non_exhaustive()
    }
}

impl Tablebases {
    /// Registers the tables of every directory in `path` (see [`PATH_SEPARATOR`]; empty parts
    /// are skipped). An error when no directory is named, a directory cannot be read or holds no
    /// table, or a table file is corrupt.
    pub fn load(path: &str) -> Result<Tablebases, String> {
        let mut loaded = Tablebases {
            tables: Tablebase::new(),
            wdl_files: 0,
            dtz_files: 0,
            directories: 0,
        };
        for dir in path.split(PATH_SEPARATOR).map(str::trim) {
            if dir.is_empty() {
                continue;
            }
            loaded.add_directory(Path::new(dir))?;
            loaded.directories += 1;
        }
        if loaded.directories == 0 {
            return Err(format!("SyzygyPath '{path}' names no directory"));
        }
        if loaded.wdl_files == 0 {
            return Err(format!("no WDL table (.rtbw) in SyzygyPath '{path}'"));
        }
        Ok(loaded)
    }

    fn add_directory(&mut self, dir: &Path) -> Result<(), String> {
        let shown = dir.display();
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read SyzygyPath directory '{shown}': {e}"))?;
        let mut found = 0;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read directory '{shown}': {e}"))?;
            let file = entry.path();
            match self.tables.add_file(&file) {
                Ok(()) => {}
                // Not a table file name: ignored.
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => continue,
                Err(e) => return Err(format!("table '{}': {e}", file.display())),
            }
            found += 1;
            if file.extension().is_some_and(|x| x == "rtbz") {
                self.dtz_files += 1;
            } else {
                self.wdl_files += 1;
            }
        }
        if found == 0 {
            return Err(format!("no Syzygy table in '{shown}'"));
        }
        Ok(())
    }

    /// Most men (kings included) of any table.
    #[inline]
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// WDL table files registered.
    pub fn wdl_files(&self) -> usize {
        self.wdl_files
    }

    /// DTZ table files registered.
    pub fn dtz_files(&self) -> usize {
        self.dtz_files
    }

    /// What the engine says once the tables are in: how many, and the most men.
    pub fn summary(&self) -> String {
        format!(
            "found {} tablebases ({} WDL, {} DTZ files in {} director{}), up to {} pieces",
            self.wdl_files,
            self.wdl_files,
            self.dtz_files,
            self.directories,
            if self.directories == 1 { "y" } else { "ies" },
            self.max_pieces()
        )
    }

    /// The WDL value of `pos` for the side to move, as if its halfmove clock were 0 (right after
    /// a capture or a pawn move); `None` when the tables cannot tell (too many men, castling
    /// rights, a missing or unreadable table). Needs WDL tables only; allocates nothing.
    #[inline]
    pub fn wdl_after_zeroing(&self, pos: &Chess) -> Option<Wdl> {
        self.tables.probe_wdl_after_zeroing(pos).ok()
    }

    /// The DTZ value of `pos` (plies to the next capture or pawn move on the tables' best line;
    /// positive when the side to move wins), rounding ignored; `None` when the tables cannot tell.
    pub fn dtz(&self, pos: &Chess) -> Option<Dtz> {
        self.tables.probe_dtz(pos).ok().map(|d| d.ignore_rounding())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syzygy::testutil::{TempDir, TEST_TABLES};

    #[test]
    fn the_test_tables_load_and_name_their_size() {
        let t = Tablebases::load(TEST_TABLES).unwrap();
        assert_eq!((t.wdl_files(), t.dtz_files(), t.max_pieces()), (6, 6, 4));
        assert_eq!(
            t.summary(),
            "found 6 tablebases (6 WDL, 6 DTZ files in 1 directory), up to 4 pieces"
        );
        // Empty parts of the path are skipped; a directory named twice counts twice.
        let twice = format!("{PATH_SEPARATOR}{TEST_TABLES}{PATH_SEPARATOR} {TEST_TABLES} ");
        let t = Tablebases::load(&twice).unwrap();
        assert!(t.summary().contains("in 2 directories"), "{}", t.summary());
    }

    #[test]
    fn unreadable_empty_or_corrupt_directories_are_errors() {
        let missing = "/nonexistent/trine/syzygy";
        let e = Tablebases::load(missing).unwrap_err();
        assert!(e.contains(missing), "{e}");
        // One bad directory spoils the path.
        let e = Tablebases::load(&format!("{TEST_TABLES}{PATH_SEPARATOR}{missing}")).unwrap_err();
        assert!(e.contains(missing), "{e}");
        assert!(Tablebases::load(" ")
            .unwrap_err()
            .contains("names no directory"));
        // A directory of other files.
        let empty = TempDir::new("empty");
        std::fs::write(empty.path().join("notes.txt"), "x").unwrap();
        let e = Tablebases::load(empty.path().to_str().unwrap()).unwrap_err();
        assert!(e.contains("no Syzygy table"), "{e}");
        // A table file whose size cannot be a table's.
        let corrupt = TempDir::new("corrupt");
        std::fs::write(corrupt.path().join("KQvK.rtbw"), [0u8; 100]).unwrap();
        let e = Tablebases::load(corrupt.path().to_str().unwrap()).unwrap_err();
        assert!(e.contains("KQvK.rtbw"), "{e}");
        // DTZ files alone are no use to the search.
        let dtz_only = TempDir::new("dtz-only");
        dtz_only.copy_table("KQvK.rtbz");
        let e = Tablebases::load(dtz_only.path().to_str().unwrap()).unwrap_err();
        assert!(e.contains("no WDL table"), "{e}");
    }
}
