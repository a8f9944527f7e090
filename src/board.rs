//! The board: a shakmaty [`Chess`] position with an incrementally updated 64-bit Zobrist key, the
//! pieces pinned to a king ([`pinned`], from the lone blockers of a line, [`lone_blockers`]), and
//! the [`Game`] record (root position, moves played, key history since the last irreversible move)
//! that repetition detection and the search start from.

use shakmaty::{
    attacks::{
        aligned, attacks, between, bishop_attacks, king_attacks, knight_attacks, rook_attacks,
    },
    fen::Fen,
    uci::UciMove,
    zobrist::{Zobrist64, ZobristValue},
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Position,
    PositionError, Role, Square,
};

/// Most men a position may hold: the 32 of the starting position, which no game can exceed. A
/// FEN with more is refused, though other excess material (a tenth queen) is let through.
pub const MAX_PIECES: usize = 32;

/// Squares attacked by `color`'s pawns in `pawns` (all at once, by shifting the set).
#[inline]
pub fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    const FILE_H: u64 = FILE_A << 7;
    let b = pawns.0;
    Bitboard(match color {
        Color::White => ((b & !FILE_A) << 7) | ((b & !FILE_H) << 9),
        Color::Black => ((b & !FILE_A) >> 9) | ((b & !FILE_H) >> 7),
    })
}

/// A 64-bit hash of a pawn structure (white's and black's pawns): the pawn hash table of the
/// hand-written evaluation and the search's correction history take their slots from its top bits.
#[inline]
pub fn pawn_hash(white_pawns: Bitboard, black_pawns: Bitboard) -> u64 {
    white_pawns.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ black_pawns.0.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

/// The squares from which each of our pieces (pawn, knight, bishop, rook, queen, king) would
/// attack the opponent's king, and our pieces that stand alone between one of our sliders and
/// it: what [`Board::gives_check_by`] reads.
#[derive(Clone, Copy, Debug)]
pub struct CheckSquares {
    king: Option<Square>,
    by_role: [Bitboard; 6],
    discoverers: Bitboard,
}

/// A position plus its Zobrist key, kept in step on every move (copy-make).
#[derive(Clone, Debug)]
pub struct Board {
    pos: Chess,
    key: u64,
    /// The counter-move slot of the move that led here (see [`Board::last_slot`]).
    last: u16,
}

/// How many values [`Board::last_slot`] takes: 0 (no move) and one per colour, role and target
/// square.
pub const LAST_SLOTS: usize = 1 + 2 * 6 * 64;

/// The men of either colour that stand alone between `target` and a slider that would otherwise
/// reach it along its line: a rook or queen of `rook_snipers` on a rank or file, a bishop or queen
/// of `bishop_snipers` on a diagonal. Behind [`pinned`] and the evaluation's pins against a queen.
pub fn lone_blockers(
    b: &shakmaty::Board,
    target: Square,
    rook_snipers: Bitboard,
    bishop_snipers: Bitboard,
) -> Bitboard {
    let snipers = (rook_attacks(target, Bitboard(0)) & rook_snipers)
        | (bishop_attacks(target, Bitboard(0)) & bishop_snipers);
    let mut blockers = Bitboard(0);
    for sniper in snipers {
        let between = between(target, sniper) & b.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
}

/// The pieces of `color` pinned to its king on `king`: each is the only piece between the king and
/// an enemy rook, bishop or queen that moves along that line. Used by the quiescence move
/// generator (a pinned piece stays on its line) and by the evaluation (pinned pieces by role).
pub fn pinned(b: &shakmaty::Board, color: Color, king: Square) -> Bitboard {
    let theirs = b.by_color(!color);
    lone_blockers(
        b,
        king,
        b.rooks_and_queens() & theirs,
        b.bishops_and_queens() & theirs,
    ) & b.by_color(color)
}

/// The Zobrist key of a position computed from scratch (the reference the incremental key must match).
pub fn full_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn castling_key(pos: &Chess) -> u64 {
    let castles = pos.castles();
    if castles.is_empty() {
        return 0;
    }
    let mut key = 0u64;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    key
}

fn ep_key(pos: &Chess) -> u64 {
    match pos.ep_square(EnPassantMode::Legal) {
        Some(sq) => Zobrist64::zobrist_for_en_passant_file(sq.file()).0,
        None => 0,
    }
}

#[inline]
fn piece_key(sq: Square, role: Role, color: Color) -> u64 {
    Zobrist64::zobrist_for_piece(sq, role.of(color)).0
}

impl Board {
    /// Wraps a position, computing its key once.
    pub fn new(pos: Chess) -> Board {
        let key = full_key(&pos);
        Board { pos, key, last: 0 }
    }

    /// The slot of the move that led to this position in a counter-move table: 1 + 64 · (6 ·
    /// mover's colour + role − 1) + target square (a castling move counted as the king's, to the
    /// rook's square); 0 after a null move or for a position not reached by [`Board::play`].
    /// Always below [`LAST_SLOTS`].
    #[inline]
    pub fn last_slot(&self) -> usize {
        usize::from(self.last)
    }

    /// The standard starting position.
    pub fn startpos() -> Board {
        Board::new(Chess::default())
    }

    /// Parses a FEN (X-FEN and Shredder-FEN castling accepted when `chess960` is set).
    /// Invalid castling rights and en-passant squares are dropped, as GUIs expect; positions that
    /// cannot be played (no king, pawns on the back rank, the side not to move in check, more than
    /// [`MAX_PIECES`] men...) are refused.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Board, String> {
        let fen: Fen = fen
            .trim()
            .parse()
            .map_err(|e| format!("invalid FEN '{}': {e}", fen.trim()))?;
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let pos: Chess = fen
            .into_position(mode)
            .or_else(PositionError::ignore_invalid_castling_rights)
            .or_else(PositionError::ignore_invalid_ep_square)
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| format!("illegal position: {e}"))?;
        let men = pos.board().occupied().count();
        if men > MAX_PIECES {
            return Err(format!(
                "illegal position: {men} men, more than the {MAX_PIECES} a game can hold"
            ));
        }
        Ok(Board::new(pos))
    }

    /// The position.
    #[inline]
    pub fn pos(&self) -> &Chess {
        &self.pos
    }

    /// The 64-bit Zobrist key (shakmaty's Polyglot-compatible values, legal en-passant squares only).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// True when the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.pos.is_check()
    }

    /// Squares `color`'s men attack, pins ignored (pawns by their captures only).
    #[inline]
    pub fn attacked_by(&self, color: Color) -> Bitboard {
        let board = self.pos.board();
        let ours = board.by_color(color);
        let occupied = board.occupied();
        let mut a = pawn_attacks(color, board.pawns() & ours);
        for sq in board.knights() & ours {
            a |= knight_attacks(sq);
        }
        for sq in board.bishops_and_queens() & ours {
            a |= bishop_attacks(sq, occupied);
        }
        for sq in board.rooks_and_queens() & ours {
            a |= rook_attacks(sq, occupied);
        }
        for sq in board.kings() & ours {
            a |= king_attacks(sq);
        }
        a
    }

    /// Plays a legal move, returning the new board (copy-make) with its key updated incrementally.
    #[inline]
    pub fn play(&self, m: Move) -> Board {
        let us = self.pos.turn();
        let mut key = self.key ^ ep_key(&self.pos) ^ Zobrist64::zobrist_for_white_turn().0;
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                key ^= piece_key(from, role, us) ^ piece_key(to, promotion.unwrap_or(role), us);
                if let Some(captured) = capture {
                    key ^= piece_key(to, captured, !us);
                }
            }
            Move::EnPassant { from, to } => {
                let victim = Square::from_coords(to.file(), from.rank());
                key ^= piece_key(from, Role::Pawn, us)
                    ^ piece_key(to, Role::Pawn, us)
                    ^ piece_key(victim, Role::Pawn, !us);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                key ^= piece_key(king, Role::King, us)
                    ^ piece_key(rook, Role::Rook, us)
                    ^ piece_key(side.king_to(us), Role::King, us)
                    ^ piece_key(side.rook_to(us), Role::Rook, us);
            }
            Move::Put { .. } => unreachable!("drops do not exist in standard chess"),
        }
        let mut pos = self.pos.clone();
        pos.play_unchecked(m);
        // Castling rights change on few moves; their keys are only looked up when they do.
        if pos.castles().castling_rights() != self.pos.castles().castling_rights() {
            key ^= castling_key(&self.pos) ^ castling_key(&pos);
        }
        key ^= ep_key(&pos);
        let role = match m {
            Move::Castle { .. } => Role::King,
            _ => m.role(),
        };
        let last = 1 + 64 * (6 * us as u16 + role as u16 - 1) + u16::from(m.to());
        Board { pos, key, last }
    }

    /// What a move of the side to move needs to check the opponent's king ([`CheckSquares`]),
    /// worked out once for a node whose moves are all asked [`Board::gives_check_by`].
    pub fn check_squares(&self) -> CheckSquares {
        let board = self.pos.board();
        let us = self.pos.turn();
        let Some(king) = board.king_of(!us) else {
            return CheckSquares {
                king: None,
                by_role: [Bitboard::EMPTY; 6],
                discoverers: Bitboard::EMPTY,
            };
        };
        let occupied = board.occupied();
        let (diagonal, straight) = (bishop_attacks(king, occupied), rook_attacks(king, occupied));
        let ours = board.by_color(us);
        CheckSquares {
            king: Some(king),
            by_role: [
                shakmaty::attacks::pawn_attacks(!us, king),
                knight_attacks(king),
                diagonal,
                straight,
                diagonal | straight,
                Bitboard::EMPTY,
            ],
            discoverers: lone_blockers(
                board,
                king,
                board.rooks_and_queens() & ours,
                board.bishops_and_queens() & ours,
            ) & ours,
        }
    }

    /// [`Board::gives_check`] with the node's [`CheckSquares`]: a plain move (no promotion,
    /// castling or en passant) checks when its piece lands on a square from which it attacks the
    /// king, or when it leaves a line between one of our sliders and the king. The board the
    /// move lands on cannot differ on those lines: a slider moving away from the king along
    /// one already had a piece between it and the king, or the opponent would be in check now.
    /// Other moves ask [`Board::gives_check`].
    #[inline]
    pub fn gives_check_by(&self, m: Move, checks: &CheckSquares) -> bool {
        match (m, checks.king) {
            (
                Move::Normal {
                    role,
                    from,
                    to,
                    promotion: None,
                    ..
                },
                Some(king),
            ) => {
                checks.by_role[role as usize - 1].contains(to)
                    || (checks.discoverers.contains(from) && !aligned(from, to, king))
            }
            _ => self.gives_check(m),
        }
    }

    /// True when the legal move `m` checks the opponent, found without playing it: the moved (or
    /// promoted) piece attacks the king from its target square, or the move uncovers one of our
    /// sliders on it. Castling and en passant, rare and intricate, are played to find out.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = m
        else {
            let mut pos = self.pos.clone();
            pos.play_unchecked(m);
            return pos.is_check();
        };
        let board = self.pos.board();
        let us = self.pos.turn();
        let Some(king) = board.king_of(!us) else {
            return false;
        };
        let occupied = (board.occupied() ^ from) | to;
        if attacks(to, promotion.unwrap_or(role).of(us), occupied).contains(king) {
            return true;
        }
        let ours = board.by_color(us).without(from);
        (rook_attacks(king, occupied) & board.rooks_and_queens() & ours).any()
            || (bishop_attacks(king, occupied) & board.bishops_and_queens() & ours).any()
    }

    /// Passes the move (null move); `None` when in check.
    pub fn play_null(&self) -> Option<Board> {
        if self.in_check() {
            return None;
        }
        let key = self.key ^ ep_key(&self.pos) ^ Zobrist64::zobrist_for_white_turn().0;
        let pos = self.pos.clone().swap_turn().ok()?;
        Some(Board { pos, key, last: 0 })
    }

    /// True when the game is drawn by the fifty-move rule or by insufficient material
    /// (repetitions need the key history, see [`Game`] and the search's key stack).
    pub fn is_rule_draw(&self) -> bool {
        (self.pos.halfmoves() >= 100 && !self.pos.is_checkmate())
            || self.pos.is_insufficient_material()
    }
}

/// Castling notation for a game: `e1g1` (standard) or king-takes-rook (`UCI_Chess960`).
pub fn castling_mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

/// Parses a UCI move text in a position, accepting both castling notations.
pub fn parse_uci_move(pos: &Chess, text: &str) -> Result<Move, String> {
    let uci: UciMove = text
        .parse()
        .map_err(|_| format!("unparsable move '{text}'"))?;
    let m = uci
        .to_move(pos)
        .map_err(|_| format!("illegal move '{text}'"))?;
    if pos.is_legal(m) {
        Ok(m)
    } else {
        Err(format!("illegal move '{text}'"))
    }
}

/// Formats a move in UCI notation for the given castling mode.
pub fn move_to_uci(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

/// A game: the position the GUI set up, the moves played from it, and the keys of every position
/// since the last irreversible move (capture, pawn move, castling-rights change), oldest first,
/// the current position excluded.
#[derive(Clone, Debug)]
pub struct Game {
    /// The current position.
    pub board: Board,
    /// Keys of earlier positions that can still repeat.
    pub history: Vec<u64>,
    /// Number of moves played from the set-up position (for learning and reporting).
    pub moves_played: usize,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Board::startpos())
    }
}

impl Game {
    /// A game starting from `board` with no history.
    pub fn new(board: Board) -> Game {
        Game {
            board,
            history: Vec::new(),
            moves_played: 0,
        }
    }

    /// Plays one legal move, keeping the key history since the last irreversible move.
    pub fn push(&mut self, m: Move) {
        let next = self.board.play(m);
        if next.pos().halfmoves() == 0 {
            self.history.clear();
        } else {
            self.history.push(self.board.key());
        }
        self.board = next;
        self.moves_played += 1;
    }

    /// Builds a game from a start position and UCI move texts; the first bad move is an error
    /// naming it, and nothing is returned (the caller keeps its previous game).
    pub fn from_moves(board: Board, moves: &[&str]) -> Result<Game, String> {
        let mut game = Game::new(board);
        for (i, text) in moves.iter().enumerate() {
            let m = parse_uci_move(game.board.pos(), text)
                .map_err(|e| format!("{e} (move {} of the list)", i + 1))?;
            game.push(m);
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn the_last_move_slot_names_the_piece_and_target_of_the_move_played() {
        let root = Board::startpos();
        assert_eq!(root.last_slot(), 0);
        let mut slots = std::collections::HashSet::new();
        for m in root.pos().legal_moves() {
            let child = root.play(m);
            assert!((1..=768).contains(&child.last_slot()));
            assert!(
                slots.insert(child.last_slot()),
                "{m}: slots differ per piece and target"
            );
            assert_eq!(child.play_null().map(|n| n.last_slot()), Some(0));
        }
        // The same piece to the same square, by either colour, fills different slots.
        let white = root.play(parse_uci_move(root.pos(), "g1f3").unwrap());
        let black = white.play(parse_uci_move(white.pos(), "g8f6").unwrap());
        assert_ne!(white.last_slot(), black.last_slot());
        // Castling counts as the king's move.
        let b = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
        let castle = b.play(parse_uci_move(b.pos(), "e1g1").unwrap());
        let king = b.play(parse_uci_move(b.pos(), "e1f1").unwrap());
        assert_eq!(castle.last_slot() - king.last_slot(), 2, "h1 against f1");
    }

    #[test]
    fn a_fen_may_have_too_much_material_but_not_more_than_32_men() {
        let queens = "qqqqqqqk/pppppppp/8/8/8/8/PPPPPPPP/QQQQQQQK w - - 0 1";
        let b = Board::from_fen(queens, false).expect("too much material is let through");
        assert_eq!(b.pos().board().occupied().count(), MAX_PIECES);
        let pawns = "7k/pppppppp/pppppppp/8/8/PPPPPPPP/PPPPPPPP/K7 w - - 0 1";
        let err = Board::from_fen(pawns, false).expect_err("34 men");
        assert!(err.contains("34 men"), "{err}");
    }

    fn playout(fen: &str, chess960: bool, seed: u64, plies: usize) {
        let mut board = Board::from_fen(fen, chess960).unwrap();
        let mut rng = Rng::new(seed);
        for _ in 0..plies {
            let moves = board.pos().legal_moves();
            if moves.is_empty() {
                break;
            }
            let checks = board.check_squares();
            for &m in &moves {
                assert_eq!(board.gives_check(m), board.play(m).in_check(), "{m:?}");
                assert_eq!(
                    board.gives_check_by(m, &checks),
                    board.gives_check(m),
                    "{m:?}"
                );
            }
            let m = moves[rng.below(moves.len())];
            board = board.play(m);
            assert_eq!(board.key(), full_key(board.pos()), "after {m:?}");
            if let Some(null) = board.play_null() {
                assert_eq!(null.key(), full_key(null.pos()));
            }
        }
    }

    #[test]
    fn incremental_key_and_gives_check_match_the_played_position() {
        for seed in 1..200u64 {
            playout(
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                false,
                seed * 7919,
                80,
            );
            playout(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                false,
                seed,
                120,
            );
            playout(
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                true,
                seed,
                100,
            );
        }
    }

    #[test]
    fn attacked_squares_are_those_a_man_of_that_colour_attacks() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        ] {
            let board = Board::from_fen(fen, false).unwrap();
            let b = board.pos().board();
            for color in Color::ALL {
                let attacked = board.attacked_by(color);
                for sq in Square::ALL {
                    let want = b.attacks_to(sq, color, b.occupied()).any();
                    assert_eq!(attacked.contains(sq), want, "{fen} {color:?} {sq}");
                }
            }
        }
        assert!(Board::startpos()
            .attacked_by(Color::White)
            .contains(Square::F3));
        assert!(!Board::startpos()
            .attacked_by(Color::White)
            .contains(Square::E4));
    }

    #[test]
    fn gives_check_finds_discovered_promotion_castling_and_en_passant_checks() {
        let cases = [
            // A knight move uncovering the rook on e1, and a king move that uncovers nothing.
            ("4k3/8/8/8/4N3/8/8/4RK2 w - - 0 1", "e4c5", true),
            ("4k3/8/8/8/4N3/8/8/4RK2 w - - 0 1", "f1g1", false),
            // Promotions: the new piece decides.
            ("8/4P3/3k4/8/8/8/8/K7 w - - 0 1", "e7e8n", true),
            ("8/4P3/3k4/8/8/8/8/K7 w - - 0 1", "e7e8q", false),
            ("6k1/4P3/8/8/8/8/8/K7 w - - 0 1", "e7e8q", true),
            ("6k1/4P3/8/8/8/8/8/K7 w - - 0 1", "e7e8n", false),
            // Castling: the rook lands on the king's file or does not.
            ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", true),
            ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", false),
            // En passant uncovering a diagonal through either pawn, or a rank through both.
            ("8/1k6/8/3pP3/8/8/8/K6B w - d6 0 1", "e5d6", true),
            ("7k/8/8/3pP3/8/8/8/B3K3 w - d6 0 1", "e5d6", true),
            ("8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1", "e5d6", true),
            ("8/8/8/1k1pP3/8/8/8/K6B w - d6 0 1", "e5d6", false),
        ];
        for (fen, uci, checks) in cases {
            let board = Board::from_fen(fen, false).unwrap();
            let m = parse_uci_move(board.pos(), uci).unwrap();
            assert_eq!(board.play(m).in_check(), checks, "{fen} {uci} (played)");
            assert_eq!(board.gives_check(m), checks, "{fen} {uci}");
            let squares = board.check_squares();
            assert_eq!(
                board.gives_check_by(m, &squares),
                checks,
                "{fen} {uci} (by squares)"
            );
        }
    }

    #[test]
    fn game_history_resets_on_irreversible_moves() {
        let game = Game::from_moves(Board::startpos(), &["g1f3", "g8f6", "f3g1", "f6g8"]).unwrap();
        assert_eq!(game.history.len(), 4);
        assert!(game.history.contains(&game.board.key()));
        let game = Game::from_moves(Board::startpos(), &["e2e4", "e7e5"]).unwrap();
        assert!(game.history.is_empty());
    }

    #[test]
    fn bad_moves_and_fens_are_errors() {
        assert!(Game::from_moves(Board::startpos(), &["e2e5"]).is_err());
        assert!(Game::from_moves(Board::startpos(), &["zz"]).is_err());
        assert!(Board::from_fen("not a fen", false).is_err());
        assert!(Board::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", false).is_err());
        assert!(Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1", false).is_ok());
    }
}
