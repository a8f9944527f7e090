//! Move ordering: static exchange evaluation (SEE), move scores (TT move, then winning and equal
//! captures by MVV-LVA, promotions, killers, the counter-move of the opponent's last move, quiet
//! moves by history, losing captures last), and a selection-sort picker over a stack-allocated
//! move list.

use arrayvec::ArrayVec;
use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Move, MoveList, Position, Role};

use super::history::History;
use crate::board::Board;
use crate::eval::see_value;
use crate::tt::PackedMove;

const TT_MOVE: i32 = 4_000_000;
const GOOD_CAPTURE: i32 = 2_000_000;
const KILLER_1: i32 = 1_000_000;
const KILLER_2: i32 = 999_000;
const COUNTER: i32 = 998_000;
const BAD_CAPTURE: i32 = -2_000_000;

/// Static exchange evaluation of `m` on its target square: the material balance of the best
/// sequence of captures there, with x-rays (attacks are recomputed as pieces leave the square's lines).
pub fn see(pos: &Chess, m: Move) -> i32 {
    let (from, to, mut attacker, first_gain, mut occ) = match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let promo_gain = promotion.map_or(0, |p| see_value(p) - see_value(Role::Pawn));
            (
                from,
                to,
                promotion.unwrap_or(role),
                capture.map_or(0, see_value) + promo_gain,
                pos.board().occupied(),
            )
        }
        Move::EnPassant { from, to } => {
            let victim = shakmaty::Square::from_coords(to.file(), from.rank());
            (
                from,
                to,
                Role::Pawn,
                see_value(Role::Pawn),
                pos.board().occupied() ^ victim,
            )
        }
        _ => return 0,
    };
    let board = pos.board();
    let mut gain = [0i32; 40];
    gain[0] = first_gain;
    let mut d = 0usize;
    let mut side = pos.turn();
    let mut from_sq = Some(from);
    while let Some(sq) = from_sq {
        d += 1;
        if d >= gain.len() {
            break;
        }
        gain[d] = see_value(attacker) - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 {
            break;
        }
        occ ^= sq;
        side = !side;
        let attackers = board.attacks_to(to, side, occ) & occ;
        from_sq = None;
        for role in Role::ALL {
            if let Some(s) = (attackers & board.by_role(role)).first() {
                from_sq = Some(s);
                attacker = role;
                break;
            }
        }
    }
    while d > 1 {
        d -= 1;
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
    }
    gain[0]
}

/// True when no opponent man can take the piece that the quiet move `m` lands, so that its SEE is
/// 0: its target is not among `threats` (the squares the opponent attacks) and leaving its origin
/// opens no line from an opponent slider to the target. Cheaper than [`see`], and exact.
#[inline]
pub fn quiet_target_is_safe(pos: &Chess, threats: Bitboard, m: Move) -> bool {
    let (Some(from), to) = (m.from(), m.to()) else {
        return false;
    };
    if threats.contains(to) {
        return false;
    }
    let board = pos.board();
    let occupied = board.occupied() ^ from;
    let theirs = board.by_color(!pos.turn());
    (bishop_attacks(to, occupied) & board.bishops_and_queens() & theirs).is_empty()
        && (rook_attacks(to, occupied) & board.rooks_and_queens() & theirs).is_empty()
}

/// True if the move wins or keeps material by SEE (cheap when the victim outvalues the attacker).
#[inline]
pub fn see_non_negative(pos: &Chess, m: Move) -> bool {
    if let Some(victim) = m.capture() {
        if see_value(victim) >= see_value(m.role()) {
            return true;
        }
    }
    see(pos, m) >= 0
}

/// MVV-LVA score of a capture or promotion: the most valuable victim (a promotion's new piece
/// counted as one) first, then the least valuable attacker.
#[inline]
fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, see_value) + m.promotion().map_or(0, see_value);
    victim * 16 - see_value(m.role()) / 16
}

/// Ordering score of a capture or queen promotion (MVV-LVA, with SEE deciding good or bad).
#[inline]
fn tactical_score(pos: &Chess, m: Move) -> i32 {
    let mvv_lva = mvv_lva(m);
    if see_non_negative(pos, m) {
        GOOD_CAPTURE + mvv_lva
    } else {
        BAD_CAPTURE + mvv_lva
    }
}

/// The sort key of the move at `pos` with ordering score `score`: the score above, the position
/// below (inverted, so that of equal scores the first wins). The greatest key is then the first
/// of the highest scores and says where it is, so a plain maximum, which the compiler
/// vectorises, picks the next move. Scores lie within ±4.2 M, so the key fits an `i32`.
#[inline(always)]
fn sort_key(score: i32, pos: usize) -> i32 {
    debug_assert!(pos < 256 && score.unsigned_abs() < 1 << 23);
    (score << 8) | (255 - pos as i32)
}

/// The [`sort_key`]s of a picker's moves, in step with its list. An `ArrayVec` is not initialised
/// beyond its length, so a node writes only as many keys as it has moves.
pub type SortKeys = ArrayVec<i32, 256>;

/// A list of legal moves with ordering scores, handed out best first. The list and its keys stay
/// on the caller's stack (borrowed, reordered in place): a `MoveList` is a 2 KB array and the
/// keys 1 KB, and moving them into the picker cost a `memcpy` per node (and a zeroed key array
/// a `memset`).
pub struct MovePicker<'a> {
    moves: &'a mut MoveList,
    keys: &'a mut SortKeys,
    next: usize,
    /// The squares the side not to move attacks, the history's threat index (empty for a
    /// quiescence picker, which scores no quiet move).
    threats: Bitboard,
}

impl<'a> MovePicker<'a> {
    /// All legal moves of a main-search node `b`: the history reads the squares the opponent
    /// attacks there ([`MovePicker::threats`]) and the counter-move the move that led to `b`.
    #[inline]
    pub fn new(
        b: &Board,
        moves: &'a mut MoveList,
        keys: &'a mut SortKeys,
        tt_move: PackedMove,
        history: &History,
        ply: usize,
    ) -> MovePicker<'a> {
        let pos = b.pos();
        let turn = pos.turn();
        let threats = b.attacked_by(!turn);
        let killers = history.killers(ply);
        let counter = history.counter(b.last_slot());
        keys.clear();
        for (i, &m) in moves.iter().enumerate() {
            // The move's fields, read once.
            let (from, to, capture, promotion) = match m {
                Move::Normal {
                    from,
                    to,
                    capture,
                    promotion,
                    ..
                } => (from, to, capture, promotion),
                Move::EnPassant { from, to } => (from, to, Some(Role::Pawn), None),
                Move::Castle { king, rook } => (king, rook, None, None),
                Move::Put { .. } => unreachable!("drops do not exist in standard chess"),
            };
            let packed = PackedMove::of(from, to, promotion);
            let score = if packed == tt_move {
                TT_MOVE
            } else if capture.is_some() || promotion == Some(Role::Queen) {
                tactical_score(pos, m)
            } else if packed == killers[0] {
                KILLER_1
            } else if packed == killers[1] {
                KILLER_2
            } else if packed == counter {
                COUNTER
            } else if promotion.is_some() {
                // Under-promotions: rarely good.
                BAD_CAPTURE - 1000
            } else {
                history.score_of(turn, threats, from, to)
            };
            // SAFETY: one key a move, and a move list holds at most 256, the keys' capacity.
            unsafe { keys.push_unchecked(sort_key(score, i)) };
        }
        MovePicker {
            moves,
            keys,
            next: 0,
            threats,
        }
    }

    /// Captures and promotions of a quiescence node, MVV-LVA ordered; `moves` holds only those
    /// (as [`super::tactical::captures_and_promotions`] generates them).
    #[inline]
    pub fn tactical(
        moves: &'a mut MoveList,
        keys: &'a mut SortKeys,
        tt_move: PackedMove,
    ) -> MovePicker<'a> {
        debug_assert!(moves.iter().all(|m| m.is_capture() || m.is_promotion()));
        keys.clear();
        for (i, &m) in moves.iter().enumerate() {
            let score = if tt_move.matches(m) {
                TT_MOVE
            } else {
                mvv_lva(m)
            };
            // SAFETY: one key a move, and a move list holds at most 256, the keys' capacity.
            unsafe { keys.push_unchecked(sort_key(score, i)) };
        }
        MovePicker {
            moves,
            keys,
            next: 0,
            threats: Bitboard::EMPTY,
        }
    }

    /// The squares the opponent attacks, by which the history scored the quiet moves.
    pub fn threats(&self) -> Bitboard {
        self.threats
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// True when the moves still to come hold no candidate cutoff move (TT move, winning or equal
    /// capture, queen promotion, killer, counter-move): what is left is quiet moves and losing
    /// captures.
    pub fn only_non_candidates_left(&self) -> bool {
        self.keys[self.next..self.moves.len()]
            .iter()
            .all(|&k| k < sort_key(COUNTER, 255))
    }

    /// True when every move has been handed out.
    pub fn is_exhausted(&self) -> bool {
        self.next >= self.moves.len()
    }

    /// True when there are no moves.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The next best move and its ordering score.
    #[inline(always)]
    pub fn next_move(&mut self) -> Option<(Move, i32)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        // The greatest key: the first of the highest scores, and where it is.
        let key = self.keys[self.next..n]
            .iter()
            .copied()
            .max()
            .unwrap_or(i32::MIN);
        let best = 255 - (key & 255) as usize;
        let i = self.next;
        self.next += 1;
        // The move at `i` goes where the best was; both keys keep their scores.
        self.moves.swap(i, best);
        self.keys[best] = sort_key(self.keys[i] >> 8, best);
        Some((self.moves[i], key >> 8))
    }
}

/// True if an ordering score belongs to a killer move.
#[inline]
pub fn is_killer_score(score: i32) -> bool {
    score == KILLER_1 || score == KILLER_2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{parse_uci_move, Board};

    fn see_of(fen: &str, mv: &str) -> i32 {
        let b = Board::from_fen(fen, false).unwrap();
        let m = parse_uci_move(b.pos(), mv).unwrap();
        see(b.pos(), m)
    }

    #[test]
    fn see_values() {
        // Rook takes an undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
        // Knight takes a pawn defended by a pawn... loses the knight for a pawn.
        assert_eq!(
            see_of(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            100 - 320
        );
        // Pawn takes a defended pawn: even trade.
        assert_eq!(see_of("4k3/8/3p4/4p3/3P4/8/8/4K3 w - - 0 1", "d4e5"), 0);
        // Queen takes a rook defended behind an x-ray: QxR, RxQ, RxR.
        assert_eq!(
            see_of("3r3k/3r4/8/8/8/8/3Q4/3RK3 w - - 0 1", "d2d7"),
            500 - 950 + 500
        );
    }

    #[test]
    fn a_safe_quiet_target_means_a_see_of_zero() {
        // Every quiet move of a few positions: "safe" only where SEE is 0, and for most such.
        let mut rng = crate::rng::Rng::new(17);
        let (mut safe, mut zero) = (0, 0);
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let mut b = Board::from_fen(fen, false).unwrap();
            for _ in 0..60 {
                let moves = b.pos().legal_moves();
                if moves.is_empty() {
                    break;
                }
                let threats = b.attacked_by(!b.pos().turn());
                for &m in moves
                    .iter()
                    .filter(|m| !m.is_capture() && !m.is_promotion())
                {
                    let is_zero = see(b.pos(), m) == 0;
                    if quiet_target_is_safe(b.pos(), threats, m) {
                        assert!(is_zero, "{m:?} in {:?}", b.pos().board());
                        safe += 1;
                    }
                    zero += usize::from(is_zero);
                }
                b = b.play(moves[rng.below(moves.len())]);
            }
        }
        assert!(safe > zero / 2, "{safe} safe of {zero} with SEE 0");
        // The rook on e2 stands between the black rook on e1 and e4: e4 is not attacked now,
        // but it is once the rook has left e2.
        let b = Board::from_fen("4k3/4p3/8/8/8/8/4R2K/4r3 w - - 0 1", false).unwrap();
        let m = parse_uci_move(b.pos(), "e2e4").unwrap();
        let threats = b.attacked_by(!b.pos().turn());
        assert!(!threats.contains(m.to()));
        assert!(!quiet_target_is_safe(b.pos(), threats, m));
        assert!(see(b.pos(), m) < 0);
    }

    #[test]
    fn picker_orders_tt_move_then_captures() {
        let b = Board::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        )
        .unwrap();
        let h = History::new();
        let tt = parse_uci_move(b.pos(), "a2a3").unwrap();
        let mut moves = b.pos().legal_moves();
        let mut keys = SortKeys::new();
        let mut p = MovePicker::new(&b, &mut moves, &mut keys, PackedMove::new(tt), &h, 0);
        assert_eq!(p.len(), 48);
        assert_eq!(p.next_move().map(|x| x.0), Some(tt));
        let (second, _) = p.next_move().unwrap();
        assert!(second.is_capture());
        let mut count = 2;
        while p.next_move().is_some() {
            count += 1;
        }
        assert_eq!(count, 48);
    }

    #[test]
    fn equal_scores_come_out_in_list_order_and_scores_come_back_whole() {
        // No history, no killers: every quiet move of the start position scores 0, and they
        // leave in the order they were generated; a negative score survives its sort key.
        let b = Board::startpos();
        let h = History::new();
        let mut moves = b.pos().legal_moves();
        let listed = moves.clone();
        let mut keys = SortKeys::new();
        let mut p = MovePicker::new(&b, &mut moves, &mut keys, PackedMove::NONE, &h, 0);
        let mut out = Vec::new();
        while let Some((m, score)) = p.next_move() {
            assert_eq!(score, 0);
            out.push(m);
        }
        assert_eq!(out[..], listed[..]);
        for (score, pos) in [(BAD_CAPTURE - 1000, 0), (-1, 255), (TT_MOVE, 7), (0, 3)] {
            assert_eq!(sort_key(score, pos) >> 8, score);
            assert_eq!(255 - (sort_key(score, pos) & 255) as usize, pos);
        }
        assert!(sort_key(5, 9) > sort_key(5, 10) && sort_key(6, 200) > sort_key(5, 0));
    }

    #[test]
    fn the_counter_move_of_the_last_move_comes_right_after_the_killers() {
        let root = Board::startpos();
        let e4 = parse_uci_move(root.pos(), "e2e4").unwrap();
        let b = root.play(e4);
        let counter = parse_uci_move(b.pos(), "b8c6").unwrap();
        let killer = parse_uci_move(b.pos(), "g8f6").unwrap();
        let favoured = parse_uci_move(b.pos(), "d7d6").unwrap();
        let mut h = History::new();
        // The killer of ply 1, and a quiet move with the best history of all.
        let threats = b.attacked_by(!b.pos().turn());
        h.update_cutoff(b.pos().turn(), threats, 1, 2, killer, &[]);
        h.update_cutoff(b.pos().turn(), threats, 5, 13, favoured, &[]);
        h.set_counter(b.last_slot(), counter);
        let order = |h: &History, board: &Board| {
            let mut moves = board.pos().legal_moves();
            let mut keys = SortKeys::new();
            let mut p = MovePicker::new(board, &mut moves, &mut keys, PackedMove::NONE, h, 1);
            let mut out = Vec::new();
            while let Some((m, _)) = p.next_move() {
                out.push(m);
            }
            out
        };
        let after_e4 = order(&h, &b);
        assert_eq!(after_e4[..3], [killer, counter, favoured]);
        // After another move (or none: the same position set up from its FEN) the counter-move
        // is an ordinary quiet move again. Neither d7 nor d6 is attacked in any of the three
        // positions, so `favoured` keeps its history score.
        let d4 = parse_uci_move(root.pos(), "d2d4").unwrap();
        let other = root.play(d4);
        assert_ne!(other.last_slot(), b.last_slot());
        let no_last_move = Board::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            false,
        )
        .unwrap();
        assert_eq!(no_last_move.last_slot(), 0);
        for board in [&other, &no_last_move] {
            assert_eq!(order(&h, board)[..2], [killer, favoured]);
        }
    }
}
