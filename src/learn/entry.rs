//! One learned position ([`LearnEntry`]) and where it came from ([`Origin`]).

use std::fmt;
use std::str::FromStr;

use shakmaty::packed::PackedSetup;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Move, Position, PositionError};

use super::LearnError;
use crate::board::full_key;
use crate::tt::PackedMove;

/// Where a learned entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Origin {
    /// Found by Trine's own search (a root score drop).
    Search = 0,
    /// Read from an EPD file.
    Imported = 1,
    /// Entered by a person (an annotation that should win over imported data).
    Human = 2,
}

impl Origin {
    /// All origins, in their numeric order.
    pub const ALL: [Origin; 3] = [Origin::Search, Origin::Imported, Origin::Human];

    /// The name used in files and messages: `search`, `imported` or `human`.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Search => "search",
            Origin::Imported => "imported",
            Origin::Human => "human",
        }
    }

    /// The origin with this name (case-insensitive), if any.
    pub fn from_name(name: &str) -> Option<Origin> {
        Origin::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The origin stored as this byte, if any.
    pub fn from_u8(b: u8) -> Option<Origin> {
        Origin::ALL.get(usize::from(b)).copied()
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Origin {
    type Err = LearnError;

    fn from_str(s: &str) -> Result<Origin, LearnError> {
        Origin::from_name(s).ok_or_else(|| LearnError::UnknownOrigin(s.to_string()))
    }
}

/// One learned position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LearnEntry {
    /// [`crate::board::full_key`] of the position.
    pub key: u64,
    /// Depth the score was searched to.
    pub depth: u8,
    /// Exact score in centipawns (or a mate score), from the side to move's view.
    pub score: i16,
    /// Best move as [`PackedMove`]`.0` (0 = none).
    pub best_move: u16,
    /// Ply of the game the position occurred at (0 when unknown).
    pub game_ply: u16,
    /// Where the entry came from.
    pub origin: Origin,
    /// The position itself, for export and display.
    pub setup: PackedSetup,
}

impl LearnEntry {
    /// Builds an entry for `pos`. (A position shakmaty cannot pack, which a legal `Chess` never
    /// is, gets an empty setup and [`LearnEntry::position`] then fails.)
    pub fn from_position(
        pos: &Chess,
        depth: u8,
        score: i16,
        best_move: Option<Move>,
        game_ply: u16,
        origin: Origin,
    ) -> LearnEntry {
        let setup = PackedSetup::pack_standard(&pos.to_setup(EnPassantMode::Legal))
            .unwrap_or_else(|_| PackedSetup::empty());
        LearnEntry {
            key: full_key(pos),
            depth,
            score,
            best_move: best_move.map_or(0, |m| PackedMove::new(m).0),
            game_ply,
            origin,
            setup,
        }
    }

    /// Unpacks the stored position (standard castling if it fits, Chess960 otherwise) and
    /// checks that it hashes to `key`.
    pub fn position(&self) -> Result<Chess, LearnError> {
        let bad = |reason: String| LearnError::BadEntry {
            key: self.key,
            reason,
        };
        let setup = self
            .setup
            .unpack_standard()
            .map_err(|e| bad(format!("cannot unpack: {e}")))?;
        let pos = match Chess::from_setup(setup.clone(), CastlingMode::Standard) {
            Ok(p) => Ok(p),
            Err(_) => Chess::from_setup(setup, CastlingMode::Chess960),
        };
        let pos = pos
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| bad(format!("illegal position: {e}")))?;
        if full_key(&pos) != self.key {
            return Err(bad(format!(
                "the stored position hashes to {:016x}",
                full_key(&pos)
            )));
        }
        Ok(pos)
    }

    /// The best move as a legal move of `pos` (the entry's own position), if there is one.
    pub fn best_move_in(&self, pos: &Chess) -> Option<Move> {
        let packed = PackedMove(self.best_move);
        if packed.is_none() {
            return None;
        }
        pos.legal_moves().into_iter().find(|&m| packed.matches(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::testutil::sample;

    #[test]
    fn origin_names_round_trip() {
        for o in Origin::ALL {
            assert_eq!(Origin::from_name(o.name()), Some(o));
            assert_eq!(o.name().parse::<Origin>().ok(), Some(o));
            assert_eq!(Origin::from_u8(o as u8), Some(o));
        }
        assert_eq!(Origin::from_name("Human"), Some(Origin::Human));
        assert!(matches!(
            "book".parse::<Origin>(),
            Err(LearnError::UnknownOrigin(name)) if name == "book"
        ));
        assert_eq!(Origin::from_u8(3), None);
    }

    #[test]
    fn entry_position_and_move_round_trip() {
        for e in sample(200, 7) {
            let pos = e.position().expect("position unpacks");
            assert_eq!(full_key(&pos), e.key);
            let m = e.best_move_in(&pos).expect("best move is legal");
            assert_eq!(PackedMove::new(m).0, e.best_move);
        }
        // Castling rights and a legal en passant square survive packing.
        let fen = "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1";
        let pos = crate::board::Board::from_fen(fen, false)
            .expect("fen")
            .pos()
            .clone();
        let e = LearnEntry::from_position(&pos, 3, 10, None, 0, Origin::Human);
        assert_eq!(e.position().expect("unpacks"), pos);
        assert_eq!(e.best_move_in(&pos), None);
    }
}
