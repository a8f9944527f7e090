//! The UCI engine state machine: the current game, options, the shared TT and the running search.
//! Every command is validated before it changes anything, so a rejected command leaves the previous
//! valid state in place; searches run on their own thread so that `isready`, `stop`, `ponderhit` and
//! `quit` are answered at once.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::{Move, Position};

use super::info;
use super::options::{declarations, Change, Options};
use super::parse::{parse, Command, GoParams, PositionStart};
use crate::board::{parse_uci_move, Board, Game};
use crate::eval::evaluate;
use crate::search::iterate::SearchParams;
use crate::search::{SearchControl, SearchLimits, Searcher, MAX_DEPTH};
use crate::time::{budget, Clock};
use crate::tt::Table;

/// What the input loop should do after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// `quit` was received.
    Quit,
}

struct Running {
    ctl: Arc<SearchControl>,
    handle: JoinHandle<Searcher>,
}

/// The engine behind the UCI loop.
pub struct Engine {
    game: Game,
    options: Options,
    tt: Arc<Table>,
    idle: Option<Searcher>,
    running: Option<Running>,
    debug: bool,
}

/// Stack size of search threads (deep recursion with on-stack move lists).
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// A new engine with default options (16 MB hash, start position).
    pub fn new() -> Engine {
        let options = Options::default();
        let tt =
            Arc::new(Table::new(options.hash_mb).unwrap_or_else(|_| {
                Table::new(1).expect("a 1 MB hash table is always allocatable")
            }));
        let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
        Engine {
            game: Game::default(),
            options,
            idle: Some(Searcher::new(0, Arc::clone(&tt), ctl)),
            tt,
            running: None,
            debug: false,
        }
    }

    /// The current game (for tests and tools).
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// True while a search thread is running.
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Handles one input line.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let parsed = match parse(line) {
            Ok(p) => p,
            Err(e) => {
                info::error(&e);
                return Flow::Continue;
            }
        };
        for w in &parsed.warnings {
            info::error(w);
        }
        self.handle(parsed.command)
    }

    /// Handles one parsed command.
    pub fn handle(&mut self, cmd: Command) -> Flow {
        match cmd {
            Command::Uci => {
                info::emit(&format!("id name Trine {}", env!("CARGO_PKG_VERSION")));
                info::emit("id author the Trine developers");
                for d in declarations() {
                    info::emit(&d);
                }
                info::emit("uciok");
            }
            Command::IsReady => info::emit("readyok"),
            Command::UciNewGame => {
                self.stop_and_wait();
                self.tt.clear();
                if let Some(s) = self.idle.as_mut() {
                    s.history.clear();
                }
                self.game = Game::default();
            }
            Command::Position { start, moves } => self.set_position(&start, &moves),
            Command::Go(go) => {
                if self.running.is_some() {
                    self.stop_and_wait();
                }
                self.start_search(go);
            }
            Command::Stop => {
                if self.running.is_some() {
                    self.stop_and_wait();
                } else {
                    info::error("stop: no search is running");
                }
            }
            Command::PonderHit => match &self.running {
                Some(r) if r.ctl.is_waiting() && !r.handle.is_finished() => r.ctl.ponderhit(),
                _ => info::error("ponderhit: no ponder search is running"),
            },
            Command::Quit => {
                self.stop_and_wait();
                return Flow::Quit;
            }
            Command::SetOption { name, value } => {
                self.stop_and_wait();
                self.set_option(&name, value.as_deref());
            }
            Command::Debug(on) => self.debug = on,
            Command::Display => {
                let b = &self.game.board;
                info::emit(&format!("{:?}", b.pos().board()));
                info::emit(&format!(
                    "Fen: {}",
                    shakmaty::fen::Fen::from_position(b.pos(), shakmaty::EnPassantMode::Legal)
                ));
                info::emit(&format!("Key: {:016x}", b.key()));
            }
            Command::Eval => {
                let e = evaluate(self.game.board.pos());
                info::message(&format!("eval {e} cp (side to move)"));
            }
            Command::Bench { depth } => {
                self.stop_and_wait();
                crate::bench::run(depth.unwrap_or(crate::bench::DEFAULT_DEPTH), false);
            }
            Command::Perft { depth } => {
                self.stop_and_wait();
                let mode = crate::board::castling_mode(self.options.chess960);
                let mut total = 0;
                for (m, n) in crate::perft::divide(self.game.board.pos(), depth, mode) {
                    info::emit(&format!("{m}: {n}"));
                    total += n;
                }
                info::emit("");
                info::emit(&format!("Nodes searched: {total}"));
            }
            Command::Empty => {}
        }
        Flow::Continue
    }

    /// Called at end of input: finishes a bounded search, stops an infinite or ponder one.
    pub fn finish(&mut self) {
        if let Some(r) = &self.running {
            if r.ctl.is_waiting() {
                r.ctl.request_stop();
            }
        }
        self.join();
    }

    fn set_position(&mut self, start: &PositionStart, moves: &[String]) {
        let board = match start {
            PositionStart::StartPos => Ok(Board::startpos()),
            PositionStart::Fen(fen) => Board::from_fen(fen, self.options.chess960),
        };
        let game = board.and_then(|b| {
            let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
            Game::from_moves(b, &texts)
        });
        match game {
            Ok(g) => self.game = g,
            Err(e) => info::error(&format!("{e}; position unchanged")),
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let previous = self.options.clone();
        match self.options.set(name, value) {
            Err(e) => info::error(&e),
            Ok((change, warnings)) => {
                for w in &warnings {
                    info::error(w);
                }
                match change {
                    Change::Hash(mb) => match Table::new(mb) {
                        Ok(t) => {
                            self.tt = Arc::new(t);
                            self.options.hash_mb = mb;
                        }
                        Err(e) => {
                            self.options = previous;
                            info::error(&format!("{e}; keeping Hash {}", self.options.hash_mb));
                        }
                    },
                    Change::ClearHash => self.tt.clear(),
                    Change::Threads(_) | Change::Stored => {}
                }
            }
        }
    }

    fn start_search(&mut self, go: GoParams) {
        let root = self.game.board.clone();
        let clock = Clock {
            wtime: go.wtime,
            btime: go.btime,
            winc: go.winc,
            binc: go.binc,
            movestogo: go.movestogo,
            movetime: go.movetime,
        };
        let has_clock = go.movetime.is_some()
            || match root.turn() {
                shakmaty::Color::White => go.wtime.is_some(),
                shakmaty::Color::Black => go.btime.is_some(),
            };
        let bounded = has_clock || go.depth.is_some() || go.nodes.is_some() || go.mate.is_some();
        let waiting = go.infinite || go.ponder || !bounded;
        let limits = SearchLimits {
            depth: go.depth.map(|d| d.clamp(1, MAX_DEPTH)),
            nodes: go.nodes,
            mate: go.mate,
            time: if go.infinite {
                Default::default()
            } else {
                budget(&clock, root.turn(), self.options.move_overhead_ms)
            },
        };
        let mut searchmoves: Vec<Move> = Vec::new();
        for text in &go.searchmoves {
            match parse_uci_move(root.pos(), text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => info::error(&format!("searchmoves: {e}, ignored")),
            }
        }
        if !go.searchmoves.is_empty() && searchmoves.is_empty() {
            info::error("searchmoves: no legal move given, searching all moves");
        }
        let params = SearchParams {
            multipv: self.options.multipv,
            searchmoves,
            report: true,
            chess960: self.options.chess960,
        };
        let ctl = Arc::new(SearchControl::new(limits, 1, waiting));
        self.tt.new_search();
        let mut searcher = self
            .idle
            .take()
            .unwrap_or_else(|| Searcher::new(0, Arc::clone(&self.tt), Arc::clone(&ctl)));
        searcher.tt = Arc::clone(&self.tt);
        searcher.ctl = Arc::clone(&ctl);
        let game = self.game.clone();
        let thread_ctl = Arc::clone(&ctl);
        let spawned = std::thread::Builder::new()
            .name("trine-search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                search_thread(&mut searcher, &game, &params, &thread_ctl);
                searcher
            });
        match spawned {
            Ok(handle) => self.running = Some(Running { ctl, handle }),
            Err(e) => {
                info::error(&format!("cannot start the search thread: {e}"));
                info::emit(&info::format_bestmove(
                    self.game.board.pos().legal_moves().first().copied(),
                    None,
                    self.options.chess960,
                ));
            }
        }
    }

    /// Stops a running search (its `bestmove` is printed) and waits for its thread.
    pub fn stop_and_wait(&mut self) {
        if let Some(r) = &self.running {
            r.ctl.request_stop();
        }
        self.join();
    }

    fn join(&mut self) {
        if let Some(r) = self.running.take() {
            match r.handle.join() {
                Ok(s) => self.idle = Some(s),
                Err(_) => {
                    info::error("the search thread failed");
                    self.idle = None;
                }
            }
        }
    }
}

/// Body of the search thread: search, wait while pondering/infinite, print `bestmove`.
fn search_thread(searcher: &mut Searcher, game: &Game, params: &SearchParams, ctl: &SearchControl) {
    let outcome = catch_unwind(AssertUnwindSafe(|| searcher.iterate(game, params)));
    let (best, ponder) = match outcome {
        Ok(result) => (result.best_move, result.ponder),
        Err(_) => {
            info::error("internal error in the search; playing the first legal move");
            (game.board.pos().legal_moves().first().copied(), None)
        }
    };
    if best.is_none() {
        let score = if game.board.in_check() {
            "mate 0"
        } else {
            "cp 0"
        };
        info::emit(&format!("info depth 0 score {score}"));
    }
    while ctl.is_waiting() && !ctl.stopped() {
        std::thread::sleep(Duration::from_millis(1));
    }
    info::emit(&info::format_bestmove(best, ponder, params.chess960));
}
