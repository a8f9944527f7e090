//! How the search tells the world what it found: the master thread hands each finished (or, on an
//! aspiration fail, bounded) line and, at the end, what the search did in all and the move to play
//! to a [`Reporter`]. The search and the thread pool never print; the UCI layer implements the trait
//! (`uci::info::UciReporter`) and formats `info` and `bestmove`, while bench, scale and datagen pass
//! none.

use std::fmt;

use shakmaty::Move;

use crate::tt::Bound;

/// One reported line of an iteration.
pub struct LineReport<'a> {
    /// Iteration depth.
    pub depth: u32,
    /// Selective depth.
    pub seldepth: u32,
    /// 1-based MultiPV index.
    pub multipv: usize,
    /// Score from the side to move at the root.
    pub score: i32,
    /// Exact, or lower/upper bound (aspiration fail-high / fail-low).
    pub bound: Bound,
    /// What the search has done so far, every thread counted.
    pub totals: SearchTotals,
    /// The line.
    pub pv: &'a [Move],
}

/// What a search has done, every thread's work counted: so far, in a [`LineReport`]; in all, once
/// every thread has stopped, in [`Reporter::totals`] (the last iteration is often cut short by the
/// clock, so the last line undercounts the search).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchTotals {
    /// Nodes of all threads.
    pub nodes: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// TT fill, permille.
    pub hashfull: u32,
    /// Tablebase probes that found the position, all threads.
    pub tbhits: u64,
}

/// Receives what the search reports; called from the master search thread.
pub trait Reporter: Send + Sync + fmt::Debug {
    /// A line of an iteration.
    fn line(&self, line: &LineReport<'_>);
    /// The search is over and every thread has stopped: its totals, just before [`best_move`].
    ///
    /// [`best_move`]: Reporter::best_move
    fn totals(&self, totals: &SearchTotals);
    /// The search is over: the move to play and the expected reply; `best` is `None` when the
    /// root has no legal move (`in_check`: checkmated, else stalemate).
    fn best_move(&self, best: Option<Move>, ponder: Option<Move>, in_check: bool);
    /// Something went wrong inside the search (a search thread panicked).
    fn error(&self, message: &str);
}
