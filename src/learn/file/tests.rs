//! The learn file's guarantees: round trips, quarantine of every kind of damage, refusal of files
//! for another Trine, errors for unusable paths, and concurrent writers.

use std::fs;

use super::*;
use crate::learn::format::{checksum, CHECKSUM_OFFSET, ENTRY_SIZE, HEADER_SIZE};
use crate::learn::format::{CAPACITY_OFFSET, FORMAT_VERSION};
use crate::learn::testutil::{good_file_bytes, keys, sample, v1_bytes, TempDir};
use crate::learn::Origin;
use crate::score::MATE;

#[test]
fn store_and_load_round_trip() {
    let dir = TempDir::new("roundtrip");
    let path = dir.file("learn.bin");
    let f = LearnFile::new(&path, 1000);
    assert_eq!(f.stamp(), None);
    let (t, status) = f.load().expect("load missing");
    assert!(t.is_empty());
    assert_eq!(status, LoadStatus::Missing);
    assert!(!f.lock_path().exists(), "a read creates no lock file");
    let mut es = sample(300, 9);
    es[0].best_move = 0;
    es[1].score = (3 - MATE) as i16;
    es[2].origin = Origin::Human;
    es[3].origin = Origin::Imported;
    assert_eq!(f.store(&es[..100]).expect("store"), 100);
    let first = f.stamp().expect("stamp");
    assert!(matches!(first, Stamp::Header { generation: 1, .. }));
    assert_eq!(f.store(&es[100..]).expect("store"), 300);
    let len = fs::metadata(&path).expect("metadata").len();
    assert_eq!(len as usize, HEADER_SIZE + 300 * ENTRY_SIZE);
    // Every write counts, even one that adds nothing.
    let second = f.stamp().expect("stamp");
    assert!(matches!(second, Stamp::Header { generation: 2, .. }));
    assert_eq!(f.store(&[]).expect("store"), 300);
    let third = f.stamp().expect("stamp");
    assert!(matches!(third, Stamp::Header { generation: 3, .. }));
    let snapshot = f.load_snapshot().expect("load");
    assert_eq!(snapshot.stamp, Some(third));
    let (t, status) = f.load().expect("load");
    assert_eq!(status, LoadStatus::Loaded(300));
    assert_eq!(t.entries().cloned().collect::<Vec<_>>(), es);
    // A smaller capacity drops nothing: the file's own capacity counts.
    let (t, status) = LearnFile::new(&path, 50).load().expect("load");
    assert_eq!(status, LoadStatus::Loaded(300));
    assert_eq!(t.capacity(), 1000);
    f.clear().expect("clear");
    let (t, status) = f.load().expect("load cleared");
    assert!(t.is_empty());
    assert_eq!(status, LoadStatus::Loaded(0));
    assert!(dir.names("learn.bin.tmp").is_empty(), "no temp file left");
    // A writer killed between creating its temporary file and renaming it leaves one behind;
    // the next store removes it (and nothing else).
    fs::write(dir.file("learn.bin.tmp-999999"), b"half written").expect("write");
    fs::write(dir.file("learn.bin.tmp-notes"), b"not ours").expect("write");
    f.store(&es[..1]).expect("store");
    assert_eq!(
        dir.names("learn.bin.tmp"),
        vec!["learn.bin.tmp-notes".to_string()]
    );
    assert!(dir.names("learn.bin.corrupt").is_empty());
}

/// Writes `bytes` as the learn file, loads it, and checks it was moved aside intact with a
/// reason containing `why`; then checks that a store starts a fresh file.
fn check_quarantined(bytes: Option<&[u8]>, why: &str) {
    let dir = TempDir::new("corrupt");
    let path = dir.file("learn.bin");
    match bytes {
        Some(b) => fs::write(&path, b).expect("write"),
        None => {
            fs::create_dir(&path).expect("mkdir");
            fs::write(path.join("inside"), b"keep me").expect("write inside");
        }
    }
    let f = LearnFile::new(&path, 100);
    let (t, status) = f.load().expect("load");
    assert!(t.is_empty());
    let LoadStatus::Quarantined { moved_to, reason } = status else {
        panic!("{why}: not quarantined: {status:?}");
    };
    assert!(reason.contains(why), "reason '{reason}' lacks '{why}'");
    assert!(!path.exists(), "{why}: still in place");
    let name = moved_to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    assert!(name.is_some_and(|n| n.starts_with("learn.bin.corrupt-")));
    match bytes {
        Some(b) => assert_eq!(fs::read(&moved_to).expect("read moved"), b),
        None => assert_eq!(
            fs::read(moved_to.join("inside")).expect("read moved dir"),
            b"keep me"
        ),
    }
    // The same damage found by a store: moved aside again (a second, distinct name), and
    // the new entry is written to a fresh file.
    match bytes {
        Some(b) => fs::write(&path, b).expect("write"),
        None => fs::create_dir(&path).expect("mkdir"),
    }
    let es = sample(1, 1);
    let report = f.store_report(&es).expect("store");
    assert_eq!(report.entries, 1);
    let (moved_again, _) = report.quarantined.expect("quarantined by store");
    assert_ne!(moved_again, moved_to);
    assert_eq!(dir.names("learn.bin.corrupt-").len(), 2);
    assert_eq!(f.load().expect("load").1, LoadStatus::Loaded(1));
}

#[test]
fn truncated_file_is_quarantined() {
    let b = good_file_bytes();
    check_quarantined(Some(&b[..b.len() - 7]), "truncated");
    check_quarantined(Some(&b[..20]), "truncated");
    check_quarantined(Some(&b[..5]), "truncated");
}

#[test]
fn flipped_byte_is_quarantined() {
    let mut b = good_file_bytes();
    b[HEADER_SIZE + 3 * ENTRY_SIZE + 10] ^= 0x20;
    check_quarantined(Some(&b), "checksum");
    let mut b = good_file_bytes();
    b[12] ^= 1; // the eval version is covered by the checksum too
    check_quarantined(Some(&b), "checksum");
}

#[test]
fn wrong_magic_is_quarantined() {
    let mut b = good_file_bytes();
    b[..8].copy_from_slice(b"TRINELRX");
    check_quarantined(Some(&b), "magic");
    check_quarantined(Some(b"hello, this is not a learn file at all\n"), "magic");
}

#[test]
fn empty_file_is_quarantined() {
    check_quarantined(Some(b""), "empty");
}

#[test]
fn directory_in_place_of_the_file_is_quarantined() {
    check_quarantined(None, "directory");
}

#[test]
fn trailing_bytes_and_bad_fields_are_quarantined() {
    let mut b = good_file_bytes();
    b.extend_from_slice(&[0; 5]);
    check_quarantined(Some(&b), "trailing");
    // An impossible origin with a valid checksum (as a buggy writer would leave it).
    let mut b = good_file_bytes();
    b[HEADER_SIZE + 9] = 7;
    let sum = checksum(&b);
    b[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
    check_quarantined(Some(&b), "origin");
    // A capacity below the entry count (ten), or none at all.
    check_quarantined(Some(&with_header_u32(CAPACITY_OFFSET, 9)), "capacity");
    check_quarantined(Some(&with_header_u32(CAPACITY_OFFSET, 0)), "capacity");
}

/// Rewrites a header field and the checksum, as another Trine would have written it.
fn with_header_u32(at: usize, value: u32) -> Vec<u8> {
    let mut b = good_file_bytes();
    b[at..at + 4].copy_from_slice(&value.to_le_bytes());
    let sum = checksum(&b);
    b[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
    b
}

/// Writes `bytes` as the learn file and checks that load, store and clear refuse it with an
/// error that `kind` accepts and whose message contains `words`, and leave it untouched.
fn check_refused(bytes: &[u8], kind: fn(&LearnError) -> bool, words: &[&str]) {
    let dir = TempDir::new("refused");
    let path = dir.file("learn.bin");
    fs::write(&path, bytes).expect("write");
    let f = LearnFile::new(&path, 100);
    let err = f.load().expect_err("load must refuse");
    assert!(kind(&err), "{err:?}");
    let message = err.to_string();
    for w in words {
        assert!(message.contains(w), "message '{message}' lacks '{w}'");
    }
    let err = f.store(&sample(2, 2)).expect_err("store must refuse");
    assert!(kind(&err), "{err:?}");
    assert!(err.to_string().contains(words[0]), "{err}");
    assert!(f.clear().is_err(), "clear must refuse");
    assert_eq!(fs::read(&path).expect("read"), bytes, "file untouched");
    assert!(dir.names("learn.bin.corrupt").is_empty(), "not quarantined");
    assert!(dir.names("learn.bin.tmp").is_empty());
}

#[test]
fn newer_format_version_is_refused_and_untouched() {
    // A newer format may have another header; only the magic and version are read.
    let mut b = good_file_bytes();
    b[8..12].copy_from_slice(&3u32.to_le_bytes());
    b.truncate(50);
    check_refused(
        &b,
        |e| matches!(e, LearnError::NewerFormat { version: 3, .. }),
        &["format version 3", "reads version 2", "upgrade"],
    );
}

#[test]
fn a_file_is_for_the_evaluation_it_was_written_with() {
    let dir = TempDir::new("eval-version");
    let path = dir.file("learn.bin");
    let net = LearnFile::new(&path, 100).with_eval(0xABCD_0123);
    net.store(&sample(3, 1)).expect("store");
    let (t, _) = net.load().expect("the same evaluation reads it");
    assert_eq!(t.len(), 3);
    let err = LearnFile::new(&path, 100)
        .load()
        .expect_err("another evaluation");
    assert!(
        matches!(
            err,
            LearnError::OtherEval {
                file: 0xABCD_0123,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("evaluation version"), "{err}");
}

#[test]
fn other_eval_version_is_refused_and_untouched() {
    let other = EVAL_VERSION.wrapping_add(1);
    let b = with_header_u32(12, other);
    check_refused(
        &b,
        |e| matches!(e, LearnError::OtherEval { .. }),
        &[
            &format!("evaluation version {other}"),
            &format!("version {EVAL_VERSION}"),
        ],
    );
}

#[test]
fn unwritable_or_unreadable_paths_are_errors() {
    let dir = TempDir::new("unwritable");
    let plain = dir.file("plain");
    fs::write(&plain, b"x").expect("write");
    let es = sample(1, 4);
    let under_file = LearnFile::new(plain.join("learn.bin"), 10);
    assert!(under_file.store(&es).is_err());
    assert!(under_file.load().is_err());
    assert!(under_file.clear().is_err());
    let in_proc = LearnFile::new("/proc/trine-no-such-dir/learn.bin", 10);
    assert!(in_proc.store(&es).is_err());
    assert!(matches!(
        in_proc.load(),
        Ok((_, LoadStatus::Missing)) | Err(_)
    ));
    assert!(LearnFile::new("/", 10).store(&es).is_err());
    assert!(matches!(
        LearnFile::new("/", 10).load(),
        Err(LearnError::NoFileName(_))
    ));
    assert_eq!(fs::read(&plain).expect("read"), b"x");
}

#[test]
fn concurrent_stores_keep_every_entry() {
    let dir = TempDir::new("threads");
    let path = dir.file("shared.bin");
    let all = sample(1200, 99);
    std::thread::scope(|s| {
        for chunk in all.chunks(200) {
            let path = path.clone();
            s.spawn(move || {
                let f = LearnFile::new(path, 10_000);
                for e in chunk {
                    f.store(std::slice::from_ref(e)).expect("store");
                }
            });
        }
    });
    let (t, status) = LearnFile::new(&path, 10_000).load().expect("load");
    assert_eq!(status, LoadStatus::Loaded(1200));
    for e in &all {
        assert_eq!(t.get(e.key), Some(e));
    }
    assert!(dir.names("shared.bin.tmp").is_empty());
}

#[test]
fn a_writer_with_a_smaller_capacity_drops_nothing() {
    let dir = TempDir::new("capacity");
    let path = dir.file("shared.bin");
    let big = LearnFile::new(&path, 1000);
    let small = LearnFile::new(&path, 10);
    let es = sample(600, 31);
    assert_eq!(big.store(&es[..500]).expect("store"), 500);
    // The small writer's own capacity does not cut the shared file down.
    let report = small.store_report(&es[500..505]).expect("store");
    assert_eq!((report.entries, report.capacity), (505, 1000));
    let (t, status) = small.load().expect("load");
    assert_eq!(status, LoadStatus::Loaded(505));
    assert_eq!(
        keys(&t),
        es[..505].iter().map(|e| e.key).collect::<Vec<_>>()
    );
    // A larger capacity grows the file's; a file opened without one keeps it.
    let report = LearnFile::new(&path, 2000).store_report(&es[505..506]);
    assert_eq!(report.expect("store").capacity, 2000);
    let report = LearnFile::at(&path).store_report(&es[506..507]);
    assert_eq!(report.expect("store").capacity, 2000);
    assert_eq!(small.store_report(&[]).expect("store").capacity, 2000);
    // Only an explicit resize shrinks it: the newest entries stay.
    let report = small.resize(5).expect("resize");
    assert_eq!((report.entries, report.capacity), (5, 5));
    let (t, _) = LearnFile::at(&path).load().expect("load");
    assert_eq!(
        keys(&t),
        es[502..507].iter().map(|e| e.key).collect::<Vec<_>>()
    );
    assert_eq!(t.capacity(), 5);
    let report = LearnFile::at(&path).store_report(&[]).expect("store");
    assert_eq!((report.entries, report.capacity), (5, 5));
    // A new file gets the capacity of its first writer, or the default.
    let fresh = dir.file("fresh.bin");
    let report = LearnFile::new(&fresh, 10)
        .store_report(&es[..20])
        .expect("store");
    assert_eq!((report.entries, report.capacity), (10, 10));
    let other = dir.file("other.bin");
    let report = LearnFile::at(&other).store_report(&es[..1]).expect("store");
    assert_eq!(report.capacity, DEFAULT_CAPACITY);
}

#[test]
fn imported_entries_survive_a_flood_of_search_entries() {
    let dir = TempDir::new("flood");
    let path = dir.file("flood.bin");
    let f = LearnFile::new(&path, 20);
    let es = sample(300, 41);
    let imported: Vec<LearnEntry> = es[..5]
        .iter()
        .map(|e| LearnEntry {
            origin: Origin::Imported,
            ..e.clone()
        })
        .collect();
    f.store(&imported).expect("import");
    for chunk in es[5..].chunks(7) {
        f.store(chunk).expect("store");
    }
    let (t, status) = f.load().expect("load");
    assert_eq!(status, LoadStatus::Loaded(20));
    for e in &imported {
        assert_eq!(t.get(e.key), Some(e));
    }
    assert_eq!(
        keys(&t)[5..],
        es[285..].iter().map(|e| e.key).collect::<Vec<_>>()[..]
    );
}

#[test]
fn version_1_files_are_read_and_rewritten_as_the_current_version() {
    let dir = TempDir::new("v1");
    let path = dir.file("old.bin");
    let es = sample(30, 51);
    let mut old = LearnTable::new(30);
    for e in &es {
        old.insert(e.clone());
    }
    fs::write(&path, v1_bytes(&old)).expect("write");
    // A version 1 file did not record its capacity: it gets the default (its entry count when
    // larger), never less than it holds.
    let (t, status) = LearnFile::new(&path, 10).load().expect("load v1");
    assert_eq!(status, LoadStatus::Loaded(30));
    assert_eq!(t.capacity(), DEFAULT_CAPACITY);
    assert_eq!(t.entries().cloned().collect::<Vec<_>>(), es);
    let report = LearnFile::new(&path, 10).store_report(&[]).expect("store");
    assert_eq!(report.entries, 30);
    assert_eq!(report.generation, 1);
    let bytes = fs::read(&path).expect("read");
    assert_eq!(bytes[8..12], FORMAT_VERSION.to_le_bytes());
    assert_eq!(bytes.len(), HEADER_SIZE + 30 * ENTRY_SIZE);
    let (t, _) = LearnFile::at(&path).load().expect("load v2");
    assert_eq!(t.entries().cloned().collect::<Vec<_>>(), es);
}
