//! The learn file's bytes: a versioned header, the entries and a checksum ([`encode`], and the
//! checking decoder the file reader uses).
//!
//! # Layout (format version 2, all numbers little-endian)
//!
//! ```text
//! header, 48 bytes
//!  0       8        12       16       20       24             32       36       40          48
//! +--------+--------+--------+--------+--------+--------------+--------+--------+-----------+
//! |TRINELRN|format=2|eval ver|entry=96| count  |   checksum   |capacity|reserved|generation |
//! +--------+--------+--------+--------+--------+--------------+--------+--------+-----------+
//!  8 bytes    u32      u32      u32      u32         u64          u32     u32 = 0    u64
//!
//! then `count` entries of 96 bytes each, oldest first
//!  0          8     9      10      12      14       16    17                       81       96
//! +----------+-----+------+-------+-------+--------+-----+------------------------+--------+
//! |   key    |depth|origin| score | move  |game ply| len |   packed setup bytes   |  zero  |
//! +----------+-----+------+-------+-------+--------+-----+------------------------+--------+
//!    u64      u8    u8     i16     u16     u16      u8   64 bytes, `len` used,    15 bytes
//!                                                        the rest zero
//! ```
//!
//! `capacity` is the file's own (1 to [`MAX_CAPACITY`], at least `count`): how many entries it
//! keeps, whatever the capacity of the engine writing it. `generation` goes up by one with every
//! write, so that a reader can tell from the header alone that the file changed.
//! `key` is [`crate::board::full_key`]; `origin` is [`Origin`] (0 search, 1 imported, 2 human);
//! `score` is from the side to move's view (mates in the search's convention); `move` is a
//! [`crate::tt::PackedMove`] (0 = none); the setup is shakmaty's
//! [`PackedSetup`] (standard packing, en passant square only when the capture is legal).
//! The file length must be exactly `48 + 96 * count`.
//!
//! Format version 1 (still read; the next write turns it into version 2) has a 36-byte header
//! that ends after the checksum with a zero `u32`: no capacity (it is taken to be
//! [`DEFAULT_CAPACITY`], or the entry count if larger) and no generation (taken as 0).
//!
//! The checksum is FNV-1a run over 64-bit little-endian words instead of bytes: over the whole
//! file with the checksum field read as zero, the final partial word zero-padded, and then the
//! file length. Changing any single word always changes it.

use std::path::Path;

use shakmaty::packed::PackedSetup;

use super::{LearnEntry, LearnError, LearnTable, Origin, DEFAULT_CAPACITY, MAX_CAPACITY};

/// Version of the evaluation (a fingerprint of its code version and weights, see
/// [`crate::eval::VERSION`]): learned scores from another evaluation mean something else, so files
/// written for another version are refused.
pub const EVAL_VERSION: u32 = crate::eval::VERSION;
/// The on-disk format version this code writes (it reads this one and version 1).
pub const FORMAT_VERSION: u32 = 2;
/// The first eight bytes of every learn file.
pub const MAGIC: [u8; 8] = *b"TRINELRN";
/// Size of the file header in bytes.
pub const HEADER_SIZE: usize = 48;
/// Size of a format version 1 header in bytes.
pub const HEADER_SIZE_V1: usize = 36;
/// Size of one entry in bytes.
pub const ENTRY_SIZE: usize = 96;

const SETUP_OFFSET: usize = 17;
const SETUP_BYTES: usize = 64;
pub(super) const CHECKSUM_OFFSET: usize = 24;
pub(super) const CAPACITY_OFFSET: usize = 32;
const GENERATION_OFFSET: usize = 40;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
pub(super) const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

const _: () = assert!(PackedSetup::MAX_BYTES <= SETUP_BYTES);
const _: () = assert!(SETUP_OFFSET + SETUP_BYTES <= ENTRY_SIZE);

/// A decoded file: its entries (in a table of the file's capacity) and its header's generation
/// and checksum.
pub(super) struct Decoded {
    pub table: LearnTable,
    pub generation: u64,
    pub checksum: u64,
}

/// Why a file's bytes could not be used.
pub(super) enum Problem {
    /// Damaged: move it aside.
    Corrupt(String),
    /// Valid but not for this Trine: leave it alone.
    Refused(LearnError),
}

/// The checksum described in the module documentation.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = FNV_OFFSET;
    let mut chunks = bytes.chunks_exact(8);
    for (i, c) in chunks.by_ref().enumerate() {
        let w = if i * 8 == CHECKSUM_OFFSET {
            0
        } else {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            u64::from_le_bytes(a)
        };
        h = (h ^ w).wrapping_mul(FNV_PRIME);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut a = [0u8; 8];
        a[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(a)).wrapping_mul(FNV_PRIME);
    }
    (h ^ bytes.len() as u64).wrapping_mul(FNV_PRIME)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Serializes a table (entries oldest first) into the file format, for scores of evaluation
/// version `eval`, with the table's capacity and write number `generation` in the header.
pub fn encode(table: &LearnTable, eval: u32, generation: u64) -> Vec<u8> {
    let count = table.len();
    let mut out = Vec::with_capacity(HEADER_SIZE + count * ENTRY_SIZE);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&eval.to_le_bytes());
    out.extend_from_slice(&(ENTRY_SIZE as u32).to_le_bytes());
    // A table never holds more than MAX_CAPACITY (< u32::MAX) entries.
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    let capacity = table.capacity().clamp(count.max(1), MAX_CAPACITY);
    out.extend_from_slice(&(capacity as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&generation.to_le_bytes());
    for e in table.entries() {
        let start = out.len();
        out.extend_from_slice(&e.key.to_le_bytes());
        out.push(e.depth);
        out.push(e.origin as u8);
        out.extend_from_slice(&e.score.to_le_bytes());
        out.extend_from_slice(&e.best_move.to_le_bytes());
        out.extend_from_slice(&e.game_ply.to_le_bytes());
        let setup = e.setup.as_bytes();
        out.push(setup.len() as u8);
        out.extend_from_slice(setup);
        out.resize(start + ENTRY_SIZE, 0);
    }
    let sum = checksum(&out);
    out[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8].copy_from_slice(&sum.to_le_bytes());
    out
}

/// The generation and checksum in the header at the start of `bytes`, when they begin a learn
/// file of a version this code reads (the header only: nothing else is checked).
pub(super) fn header_stamp(bytes: &[u8]) -> Option<(u64, u64)> {
    if bytes.len() < HEADER_SIZE_V1 || bytes[..MAGIC.len()] != MAGIC {
        return None;
    }
    let generation = match u32_at(bytes, 8) {
        1 => 0,
        2 if bytes.len() >= HEADER_SIZE => u64_at(bytes, GENERATION_OFFSET),
        _ => return None,
    };
    Some((generation, u64_at(bytes, CHECKSUM_OFFSET)))
}

/// Parses and checks a whole file's bytes, refusing a file for another evaluation than `want`.
pub(super) fn decode(bytes: &[u8], path: &Path, want: u32) -> Result<Decoded, Problem> {
    let corrupt = |s: String| Err(Problem::Corrupt(s));
    if bytes.is_empty() {
        return corrupt("the file is empty (0 bytes)".into());
    }
    if bytes.len() < MAGIC.len() {
        return if MAGIC.starts_with(bytes) {
            corrupt(format!("truncated: only {} bytes", bytes.len()))
        } else {
            corrupt("bad magic: not a Trine learn file".into())
        };
    }
    if bytes[..MAGIC.len()] != MAGIC {
        return corrupt("bad magic: not a Trine learn file".into());
    }
    if bytes.len() < 12 {
        return corrupt(format!("truncated header: {} bytes", bytes.len()));
    }
    let format = u32_at(bytes, 8);
    if format > FORMAT_VERSION {
        return Err(Problem::Refused(LearnError::NewerFormat {
            path: path.to_path_buf(),
            version: format,
        }));
    }
    if format == 0 {
        return corrupt("format version 0 does not exist".into());
    }
    let header = if format == 1 {
        HEADER_SIZE_V1
    } else {
        HEADER_SIZE
    };
    if bytes.len() < header {
        return corrupt(format!(
            "truncated header: {} bytes of {header}",
            bytes.len()
        ));
    }
    let entry_size = u32_at(bytes, 16);
    if entry_size as usize != ENTRY_SIZE {
        return corrupt(format!(
            "entry size {entry_size} in a version {format} file (must be {ENTRY_SIZE})"
        ));
    }
    let reserved_at = if format == 1 { 32 } else { 36 };
    if u32_at(bytes, reserved_at) != 0 {
        return corrupt("reserved header field is not zero".into());
    }
    let count = u32_at(bytes, 20) as u64;
    let expected = header as u64 + count * ENTRY_SIZE as u64;
    let len = bytes.len() as u64;
    if len < expected {
        return corrupt(format!(
            "truncated: {len} bytes, but {count} entries need {expected}"
        ));
    }
    if len > expected {
        return corrupt(format!(
            "{} bytes of trailing garbage after {count} entries",
            len - expected
        ));
    }
    let stored = u64_at(bytes, CHECKSUM_OFFSET);
    let computed = checksum(bytes);
    if stored != computed {
        return corrupt(format!(
            "checksum mismatch (stored {stored:016x}, computed {computed:016x}): damaged contents"
        ));
    }
    let (capacity, generation) = if format == 1 {
        ((count as usize).max(DEFAULT_CAPACITY), 0)
    } else {
        let capacity = u32_at(bytes, CAPACITY_OFFSET) as usize;
        if capacity == 0 || capacity > MAX_CAPACITY || (capacity as u64) < count {
            return corrupt(format!(
                "capacity {capacity} is not in 1..={MAX_CAPACITY} or below the {count} entries"
            ));
        }
        (capacity, u64_at(bytes, GENERATION_OFFSET))
    };
    let eval = u32_at(bytes, 12);
    if eval != want {
        return Err(Problem::Refused(LearnError::OtherEval {
            path: path.to_path_buf(),
            file: eval,
            engine: want,
        }));
    }
    let mut table = LearnTable::new(capacity);
    table.reserve(count as usize);
    for (i, b) in bytes[header..].chunks_exact(ENTRY_SIZE).enumerate() {
        let entry = decode_entry(b).map_err(|why| Problem::Corrupt(format!("entry {i}: {why}")))?;
        table.insert(entry);
    }
    Ok(Decoded {
        table,
        generation,
        checksum: stored,
    })
}

fn decode_entry(b: &[u8]) -> Result<LearnEntry, String> {
    let origin =
        Origin::from_u8(b[9]).ok_or_else(|| format!("origin byte {} is not 0, 1 or 2", b[9]))?;
    let setup_len = usize::from(b[16]);
    if setup_len > PackedSetup::MAX_BYTES {
        return Err(format!(
            "setup length {setup_len} exceeds {}",
            PackedSetup::MAX_BYTES
        ));
    }
    if b[SETUP_OFFSET + setup_len..]
        .iter()
        .fold(0, |acc, &x| acc | x)
        != 0
    {
        return Err("non-zero padding".into());
    }
    // The bytes past `setup_len` are zero, and trailing zeros mean nothing to a packed setup, so
    // all 64 can be copied at once.
    let setup = PackedSetup::try_from_bytes(&b[SETUP_OFFSET..SETUP_OFFSET + SETUP_BYTES])
        .map_err(|e| format!("bad setup: {e}"))?;
    Ok(LearnEntry {
        key: u64_at(b, 0),
        depth: b[8],
        score: i16::from_le_bytes([b[10], b[11]]),
        best_move: u16_at(b, 12),
        game_ply: u16_at(b, 14),
        origin,
        setup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::testutil::good_file_bytes;

    #[test]
    fn checksum_sees_every_word() {
        let b = good_file_bytes();
        let base = checksum(&b);
        for i in (0..b.len()).filter(|i| !(CHECKSUM_OFFSET..CHECKSUM_OFFSET + 8).contains(i)) {
            let mut c = b.clone();
            c[i] ^= 0x80;
            assert_ne!(checksum(&c), base, "byte {i}");
        }
    }
}
