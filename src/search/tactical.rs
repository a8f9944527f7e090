//! Move generation for quiescence nodes that are not in check: the legal captures and promotions
//! only. Generating every legal move and then dropping the quiet ones (what `legal_moves` would
//! do) cost a full move generation per quiescence node. Not being in check, a move is legal unless
//! the king steps onto an attacked square or a pinned piece leaves its pin line; en passant, which
//! can uncover the king along a rank, is left to shakmaty's own generator.

use shakmaty::attacks::{
    aligned, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks,
    rook_attacks,
};
use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role, Square};

use crate::eval::pawns::stop_square;

/// Promotion pieces, queen first.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Knight, Role::Rook, Role::Bishop];

/// Appends every legal capture and promotion of `pos` to `moves`. `pos` must not be in check
/// (evasions need the full generator).
pub fn captures_and_promotions(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let b = pos.board();
    let us = pos.turn();
    let ours = b.by_color(us);
    let targets = b.by_color(!us) & !b.kings();
    let occ = b.occupied();
    let Some(king) = b.king_of(us) else {
        return;
    };
    let pinned = crate::board::pinned(b, us, king);
    let legal = |from: Square, to: Square| !pinned.contains(from) || aligned(from, to, king);

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in b.by_role(role) & ours {
            let att = match role {
                Role::Knight => knight_attacks(from),
                Role::Bishop => bishop_attacks(from, occ),
                Role::Rook => rook_attacks(from, occ),
                _ => queen_attacks(from, occ),
            };
            for to in att & targets {
                if legal(from, to) {
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: b.role_at(to),
                        to,
                        promotion: None,
                    });
                }
            }
        }
    }
    for to in king_attacks(king) & targets {
        if b.attacks_to(to, !us, occ ^ king).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: b.role_at(to),
                to,
                promotion: None,
            });
        }
    }

    for from in b.pawns() & ours {
        let mut tos = pawn_attacks(us, from) & targets;
        if let Some(ahead) = stop_square(from, us == Color::White) {
            if Bitboard::BACKRANKS.contains(ahead) && !occ.contains(ahead) {
                tos |= ahead;
            }
        }
        for to in tos {
            if !legal(from, to) {
                continue;
            }
            let capture = b.role_at(to);
            if Bitboard::BACKRANKS.contains(to) {
                for promotion in PROMOTIONS {
                    moves.push(Move::Normal {
                        role: Role::Pawn,
                        from,
                        capture,
                        to,
                        promotion: Some(promotion),
                    });
                }
            } else {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture,
                    to,
                    promotion: None,
                });
            }
        }
    }
    if pos.maybe_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::rng::Rng;

    fn check(pos: &Chess) {
        if pos.is_check() {
            return;
        }
        let mut want: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.is_capture() || m.is_promotion())
            .collect();
        let mut got = MoveList::new();
        captures_and_promotions(pos, &mut got);
        let mut got: Vec<Move> = got.into_iter().collect();
        let key = |m: &Move| format!("{m:?}");
        want.sort_by_key(key);
        got.sort_by_key(key);
        let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        assert_eq!(got, want, "{fen}");
    }

    #[test]
    fn same_moves_as_the_legal_generator_on_tricky_positions() {
        // Pins, en passant along a rank, promotions with and without capture, castling rights.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/8/8/K2pP2q/8/8/8/7k w - d6 0 2",
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
        ];
        let mut n = 0;
        for fen in fens {
            let b = Board::from_fen(fen, false).unwrap();
            check(b.pos());
            // And every position one and two plies on.
            for m in b.pos().legal_moves() {
                let c = b.play(m);
                check(c.pos());
                for m2 in c.pos().legal_moves() {
                    check(c.play(m2).pos());
                    n += 1;
                }
            }
        }
        assert!(n > 4_000, "{n} positions");
    }

    #[test]
    fn same_moves_as_the_legal_generator_in_random_games() {
        let mut rng = Rng::new(7);
        for _ in 0..300 {
            let mut b = Board::startpos();
            for _ in 0..200 {
                check(b.pos());
                let moves = b.pos().legal_moves();
                if moves.is_empty() {
                    break;
                }
                b = b.play(moves[rng.below(moves.len())]);
            }
        }
    }
}
