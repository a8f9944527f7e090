//! The in-memory table of learned positions: one entry per position, at most `capacity`; when it
//! is full the oldest entry found by the search goes first, and imported and human entries only
//! when no search entry is left.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use super::format::FNV_PRIME;
use super::{LearnEntry, Origin};

/// Largest capacity a table or file may be given (the entry count is a `u32` on disk; this keeps
/// a file under 1.6 GB).
pub const MAX_CAPACITY: usize = 1 << 24;

/// Hashes a Zobrist key (already uniformly random) with one multiplication.
#[derive(Clone, Copy, Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The in-memory table: at most `capacity` entries, one per key, in insertion order (oldest
/// first). When it is full, the oldest [`Origin::Search`] entry makes room; imported and human
/// entries are dropped (oldest first) only when there is no search entry left.
///
/// Entries sit in a queue in insertion order; a replaced or evicted entry leaves a hole
/// (compacted away once holes outnumber entries), and a map from key to position in the queue
/// finds them.
#[derive(Clone, Debug)]
pub struct LearnTable {
    capacity: usize,
    /// Sequence number of `queue[0]`; `queue[i]` has sequence `front + i`.
    front: u64,
    queue: VecDeque<Option<LearnEntry>>,
    index: HashMap<u64, u64, BuildHasherDefault<KeyHasher>>,
    /// Number of [`Origin::Search`] entries.
    searches: usize,
    /// No search entry has a sequence number below this one (where the search for the oldest
    /// search entry starts, so that eviction is amortized constant time).
    search_from: u64,
}

impl LearnTable {
    /// An empty table holding at most `capacity` entries (clamped to [`MAX_CAPACITY`]; 0 keeps
    /// nothing).
    pub fn new(capacity: usize) -> LearnTable {
        LearnTable {
            capacity: capacity.min(MAX_CAPACITY),
            front: 0,
            queue: VecDeque::new(),
            index: HashMap::default(),
            searches: 0,
            search_from: 0,
        }
    }

    /// Sets the capacity (clamped to [`MAX_CAPACITY`]), dropping entries as [`LearnTable::insert`]
    /// does when it is lower than the number of entries.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.min(MAX_CAPACITY);
        while self.index.len() > self.capacity && self.evict() {}
    }

    /// Makes room for `additional` more entries (never beyond the capacity).
    pub(super) fn reserve(&mut self, additional: usize) {
        let n = additional.min(self.capacity);
        self.queue.reserve(n);
        self.index.reserve(n);
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Most entries kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &LearnEntry> {
        self.queue.iter().flatten()
    }

    fn slot(&self, seq: u64) -> Option<usize> {
        usize::try_from(seq.checked_sub(self.front)?).ok()
    }

    /// The entry for `key`, if any.
    pub fn get(&self, key: u64) -> Option<&LearnEntry> {
        let i = self.slot(*self.index.get(&key)?)?;
        self.queue.get(i)?.as_ref()
    }

    /// One entry per position: a new entry for an existing key replaces it if it is at least as
    /// deep (or the old one is from another origin than Search and the new one is Human), and
    /// moves to the back (newest). When full, the oldest search entry is dropped, or the oldest
    /// entry of all when only imported and human entries are left.
    pub fn insert(&mut self, e: LearnEntry) {
        if self.capacity == 0 {
            return;
        }
        if let Some(i) = self.index.get(&e.key).and_then(|&seq| self.slot(seq)) {
            if let Some(old) = self.queue.get(i).and_then(Option::as_ref) {
                let human_override = old.origin != Origin::Search && e.origin == Origin::Human;
                if e.depth < old.depth && !human_override {
                    return;
                }
            }
            self.take(i);
        } else {
            while self.index.len() >= self.capacity && self.evict() {}
        }
        if e.origin == Origin::Search {
            self.searches += 1;
        }
        self.index
            .insert(e.key, self.front + self.queue.len() as u64);
        self.queue.push_back(Some(e));
        self.drop_leading_holes();
        if self.queue.len() > 2 * self.index.len() + 64 {
            self.compact();
        }
    }

    /// Removes the entry in `queue[i]`, leaving a hole.
    fn take(&mut self, i: usize) -> Option<LearnEntry> {
        let old = self.queue.get_mut(i)?.take()?;
        self.index.remove(&old.key);
        if old.origin == Origin::Search {
            self.searches -= 1;
        }
        Some(old)
    }

    /// Drops the oldest search entry, or the oldest entry when there is no search entry; false
    /// when the table is empty.
    fn evict(&mut self) -> bool {
        self.drop_leading_holes();
        let first = if self.searches == 0 {
            Some(0)
        } else {
            let is_search =
                |e: &Option<LearnEntry>| e.as_ref().is_some_and(|e| e.origin == Origin::Search);
            let from = self.slot(self.search_from).unwrap_or(0);
            let found = (self
                .queue
                .iter()
                .skip(from)
                .position(is_search)
                .map(|n| from + n))
            // Unreachable while `search_from` keeps its promise; a full scan is still right.
            .or_else(|| self.queue.iter().position(is_search));
            if let Some(i) = found {
                self.search_from = self.front + i as u64 + 1;
            }
            found
        };
        let taken = first.and_then(|i| self.take(i)).is_some();
        self.drop_leading_holes();
        taken
    }

    fn drop_leading_holes(&mut self) {
        while let Some(None) = self.queue.front() {
            self.queue.pop_front();
            self.front += 1;
        }
    }

    /// Removes the holes, renumbering the entries.
    fn compact(&mut self) {
        let from = self
            .slot(self.search_from)
            .unwrap_or(0)
            .min(self.queue.len());
        let before = self.queue.iter().take(from).flatten().count();
        self.search_from = self.front + before as u64;
        self.queue.retain(Option::is_some);
        for (i, e) in self.queue.iter().flatten().enumerate() {
            self.index.insert(e.key, self.front + i as u64);
        }
    }

    /// Inserts every entry of `other`, oldest first.
    pub fn merge(&mut self, other: &LearnTable) {
        self.reserve(other.len());
        for e in other.entries() {
            self.insert(e.clone());
        }
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.front += self.queue.len() as u64;
        self.queue.clear();
        self.index.clear();
        self.searches = 0;
        self.search_from = self.front;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::testutil::{keys, sample};
    use crate::rng::Rng;

    #[test]
    fn fifo_capacity_and_replacement_order() {
        let es = sample(6, 11);
        let mut t = LearnTable::new(4);
        for e in &es[..4] {
            t.insert(e.clone());
        }
        assert_eq!(keys(&t), es[..4].iter().map(|e| e.key).collect::<Vec<_>>());
        // Full: the oldest goes.
        t.insert(es[4].clone());
        assert_eq!(t.len(), 4);
        assert!(t.get(es[0].key).is_none());
        assert_eq!(keys(&t), vec![es[1].key, es[2].key, es[3].key, es[4].key]);
        // Replacing an entry moves it to the back, and then it is no longer the oldest.
        let mut deeper = es[1].clone();
        deeper.depth = 60;
        t.insert(deeper);
        assert_eq!(keys(&t), vec![es[2].key, es[3].key, es[4].key, es[1].key]);
        t.insert(es[5].clone());
        assert_eq!(keys(&t), vec![es[3].key, es[4].key, es[1].key, es[5].key]);
        assert_eq!(t.get(es[1].key).map(|e| e.depth), Some(60));
        t.clear();
        assert!(t.is_empty());
        assert_eq!(t.capacity(), 4);
        let mut none = LearnTable::new(0);
        none.insert(es[0].clone());
        assert!(none.is_empty());
    }

    #[test]
    fn one_entry_per_key_deeper_replaces_shallower_does_not() {
        let base = sample(1, 3).remove(0);
        let at = |depth: u8, score: i16, origin: Origin| LearnEntry {
            depth,
            score,
            origin,
            ..base.clone()
        };
        let mut t = LearnTable::new(16);
        t.insert(at(10, 50, Origin::Search));
        t.insert(at(9, -50, Origin::Search));
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.get(base.key).map(|e| e.score),
            Some(50),
            "shallower kept out"
        );
        t.insert(at(10, -20, Origin::Search));
        assert_eq!(
            t.get(base.key).map(|e| e.score),
            Some(-20),
            "as deep replaces"
        );
        t.insert(at(14, -30, Origin::Imported));
        assert_eq!(
            t.get(base.key).map(|e| e.score),
            Some(-30),
            "deeper replaces"
        );
        // A human entry wins over a shallower-searched imported one, but not over the search's.
        t.insert(at(2, 77, Origin::Human));
        assert_eq!(
            t.get(base.key).map(|e| (e.score, e.origin)),
            Some((77, Origin::Human))
        );
        t.insert(at(20, 5, Origin::Search));
        t.insert(at(3, 99, Origin::Human));
        assert_eq!(t.get(base.key).map(|e| e.score), Some(5));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn table_matches_a_simple_model_under_random_inserts() {
        let pool = sample(40, 17);
        let mut rng = Rng::new(12345);
        for capacity in [1usize, 3, 16, 50] {
            let mut t = LearnTable::new(capacity);
            let mut model: Vec<LearnEntry> = Vec::new();
            for _ in 0..5000 {
                let mut e = pool[rng.below(40)].clone();
                e.depth = rng.below(8) as u8;
                e.origin = Origin::ALL[rng.below(3)];
                e.score = rng.below(100) as i16;
                t.insert(e.clone());
                match model.iter().position(|m| m.key == e.key) {
                    Some(i) => {
                        let old = &model[i];
                        let human = old.origin != Origin::Search && e.origin == Origin::Human;
                        if e.depth >= old.depth || human {
                            model.remove(i);
                            model.push(e);
                        }
                    }
                    None => {
                        if model.len() == capacity {
                            let oldest_search =
                                model.iter().position(|m| m.origin == Origin::Search);
                            model.remove(oldest_search.unwrap_or(0));
                        }
                        model.push(e);
                    }
                }
                assert!(t.entries().eq(model.iter()), "order after each insert");
                assert!(t.queue.len() <= 2 * t.len() + 65, "holes are compacted");
            }
            assert_eq!(t.entries().cloned().collect::<Vec<_>>(), model);
            for m in &model {
                assert_eq!(t.get(m.key), Some(m));
            }
        }
    }

    #[test]
    fn imported_and_human_entries_survive_a_flood_of_search_entries() {
        let es = sample(1000, 23);
        let mut t = LearnTable::new(10);
        // The oldest entries are a person's and an import's.
        let mut kept = Vec::new();
        for (e, origin) in es[..4].iter().zip([
            Origin::Human,
            Origin::Imported,
            Origin::Imported,
            Origin::Human,
        ]) {
            let e = LearnEntry {
                origin,
                ..e.clone()
            };
            t.insert(e.clone());
            kept.push(e);
        }
        for e in &es[4..] {
            t.insert(e.clone());
            assert!(t.len() <= 10);
        }
        assert_eq!(t.len(), 10);
        for e in &kept {
            assert_eq!(t.get(e.key), Some(e), "{} entry evicted", e.origin);
        }
        // The six places left hold the newest search entries, in order.
        let newest: Vec<u64> = es[994..].iter().map(|e| e.key).collect();
        assert_eq!(keys(&t)[4..], newest[..]);
        // With no search entry left, the oldest of the others goes.
        t.set_capacity(4);
        assert_eq!(keys(&t), kept.iter().map(|e| e.key).collect::<Vec<_>>());
        t.set_capacity(3);
        assert_eq!(
            keys(&t),
            kept[1..].iter().map(|e| e.key).collect::<Vec<_>>()
        );
        t.insert(LearnEntry {
            origin: Origin::Imported,
            ..es[0].clone()
        });
        assert_eq!(keys(&t), vec![kept[2].key, kept[3].key, es[0].key]);
    }

    #[test]
    fn merge_inserts_in_the_other_tables_order() {
        let es = sample(5, 5);
        let mut a = LearnTable::new(4);
        a.insert(es[0].clone());
        a.insert(es[1].clone());
        let mut b = LearnTable::new(10);
        for e in [&es[2], &es[0], &es[3], &es[4]] {
            b.insert(e.clone());
        }
        a.merge(&b);
        assert_eq!(keys(&a), vec![es[2].key, es[0].key, es[3].key, es[4].key]);
    }
}
