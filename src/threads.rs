//! The thread pool: persistent workers created once (and re-created only when `Threads` changes),
//! each owning its [`Searcher`] (PV table, history, statistics) across searches. A search is a
//! [`Job`]: the workers are woken through a `parking_lot` condvar, thread 0 (the master) runs the
//! reported iterative deepening and owns the root PV and `bestmove`; helpers run Lazy SMP and/or join
//! split points. All stop on the job's atomic stop flag; the master waits for every helper before it
//! prints `bestmove`, so a finished job leaves the pool idle.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::board::Game;
use crate::search::iterate::SearchParams;
use crate::search::smp::{SmpMode, SmpStats, SplitBoard};
use crate::search::{NodeStats, SearchControl, SearchLimits, SearchResult, SearchTotals, Searcher};
use crate::tt::Table;
use shakmaty::Position;

/// Stack size of search threads (deep recursion with on-stack move lists).
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// A search for the pool.
pub struct SearchTask {
    /// The game.
    pub game: Game,
    /// MultiPV, searchmoves, the evaluation and where to report.
    pub params: SearchParams,
}

impl SearchTask {
    /// Answers for a search that has no result: `bestmove` with the first legal move.
    pub fn answer_without_result(&self) {
        answer_first_legal(&self.game, &self.params);
    }
}

/// Everything a search job is made of.
pub struct SearchSpec {
    /// The game whose current position is searched.
    pub game: Game,
    /// MultiPV, searchmoves, the evaluation and where to report.
    pub params: SearchParams,
    /// Depth, nodes, mate and time limits.
    pub limits: SearchLimits,
    /// `go ponder` or `go infinite`: `bestmove` waits for `stop` or `ponderhit`.
    pub waiting: bool,
    /// The shared table.
    pub tt: Arc<Table>,
    /// Threads that search (the pool's size).
    pub threads: usize,
    /// How helpers share the work.
    pub mode: SmpMode,
    /// Smallest remaining depth at which a node offers a split point.
    pub min_split_depth: i32,
    /// `hybrid`: how many plies below the root split points are offered.
    pub hybrid_margin: i32,
}

/// What the threads do.
pub enum Task {
    /// Search the game's position.
    Search(Box<SearchTask>),
    /// Forget killers and history (new game).
    ClearHistory,
    /// The search, in which thread `thread` dies outside every guard of the search (tests of a
    /// lost thread).
    #[cfg(test)]
    Die {
        /// The thread that dies.
        thread: usize,
        /// What the others search.
        task: Box<SearchTask>,
    },
}

impl Task {
    /// The search this task runs, if it is one.
    pub fn search(&self) -> Option<&SearchTask> {
        match self {
            Task::Search(task) => Some(task),
            Task::ClearHistory => None,
            #[cfg(test)]
            Task::Die { task, .. } => Some(task),
        }
    }
}

/// Results gathered from all threads.
#[derive(Clone, Debug, Default)]
pub struct JobOutcome {
    /// The master's result.
    pub result: Option<SearchResult>,
    /// Node-type statistics summed over threads.
    pub stats: NodeStats,
    /// Split-point counters summed over threads.
    pub smp: SmpStats,
    /// Nodes of all threads.
    pub nodes: u64,
    /// Tablebase hits of all threads.
    pub tbhits: u64,
    /// Set by the master once the search is over (just before `bestmove`).
    pub done: bool,
    /// What went wrong in a search thread (a panic), also told to the reporter if there is one.
    pub errors: Vec<String>,
}

/// One unit of work for the whole pool.
pub struct Job {
    /// What to do.
    pub task: Task,
    /// Stop flag, limits and node counters.
    pub ctl: Arc<SearchControl>,
    /// The shared table.
    pub tt: Arc<Table>,
    /// Split points on offer.
    pub splits: Arc<SplitBoard>,
    /// Filled in as threads finish.
    pub outcome: Mutex<JobOutcome>,
}

impl Job {
    /// A job that makes every thread forget its killers and history (a new game, or a new
    /// position of a measurement).
    pub fn clear_history(tt: Arc<Table>, threads: usize, mode: SmpMode) -> Job {
        Job {
            task: Task::ClearHistory,
            ctl: Arc::new(SearchControl::new(SearchLimits::default(), threads, false)),
            tt,
            splits: Arc::new(SplitBoard::new(mode, threads, i32::MAX)),
            outcome: Mutex::new(JobOutcome::default()),
        }
    }

    /// A search job.
    pub fn search(spec: SearchSpec) -> Job {
        Job {
            task: Task::Search(Box::new(SearchTask {
                game: spec.game,
                params: spec.params,
            })),
            ctl: Arc::new(SearchControl::new(spec.limits, spec.threads, spec.waiting)),
            tt: spec.tt,
            splits: Arc::new(
                SplitBoard::new(spec.mode, spec.threads, spec.min_split_depth)
                    .with_hybrid_margin(spec.hybrid_margin),
            ),
            outcome: Mutex::new(JobOutcome::default()),
        }
    }

    /// Records an error of a search thread and tells the reporter, if there is one.
    fn error(&self, params: &SearchParams, message: &str) {
        if let Some(r) = &params.reporter {
            r.error(message);
        }
        self.outcome.lock().errors.push(message.to_string());
    }
}

struct State {
    generation: u64,
    job: Option<Arc<Job>>,
    busy: usize,
    /// Threads running their loop (started and not dead).
    alive: usize,
    /// Threads that died (a panic outside the search's own guards).
    lost: usize,
    /// Thread 0, which reports, died: the pool can no longer search.
    master_lost: bool,
    quit: bool,
}

struct Shared {
    state: Mutex<State>,
    start: Condvar,
    done: Condvar,
    /// The table a thread points at between jobs, so that no thread keeps a search's table alive.
    placeholder: Arc<Table>,
}

/// The pool of search threads.
pub struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `threads` workers (at least one); a thread that cannot be created is an error.
    pub fn new(threads: usize) -> Result<Pool, String> {
        match Pool::start_up_to(threads) {
            (pool, None) => Ok(pool),
            (_, Some(e)) => Err(e),
        }
    }

    /// Starts up to `threads` workers (at least one is tried) and keeps those that started; the
    /// error says why the others did not. The pool may be empty: see [`Pool::size`].
    pub fn start_up_to(threads: usize) -> (Pool, Option<String>) {
        let mut pool = Pool::empty();
        for id in 0..threads.max(1) {
            let shared = Arc::clone(&pool.shared);
            let spawned = std::thread::Builder::new()
                .name(format!("trine-search-{id}"))
                .stack_size(SEARCH_STACK_BYTES)
                .spawn(move || worker(id, &shared));
            match spawned {
                Ok(handle) => {
                    pool.handles.push(handle);
                    pool.shared.state.lock().alive += 1;
                }
                Err(e) => {
                    let error =
                        format!("cannot start search thread {id} of {}: {e}", threads.max(1));
                    return (pool, Some(error));
                }
            }
        }
        (pool, None)
    }

    /// A pool without threads: a job started on it finishes at once, untouched.
    pub fn empty() -> Pool {
        Pool {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    generation: 0,
                    job: None,
                    busy: 0,
                    alive: 0,
                    lost: 0,
                    master_lost: false,
                    quit: false,
                }),
                start: Condvar::new(),
                done: Condvar::new(),
                placeholder: Arc::new(Table::placeholder()),
            }),
            handles: Vec::new(),
        }
    }

    /// Number of threads that work (started, and not lost since); 0 once the master is lost.
    pub fn size(&self) -> usize {
        let s = self.shared.state.lock();
        if s.master_lost {
            0
        } else {
            s.alive
        }
    }

    /// Number of threads that died since the pool started.
    pub fn lost(&self) -> usize {
        self.shared.state.lock().lost
    }

    /// Hands a job to every working thread (waiting first for any previous job to finish).
    pub fn start(&self, job: Arc<Job>) {
        let mut s = self.shared.state.lock();
        while s.busy > 0 {
            self.shared.done.wait(&mut s);
        }
        if s.alive == 0 || s.master_lost {
            return;
        }
        s.job = Some(job);
        s.generation += 1;
        s.busy = s.alive;
        self.shared.start.notify_all();
    }

    /// Waits until every thread has finished the current job.
    pub fn wait(&self) {
        let mut s = self.shared.state.lock();
        while s.busy > 0 {
            self.shared.done.wait(&mut s);
        }
    }

    /// True while a job is running.
    pub fn is_busy(&self) -> bool {
        self.shared.state.lock().busy > 0
    }

    /// Runs a job to the end and returns what the threads gathered.
    pub fn run(&self, job: Arc<Job>) -> JobOutcome {
        self.start(Arc::clone(&job));
        self.wait();
        let outcome = job.outcome.lock().clone();
        outcome
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        {
            let mut s = self.shared.state.lock();
            if let Some(job) = &s.job {
                job.ctl.request_stop();
            }
            while s.busy > 0 {
                self.shared.done.wait(&mut s);
            }
            s.quit = true;
            self.shared.start.notify_all();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// A worker's hold on the pool: if the thread dies (a panic that no guard of the search caught),
/// its drop gives the job back as finished, stops that job, and counts the thread as lost, so
/// that `wait` and `start` never wait for a dead thread.
/// When the master dies before `bestmove`, the drop also answers for it (the first legal move),
/// once the helpers are out.
struct Membership<'a> {
    id: usize,
    shared: &'a Shared,
    job: Option<Arc<Job>>,
}

impl Drop for Membership<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        if let Some(job) = &self.job {
            job.ctl.request_stop();
            job.splits.wake_all();
            if let Some(task) = job.task.search() {
                job.error(&task.params, "a search thread died");
                if self.id == 0 {
                    answer_for_dead_master(job, task, self.shared);
                }
            }
        }
        let mut s = self.shared.state.lock();
        s.alive -= 1;
        s.lost += 1;
        s.master_lost |= self.id == 0;
        if self.job.is_some() {
            s.busy -= 1;
            if s.busy == 0 {
                s.job = None;
            }
        }
        self.shared.done.notify_all();
    }
}

fn worker(id: usize, shared: &Shared) {
    let ctl = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
    let mut searcher = Searcher::new(id, Arc::clone(&shared.placeholder), ctl);
    let mut member = Membership {
        id,
        shared,
        job: None,
    };
    let mut seen = 0u64;
    loop {
        member.job = {
            let mut s = shared.state.lock();
            while s.generation == seen && !s.quit {
                shared.start.wait(&mut s);
            }
            if s.quit {
                return;
            }
            seen = s.generation;
            s.job.clone()
        };
        if let Some(job) = &member.job {
            run_job(id, &mut searcher, job, shared);
        }
        // Nothing of the job stays with the thread (a `Hash` change frees the old table first).
        searcher.release_table(&shared.placeholder);
        member.job = None;
        let mut s = shared.state.lock();
        s.busy -= 1;
        if s.busy == 0 {
            s.job = None;
        }
        shared.done.notify_all();
    }
}

/// The master died: once the helpers are out, `bestmove` with the first legal move, unless the
/// master got as far as answering.
fn answer_for_dead_master(job: &Job, task: &SearchTask, shared: &Shared) {
    {
        let mut s = shared.state.lock();
        while s.busy > 1 {
            shared.done.wait(&mut s);
        }
    }
    {
        let mut o = job.outcome.lock();
        if o.done {
            return;
        }
        o.done = true;
    }
    task.answer_without_result();
}

fn run_job(id: usize, searcher: &mut Searcher, job: &Job, shared: &Shared) {
    #[cfg(test)]
    if let Task::Die { thread, .. } = &job.task {
        assert!(*thread != id, "thread {id} dies (test)");
    }
    match job.task.search() {
        None => searcher.clear_history(),
        Some(task) => {
            searcher.prepare(&job.tt, &job.ctl, &job.splits);
            // YBW helpers never run `iterate`, which sets the evaluation and the tablebases for
            // the others.
            searcher.set_network(task.params.network.as_ref());
            searcher.set_tablebases(task.params.syzygy.as_ref());
            if id == 0 {
                run_master(searcher, job, &task.game, &task.params, shared);
            } else {
                run_helper(searcher, job, &task.game, &task.params);
            }
        }
    }
}

fn gather(searcher: &mut Searcher, job: &Job) {
    searcher.absorb_worker();
    let mut o = job.outcome.lock();
    o.stats.merge(&searcher.stats);
    o.smp.merge(&searcher.smp);
    o.nodes += searcher.nodes;
    o.tbhits += searcher.tbhits;
}

fn run_master(
    searcher: &mut Searcher,
    job: &Job,
    game: &Game,
    params: &SearchParams,
    shared: &Shared,
) {
    let ctl = &job.ctl;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        searcher.iterate(game, params)
    }));
    let result = match outcome {
        Ok(r) => Some(r),
        Err(_) => {
            job.error(
                params,
                "internal error in the search; playing the first legal move",
            );
            None
        }
    };
    // Pondering or infinite: the answer waits for `stop` or `ponderhit`.
    while ctl.is_waiting() && !ctl.stopped() {
        std::thread::sleep(Duration::from_millis(1));
    }
    ctl.request_stop();
    job.splits.wake_all();
    // Wait for the helpers so that the pool is idle once `bestmove` is out.
    {
        let mut s = shared.state.lock();
        while s.busy > 1 {
            shared.done.wait(&mut s);
        }
    }
    gather(searcher, job);
    let (nodes, tbhits) = {
        // Recorded before `bestmove` goes out, so a command that follows it sees the search as done.
        let mut o = job.outcome.lock();
        o.result = result.clone();
        o.done = true;
        (o.nodes, o.tbhits)
    };
    match (&result, &params.reporter) {
        (Some(r), Some(reporter)) => {
            reporter.totals(&SearchTotals {
                nodes,
                time_ms: ctl.elapsed_ms(),
                hashfull: job.tt.hashfull(),
                tbhits,
            });
            reporter.best_move(r.best_move, r.ponder, game.board.in_check());
        }
        (None, _) => answer_first_legal(game, params),
        (Some(_), None) => {}
    }
}

/// `bestmove` with the first legal move, for a search that has no result (a dead master, no
/// thread to search, a panic in the search).
fn answer_first_legal(game: &Game, params: &SearchParams) {
    if let Some(reporter) = &params.reporter {
        let board = &game.board;
        let first = board.pos().legal_moves().first().copied();
        reporter.best_move(first, None, board.in_check());
    }
}

fn run_helper(searcher: &mut Searcher, job: &Job, game: &Game, params: &SearchParams) {
    let quiet = SearchParams {
        reporter: None,
        ..params.clone()
    };
    let ctl = &job.ctl;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if job.splits.mode != SmpMode::Ybw {
            searcher.iterate(game, &quiet);
        }
        // Lazy helpers that reached the depth limit, and every YBW helper: serve split points.
        while !ctl.stopped() {
            if job.splits.mode == SmpMode::Lazy {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            if !searcher.join_split_point() {
                let t = Instant::now();
                job.splits.wait_for_work(Duration::from_millis(1));
                searcher.smp.idle_us += t.elapsed().as_micros() as u64;
            }
        }
    }));
    if outcome.is_err() {
        // The split points it was in were left and withdrawn as it unwound, but the move it was
        // searching has no score: the search ends with the last completed iteration.
        job.error(
            params,
            "internal error in a search thread; the search stops",
        );
        ctl.request_stop();
    }
    gather(searcher, job);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::board::Board;

    fn job(threads: usize, mode: SmpMode, depth: u32) -> Arc<Job> {
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
        let limits = SearchLimits {
            depth: Some(depth),
            ..SearchLimits::default()
        };
        Arc::new(Job::search(SearchSpec {
            game: Game::new(Board::from_fen(fen, false).unwrap()),
            params: SearchParams::default(),
            limits,
            waiting: false,
            tt: Arc::new(Table::new(8).unwrap()),
            threads,
            mode,
            // Split from depth 2, so that split points are many even in a short search.
            min_split_depth: 2,
            hybrid_margin: crate::search::smp::HYBRID_MARGIN,
        }))
    }

    fn dying(threads: usize, thread: usize, reporter: Arc<Recorder>) -> Arc<Job> {
        let mut j = Arc::into_inner(job(threads, SmpMode::Lazy, 8)).unwrap();
        let Task::Search(mut task) = j.task else {
            unreachable!()
        };
        task.params.reporter = Some(reporter);
        j.task = Task::Die { thread, task };
        Arc::new(j)
    }

    fn reported(threads: usize, mode: SmpMode, depth: u32, reporter: Arc<Recorder>) -> Arc<Job> {
        let mut j = Arc::into_inner(job(threads, mode, depth)).unwrap();
        let Task::Search(task) = &mut j.task else {
            unreachable!()
        };
        task.params.reporter = Some(reporter);
        Arc::new(j)
    }

    /// A reporter that keeps what it is told.
    #[derive(Debug, Default)]
    struct Recorder {
        best: Mutex<Vec<Option<shakmaty::Move>>>,
        totals: Mutex<Vec<SearchTotals>>,
        /// `totals` and `best` in the order they came.
        order: Mutex<Vec<&'static str>>,
        errors: Mutex<Vec<String>>,
    }

    impl crate::search::Reporter for Recorder {
        fn line(&self, _: &crate::search::LineReport<'_>) {}
        fn totals(&self, totals: &SearchTotals) {
            self.totals.lock().push(*totals);
            self.order.lock().push("totals");
        }
        fn best_move(&self, best: Option<shakmaty::Move>, _: Option<shakmaty::Move>, _: bool) {
            self.best.lock().push(best);
            self.order.lock().push("best");
        }
        fn error(&self, message: &str) {
            self.errors.lock().push(message.to_string());
        }
    }

    #[test]
    fn a_helper_that_dies_is_lost_and_the_pool_plays_on_without_it() {
        let pool = Pool::new(2).unwrap();
        let recorder = Arc::new(Recorder::default());
        let outcome = pool.run(dying(2, 1, Arc::clone(&recorder)));
        assert!(outcome.done);
        assert!(outcome.result.is_some(), "the master answers");
        assert_eq!(recorder.best.lock().len(), 1, "one bestmove");
        assert_eq!(*recorder.errors.lock(), ["a search thread died"]);
        assert_eq!((pool.size(), pool.lost()), (1, 1));
        // The next search runs on the thread that is left, to the end.
        let outcome = pool.run(job(1, SmpMode::Lazy, 6));
        assert_eq!(outcome.result.map(|r| r.depth), Some(6));
    }

    #[test]
    fn a_master_that_dies_is_answered_for_and_the_pool_refuses_work() {
        let pool = Pool::new(2).unwrap();
        let recorder = Arc::new(Recorder::default());
        let j = dying(2, 0, Arc::clone(&recorder));
        let outcome = pool.run(Arc::clone(&j));
        assert!(outcome.done);
        let Some(task) = j.task.search() else {
            unreachable!()
        };
        let first = task.game.board.pos().legal_moves().first().copied();
        assert!(first.is_some());
        assert_eq!(
            *recorder.best.lock(),
            [first],
            "bestmove, the first legal move"
        );
        assert_eq!(*recorder.errors.lock(), ["a search thread died"]);
        assert_eq!((pool.size(), pool.lost()), (0, 1));
        // Without a master nothing can answer: a job is not started (and `run` does not hang).
        let outcome = pool.run(job(2, SmpMode::Lazy, 6));
        assert!(outcome.result.is_none() && !outcome.done);
    }

    #[test]
    fn the_totals_count_every_thread_and_come_just_before_the_best_move() {
        let pool = Pool::new(2).unwrap();
        for mode in [SmpMode::Lazy, SmpMode::Ybw, SmpMode::Hybrid] {
            let recorder = Arc::new(Recorder::default());
            let outcome = pool.run(reported(2, mode, 9, Arc::clone(&recorder)));
            assert_eq!(*recorder.order.lock(), ["totals", "best"], "{mode:?}");
            let totals = recorder.totals.lock()[0];
            assert_eq!(
                totals.nodes, outcome.nodes,
                "{mode:?}: every thread's nodes"
            );
            assert!(totals.hashfull > 0, "{mode:?}: {totals:?}");
            let master = outcome.result.expect("a result").nodes;
            if mode == SmpMode::Lazy {
                // The helper searches on its own, so the totals hold more than the master's.
                assert!(totals.nodes > master, "{totals:?}, master {master}");
            }
        }
    }

    #[test]
    fn threads_let_go_of_the_table_once_the_job_is_over() {
        let pool = Pool::new(2).unwrap();
        let j = job(2, SmpMode::Hybrid, 6);
        let tt = Arc::clone(&j.tt);
        pool.run(j);
        assert_eq!(Arc::strong_count(&tt), 1, "only this test holds the table");
    }

    #[test]
    fn a_thread_that_panics_at_a_split_point_never_hangs_the_search() {
        let pool = Pool::new(2).unwrap();
        for mode in [SmpMode::Ybw, SmpMode::Hybrid] {
            let j = job(2, mode, 12);
            j.splits.inject_panic.store(true, Ordering::Release);
            // The run returns (the owner is released by the helper's guard) with a move.
            let outcome = pool.run(Arc::clone(&j));
            assert!(
                !j.splits.inject_panic.load(Ordering::Acquire),
                "{mode:?}: no thread took a move at a split point"
            );
            let r = outcome.result.expect("the master still returns a result");
            assert!(r.best_move.is_some(), "{mode:?}");
            assert!(outcome.done);
            assert_eq!(
                outcome.errors,
                ["internal error in a search thread; the search stops"],
                "{mode:?}"
            );
            // The pool serves the next search with both threads.
            let outcome = pool.run(job(2, mode, 8));
            assert_eq!(outcome.result.map(|r| r.depth), Some(8), "{mode:?}");
        }
    }
}
