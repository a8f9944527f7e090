//! A loaded network: its quantised weights (read from the file formats of docs/nnue.md, versions 1
//! to 3, every malformed file refused with a reason, and never more read than the header
//! promises), the accumulator of a whole position computed from scratch (from the feature block
//! of the perspective's king bucket), and the output layer, one per material bucket, whose score
//! is kept to ±[`MAX_SCORE`].

use std::io::Read;
use std::path::Path;

use shakmaty::{Board, Color, Position};

use super::features::{self, INPUTS};
use super::lanes::Lanes;
use super::simd;

/// File magic of format version 1 (one output bucket).
pub const MAGIC: &[u8; 8] = b"TRINENN1";
/// File magic of format version 2 (output buckets).
pub const MAGIC_V2: &[u8; 8] = b"TRINENN2";
/// File magic of format version 3 (output buckets and king buckets).
pub const MAGIC_V3: &[u8; 8] = b"TRINENN3";
/// Most output buckets a version-2 or 3 file may have.
pub const MAX_BUCKETS: usize = 16;
/// Most king buckets a version-3 file may have.
pub const MAX_KING_BUCKETS: usize = 16;
/// Quantisation of the feature layer.
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Largest output weight a file may hold: the trainer's ±1.98 times [`QB`]. The output kernel
/// ([`super::simd::screlu_pair`]) relies on it: `255 · 127` fits an `i16`.
const MAX_W2: i16 = 127;
/// Hidden sizes a file may have (a multiple of 8 in this range).
const HIDDEN: std::ops::RangeInclusive<usize> = 8..=4096;
/// Largest output scale (SCALE) a file may have; the trainer writes 400.
const MAX_SCALE: u32 = 10_000;
/// Longest header (version 3): magic, H, SCALE, B, K and the 64-byte king-bucket map.
const MAX_HEADER: usize = 24 + 64;
/// Longest network file: version 3 with the largest hidden size and bucket counts (100,933,784
/// bytes). Nothing longer is ever read.
pub const MAX_FILE_LEN: usize = MAX_HEADER
    + 2 * (MAX_KING_BUCKETS * INPUTS * *HIDDEN.end()
        + *HIDDEN.end()
        + MAX_BUCKETS * 2 * *HIDDEN.end())
    + 4 * MAX_BUCKETS;
/// Largest score, in centipawns, the network returns (either sign): far from the mate scores.
/// A network whose weights would go beyond it (a crafted output bias near `i32::MAX`, say)
/// evaluates to this bound instead.
pub const MAX_SCORE: i32 = 20_000;
const _: () = assert!(MAX_SCORE < crate::score::TB_BOUND);

/// The output bucket of a position with `pieces` pieces on the board (both colours, kings
/// included) in a network of `buckets` buckets: `(n − 2) · buckets / 31` with `n = pieces`
/// clamped to 2..=32, so 0 for the barest endings and `buckets − 1` for the full board.
#[inline(always)]
pub fn bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.clamp(2, 32) - 2) * buckets / 31
}

/// The weights of one network.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    scale: i32,
    /// Output buckets B (1 for a version-1 file).
    buckets: usize,
    /// King buckets K (1 before version 3).
    king_buckets: usize,
    /// The king bucket of each king square, on the perspective's own ranks (all 0 for K = 1).
    king_map: [u8; 64],
    /// `K × INPUTS × hidden`, feature-major, king bucket by king bucket.
    w1: Lanes,
    b1: Vec<i16>,
    /// `B × 2 × hidden`: bucket `b`'s output weights at `[2H·b, 2H·b + 2H)`, side to move's half
    /// first.
    w2: Lanes,
    /// `B` output biases.
    b2: Vec<i32>,
    /// FNV-1a of the file, to tell networks apart (learn files, logs).
    fingerprint: u32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network(hidden {}, buckets {}, king buckets {}, fingerprint {:08x})",
            self.hidden, self.buckets, self.king_buckets, self.fingerprint
        )
    }
}

/// Reads little-endian values off the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("length checked before reading")
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    fn i16s(&mut self, n: usize) -> Vec<i16> {
        (0..n).map(|_| i16::from_le_bytes(self.take())).collect()
    }
}

/// A file's header, every field checked: what the rest of the file must be.
struct Header {
    /// 88 for version 3, 20 for version 2, 16 for version 1.
    len: usize,
    hidden: usize,
    scale: u32,
    buckets: usize,
    king_buckets: usize,
    king_map: [u8; 64],
}

impl Header {
    /// Parses the header at the start of `bytes` (which may go on past it).
    fn parse(bytes: &[u8]) -> Result<Header, String> {
        let version = match bytes.get(..8) {
            Some(m) if m == MAGIC => 1,
            Some(m) if m == MAGIC_V2 => 2,
            Some(m) if m == MAGIC_V3 => 3,
            _ => {
                return Err(
                    "not a Trine network file (no TRINENN1, TRINENN2 or TRINENN3 header)".into(),
                );
            }
        };
        let len = [16, 20, MAX_HEADER][version - 1];
        if bytes.len() < len {
            return Err(format!(
                "file is {} bytes, shorter than its header",
                bytes.len()
            ));
        }
        let mut r = Reader(&bytes[8..]);
        let hidden = r.u32() as usize;
        if !HIDDEN.contains(&hidden) || !hidden.is_multiple_of(8) {
            return Err(format!(
                "hidden size {hidden} is not a multiple of 8 in {}..={}",
                HIDDEN.start(),
                HIDDEN.end()
            ));
        }
        let scale = r.u32();
        if scale == 0 || scale > MAX_SCALE {
            return Err(format!("output scale {scale} is out of range"));
        }
        let buckets = if version >= 2 { r.u32() as usize } else { 1 };
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(format!(
                "output bucket count {buckets} is not in 1..={MAX_BUCKETS}"
            ));
        }
        let (king_buckets, king_map) = if version == 3 {
            let k = r.u32() as usize;
            if !(1..=MAX_KING_BUCKETS).contains(&k) {
                return Err(format!(
                    "king bucket count {k} is not in 1..={MAX_KING_BUCKETS}"
                ));
            }
            let map: [u8; 64] = r.take();
            if let Some(sq) = map.iter().position(|&b| usize::from(b) >= k) {
                return Err(format!(
                    "king square {sq} has bucket {}, not below the king bucket count {k}",
                    map[sq]
                ));
            }
            (k, map)
        } else {
            (1, [0; 64])
        };
        Ok(Header {
            len,
            hidden,
            scale,
            buckets,
            king_buckets,
            king_map,
        })
    }

    /// The length of the whole file, at most [`MAX_FILE_LEN`].
    fn file_len(&self) -> usize {
        let h = self.hidden;
        self.len
            + 2 * (self.king_buckets * INPUTS * h + h + self.buckets * 2 * h)
            + 4 * self.buckets
    }

    /// Why a file of `len` bytes (`None`: more than [`Header::file_len`]) is refused.
    fn wrong_length(&self, len: Option<u64>) -> String {
        let network = format!(
            "a network of hidden size {} with {} output bucket(s) and {} king bucket(s) has {}",
            self.hidden,
            self.buckets,
            self.king_buckets,
            self.file_len()
        );
        match len {
            Some(n) => format!("file is {n} bytes; {network}"),
            None => format!("file goes on past its end: {network} bytes"),
        }
    }
}

/// The bytes of one network file from `source`: its header, then exactly the bytes the header
/// says follow, then a check that nothing does. At most [`MAX_FILE_LEN`] + 1 bytes are read,
/// whatever `source` holds; `len` is the file's length where known, checked before the body is
/// read.
fn read_network_bytes(source: &mut impl Read, len: Option<u64>) -> Result<Vec<u8>, String> {
    let io = |e: std::io::Error| format!("read failed: {e}");
    let mut bytes = Vec::with_capacity(MAX_HEADER);
    source
        .take(MAX_HEADER as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let header = Header::parse(&bytes)?;
    let want = header.file_len();
    if len.is_some_and(|n| n != want as u64) {
        return Err(header.wrong_length(len));
    }
    // (A version-1 header is shorter than MAX_HEADER: its body's first bytes are read already.)
    bytes.reserve_exact(want - bytes.len());
    source
        .take((want - bytes.len()) as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() < want {
        return Err(header.wrong_length(Some(bytes.len() as u64)));
    }
    let mut extra = [0u8; 1];
    if source.read(&mut extra).map_err(io)? != 0 {
        return Err(header.wrong_length(None));
    }
    Ok(bytes)
}

impl Network {
    /// Parses a network file (version 1, 2 or 3); the error says what is wrong with it.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let header = Header::parse(bytes)?;
        if bytes.len() != header.file_len() {
            return Err(header.wrong_length(Some(bytes.len() as u64)));
        }
        let Header {
            len,
            hidden,
            scale,
            buckets,
            king_buckets,
            king_map,
        } = header;
        let mut r = Reader(&bytes[len..]);
        let w1 = r.i16s(king_buckets * INPUTS * hidden);
        let b1 = r.i16s(hidden);
        let w2 = r.i16s(buckets * 2 * hidden);
        let b2 = (0..buckets).map(|_| r.i32()).collect();
        if w2.iter().any(|w| w.unsigned_abs() > MAX_W2 as u16) {
            return Err(format!("an output weight is beyond ±{MAX_W2}"));
        }
        let fingerprint = bytes.iter().fold(0x811C_9DC5u32, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        });
        Ok(Network {
            hidden,
            scale: scale as i32,
            buckets,
            king_buckets,
            king_map,
            w1: Lanes::from_slice(&w1),
            b1,
            w2: Lanes::from_slice(&w2),
            b2,
            fingerprint,
        })
    }

    /// Reads one network from `source` (see [`Network::from_bytes`]) without reading past the
    /// length its header gives: a source that goes on (a device, a stream) is refused once one
    /// byte more has come, never read to its end.
    pub fn read(mut source: impl Read) -> Result<Network, String> {
        Network::from_bytes(&read_network_bytes(&mut source, None)?)
    }

    /// Reads a network file. Only a regular file (or a link to one) is opened: a directory, a
    /// device or a pipe is refused without reading from it, and a file whose length is not the
    /// one its header gives is refused before its body is read.
    pub fn load(path: &Path) -> Result<Network, String> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
        if !meta.is_file() {
            let what = if meta.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            };
            return Err(format!("cannot read {shown}: {what}"));
        }
        let mut file =
            std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
        read_network_bytes(&mut file, Some(meta.len()))
            .and_then(|bytes| Network::from_bytes(&bytes))
            .map_err(|e| format!("{shown}: {e}"))
    }

    /// Hidden size H.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of output buckets B.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Number of king buckets K (1 for a file of version 1 or 2).
    pub fn king_buckets(&self) -> usize {
        self.king_buckets
    }

    /// The king bucket of each king square, on the perspective's own ranks (a1 = 0 … h8 = 63).
    pub fn king_map(&self) -> &[u8; 64] {
        &self.king_map
    }

    /// The first feature of `perspective`'s king bucket on `board` (see
    /// [`features::king_offset`]): 0 for a network of one king bucket.
    #[inline(always)]
    pub fn king_offset(&self, board: &Board, perspective: Color) -> usize {
        if self.king_buckets == 1 {
            0
        } else {
            features::king_offset(&self.king_map, board, perspective)
        }
    }

    /// The file's SCALE: centipawns per unit of the network's output.
    pub fn scale(&self) -> u32 {
        self.scale as u32
    }

    /// The accumulator biases (H values).
    pub fn b1(&self) -> &[i16] {
        &self.b1
    }

    /// The output weights, `B × 2H`: bucket `b`'s at `[2H·b, 2H·b + 2H)`, side to move's half first.
    pub fn w2(&self) -> &[i16] {
        &self.w2
    }

    /// The output biases, one per bucket.
    pub fn b2(&self) -> &[i32] {
        &self.b2
    }

    /// FNV-1a hash of the file's bytes (so it covers every bucket).
    pub fn fingerprint(&self) -> u32 {
        self.fingerprint
    }

    /// The output bucket of `board` ([`bucket`] of its piece count).
    #[inline(always)]
    pub fn bucket_of(&self, board: &Board) -> usize {
        bucket(board.occupied().count(), self.buckets)
    }

    /// The feature weights, `K × INPUTS × H`, feature-major (feature `f`'s row at `[f·H, f·H + H)`,
    /// king bucket `k`'s features at `[k·INPUTS, (k + 1)·INPUTS)`).
    #[inline(always)]
    pub fn w1(&self) -> &[i16] {
        &self.w1
    }

    /// Fills `acc` (H values) with the accumulator of `board` (at most [`features::MAX_PIECES`]
    /// men) from `perspective`'s side: the biases plus the rows of the pieces that differ from the
    /// empty board.
    pub fn refresh(&self, board: &Board, perspective: Color, acc: &mut [i16]) {
        acc.copy_from_slice(&self.b1);
        let views = [(perspective, self.king_offset(board, perspective))];
        let mut subs = [[0u16; features::MAX_PIECES]];
        let mut adds = [[0u16; features::MAX_PIECES]];
        let empty = Board::empty();
        let (_, n) = features::diff(&empty, board, board.occupied(), views, &mut subs, &mut adds);
        simd::update(acc, &self.w1, &[], &adds[0][..n]);
    }

    /// Centipawns for the side to move from its accumulator `us` and the other side's `them`,
    /// through output bucket `bucket` (below [`Network::buckets`]; see [`Network::bucket_of`]),
    /// within ±[`MAX_SCORE`].
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let h = self.hidden;
        let w2 = &self.w2[bucket * 2 * h..(bucket + 1) * 2 * h];
        let s = simd::screlu_pair(us, &w2[..h], them, &w2[h..]);
        // |s| ≤ 2 · 4096 · 255² · 127 < 2^37 and |b2| < 2^31, times SCALE ≤ 10,000: the i64
        // arithmetic is exact for every file the reader accepts; only the result is bounded.
        let v = s / i64::from(QA) + i64::from(self.b2[bucket]);
        let cp = v * i64::from(self.scale) / i64::from(QA * QB);
        cp.clamp(-i64::from(MAX_SCORE), i64::from(MAX_SCORE)) as i32
    }

    /// Evaluates `pos` from scratch (no incremental state), side to move's view, centipawns.
    pub fn evaluate(&self, pos: &shakmaty::Chess) -> i32 {
        let h = self.hidden;
        let mut acc = vec![0i16; 2 * h];
        let (white, black) = acc.split_at_mut(h);
        self.refresh(pos.board(), Color::White, white);
        self.refresh(pos.board(), Color::Black, black);
        let b = self.bucket_of(pos.board());
        match pos.turn() {
            Color::White => self.output(white, black, b),
            Color::Black => self.output(black, white, b),
        }
    }
}
