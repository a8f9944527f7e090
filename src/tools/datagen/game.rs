//! One self-play game for `trine datagen`: a seeded random opening (re-drawn while lopsided), then
//! single-threaded fixed-node searches for both sides until the rules or the adjudicator end the game,
//! collecting the quiet positions with their scores.

use std::sync::Arc;

use shakmaty::{Color, KnownOutcome, Move, Outcome, Position};

use super::record::{format_line, is_quiet, GameResult};
use crate::board::Game;
use crate::rng::Rng;
use crate::search::iterate::SearchParams;
use crate::search::{SearchControl, SearchLimits, Searcher};
use crate::tt::Table;

/// Plies after the opening that are played but never recorded.
pub const SKIP_PLIES: usize = 8;
/// A game still running at this many plies (opening included) is a draw.
pub const MAX_PLIES: usize = 400;
/// Win adjudication: a score at least this large (white's view) for one side...
pub const WIN_SCORE: i32 = 1000;
/// ... on this many consecutive plies.
pub const WIN_PLIES: u32 = 4;
/// Draw adjudication: |score| at most this...
pub const DRAW_SCORE: i32 = 10;
/// ... on this many consecutive plies...
pub const DRAW_PLIES: u32 = 10;
/// ... counted only from this ply on.
pub const DRAW_FROM_PLY: usize = 80;
/// An opening whose short-search score is larger than this (either side) is drawn again.
pub const OPENING_MAX_SCORE: i32 = 400;
/// Random openings tried before falling back to the start position.
pub const OPENING_TRIES: usize = 1000;

/// `plies` random legal moves from the start position; `None` if the game ends on the way.
pub fn random_opening(rng: &mut Rng, plies: u32) -> Option<Game> {
    let mut game = Game::default();
    for _ in 0..plies {
        let moves = game.board.pos().legal_moves();
        if moves.is_empty() {
            return None;
        }
        game.push(moves[rng.below(moves.len())]);
    }
    Some(game)
}

/// The result if the game is over by the rules: checkmate, stalemate, insufficient material, the
/// fifty-move rule or threefold repetition (the game's key history holds every earlier position that
/// can repeat).
pub fn rules_result(game: &Game) -> Option<GameResult> {
    let pos = game.board.pos();
    match pos.outcome() {
        Outcome::Known(KnownOutcome::Decisive { winner }) => {
            return Some(GameResult::from_winner(Some(winner)))
        }
        Outcome::Known(KnownOutcome::Draw) => return Some(GameResult::Draw),
        Outcome::Unknown => {}
    }
    let key = game.board.key();
    let earlier = game.history.iter().filter(|&&k| k == key).count();
    if pos.halfmoves() >= 100 || earlier >= 2 {
        return Some(GameResult::Draw);
    }
    None
}

/// Score-based adjudication, fed one search score per ply (white's point of view).
#[derive(Clone, Debug, Default)]
pub struct Adjudicator {
    win_side: Option<Color>,
    win_streak: u32,
    draw_streak: u32,
}

impl Adjudicator {
    /// Takes the score of the search at game ply `ply` (plies played before it, opening included);
    /// returns a result once a win or draw is adjudicated.
    pub fn update(&mut self, ply: usize, white_score: i32) -> Option<GameResult> {
        let side = if white_score >= WIN_SCORE {
            Some(Color::White)
        } else if white_score <= -WIN_SCORE {
            Some(Color::Black)
        } else {
            None
        };
        if side.is_some() && side == self.win_side {
            self.win_streak += 1;
        } else {
            self.win_side = side;
            self.win_streak = u32::from(side.is_some());
        }
        if self.win_streak >= WIN_PLIES {
            return Some(GameResult::from_winner(self.win_side));
        }
        if ply >= DRAW_FROM_PLY && white_score.abs() <= DRAW_SCORE {
            self.draw_streak += 1;
        } else {
            self.draw_streak = 0;
        }
        (self.draw_streak >= DRAW_PLIES).then_some(GameResult::Draw)
    }
}

/// What one game is played with.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Node budget of every game move.
    pub nodes: u64,
    /// Random plies of the opening.
    pub random_plies: u32,
    /// Transposition table of the game, MB.
    pub hash_mb: usize,
    /// Run seed (game `i` uses `Rng::for_game(seed, i)`).
    pub seed: u64,
    /// The network both sides evaluate with (`None`: the hand-written evaluation).
    pub network: Option<Arc<crate::nnue::Network>>,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// The data lines of its quiet positions, in game order, without newlines.
    pub lines: Vec<String>,
    /// Its result.
    pub result: GameResult,
    /// Plies played, opening included.
    pub plies: usize,
}

/// The game's single search thread: its own table and searcher, a fresh control block per search.
struct Player {
    tt: Arc<Table>,
    searcher: Searcher,
    params: SearchParams,
}

impl Player {
    fn new(hash_mb: usize, network: Option<Arc<crate::nnue::Network>>) -> Result<Player, String> {
        let tt = Arc::new(Table::new(hash_mb)?);
        let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        let searcher = Searcher::new(0, Arc::clone(&tt), ctl);
        let params = SearchParams {
            network,
            ..SearchParams::default()
        };
        Ok(Player {
            tt,
            searcher,
            params,
        })
    }

    /// Best move and score (side to move's view); `None` when there is no legal move.
    fn search(&mut self, game: &Game, limits: SearchLimits) -> Option<(Move, i32)> {
        self.tt.new_search();
        self.searcher.ctl = Arc::new(SearchControl::new(limits, 1, false));
        let r = self.searcher.iterate(game, &self.params);
        Some((r.best_move?, r.lines.first()?.score))
    }
}

/// Draws random openings until one is not over and a short search finds it roughly balanced.
fn choose_opening(player: &mut Player, rng: &mut Rng, plies: u32) -> Game {
    let limits = SearchLimits {
        depth: Some(6),
        nodes: Some(2000),
        ..SearchLimits::default()
    };
    for _ in 0..OPENING_TRIES {
        let Some(game) = random_opening(rng, plies) else {
            continue;
        };
        if rules_result(&game).is_some() {
            continue;
        }
        match player.search(&game, limits.clone()) {
            Some((_, score)) if score.abs() <= OPENING_MAX_SCORE => return game,
            _ => continue,
        }
    }
    Game::default()
}

/// Plays game `index` to its end.
pub fn play_game(settings: &GameSettings, index: u64) -> Result<PlayedGame, String> {
    let mut player = Player::new(settings.hash_mb, settings.network.clone())?;
    let mut rng = Rng::for_game(settings.seed, index);
    let mut game = choose_opening(&mut player, &mut rng, settings.random_plies);
    let first_recorded = game.moves_played + SKIP_PLIES;
    let limits = SearchLimits {
        nodes: Some(settings.nodes),
        ..SearchLimits::default()
    };
    let mut recorded: Vec<(shakmaty::Chess, i32)> = Vec::new();
    let mut adjudicator = Adjudicator::default();
    let result = loop {
        if let Some(r) = rules_result(&game) {
            break r;
        }
        if game.moves_played >= MAX_PLIES {
            break GameResult::Draw;
        }
        let Some((best, score)) = player.search(&game, limits.clone()) else {
            break GameResult::Draw; // unreachable: rules_result saw the legal moves
        };
        let pos = game.board.pos();
        let white_score = if pos.turn() == Color::White {
            score
        } else {
            -score
        };
        if game.moves_played >= first_recorded && is_quiet(pos, best, score) {
            recorded.push((pos.clone(), white_score));
        }
        if let Some(r) = adjudicator.update(game.moves_played, white_score) {
            break r;
        }
        game.push(best);
    };
    let lines = recorded
        .iter()
        .map(|(pos, score)| format_line(pos, *score, result))
        .collect();
    Ok(PlayedGame {
        lines,
        result,
        plies: game.moves_played,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::score::MATE;
    use shakmaty::{fen::Fen, CastlingMode, Chess};

    fn fen(game: &Game) -> String {
        super::super::record::fen_of(game.board.pos())
    }

    #[test]
    fn openings_are_reproducible_and_legal() {
        let mut distinct = std::collections::HashSet::new();
        for index in 0..50 {
            let a = random_opening(&mut Rng::for_game(3, index), 8).unwrap();
            let b = random_opening(&mut Rng::for_game(3, index), 8).unwrap();
            assert_eq!(fen(&a), fen(&b));
            assert_eq!(a.board.key(), b.board.key());
            assert_eq!(a.moves_played, 8);
            // The FEN is a legal position for a strict parser, with white to move after 8 plies.
            let parsed: Chess = fen(&a)
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            assert_eq!(parsed.turn(), Color::White);
            assert_eq!(a.board.key(), crate::board::full_key(a.board.pos()));
            distinct.insert(fen(&a));
        }
        assert!(distinct.len() >= 45, "{} distinct openings", distinct.len());
        // Another seed gives other games.
        let x = random_opening(&mut Rng::for_game(4, 0), 8).unwrap();
        let y = random_opening(&mut Rng::for_game(3, 0), 8).unwrap();
        assert_ne!(fen(&x), fen(&y));
        assert_eq!(
            fen(&random_opening(&mut Rng::for_game(3, 0), 0).unwrap()),
            fen(&Game::default())
        );
    }

    #[test]
    fn chosen_openings_are_balanced() {
        let mut player = Player::new(1, None).unwrap();
        for index in 0..3 {
            let game = choose_opening(&mut player, &mut Rng::for_game(1, index), 8);
            assert_eq!(game.moves_played, 8);
            assert!(rules_result(&game).is_none());
        }
    }

    #[test]
    fn rules_end_games() {
        let mate = Game::new(Board::from_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1", false).unwrap());
        assert_eq!(rules_result(&mate), Some(GameResult::WhiteWin));
        let stalemate =
            Game::new(Board::from_fen("7k/5Q2/8/8/8/8/8/6K1 b - - 0 1", false).unwrap());
        assert_eq!(rules_result(&stalemate), Some(GameResult::Draw));
        let bare = Game::new(Board::from_fen("8/8/4k3/8/8/2KB4/8/8 w - - 0 1", false).unwrap());
        assert_eq!(rules_result(&bare), Some(GameResult::Draw));
        let fifty = Game::new(Board::from_fen("8/8/4k3/8/8/2KR4/8/8 w - - 100 80", false).unwrap());
        assert_eq!(rules_result(&fifty), Some(GameResult::Draw));
        let forty_nine =
            Game::new(Board::from_fen("8/8/4k3/8/8/2KR4/8/8 w - - 99 80", false).unwrap());
        assert_eq!(rules_result(&forty_nine), None);
        // Knights out and back: the start position occurs a second time, then a third.
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut moves: Vec<&str> = shuffle.to_vec();
        let twice = Game::from_moves(Board::startpos(), &moves).unwrap();
        assert_eq!(rules_result(&twice), None);
        moves.extend(shuffle);
        let thrice = Game::from_moves(Board::startpos(), &moves).unwrap();
        assert_eq!(rules_result(&thrice), Some(GameResult::Draw));
        assert_eq!(rules_result(&Game::default()), None);
    }

    fn feed(start_ply: usize, scores: &[i32]) -> Option<(usize, GameResult)> {
        let mut a = Adjudicator::default();
        scores
            .iter()
            .enumerate()
            .find_map(|(i, &s)| a.update(start_ply + i, s).map(|r| (i, r)))
    }

    #[test]
    fn win_adjudication() {
        assert_eq!(
            feed(20, &[50, 1000, 1200, 1500, 1000]),
            Some((4, GameResult::WhiteWin))
        );
        assert_eq!(
            feed(20, &[-1000, -2000, -MATE + 10, -1000]),
            Some((3, GameResult::BlackWin))
        );
        // A break in the streak, or the other side's big score, starts it again.
        assert_eq!(feed(20, &[1000, 1000, 1000, 999, 1000, 1000, 1000]), None);
        assert_eq!(
            feed(20, &[1000, 1000, 1000, -1000, -1000, -1000, -1000]),
            Some((6, GameResult::BlackWin))
        );
        assert_eq!(
            feed(20, &[1000, 1000, 1000, MATE - 3]),
            Some((3, GameResult::WhiteWin))
        );
    }

    #[test]
    fn draw_adjudication() {
        let quiet = [0, 5, -10, 10, 0, 0, -3, 2, 1, 0];
        assert_eq!(feed(80, &quiet), Some((9, GameResult::Draw)));
        // Before ply 80 nothing counts; from ply 80 on, ten plies are needed.
        assert_eq!(feed(71, &quiet), None);
        let mut long = vec![0; 9];
        long.extend(quiet);
        assert_eq!(feed(71, &long), Some((18, GameResult::Draw)));
        // One score outside the band restarts the count.
        let mut broken = quiet.to_vec();
        broken[5] = 11;
        assert_eq!(feed(100, &broken), None);
        broken.extend([0; 6]);
        assert_eq!(feed(100, &broken), Some((15, GameResult::Draw)));
    }

    #[test]
    fn a_short_game_is_played_to_the_end() {
        let settings = GameSettings {
            nodes: 300,
            random_plies: 4,
            hash_mb: 1,
            seed: 11,
            network: None,
        };
        let a = play_game(&settings, 0).unwrap();
        let b = play_game(&settings, 0).unwrap();
        assert_eq!(a.lines, b.lines);
        assert_eq!(a.result, b.result);
        assert!(a.plies > 4 + SKIP_PLIES && a.plies <= MAX_PLIES);
        for line in &a.lines {
            let d = super::super::record::parse_line(line).unwrap();
            assert_eq!(d.result, a.result);
            assert!(!d.pos.is_check());
        }
    }
}
