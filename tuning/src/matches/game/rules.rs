//! The rules that end a game by themselves: checkmate, stalemate, insufficient material, the
//! fifty-move rule and threefold repetition (positions compared by Zobrist key, which covers
//! side to move, castling rights and a legal en-passant square).

use super::result::{color_name, GameResult, Termination};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

/// The repetition key of a position.
pub fn position_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The result if the game is over in `pos`; `keys` holds the key of every position of the
/// game so far, the current one last.
pub fn rules_verdict(pos: &Chess, keys: &[u64]) -> Option<GameResult> {
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return Some(if pos.is_check() {
            let winner = !pos.turn();
            GameResult::win(
                winner,
                Termination::Checkmate,
                format!("{} mates", color_name(winner)),
            )
        } else {
            GameResult::draw(Termination::Stalemate, "Draw by stalemate")
        });
    }
    if pos.is_insufficient_material() {
        return Some(GameResult::draw(
            Termination::InsufficientMaterial,
            "Draw by insufficient mating material",
        ));
    }
    if pos.halfmoves() >= 100 {
        return Some(GameResult::draw(
            Termination::FiftyMoves,
            "Draw by fifty-move rule",
        ));
    }
    if let Some(&last) = keys.last() {
        if keys.iter().filter(|&&k| k == last).count() >= 3 {
            return Some(GameResult::draw(
                Termination::Repetition,
                "Draw by threefold repetition",
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Color};

    fn pos(fen: &str) -> Chess {
        let f: Fen = fen.parse().unwrap();
        f.into_position(CastlingMode::Standard).unwrap()
    }

    fn play(p: &mut Chess, keys: &mut Vec<u64>, uci: &str) {
        let m = uci.parse::<UciMove>().unwrap().to_move(p).unwrap();
        p.play_unchecked(m);
        keys.push(position_key(p));
    }

    #[test]
    fn mate_stalemate_material_fifty() {
        let mate = pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1");
        let r = rules_verdict(&mate, &[]).unwrap();
        assert_eq!(
            (r.winner, r.termination),
            (Some(Color::White), Termination::Checkmate)
        );
        let stale = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(
            rules_verdict(&stale, &[]).unwrap().termination,
            Termination::Stalemate
        );
        let kk = pos("7k/8/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(
            rules_verdict(&kk, &[]).unwrap().termination,
            Termination::InsufficientMaterial
        );
        let fifty = pos("7k/8/6K1/8/8/8/8/R7 b - - 100 80");
        assert_eq!(
            rules_verdict(&fifty, &[]).unwrap().termination,
            Termination::FiftyMoves
        );
        let not_yet = pos("7k/8/6K1/8/8/8/8/R7 b - - 99 80");
        assert_eq!(rules_verdict(&not_yet, &[]), None);
    }

    #[test]
    fn threefold_repetition() {
        let mut p = Chess::default();
        let mut keys = vec![position_key(&p)];
        for _ in 0..2 {
            for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
                assert_eq!(rules_verdict(&p, &keys), None);
                play(&mut p, &mut keys, m);
            }
        }
        let r = rules_verdict(&p, &keys).unwrap();
        assert_eq!(r.termination, Termination::Repetition);
        assert_eq!(r.winner, None);
    }
}
