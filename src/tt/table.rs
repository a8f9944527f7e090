//! The shared lock-free transposition table.
//!
//! Every slot is two `AtomicU64` words: `check = key ^ data` and `data` (Hyatt–Mann lockless hashing).
//! A reader that sees a torn pair (one word from one writer, one from another) computes a key that
//! does not match and treats the slot as empty, so no lock and no `unsafe` is needed and every thread
//! can probe and store at once. Slots are grouped four to a 64-byte bucket (one cache line).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use rayon::prelude::*;

use super::entry::{Bound, EntryData, NewEntry, PackedMove, GENERATIONS};

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const SLOTS: usize = 4;

#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; SLOTS],
}

/// Largest `Hash` value accepted, in MiB.
pub const MAX_HASH_MB: usize = 65536;

/// The transposition table shared by all search threads.
pub struct Table {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
}

/// Asks Linux to back the table's memory with transparent huge pages (2 MiB), before the memory
/// is first touched: a TLB entry then covers 512 times as much of the table. Where the kernel
/// leaves huge pages to `madvise` (a common default) the table would otherwise get 4 KiB pages.
/// Only advice: a kernel without huge pages ignores it, and the table works the same either way.
fn advise_huge_pages(buckets: &mut Vec<Bucket>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let bytes = buckets.capacity() * std::mem::size_of::<Bucket>();
        if bytes < HUGE_PAGE {
            return;
        }
        // The whole 2 MiB pages inside the allocation.
        let start = buckets.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE_PAGE);
        let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
        if end > first {
            // SAFETY: [first, end) lies inside the vector's own allocation, which nothing has
            // touched yet; MADV_HUGEPAGE changes how pages are backed, never their contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buckets;
}

impl Table {
    /// Allocates a table of `hash_mb` MiB; an allocation failure is an error, never an abort.
    pub fn new(hash_mb: usize) -> Result<Table, String> {
        let hash_mb = checked_size(hash_mb, available_memory_mb())?;
        let count = (hash_mb << 20) / std::mem::size_of::<Bucket>();
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate {hash_mb} MB for the hash table"))?;
        advise_huge_pages(&mut buckets);
        buckets.par_extend((0..count).into_par_iter().map(|_| Bucket::default()));
        Ok(Table {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// A table of one bucket, for threads that have no search to run: it allocates 64 bytes, so
    /// it cannot fail the way a real table can.
    pub fn placeholder() -> Table {
        Table {
            buckets: vec![Bucket::default()],
            generation: AtomicU8::new(0),
        }
    }

    /// Size in MiB.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * SLOTS
    }

    /// Empties every slot, in parallel over rayon's pool.
    pub fn clear(&self) {
        self.buckets.par_iter().for_each(|b| {
            for s in &b.slots {
                s.check.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        });
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search generation (older entries become preferred victims).
    pub fn new_search(&self) {
        let g = (self.generation.load(Ordering::Relaxed) + 1) % GENERATIONS;
        self.generation.store(g, Ordering::Relaxed);
    }

    /// The current generation.
    pub fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Looks `key` up; only an entry whose full 64-bit key verifies is returned.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<EntryData> {
        for s in &self.bucket(key).slots {
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            if check ^ data == key && data != 0 {
                let e = EntryData::unpack(data);
                if e.bound != Bound::None {
                    return Some(e);
                }
            }
        }
        None
    }

    /// Stores a search result. Replacement: the slot holding the same key (kept when the old entry
    /// is much deeper, of this search, and the new one is not exact), else an empty slot, else the slot
    /// with the lowest `depth - 8 * age`. Pinned entries (learned positions) are never evicted or
    /// overwritten by ordinary stores, in any generation: they stay until [`Table::clear`].
    pub fn store(&self, key: u64, new: NewEntry) {
        let NewEntry {
            mv,
            depth,
            bound,
            pinned,
            ..
        } = new;
        let generation = self.generation();
        let bucket = self.bucket(key);
        let mut victim: Option<(&Slot, i32)> = None;
        for s in &bucket.slots {
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            let old = EntryData::unpack(data);
            let empty = data == 0 || old.bound == Bound::None;
            let protected = !empty && old.pinned && !pinned;
            if !empty && check ^ data == key {
                if protected {
                    return;
                }
                let keep_move = mv.is_none();
                let shallower = u32::from(depth) + 4 <= u32::from(old.depth);
                if shallower && bound != Bound::Exact && old.generation == generation {
                    return;
                }
                let new = NewEntry {
                    mv: if keep_move { old.mv } else { mv },
                    ..new
                };
                write(s, key, new.at(generation).pack());
                return;
            }
            if protected {
                continue;
            }
            let worth = if empty {
                i32::MIN
            } else {
                let age = i32::from((GENERATIONS + generation - old.generation) % GENERATIONS);
                i32::from(old.depth) - 8 * age
            };
            if victim.is_none_or(|(_, w)| worth < w) {
                victim = Some((s, worth));
            }
        }
        if let Some((s, _)) = victim {
            write(s, key, new.at(generation).pack());
        }
    }

    /// Writes a learned position as a pinned entry holding the window [`lower`, `upper`] (lower bound
    /// in the score field, upper bound in the eval field; see [`super::cutoff`]). Pinned entries are
    /// not evicted or overwritten by the search; another learned store of the key replaces one.
    pub fn store_learned(&self, key: u64, mv: PackedMove, lower: i16, upper: i16, depth: u8) {
        self.store(
            key,
            NewEntry {
                mv,
                score: lower,
                eval: upper,
                depth,
                bound: Bound::Exact,
                pinned: true,
            },
        );
    }

    /// Permille of sampled slots used by the current search generation (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = self.buckets.iter().take(250);
        let mut total = 0u32;
        let mut used = 0u32;
        for b in sample {
            for s in &b.slots {
                total += 1;
                let e = EntryData::unpack(s.data.load(Ordering::Relaxed));
                if e.bound != Bound::None && e.generation == generation {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(total).unwrap_or(0)
    }
}

/// Memory the OS says is available (Linux `MemAvailable`), in MiB; `None` where unknown.
/// The size a table of `hash_mb` MiB gets (clamped to 1..=[`MAX_HASH_MB`]), or why it is refused:
/// more than the `available` memory (MiB, when known).
fn checked_size(hash_mb: usize, available: Option<usize>) -> Result<usize, String> {
    let hash_mb = hash_mb.clamp(1, MAX_HASH_MB);
    match available {
        Some(available) if hash_mb > available => Err(format!(
            "cannot allocate {hash_mb} MB for the hash table: only {available} MB of memory is available"
        )),
        _ => Ok(hash_mb),
    }
}

fn available_memory_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

#[inline]
fn write(slot: &Slot, key: u64, data: u64) {
    slot.check.store(key ^ data, Ordering::Relaxed);
    slot.data.store(data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The `/proc/self/smaps` lines that describe the mapping holding `addr`, header excluded.
    #[cfg(target_os = "linux")]
    fn smaps_of(addr: usize) -> Option<Vec<String>> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut found: Option<Vec<String>> = None;
        for line in smaps.lines() {
            let range = line.split(' ').next().unwrap_or("");
            if let Some((lo, hi)) = range.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    if found.is_some() {
                        break;
                    }
                    if (lo..hi).contains(&addr) {
                        found = Some(Vec::new());
                    }
                    continue;
                }
            }
            if let Some(lines) = found.as_mut() {
                lines.push(line.to_string());
            }
        }
        found
    }

    /// The table's memory carries the huge-page advice. Whether the kernel then backs it with
    /// huge pages depends on free contiguous memory and its defrag policy, so that is not
    /// asserted: the `hg` flag in `VmFlags` records that `MADV_HUGEPAGE` was applied.
    #[test]
    #[cfg(target_os = "linux")]
    fn the_table_is_advised_to_use_huge_pages() {
        // A kernel built without transparent huge pages refuses the advice.
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return;
        }
        let t = Table::new(16).unwrap();
        let addr = t.buckets.as_ptr() as usize + (8 << 20);
        let Some(lines) = smaps_of(addr) else {
            return; // no /proc here: nothing to check
        };
        let Some(flags) = lines.iter().find_map(|l| l.strip_prefix("VmFlags:")) else {
            return; // a kernel that does not list VmFlags
        };
        let flags: Vec<&str> = flags.split_whitespace().collect();
        assert!(flags.contains(&"hg"), "VmFlags without hg: {flags:?}");
    }

    /// An exact entry of depth 0 without a move; tests change the fields they need.
    const BLANK: NewEntry = NewEntry {
        mv: PackedMove::NONE,
        score: 0,
        eval: 0,
        depth: 0,
        bound: Bound::Exact,
        pinned: false,
    };

    #[test]
    fn store_and_probe() {
        let t = Table::new(1).unwrap();
        assert_eq!(t.size_mb(), 1);
        assert!(t.probe(42).is_none());
        t.store(
            42,
            NewEntry {
                mv: PackedMove(77),
                score: -120,
                eval: 15,
                depth: 7,
                bound: Bound::Lower,
                pinned: false,
            },
        );
        let e = t.probe(42).unwrap();
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound),
            (PackedMove(77), -120, 15, 7, Bound::Lower)
        );
        assert!(t.probe(43).is_none());
        t.clear();
        assert!(t.probe(42).is_none());
    }

    #[test]
    fn replacement_prefers_shallow_and_old() {
        let t = Table::new(1).unwrap();
        // Keys that all map to bucket 0: the top bits decide the bucket.
        let keys: Vec<u64> = (1..=5u64).collect();
        for (i, &k) in keys.iter().take(4).enumerate() {
            t.store(
                k,
                NewEntry {
                    depth: 10 + i as u8,
                    ..BLANK
                },
            );
        }
        t.store(keys[4], NewEntry { depth: 20, ..BLANK });
        assert!(
            t.probe(keys[0]).is_none(),
            "the shallowest entry is the victim"
        );
        assert!(t.probe(keys[4]).is_some());
        // A pinned entry of this generation survives deeper stores.
        let pinned = NewEntry {
            score: 5,
            depth: 1,
            bound: Bound::Lower,
            pinned: true,
            ..BLANK
        };
        t.store(100, pinned);
        for k in 101..120 {
            t.store(k, NewEntry { depth: 50, ..BLANK });
        }
        assert_eq!(t.probe(100).map(|e| e.score), Some(5));
        t.store(
            100,
            NewEntry {
                score: 9,
                depth: 60,
                ..BLANK
            },
        );
        assert_eq!(t.probe(100).map(|e| e.score), Some(5));
        // And in later searches; a learned store replaces it; a clear removes it.
        t.new_search();
        t.store(100, NewEntry { depth: 60, ..BLANK });
        assert_eq!(t.probe(100).map(|e| e.score), Some(5));
        t.store(100, NewEntry { score: 7, ..pinned });
        assert_eq!(t.probe(100).map(|e| e.score), Some(7));
        t.clear();
        assert!(t.probe(100).is_none());
    }

    #[test]
    fn concurrent_writers_never_yield_torn_entries() {
        // Random 50-bit keys: all land in the first buckets, so four threads fight over few slots.
        let keys: Arc<Vec<u64>> = Arc::new(
            (1..=64u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 14)
                .collect(),
        );
        let t = Arc::new(Table::new(1).unwrap());
        let handles: Vec<_> = (0..4u16)
            .map(|id| {
                let (t, keys) = (Arc::clone(&t), Arc::clone(&keys));
                std::thread::spawn(move || {
                    for i in 0..200_000usize {
                        let key = keys[i % keys.len()];
                        // Every writer stores the key's low bits as score and eval, so any verified
                        // entry must agree with the key it was found under.
                        let tag = key as i16;
                        let new = NewEntry {
                            mv: PackedMove(id + 1),
                            score: tag,
                            eval: tag,
                            depth: 3,
                            ..BLANK
                        };
                        t.store(key, new);
                        if let Some(e) = t.probe(key) {
                            assert_eq!((e.score, e.eval), (tag, tag));
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    #[test]
    fn sizes_are_clamped_and_refused_beyond_the_available_memory() {
        // Checked without allocating: a test must not take 64 GiB of a big machine.
        assert_eq!(checked_size(usize::MAX, None), Ok(MAX_HASH_MB));
        assert_eq!(checked_size(0, Some(4)), Ok(1));
        assert_eq!(checked_size(4096, Some(4096)), Ok(4096));
        let refused = checked_size(usize::MAX, Some(4096)).unwrap_err();
        assert!(
            refused.contains(&format!("cannot allocate {MAX_HASH_MB} MB")),
            "{refused}"
        );
        assert!(refused.contains("only 4096 MB"), "{refused}");
    }

    #[test]
    fn a_placeholder_table_works_like_a_tiny_one() {
        let t = Table::placeholder();
        assert_eq!(t.capacity(), SLOTS);
        let new = NewEntry { depth: 1, ..BLANK };
        t.store(7, new);
        assert_eq!(t.probe(7).map(|e| e.depth), Some(1));
    }
}
