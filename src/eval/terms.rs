//! The evaluation terms beyond pawn structure: material and piece-square tables, mobility, king
//! safety (zone attacks, safe checks, king danger from attackers, checks, weak zone squares and
//! pins; defenders in the king zone; shelter and storms are in [`super::shelter`]),
//! passed-pawn terms that need the whole board (blocked, free to advance, free path to promotion,
//! king distances), bishop pair, bishops hemmed in by rammed pawns and bishops on a long diagonal,
//! minors shielded by a pawn in front and their distance to their king, knights and rooks by the
//! number of own pawns, rooks on open files, on the seventh, behind passers and trapped by their
//! king, outposts, threats (by pawns, pieces, the king and pawn pushes; double attacks on pieces
//! and pawns defended once; safe squares to attack the queen from; pieces that only the queen
//! defends), hanging pieces and pawns, squares where we restrict the enemy's pieces, weak squares
//! around the enemy king, pieces pinned to their king, a queen pinned or under a discovered
//! attack by a bishop or rook, tempo.
//! Written once over an [`Acc`]umulator, so the same code sums scores for the search and records
//! feature counts for the tuner.

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Color, Role, Square};

use super::params::*;
use super::pawns::{
    adjacent_files, file_mask, pawn_attacks, pawn_pushes, relative_rank, stop_square, FRONT_FILE,
    PASSED_SPAN,
};
use super::Acc;

/// Square index as seen from `color`'s side (white's table read upside down for black).
#[inline]
pub fn relative(sq: Square, color: Color) -> usize {
    match color {
        Color::White => usize::from(sq),
        Color::Black => usize::from(sq) ^ 56,
    }
}

/// Squares attacked by one side, by kind of attacker.
#[derive(Clone, Copy, Default)]
struct Attacks {
    pawns: Bitboard,
    knights: Bitboard,
    bishops: Bitboard,
    rooks: Bitboard,
    queens: Bitboard,
    king: Bitboard,
    all: Bitboard,
    /// Squares attacked at least twice (by a pawn and a piece, two pieces, or a piece and the king;
    /// two pawns attacking one square count once).
    double: Bitboard,
}

/// The a1-h8 and h1-a8 diagonals: only a bishop there can see two centre squares
/// (`Bitboard::CENTER`).
const LONG_DIAGONALS: Bitboard = Bitboard(0x8142_2418_1824_4281);

/// King-danger units of a piece that reaches the enemy king zone, by role index (pawn .. king).
const ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Adds every term except pawn structure for both sides; `passers` are the passed pawns found by
/// the pawn-structure code (index 0 = white).
pub fn evaluate<A: Acc>(board: &Board, passers: [Bitboard; 2], white_to_move: bool, acc: &mut A) {
    let occ = board.occupied();
    let mut attacks = [Attacks::default(); 2];
    // Each side's king zone (the king's square and its neighbours), index 0 = white's.
    let zones = Color::ALL.map(|c| {
        board
            .king_of(c)
            .map_or(Bitboard(0), |k| king_attacks(k).with(k))
    });
    // King-danger attack units per attacking side: pieces reaching the enemy king zone.
    let mut units = [0i32; 2];
    // Men pinned to their own king, per side.
    let mut pins = [0i32; 2];
    for color in Color::ALL {
        let c = usize::from(color == Color::Black);
        let white = color == Color::White;
        let ours = board.by_color(color);
        let our_pawns = board.pawns() & ours;
        let their_pawns = board.pawns() & !ours;
        let their_pawn_attacks = pawn_attacks(!color, their_pawns);
        let our_pawn_attacks = pawn_attacks(color, our_pawns);
        let our_king = board.king_of(color);
        let their_king = board.king_of(!color);
        let zone = zones[1 - c];
        let area = !(our_pawns | (board.kings() & ours)) & !their_pawn_attacks;
        // Our pawns that an enemy pawn stands right in front of.
        let rammed = our_pawns & pawn_pushes(!color, their_pawns);
        // Squares right behind a pawn of either colour, from our side.
        let behind_pawns = pawn_pushes(!color, board.pawns());
        let pawns_over_five = our_pawns.count() as i32 - 5;
        let a = &mut attacks[c];
        a.pawns = our_pawn_attacks;
        a.king = our_king.map_or(Bitboard(0), king_attacks);
        if let Some(k) = our_king {
            for sq in crate::board::pinned(board, color, k) {
                if let Some(role) = board.role_at(sq) {
                    pins[c] += 1;
                    acc.add(white, PINNED + role as usize - 1, 1);
                }
            }
        }

        // Squares attacked so far, and those attacked at least twice.
        let (mut seen, mut double) = (our_pawn_attacks, Bitboard(0));

        for role in Role::ALL {
            let r = role as usize - 1;
            let pieces = board.by_role(role) & ours;
            for sq in pieces {
                acc.add(white, MATERIAL + r, 1);
                acc.add(white, PST + r * 64 + relative(sq, color), 1);
                let att = match role {
                    Role::Knight => knight_attacks(sq),
                    Role::Bishop => bishop_attacks(sq, occ),
                    Role::Rook => rook_attacks(sq, occ),
                    Role::Queen => queen_attacks(sq, occ),
                    _ => continue,
                };
                double |= seen & att;
                seen |= att;
                let mobility = (att & area).count();
                let zone_hits = (att & zone).count() as i32;
                if zone_hits > 0 {
                    units[c] += ATTACK_UNITS[r];
                }
                match role {
                    Role::Knight => {
                        a.knights |= att;
                        acc.add(white, MOBILITY_KNIGHT + mobility, 1);
                        acc.add(white, KING_ZONE_ATTACK, zone_hits);
                        acc.add(white, KNIGHT_PAWNS, pawns_over_five);
                    }
                    Role::Bishop => {
                        a.bishops |= att;
                        acc.add(white, MOBILITY_BISHOP + mobility, 1);
                        acc.add(white, KING_ZONE_ATTACK + 1, zone_hits);
                        let colour = if Bitboard::LIGHT_SQUARES.contains(sq) {
                            Bitboard::LIGHT_SQUARES
                        } else {
                            Bitboard::DARK_SQUARES
                        };
                        acc.add(white, BISHOP_RAMMED_PAWNS, (rammed & colour).count() as i32);
                        if LONG_DIAGONALS.contains(sq)
                            && (bishop_attacks(sq, board.pawns()) & Bitboard::CENTER)
                                .more_than_one()
                        {
                            acc.add(white, BISHOP_LONG_DIAGONAL, 1);
                        }
                    }
                    Role::Rook => {
                        a.rooks |= att;
                        acc.add(white, MOBILITY_ROOK + mobility, 1);
                        acc.add(white, KING_ZONE_ATTACK + 2, zone_hits);
                        acc.add(white, ROOK_PAWNS, pawns_over_five);
                        let rook_file = usize::from(sq) % 8;
                        // Trapped: little room, and on the corner side of its king (with the
                        // king on files a-d, on a file nearer the a-file; with the king on e-h,
                        // on the king's file or nearer the h-file).
                        if mobility <= 3 {
                            if let Some(k) = our_king {
                                let king_file = usize::from(k) % 8;
                                if (king_file < 4) == (rook_file < king_file) {
                                    acc.add(white, TRAPPED_ROOK, 1);
                                }
                            }
                        }
                        let file = file_mask(rook_file);
                        if board.pawns().0 & file == 0 {
                            acc.add(white, ROOK_OPEN_FILE, 1);
                        } else if our_pawns.0 & file == 0 {
                            acc.add(white, ROOK_SEMI_OPEN_FILE, 1);
                        }
                        if relative_rank(sq, color) == 6 {
                            let seventh = Bitboard(0xFF << (8 * if white { 6 } else { 1 }));
                            if their_king.is_some_and(|k| relative_rank(k, color) == 7)
                                || (their_pawns & seventh).any()
                            {
                                acc.add(white, ROOK_ON_SEVENTH, 1);
                            }
                        }
                    }
                    _ => {
                        a.queens |= att;
                        acc.add(white, MOBILITY_QUEEN + mobility, 1);
                        acc.add(white, KING_ZONE_ATTACK + 3, zone_hits);
                    }
                }
                if matches!(role, Role::Knight | Role::Bishop) {
                    let rank = relative_rank(sq, color);
                    let safe_from_pawns = PASSED_SPAN[c][usize::from(sq)]
                        & adjacent_files(usize::from(sq) % 8)
                        & their_pawns.0
                        == 0;
                    if (3..=5).contains(&rank) && our_pawn_attacks.contains(sq) && safe_from_pawns {
                        acc.add(white, OUTPOST + r - 1, 1);
                    }
                    if behind_pawns.contains(sq) {
                        acc.add(white, MINOR_BEHIND_PAWN, 1);
                    }
                    if let Some(k) = our_king {
                        acc.add(white, KING_PROTECTOR + r - 1, k.distance(sq) as i32);
                    }
                }
            }
        }
        a.all = a.pawns | a.knights | a.bishops | a.rooks | a.queens | a.king;
        a.double = double | (seen & a.king);

        if (board.bishops() & ours).more_than_one() {
            acc.add(white, BISHOP_PAIR, 1);
        }
        if our_king.is_some() {
            let defenders = (our_pawns | board.knights() | board.bishops()) & ours & zones[c];
            acc.add(white, KING_DEFENDERS + defenders.count(), 1);
        }
        for q in board.queens() & ours {
            let (rooks, bishops) = (board.rooks() & !ours, board.bishops() & !ours);
            if crate::board::lone_blockers(board, q, rooks, bishops).any() {
                acc.add(white, QUEEN_RELATIVE_PIN, 1);
            }
        }
    }

    // Threats, hanging pieces and safe checks need both sides' attacks.
    for color in Color::ALL {
        let c = usize::from(color == Color::Black);
        let white = color == Color::White;
        let (us, them) = (&attacks[c], &attacks[1 - c]);
        let theirs = board.by_color(!color);
        for role in Role::ALL {
            let r = role as usize - 1;
            let targets = board.by_role(role) & theirs;
            if role != Role::Pawn {
                acc.add(
                    white,
                    THREAT_BY_PAWN + r,
                    (targets & us.pawns).count() as i32,
                );
            }
            acc.add(
                white,
                THREAT_BY_MINOR + r,
                (targets & (us.knights | us.bishops)).count() as i32,
            );
            acc.add(
                white,
                THREAT_BY_ROOK + r,
                (targets & us.rooks).count() as i32,
            );
        }
        // Their pieces other than pawns and the king.
        let pieces = theirs & !board.pawns() & !board.kings();
        let their_pawns = theirs & board.pawns();
        // Their men we attack that nothing defends, and those we attack twice that they defend once.
        let loose = theirs & us.all & !them.all;
        let outnumbered = theirs & us.double & them.all & !them.double;
        acc.add(white, HANGING, (pieces & loose).count() as i32);
        acc.add(white, HANGING_PAWN, (their_pawns & loose).count() as i32);
        acc.add(white, THREAT_DOUBLE, (pieces & outnumbered).count() as i32);
        acc.add(
            white,
            THREAT_DOUBLE_PAWN,
            (their_pawns & outnumbered).count() as i32,
        );
        let king_prey = loose & us.king & !board.kings();
        acc.add(white, THREAT_BY_KING, king_prey.count() as i32);
        // Held strongly: by a pawn, or twice where we attack at most once.
        let strong = them.pawns | (them.double & !us.double);
        acc.add(
            white,
            RESTRICTED,
            (them.all & !strong & us.all).count() as i32,
        );
        let weak = theirs & !strong & us.all;
        acc.add(
            white,
            WEAK_QUEEN_PROTECTION,
            (weak & them.queens).count() as i32,
        );
        // Safe squares to attack their (single) queen from.
        if let Some(q) = (board.queens() & theirs).single_square() {
            let safe = !them.pawns & !board.by_color(color) & (!them.all | us.double);
            acc.add(
                white,
                KNIGHT_ON_QUEEN,
                (knight_attacks(q) & us.knights & safe).count() as i32,
            );
            let sliders = (bishop_attacks(q, occ) & us.bishops) | (rook_attacks(q, occ) & us.rooks);
            acc.add(
                white,
                SLIDER_ON_QUEEN,
                (sliders & safe & us.double).count() as i32,
            );
        }

        // Pieces a safe pawn push would attack.
        let pushed = pawn_pushes(color, board.pawns() & board.by_color(color)) & !occ;
        let safe_pushes = pushed & !them.pawns & (us.all | !them.all);
        acc.add(
            white,
            THREAT_PAWN_PUSH,
            (pawn_attacks(color, safe_pushes) & pieces).count() as i32,
        );

        // Passed pawns: blocked, or free to advance (the stop square empty and not attacked), and
        // the kings' distances to the stop square.
        let (our_king, their_king) = (board.king_of(color), board.king_of(!color));
        for sq in passers[c] {
            let rank = relative_rank(sq, color);
            let Some(stop) = stop_square(sq, white) else {
                continue;
            };
            if occ.contains(stop) {
                acc.add(white, PASSED_BLOCKED + rank, 1);
            } else if !them.all.contains(stop) {
                acc.add(white, PASSED_SAFE_PUSH + rank, 1);
                let path = Bitboard(FRONT_FILE[c][usize::from(sq)]);
                if (path & (occ | them.all)).is_empty() {
                    acc.add(white, PASSED_FREE_PATH + rank, 1);
                }
            }
            if let Some(k) = our_king {
                acc.add(white, PASSED_OWN_KING + rank, k.distance(stop) as i32);
            }
            if let Some(k) = their_king {
                acc.add(white, PASSED_ENEMY_KING + rank, k.distance(stop) as i32);
            }
            // Rooks behind the passer on its file, nothing between.
            let behind = rook_attacks(sq, occ) & Bitboard(FRONT_FILE[1 - c][usize::from(sq)]);
            let rooks = board.rooks() & behind;
            if (rooks & board.by_color(color)).any() {
                acc.add(white, ROOK_BEHIND_PASSER, 1);
            }
            if (rooks & board.by_color(!color)).any() {
                acc.add(white, ROOK_BEHIND_PASSER + 1, 1);
            }
        }

        if let Some(k) = their_king {
            let diag = bishop_attacks(k, occ);
            let line = rook_attacks(k, occ);
            // Squares each kind of piece of ours could check from (not occupied by us), and
            // those of them the defender does not cover.
            let checking = [
                knight_attacks(k) & us.knights,
                diag & us.bishops,
                line & us.rooks,
                (diag | line) & us.queens,
            ]
            .map(|sq| sq & !board.by_color(color));
            let checks = checking.map(|sq| (sq & !them.all).count() as i32);
            for (i, &n) in checks.iter().enumerate() {
                acc.add(white, SAFE_CHECK + i, n);
            }
            let any_check = checking.iter().fold(Bitboard(0), |a, &b| a | b);
            let unsafe_checks = (any_check & them.all).count() as i32;
            // Zone squares we attack that only their king or queen (or nothing) defends.
            let defenders = them.pawns | them.knights | them.bishops | them.rooks;
            let weak = zones[1 - c] & us.all & !defenders;
            acc.add(white, WEAK_KING_ZONE, weak.count() as i32);
            // King danger: the attack units, two per safe check, one per unsafe check, per weak
            // zone square and per man pinned to their king; halved without a queen.
            let mut u = units[c]
                + 2 * checks.iter().sum::<i32>()
                + unsafe_checks
                + weak.count() as i32
                + pins[1 - c];
            if (board.queens() & board.by_color(color)).is_empty() {
                u /= 2;
            }
            let u = u.min(KING_DANGER_CAP);
            acc.add(white, KING_DANGER + u as usize, 1);
        }
    }

    acc.add(white_to_move, TEMPO, 1);
}
