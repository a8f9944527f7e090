//! The engine's learning policy (persistent hash table, after Slate's Mouse, BeBe and Crafty): when
//! a finished search's score has dropped by at least `Learn Threshold` — against the previous search
//! in this game (two plies earlier, same side to move) or against the best earlier iteration of the
//! same search — its root position is stored in the learn file; before every search the stored
//! positions are written into the TT as pinned windows `score ± fuzz` (BeBe's fuzz: 20 cp, none for
//! mate, tablebase and draw scores), which the search cannot overwrite during that search; a root
//! scored a mate or a tablebase result is not stored.

use std::path::PathBuf;
use std::time::SystemTime;

use super::{LearnEntry, LearnFile, LearnTable, LoadStatus, Origin};
use crate::board::Game;
use crate::score::is_decisive;
use crate::search::SearchResult;
use crate::tt::{PackedMove, Table};

/// Fuzz added around learned scores (centipawns).
pub const FUZZ_CP: i32 = 20;
/// Searches shallower than this are not trusted to teach anything.
pub const MIN_LEARN_DEPTH: u32 = 4;

/// Learning state of one engine process.
pub struct Learner {
    file: LearnFile,
    table: LearnTable,
    stamp: Option<(u64, SystemTime)>,
    loaded_once: bool,
    /// Score and game length of the previous search in this game.
    last: Option<(i32, usize)>,
}

impl Learner {
    /// Learning from/to `path`, keeping at most `capacity` positions, for scores of the
    /// evaluation of version `eval` ([`crate::nnue::eval_version`]).
    pub fn new(path: impl Into<PathBuf>, capacity: usize, eval: u32) -> Learner {
        Learner {
            file: LearnFile::new(path, capacity).with_eval(eval),
            table: LearnTable::new(capacity),
            stamp: None,
            loaded_once: false,
            last: None,
        }
    }

    /// Forgets the previous search's score (new game).
    pub fn new_game(&mut self) {
        self.last = None;
    }

    /// Re-reads the file if it changed since the last read; returns messages for `info string`.
    pub fn refresh(&mut self) -> Vec<String> {
        let stamp = self.file.stamp();
        if self.loaded_once && stamp == self.stamp {
            return Vec::new();
        }
        self.loaded_once = true;
        let mut messages = Vec::new();
        match self.file.load() {
            Ok((table, status)) => {
                self.table = table;
                if let LoadStatus::Quarantined { moved_to, reason } = status {
                    messages.push(format!(
                        "error: learn file {} is unusable ({reason}); moved aside to {}, starting with an empty memory",
                        self.file.path().display(),
                        moved_to.display()
                    ));
                }
            }
            Err(e) => {
                self.table = LearnTable::new(self.table.capacity());
                messages.push(format!("error: {e}"));
            }
        }
        self.stamp = self.file.stamp();
        messages
    }

    /// Number of positions in memory.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Writes every remembered position into the TT as a pinned window; returns how many.
    pub fn load_into(&self, tt: &Table) -> usize {
        let mut n = 0;
        for e in self.table.entries() {
            let score = i32::from(e.score);
            let fuzz = if score == 0 || is_decisive(score) {
                0
            } else {
                FUZZ_CP
            };
            let lower = (score - fuzz).clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
            let upper = (score + fuzz).clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
            tt.store_learned(e.key, PackedMove(e.best_move), lower, upper, e.depth);
            n += 1;
        }
        n
    }

    /// Looks at a finished search of `game`'s position: stores the root when the score dropped.
    /// Returns a message for `info string` when something was stored or went wrong.
    pub fn after_search(
        &mut self,
        game: &Game,
        result: &SearchResult,
        threshold: i32,
    ) -> Option<String> {
        let line = result.lines.first()?;
        let score = line.score;
        let previous = self
            .last
            .filter(|&(_, plies)| plies + 2 == game.moves_played)
            .map(|(s, _)| s);
        self.last = Some((score, game.moves_played));
        let earlier_best = result.scores.iter().rev().skip(1).copied().max();
        let drop = previous
            .into_iter()
            .chain(earlier_best)
            .map(|before| before - score)
            .max()?;
        if drop < threshold || result.depth < MIN_LEARN_DEPTH || is_decisive(score) {
            return None;
        }
        let entry = LearnEntry::from_position(
            game.board.pos(),
            result.depth.min(255) as u8,
            score as i16,
            result.best_move,
            game.moves_played.min(usize::from(u16::MAX)) as u16,
            Origin::Search,
        );
        match self.file.store(std::slice::from_ref(&entry)) {
            Ok(n) => {
                self.table.insert(entry);
                // Other processes may have added entries too: read the merged file next time.
                self.loaded_once = false;
                Some(format!(
                    "learned: score dropped {drop} cp to {score} at depth {}; {n} positions in {}",
                    result.depth,
                    self.file.path().display()
                ))
            }
            Err(e) => Some(format!("error: cannot store a learned position: {e}")),
        }
    }
}
