//! The evaluation's invariants (colour symmetry, cached and traced evaluations agree, packed sums)
//! and what each term sees on positions built for it.

use super::*;
use params::s;
use shakmaty::{fen::Fen, CastlingMode};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// Mirrors a FEN vertically and swaps colours.
fn flip(fen: &str) -> String {
    let parts: Vec<&str> = fen.split_whitespace().collect();
    let board: Vec<String> = parts[0]
        .split('/')
        .rev()
        .map(|rank| {
            rank.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    let turn = if parts[1] == "w" { "b" } else { "w" };
    format!("{} {} - - 0 1", board.join("/"), turn)
}

#[test]
fn colour_flip_symmetry() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
    ] {
        assert_eq!(evaluate(&pos(fen)), evaluate(&pos(&flip(fen))), "{fen}");
    }
}

#[test]
fn colour_flip_symmetry_over_the_bench_positions() {
    for fen in crate::bench::POSITIONS {
        let flipped = flip(fen);
        assert_eq!(evaluate(&pos(fen)), evaluate(&pos(&flipped)), "{fen}");
    }
}

#[test]
fn every_feature_count_flips_sign_with_the_colours() {
    // Stronger than the score symmetry: it holds for every weight, zero weights included.
    for fen in crate::bench::POSITIONS {
        let (a, b) = (Coeffs::traced(&pos(fen)), Coeffs::traced(&pos(&flip(fen))));
        for i in 0..params::LEN {
            assert_eq!(a.get(i), -b.get(i), "{fen}: {}", params::name(i));
        }
    }
}

#[test]
fn cached_explicit_and_traced_evaluations_agree() {
    // The bench positions and endgames near a draw (where the complexity term may pull the
    // endgame score to zero).
    let endgames = [
        "8/5k2/8/4p3/4P3/8/5K2/8 w - - 0 1",
        "8/8/4k3/8/8/3KP3/8/8 w - - 0 1",
        "8/5pk1/6p1/8/8/6P1/5PK1/8 b - - 0 1",
        "3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        "8/8/3bk3/8/3P4/4K3/3B4/8 w - - 0 1",
        "8/6k1/8/8/2p5/8/1P4K1/8 w - - 0 1",
    ];
    for fen in crate::bench::POSITIONS.iter().chain(endgames.iter()) {
        let p = pos(fen);
        let e = evaluate(&p);
        assert_eq!(e, evaluate_with(&p, &DEFAULT_PARAMS), "{fen}");
        let t = trace(&p);
        let (mut mg, mut eg) = (0, 0);
        for &(i, n) in &t.terms {
            mg += i32::from(n) * DEFAULT_PARAMS.w[usize::from(i)].mg;
            eg += i32::from(n) * DEFAULT_PARAMS.w[usize::from(i)].eg;
        }
        let white = taper(mg, eg, t.phase, t.eg_scale);
        let stm = if p.turn() == Color::White {
            white
        } else {
            -white
        };
        assert_eq!(e, stm, "{fen}");
    }
}

#[test]
fn terms_see_what_they_should() {
    // A rook on an open file; a knight outpost on d5 (pawn e4 defends it, no c/e pawn can chase it).
    let t = Coeffs::traced(&pos("4k3/p6p/8/3N4/4P3/8/P6P/3RK3 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_OPEN_FILE), 1);
    assert_eq!(t.get(params::OUTPOST), 1);
    // The black queen on h4 hangs to the knight on f3 (attacked, undefended).
    let t = Coeffs::traced(&pos("4k3/8/8/8/7q/5N2/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::HANGING), 1);
    assert_eq!(t.get(params::THREAT_BY_MINOR + 4), 1);
    // King danger: white's queen (h5, 5 units) and knight (g5, 2 units) reach the zone of the king
    // on g8; no check is safe, Qxh7+ and Qxf7+ are two unsafe ones (h7 is defended by the
    // king, f7 by the king and the rook), and h7 is a weak zone square (only the king defends
    // it): 7 + 2 + 1. Black attacks nothing, so its zero units count in the table's first
    // entry, with black's sign.
    let t = Coeffs::traced(&pos("r1b2rk1/ppp2ppp/8/6NQ/8/8/PPP2PPP/R1B3K1 w - - 0 1"));
    assert_eq!(t.get(params::KING_DANGER + 10), 1);
    assert_eq!(t.get(params::KING_DANGER), -1);
    // A bishop on b3 instead of c1 reaches the zone (f7, 2 units) and pins the f7 pawn to the
    // king (1 more).
    let t = Coeffs::traced(&pos("r1b2rk1/ppp2ppp/8/6NQ/8/1B6/PPP2PPP/R5K1 w - - 0 1"));
    assert_eq!(t.get(params::KING_DANGER + 13), 1);
    // Without the white queen the knight's 2 units and the weak h7 are halved.
    let t = Coeffs::traced(&pos("r1b2rk1/ppp2ppp/8/6N1/8/8/PPP2PPP/R1B3K1 w - - 0 1"));
    assert_eq!(t.get(params::KING_DANGER + 1), 1);
    // KR v KB without pawns is scaled down for the side ahead.
    let p = pos("4k3/8/8/3b4/8/8/8/R3K3 w - - 0 1");
    assert_eq!(trace(&p).eg_scale, 16);
}

#[test]
fn storm_seventh_rammed_push_and_flank_terms() {
    // A rook on the seventh with the black king on the eighth.
    let t = Coeffs::traced(&pos("4k3/1R6/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_ON_SEVENTH), 1);
    let t = Coeffs::traced(&pos("8/1R6/4k3/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_ON_SEVENTH), 0);
    // The light-squared bishop c2 behind its rammed light-square pawn e4 (d4 is dark).
    let t = Coeffs::traced(&pos("4k3/8/8/3pp3/3PP3/8/2B5/4K3 w - - 0 1"));
    assert_eq!(t.get(params::BISHOP_RAMMED_PAWNS), 1);
    // Storm: a free black pawn on g4 (rank 3 from white's side) before the king on g1; the f
    // and h files have none. Black's king sees white's three home pawns on its rank 6.
    let t = Coeffs::traced(&pos("6k1/8/8/8/6p1/8/5PPP/6K1 w - - 0 1"));
    assert_eq!(t.get(params::PAWN_STORM), 2);
    assert_eq!(t.get(params::PAWN_STORM + 3), 1);
    assert_eq!(t.get(params::PAWN_STORM + 6), -3);
    // The same pawn on g3 is rammed by g2.
    let t = Coeffs::traced(&pos("6k1/8/8/8/8/6p1/5PPP/6K1 w - - 0 1"));
    assert_eq!(t.get(params::PAWN_STORM_BLOCKED + 2), 1);
    assert_eq!(t.get(params::PAWN_STORM + 2), 0);
    // A passer on d5 may advance; with the black king on e7 guarding d6 it may not.
    let t = Coeffs::traced(&pos("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::PASSED_SAFE_PUSH + 4), 1);
    let t = Coeffs::traced(&pos("8/4k3/8/3P4/8/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::PASSED_SAFE_PUSH + 4), 0);
    // d4-d5 would attack the knight on c6.
    let t = Coeffs::traced(&pos("4k3/8/2n5/8/3P4/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_PAWN_PUSH), 1);
    // White's king on g1 has no pawn on files e-h; black's on b8 has a2 on its flank.
    let t = Coeffs::traced(&pos("1k6/8/8/8/8/8/P7/6K1 w - - 0 1"));
    assert_eq!(t.get(params::KING_PAWNLESS_FLANK), 1);
}

#[test]
fn minor_imbalance_passer_rook_weak_zone_and_king_pawn_terms() {
    // The knight on d3 stands behind white's d4 pawn, the bishop on e6 behind black's e5 pawn
    // (from black's side e5 is in front of e6). White has 2 pawns, black 1: the knight counts
    // 2 - 5, black's rook 1 - 5.
    let t = Coeffs::traced(&pos("r3k3/8/4b3/4p3/3P4/3N4/7P/4K3 w - - 0 1"));
    assert_eq!(t.get(params::MINOR_BEHIND_PAWN), 1 - 1);
    assert_eq!(t.get(params::KNIGHT_PAWNS), -3);
    assert_eq!(t.get(params::ROOK_PAWNS), 4);
    // White's rook on a1 behind its passer on a5; black's rook on a8 is in front, not behind.
    let t = Coeffs::traced(&pos("r3k3/8/8/P7/8/8/8/R3K3 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_BEHIND_PASSER), 1);
    assert_eq!(t.get(params::ROOK_BEHIND_PASSER + 1), 0);
    // A knight between them blocks the rook.
    let t = Coeffs::traced(&pos("r3k3/8/8/P7/8/N7/8/R3K3 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_BEHIND_PASSER), 0);
    // Black's rook on a8 behind black's passer on a4 (white's rook on a1 is in front of it);
    // then a white rook on a8 behind that passer.
    let t = Coeffs::traced(&pos("r7/4k3/8/8/p7/8/4K3/R7 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_BEHIND_PASSER), -1);
    assert_eq!(t.get(params::ROOK_BEHIND_PASSER + 1), 0);
    let t = Coeffs::traced(&pos("R7/4k3/8/8/p7/8/4K3/8 w - - 0 1"));
    assert_eq!(t.get(params::ROOK_BEHIND_PASSER + 1), -1);
    // White's queen on h5 attacks f7, g6, h7 and h6 around the king on g8 (and g5 does not
    // count); black's pawns f7, g7, h7 defend g6, f6, h6; the rook on f8 defends f7.
    // Zone g8 f8 h8 f7 g7 h7: the queen hits f7 (rook-defended) and h7 (defended only by
    // the king): one weak square.
    let t = Coeffs::traced(&pos("5rk1/5ppp/8/7Q/8/8/8/6K1 w - - 0 1"));
    assert_eq!(t.get(params::WEAK_KING_ZONE), 1);
    // White's king on e1 is 3 squares from its nearest pawn (h2 is 3 away, a2 4); black's king
    // on e8 has none.
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/P6P/4K3 w - - 0 1"));
    assert_eq!(t.get(params::KING_PAWN_DISTANCE + 3), 1);
    assert_eq!(
        (0..8)
            .map(|d| t.get(params::KING_PAWN_DISTANCE + d))
            .sum::<i32>(),
        1
    );
}

#[test]
fn unopposed_free_path_protector_king_threat_diagonal_trapped_terms() {
    // Black's f5 is isolated with no white pawn ahead of it; white's e3 is backward (f5
    // attacks e4) with no black pawn on the e-file; d4 is supported by e3.
    let t = Coeffs::traced(&pos("4k3/8/8/5p2/3P4/4P3/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::WEAK_UNOPPOSED), -1);
    assert_eq!(t.get(params::WEAK_UNOPPOSED + 1), 1);
    // a2 and a7 are isolated but face each other.
    let t = Coeffs::traced(&pos("4k3/p7/8/8/8/8/P7/4K3 w - - 0 1"));
    assert_eq!(t.get(params::WEAK_UNOPPOSED), 0);
    // d5's path d6-d8 is empty and out of the black king's reach on h8; with the king on e8
    // (attacking d7 and d8) it is not.
    let t = Coeffs::traced(&pos("7k/8/8/3P4/8/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::PASSED_FREE_PATH + 4), 1);
    let t = Coeffs::traced(&pos("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::PASSED_FREE_PATH + 4), 0);
    // The knight on a1 is four squares from its king on e1.
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/8/N3K3 w - - 0 1"));
    assert_eq!(t.get(params::KING_PROTECTOR), 4);
    // White's king attacks the undefended knight on d2; defended by a pawn on e3 it does not
    // count.
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_BY_KING), 1);
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/4p3/3n4/4K3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_BY_KING), 0);
    // The bishop on b2 sees d4 and e5; on c1 it sees no centre square.
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/1B6/4K3 w - - 0 1"));
    assert_eq!(t.get(params::BISHOP_LONG_DIAGONAL), 1);
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1"));
    assert_eq!(t.get(params::BISHOP_LONG_DIAGONAL), 0);
    // The rook on g1 with one square to go, shut in by its king on f1; on a1 beside the
    // same king it has four squares and is not trapped.
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/6PP/5KR1 w - - 0 1"));
    assert_eq!(t.get(params::TRAPPED_ROOK), 1);
    let t = Coeffs::traced(&pos("4k3/8/8/8/8/8/PP4PP/R4K2 w - - 0 1"));
    assert_eq!(t.get(params::TRAPPED_ROOK), 0);
}

#[test]
fn candidate_phalanx_and_supporter_terms() {
    // c3 faces no pawn on its file; b2 beside it matches the one sentry, b5: a candidate.
    // b2 has b5 ahead of it and is not.
    let t = Coeffs::traced(&pos("4k3/8/8/1p6/8/2P5/1P6/4K3 w - - 0 1"));
    assert_eq!(t.get(params::CANDIDATE_PASSER + 2), 1);
    assert_eq!(t.get(params::CANDIDATE_PASSER + 1), 0);
    // A second sentry on d5 outnumbers the supporter.
    let t = Coeffs::traced(&pos("4k3/8/8/1p1p4/8/2P5/1P6/4K3 w - - 0 1"));
    assert_eq!(t.get(params::CANDIDATE_PASSER + 2), 0);
    // d4 and e4 stand side by side; d4 is defended by c3 and e3.
    let t = Coeffs::traced(&pos("4k3/8/8/8/3PP3/2P1P3/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::PHALANX + 3), 2);
    assert_eq!(t.get(params::PAWN_SUPPORTERS), 2, "d4 by c3 and e3");
}

#[test]
fn pinned_pieces() {
    // The b4 bishop pins the c3 knight to the e1 king.
    let t = Coeffs::traced(&pos("6k1/8/8/8/1b5p/2N5/5PPP/4K3 w - - 0 1"));
    assert_eq!(t.get(params::PINNED + 1), 1, "the c3 knight");
    // With the king on g1 nothing stands on a line between it and the bishop.
    let t = Coeffs::traced(&pos("6k1/8/8/8/1b5p/2N5/5PPP/6K1 w - - 0 1"));
    assert_eq!(t.get(params::PINNED + 1), 0, "the king left the diagonal");
    // Black's e7 queen is pinned by the e1 rook (e2-e6 empty); the d7 pawn by the a4 bishop;
    // black's own e6 knight added in front of the queen makes it two pieces: no pin.
    let t = Coeffs::traced(&pos("4k3/3pq3/8/8/B7/8/8/4RK2 b - - 0 1"));
    assert_eq!(t.get(params::PINNED + 4), -1, "the e7 queen");
    assert_eq!(t.get(params::PINNED), -1, "the d7 pawn");
    let t = Coeffs::traced(&pos("4k3/3pq3/4n3/8/B7/8/8/4RK2 b - - 0 1"));
    assert_eq!(
        t.get(params::PINNED + 4),
        0,
        "queen and knight between rook and king"
    );
    // A piece between an enemy slider and the enemy king is not pinned: the white e5 knight
    // stands between the white e1 rook and the black e8 king (a discovered check, not a pin).
    let t = Coeffs::traced(&pos("4k3/8/8/4N3/8/8/8/4RK2 b - - 0 1"));
    assert_eq!(t.get(params::PINNED + 1), 0, "the e5 knight is white's");
}

#[test]
fn hanging_pawns_and_double_attacks() {
    // The e3 knight attacks the d5 pawn, which nothing defends; an e6 pawn defends it.
    let t = Coeffs::traced(&pos("4k3/8/8/3p4/8/4N3/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::HANGING_PAWN), 1, "d5 hangs");
    let t = Coeffs::traced(&pos("4k3/8/4p3/3p4/8/4N3/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::HANGING_PAWN), 0, "e6 defends d5");
    // The d5 knight: attacked by the e3 knight and the d1 rook, defended by the e6 pawn only.
    let t = Coeffs::traced(&pos("4k3/8/4p3/3n4/8/4N3/8/3RK3 w - - 0 1"));
    assert_eq!(
        t.get(params::THREAT_DOUBLE),
        1,
        "two attackers, one defender"
    );
    // A b6 knight defends it a second time (two pawns on one square would count once).
    let t = Coeffs::traced(&pos("4k3/8/1n2p3/3n4/8/4N3/8/3RK3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_DOUBLE), 0, "two defenders");
    // Without the rook it is attacked once.
    let t = Coeffs::traced(&pos("4k3/8/4p3/3n4/8/4N3/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_DOUBLE), 0, "one attacker");
    // A pawn and a piece attack twice: the c4 pawn and the e3 knight on d5, the black queen
    // on d5 defended by the e6 pawn only (black's own threats on white are nil here).
    let t = Coeffs::traced(&pos("4k3/8/4p3/3q4/2P5/4N3/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_DOUBLE), 1, "pawn and knight");
    // The same on a pawn: d5 attacked by the e3 knight and the d1 rook, defended by e6 only.
    let t = Coeffs::traced(&pos("4k3/8/4p3/3p4/8/4N3/8/3RK3 w - - 0 1"));
    assert_eq!(t.get(params::THREAT_DOUBLE_PAWN), 1, "d5 pawn");
}

#[test]
fn queen_attacks_restriction_and_queen_protection() {
    // Black's queen on d8; the d4 knight reaches c6 and e6, both squares that attack d8. c6 is
    // safe; the f7 pawn covers e6.
    let t = Coeffs::traced(&pos("3qk3/5p2/8/8/3N4/8/8/4K3 w - - 0 1"));
    assert_eq!(t.get(params::KNIGHT_ON_QUEEN), 1, "Nd4-c6, not e6");
    // The c1 bishop reaches g5, on the queen's diagonal; the queen covers g5 too, so it counts
    // only when the f3 knight attacks g5 as well.
    let t = Coeffs::traced(&pos("3qk3/8/8/8/8/5N2/8/2B1K3 w - - 0 1"));
    assert_eq!(
        t.get(params::SLIDER_ON_QUEEN),
        1,
        "Bc1-g5, backed by the f3 knight"
    );
    let t = Coeffs::traced(&pos("3qk3/8/8/8/8/8/8/2B1K3 w - - 0 1"));
    assert_eq!(
        t.get(params::SLIDER_ON_QUEEN),
        0,
        "g5 covered by the queen, attacked once"
    );
    // Restricted: squares both sides attack that the defender holds neither by a pawn nor
    // twice against our once. g7 and g8 are contested by the g1 rook (and the f5 knight on g7)
    // and the h8 king: white restricts both; black restricts g8 only, since white holds g7
    // twice.
    let t = Coeffs::traced(&pos("7k/8/8/5N2/8/8/8/K5R1 w - - 0 1"));
    assert_eq!(t.get(params::RESTRICTED), 2 - 1);
    // The d5 knight, attacked by the d1 rook, is defended by the d8 queen alone; an e6 pawn
    // holds it strongly.
    let t = Coeffs::traced(&pos("3qk3/8/8/3n4/8/8/8/3RK3 w - - 0 1"));
    assert_eq!(
        t.get(params::WEAK_QUEEN_PROTECTION),
        1,
        "d5 held by the queen alone"
    );
    let t = Coeffs::traced(&pos("3qk3/8/4p3/3n4/8/8/8/3RK3 w - - 0 1"));
    assert_eq!(
        t.get(params::WEAK_QUEEN_PROTECTION),
        0,
        "the e6 pawn holds d5"
    );
}

#[test]
fn shelter_files_defenders_and_queen_pins() {
    // White: king g1, pawns f2 g2 h3, knight f1, a black pawn storming on g4. Black: king e8,
    // no pawns near it.
    let t = Coeffs::traced(&pos("4k3/8/8/8/6p1/7P/5PP1/5NK1 w - - 0 1"));
    // Shelter files f (2 from the edge), g (the king's file, 1), h (0): 32·own + 8·edge + rank.
    assert_eq!(t.get(params::SHELTER_FILE + 16 + 1), 1, "f2");
    assert_eq!(t.get(params::SHELTER_FILE + 32 + 8 + 1), 1, "g2");
    assert_eq!(t.get(params::SHELTER_FILE + 2), 1, "h3");
    // Black's d, e and f files are empty: ranks 0, e being its king's file.
    assert_eq!(t.get(params::SHELTER_FILE + 32 + 24), -1, "e file");
    assert_eq!(t.get(params::SHELTER_FILE + 24), -1, "d file");
    // g4 is on white's fourth rank (relative rank 3) and not blocked (g3 is empty); white's f
    // and h files have no storming pawn (rank 0), nor have black's d and e files.
    assert_eq!(t.get(params::STORM_FILE + 8 + 3), 1, "g4");
    assert_eq!(t.get(params::STORM_FILE), 1, "h file, empty");
    assert_eq!(t.get(params::STORM_FILE + 16), 1, "white's f file");
    assert_eq!(
        t.get(params::STORM_FILE + 16 + 6),
        -1,
        "f2 storms black's f file"
    );
    assert_eq!(t.get(params::STORM_FILE + 24), -2, "black's d and e files");
    // Defenders in the king zone: f1, f2, g2 for white (h3 is outside it), none for black.
    assert_eq!(t.get(params::KING_DEFENDERS + 3), 1);
    assert_eq!(t.get(params::KING_DEFENDERS), -1);
    // A knight between the white queen and a black bishop; then a black knight between a black
    // rook and the white queen (a discovered attack).
    let t = Coeffs::traced(&pos("4k3/8/8/8/b7/8/2N5/3QK3 w - - 0 1"));
    assert_eq!(t.get(params::QUEEN_RELATIVE_PIN), 1, "Ba4, Nc2, Qd1");
    let t = Coeffs::traced(&pos("3rk3/8/3n4/8/8/8/8/3QK3 w - - 0 1"));
    assert_eq!(t.get(params::QUEEN_RELATIVE_PIN), 1, "Rd8, Nd6, Qd1");
    // Not a pin: nothing between (a plain attack), two men between, or a queen behind.
    for fen in [
        "4k3/8/8/8/b7/8/8/3QK3 w - - 0 1",
        "4k3/8/8/8/b7/1P6/2N5/3QK3 w - - 0 1",
        "4k3/8/8/8/q7/8/2N5/3QK3 w - - 0 1",
    ] {
        assert_eq!(
            Coeffs::traced(&pos(fen)).get(params::QUEEN_RELATIVE_PIN),
            0,
            "{fen}"
        );
    }
}

#[test]
fn complexity_features_and_clamp() {
    let features = |fen: &str| {
        let b = pos(fen).board().clone();
        let (wp, bp) = (b.pawns() & b.white(), b.pawns() & b.black());
        let passers = pawns::evaluate(wp, bp, &mut Coeffs::new());
        (complexity_features(&b, passers), b, passers)
    };
    // 3 pawns, all on the queen's flank, a pawn endgame, kings on one file seven ranks apart,
    // no passers.
    let (f, _, _) = features("4k3/8/8/1p6/8/2P5/1P6/4K3 w - - 0 1");
    assert_eq!(f, [3, 0, 1, -7, 0, 1]);
    let (f, b, passers) = features("r3k3/p7/8/8/8/8/7P/4K2R w - - 0 1");
    assert_eq!(f, [2, 1, 0, -7, 2, 1]);
    // Only the constant weighted: -100 endgame, 10 midgame.
    let mut w = [0i64; params::LEN];
    w[params::COMPLEXITY + 5] = pack(s(10, -100));
    let with = |mg, eg| with_complexity(&b, passers, &w, s(mg, eg));
    assert_eq!(with(0, 30), s(10, 0), "pulled to zero, not past it");
    assert_eq!(with(0, 150), s(10, 50));
    assert_eq!(with(5, -30), s(-5, 0));
    assert_eq!(with(5, -150), s(-5, -50));
    assert_eq!(with(5, 0), s(5, 0), "nothing when the endgame is level");
}

#[test]
fn packed_sums_match_separate_sums() {
    let pairs = [s(-7, 12), s(950, -3), s(0, -1), s(-120, -340), s(1, 0)];
    for &a in &pairs {
        assert_eq!(unpack(pack(a)), a);
    }
    let mut total = 0i64;
    let (mut mg, mut eg) = (0, 0);
    for (i, &a) in pairs.iter().enumerate() {
        let n = i as i32 * 37 - 60;
        total += i64::from(n) * pack(a);
        mg += n * a.mg;
        eg += n * a.eg;
    }
    assert_eq!(unpack(total), s(mg, eg));
    assert_eq!(
        PACKED[params::MATERIAL + 1],
        pack(DEFAULT_PARAMS.w[params::MATERIAL + 1])
    );
}

#[test]
fn material_matters() {
    let up_a_queen = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert!(evaluate(&up_a_queen) > 700);
    let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert!(evaluate(&start).abs() < 50);
}
