//! One game between two engines: the result types ([`result`]), the rules of chess that end
//! a game ([`rules`]) and the game loop ([`play`]).

pub mod play;
pub mod result;
pub mod rules;

pub use play::{play_game, GameRecord, GameSettings, PlayedMove};
pub use result::{GameResult, Termination};
