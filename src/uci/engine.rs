//! The UCI engine state machine: the current game, options, the shared TT and the running search.
//! Every command is validated before it changes anything, so a rejected command leaves the previous
//! valid state in place; searches run on their own thread so that `isready`, `stop`, `ponderhit` and
//! `quit` are answered at once.

use std::sync::Arc;

use shakmaty::{Move, Position};

use super::console_job::ConsoleJob;
use super::info::{self, UciReporter};
use super::options::{declarations, Change, Options, NO_SYZYGY_PATH};
use super::parse::{parse, Command, GoParams, PositionStart};
use crate::board::{parse_uci_move, Board, Game};
use crate::eval::evaluate;
use crate::learn::Learner;
use crate::nnue::Network;
use crate::search::iterate::SearchParams;
use crate::search::{SearchLimits, MAX_DEPTH};
use crate::syzygy::{rank_root, Probing, Tablebases};
use crate::threads::{Job, Pool, SearchSpec, Task};
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

/// The engine behind the UCI loop.
pub struct Engine {
    game: Game,
    options: Options,
    tt: Arc<Table>,
    pool: Pool,
    current: Option<Arc<Job>>,
    learner: Option<Learner>,
    /// The network `EvalFile` loaded; `None`: the hand-written evaluation.
    network: Option<Arc<Network>>,
    /// The tables `SyzygyPath` loaded; `None`: no tablebases.
    tablebases: Option<Arc<Tablebases>>,
    debug: bool,
    /// A `bench` or `perft` typed at the console, running beside the input loop.
    console: Option<ConsoleJob>,
    /// The table was cleared or replaced since learned positions were last written into it.
    tt_emptied: bool,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// A new engine with default options (16 MB hash, one thread, start position).
    pub fn new() -> Engine {
        let mut options = Options::default();
        let tt = Arc::new(
            Table::new(options.hash_mb)
                .or_else(|_| Table::new(1))
                .unwrap_or_else(|_| Table::placeholder()),
        );
        let (pool, error) = Pool::start_up_to(options.threads);
        if let Some(e) = error {
            info::error(&format!("{e}; searching with {} threads", pool.size()));
        }
        options.threads = pool.size().max(1);
        let network =
            crate::nnue::resolve(&options.eval_file).expect("the default evaluation is built in");
        Engine {
            game: Game::default(),
            options,
            tt,
            pool,
            current: None,
            learner: None,
            network,
            tablebases: None,
            debug: false,
            console: None,
            tt_emptied: true,
        }
    }

    /// The current game (for tests and tools).
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// True while a search is running.
    pub fn is_searching(&self) -> bool {
        self.pool.is_busy()
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
        // A search that has finished since the last command is settled first (learning).
        let finished = self
            .current
            .as_ref()
            .is_some_and(|job| job.outcome.lock().done);
        if finished {
            self.settle();
        }
        let console_stopped = match &cmd {
            Command::Go(_)
            | Command::Stop
            | Command::Quit
            | Command::SetOption { .. }
            | Command::UciNewGame
            | Command::Bench { .. }
            | Command::Perft { .. } => self.stop_console_job(),
            _ => false,
        };
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
                self.tt_emptied = true;
                self.clear_history();
                self.game = Game::default();
                if let Some(l) = self.learner.as_mut() {
                    l.new_game();
                }
            }
            Command::Position { start, moves } => self.set_position(&start, &moves),
            Command::Go(go) => {
                self.stop_and_wait();
                self.start_search(go);
            }
            Command::Stop => {
                if self.is_searching() {
                    self.stop_and_wait();
                } else if !console_stopped {
                    info::error("stop: no search is running");
                }
            }
            Command::PonderHit => match &self.current {
                Some(job) if job.ctl.is_waiting() && self.is_searching() => job.ctl.ponderhit(),
                _ => info::error("ponderhit: no ponder search is running"),
            },
            Command::Quit => {
                self.stop_and_wait();
                self.close_learner();
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
                let pos = self.game.board.pos();
                match &self.network {
                    Some(n) => info::message(&format!(
                        "eval {} cp (side to move, network {}; hand-written {})",
                        n.evaluate(pos),
                        self.options.eval_file,
                        evaluate(pos)
                    )),
                    None => info::message(&format!("eval {} cp (side to move)", evaluate(pos))),
                }
            }
            Command::Bench { depth } => {
                self.stop_and_wait();
                let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                let network = self.network.clone();
                self.start_console_job("bench", move |cancel| {
                    crate::bench::run_until(depth, false, network.as_ref(), cancel);
                });
            }
            Command::Perft { depth } => {
                self.stop_and_wait();
                let mode = crate::board::castling_mode(self.options.chess960);
                let pos = self.game.board.pos().clone();
                self.start_console_job("perft", move |cancel| {
                    let Some(lines) = crate::perft::divide_until(&pos, depth, mode, cancel) else {
                        return;
                    };
                    if !cancel.finish() {
                        return;
                    }
                    let mut total = 0;
                    for (m, n) in lines {
                        info::emit(&format!("{m}: {n}"));
                        total += n;
                    }
                    info::emit("");
                    info::emit(&format!("Nodes searched: {total}"));
                });
            }
            Command::Empty => {}
        }
        Flow::Continue
    }

    /// Starts `work` as the console job (none is running: commands that start one stop the
    /// previous first).
    fn start_console_job(
        &mut self,
        name: &'static str,
        work: impl FnOnce(&crate::cancel::Cancel) + Send + 'static,
    ) {
        match ConsoleJob::spawn(name, work) {
            Ok(job) => self.console = Some(job),
            Err(e) => info::error(&e),
        }
    }

    /// Stops a running `bench` or `perft` (saying so); true when one was running.
    fn stop_console_job(&mut self) -> bool {
        let Some(job) = self.console.take() else {
            return false;
        };
        let name = job.name();
        let stopped = job.stop();
        if stopped {
            info::message(&format!("{name} stopped"));
        }
        stopped
    }

    /// Called at end of input: finishes a bounded search, stops an infinite or ponder one, lets a
    /// `bench` or `perft` finish, and saves what learning has queued.
    pub fn finish(&mut self) {
        if let Some(job) = self.console.take() {
            job.wait();
        }
        if let Some(job) = &self.current {
            if job.ctl.is_waiting() {
                job.ctl.request_stop();
            }
        }
        self.settle();
        self.close_learner();
    }

    fn clear_history(&mut self) {
        let job = Job::clear_history(
            Arc::clone(&self.tt),
            self.pool.size(),
            self.options.smp_mode,
        );
        self.pool.run(Arc::new(job));
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
                    Change::Hash(mb) => self.resize_table(mb, previous.hash_mb),
                    Change::ClearHash => {
                        self.tt.clear();
                        self.tt_emptied = true;
                    }
                    Change::Threads(n) => {
                        if n != self.pool.size() {
                            self.restart_pool(n);
                        }
                    }
                    Change::Learn => self.open_learner(),
                    Change::EvalFile(path) => self.set_eval_file(path),
                    Change::SyzygyPath(path) => self.set_syzygy_path(&path),
                    Change::Stored => {}
                }
            }
        }
    }

    /// Replaces the table by one of `mb` MiB. The old table is freed first (no search runs and
    /// the threads hold none between searches), so the peak is the larger of the two, not their
    /// sum; when the new size cannot be had, the old size is allocated again (or less, halving).
    fn resize_table(&mut self, mb: usize, old_mb: usize) {
        self.tt = Arc::new(Table::placeholder());
        let table = match Table::new(mb) {
            Ok(t) => {
                self.options.hash_mb = mb;
                t
            }
            Err(e) => {
                let mut size = old_mb;
                let table = loop {
                    match Table::new(size) {
                        Ok(t) => break t,
                        Err(_) if size > 1 => size /= 2,
                        Err(_) => break Table::placeholder(),
                    }
                };
                self.options.hash_mb = size;
                info::error(&format!("{e}; keeping Hash {size}"));
                table
            }
        };
        self.tt = Arc::new(table);
        self.tt_emptied = true;
    }

    /// Replaces the pool by one of `n` threads, the old threads (their stacks and tables) freed
    /// first; as many threads as can be started are kept, and `Threads` says how many.
    fn restart_pool(&mut self, n: usize) {
        self.pool = Pool::empty();
        let (pool, error) = Pool::start_up_to(n);
        self.pool = pool;
        self.options.threads = self.pool.size().max(1);
        if let Some(e) = error {
            info::error(&format!("{e}; searching with {} threads", self.pool.size()));
        }
    }

    /// Opens the learn file when learning is on, for the evaluation in use (a learn file holds
    /// one evaluation's scores), and reads it now rather than on the first `go`. The learner's
    /// background writer reports through `info string` lines.
    fn open_learner(&mut self) {
        if self.learner.is_some() {
            // Its pinned positions leave the table with it.
            self.tt.clear();
            self.tt_emptied = true;
        }
        self.close_learner();
        if !self.options.learning {
            return;
        }
        let eval = crate::nnue::eval_version(self.network.as_ref());
        let sink: crate::learn::Sink = Arc::new(|m: &str| info::message(m));
        let o = &self.options;
        match Learner::new(&o.learn_file, o.learn_capacity, eval, sink) {
            Ok(mut learner) => {
                for m in learner.refresh() {
                    info::message(&m);
                }
                self.learner = Some(learner);
            }
            Err(e) => info::error(&format!("cannot start learning: {e}")),
        }
    }

    /// Saves what the learner has queued (waiting a bounded time) and drops it.
    fn close_learner(&mut self) {
        if let Some(mut learner) = self.learner.take() {
            for m in learner.close() {
                info::message(&m);
            }
        }
    }

    /// Switches to the evaluation `value` names (see [`crate::nnue::resolve`]). A file that
    /// cannot be read or is not a network is an error and the evaluation in use stays. The table
    /// is emptied (its stored static evaluations belong to the previous evaluation) and the learn
    /// file is reopened for the new evaluation.
    fn set_eval_file(&mut self, value: String) {
        let network = match crate::nnue::resolve(&value) {
            Ok(n) => n,
            Err(e) => {
                info::error(&format!("{e}; keeping EvalFile {}", self.options.eval_file));
                return;
            }
        };
        self.stop_and_wait();
        match &network {
            Some(n) => info::message(&format!(
                "evaluation: network {value}, hidden size {}, {} output bucket(s), {} king \
                 bucket(s), fingerprint {:08x}",
                n.hidden(),
                n.buckets(),
                n.king_buckets(),
                n.fingerprint()
            )),
            None => info::message("evaluation: hand-written"),
        }
        self.network = network;
        self.options.eval_file = if self.network.is_some() {
            value
        } else {
            crate::nnue::HAND_WRITTEN.to_string()
        };
        self.tt.clear();
        self.tt_emptied = true;
        self.open_learner();
    }

    /// Loads the tables of `value` (see [`Tablebases::load`]); `<empty>` or nothing unloads them.
    /// Directories that cannot be read or hold no table are an error, and the tables in use (or
    /// none) stay.
    fn set_syzygy_path(&mut self, value: &str) {
        if value.is_empty() || value == NO_SYZYGY_PATH {
            if self.tablebases.take().is_some() {
                info::message("tablebases unloaded");
            }
            self.options.syzygy_path = NO_SYZYGY_PATH.to_string();
            return;
        }
        match Tablebases::load(value) {
            Ok(tables) => {
                info::message(&tables.summary());
                self.tablebases = Some(Arc::new(tables));
                self.options.syzygy_path = value.to_string();
            }
            Err(e) => info::error(&format!(
                "{e}; keeping SyzygyPath {}",
                self.options.syzygy_path
            )),
        }
    }

    /// The tablebase part of a search of the current position: how the search probes, and what
    /// the tables say about the root, whose moves (`searchmoves`, or every legal move) they may
    /// narrow. A root the tables ranked by DTZ is not probed below (as Stockfish): its moves
    /// already keep the result.
    fn tablebase_params(
        &self,
        searchmoves: &mut Vec<Move>,
    ) -> (Option<Probing>, Option<Arc<crate::syzygy::RootTablebase>>) {
        let o = &self.options;
        let Some(probing) = self.tablebases.as_ref().and_then(|t| {
            Probing::new(
                Arc::clone(t),
                o.syzygy_probe_depth,
                o.syzygy_probe_limit,
                o.syzygy_50_move_rule,
                o.chess960,
            )
        }) else {
            return (None, None);
        };
        let candidates: Vec<Move> = if searchmoves.is_empty() {
            self.game.board.pos().legal_moves().into_iter().collect()
        } else {
            searchmoves.clone()
        };
        match rank_root(&probing, &self.game, &candidates) {
            None => (Some(probing), None),
            Some(root) => {
                searchmoves.clone_from(&root.moves);
                let probing = root.search_probes().then_some(probing);
                (probing, Some(Arc::new(root)))
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
        let (syzygy, root_tb) = self.tablebase_params(&mut searchmoves);
        let params = SearchParams {
            multipv: self.options.multipv,
            searchmoves,
            reporter: Some(Arc::new(UciReporter {
                chess960: self.options.chess960,
            })),
            network: self.network.clone(),
            syzygy,
            root_tb,
        };
        let job = Arc::new(Job::search(SearchSpec {
            game: self.game.clone(),
            params,
            limits,
            waiting,
            tt: Arc::clone(&self.tt),
            threads: self.pool.size(),
            mode: self.options.smp_mode,
            min_split_depth: self.options.split_depth,
            hybrid_margin: self.options.hybrid_margin,
        }));
        self.tt.new_search();
        if let Some(l) = self.learner.as_mut() {
            for m in l.refresh() {
                info::message(&m);
            }
            let n = l.sync_into(&self.tt, std::mem::take(&mut self.tt_emptied));
            if self.debug && n > 0 {
                info::message(&format!("loaded {n} learned positions into the hash table"));
            }
        }
        if self.pool.size() == 0 {
            self.restart_pool(self.options.threads);
        }
        if self.pool.size() == 0 {
            // Nothing can search: answer at once rather than never.
            info::error("no search thread is running; playing the first legal move");
            if let Some(task) = job.task.search() {
                task.answer_without_result();
            }
            return;
        }
        self.current = Some(Arc::clone(&job));
        self.pool.start(job);
    }

    /// Stops a running search (its `bestmove` is printed) and waits for the threads.
    pub fn stop_and_wait(&mut self) {
        if let Some(job) = &self.current {
            job.ctl.request_stop();
        }
        self.settle();
    }

    /// Waits for the pool, then lets the learner look at the finished search.
    fn settle(&mut self) {
        self.pool.wait();
        if self.pool.lost() > 0 {
            let lost = self.pool.lost();
            info::error(&format!(
                "{lost} search thread(s) died; starting {} again",
                self.options.threads
            ));
            self.restart_pool(self.options.threads);
        }
        let Some(job) = self.current.take() else {
            return;
        };
        let (Some(learner), Task::Search(task)) = (self.learner.as_mut(), &job.task) else {
            return;
        };
        let outcome = job.outcome.lock();
        if let Some(result) = &outcome.result {
            learner.after_search(&task.game, result, self.options.learn_threshold);
        }
    }
}
