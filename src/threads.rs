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
use crate::search::{NodeStats, SearchControl, SearchLimits, SearchResult, Searcher};
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
}

/// What the threads do.
pub enum Task {
    /// Search the game's position.
    Search(Box<SearchTask>),
    /// Forget killers and history (new game).
    ClearHistory,
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
    /// A search job.
    pub fn search(spec: SearchSpec) -> Job {
        Job {
            task: Task::Search(Box::new(SearchTask {
                game: spec.game,
                params: spec.params,
            })),
            ctl: Arc::new(SearchControl::new(spec.limits, spec.threads, spec.waiting)),
            tt: spec.tt,
            splits: Arc::new(SplitBoard::new(
                spec.mode,
                spec.threads,
                spec.min_split_depth,
            )),
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
    quit: bool,
}

struct Shared {
    state: Mutex<State>,
    start: Condvar,
    done: Condvar,
}

/// The pool of search threads.
pub struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `threads` workers (at least one); a thread that cannot be created is an error.
    pub fn new(threads: usize) -> Result<Pool, String> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                generation: 0,
                job: None,
                busy: 0,
                quit: false,
            }),
            start: Condvar::new(),
            done: Condvar::new(),
        });
        let mut pool = Pool {
            shared,
            handles: Vec::new(),
        };
        for id in 0..threads.max(1) {
            let shared = Arc::clone(&pool.shared);
            let handle = std::thread::Builder::new()
                .name(format!("trine-search-{id}"))
                .stack_size(SEARCH_STACK_BYTES)
                .spawn(move || worker(id, &shared))
                .map_err(|e| format!("cannot start search thread {id}: {e}"))?;
            pool.handles.push(handle);
        }
        Ok(pool)
    }

    /// Number of threads.
    pub fn size(&self) -> usize {
        self.handles.len()
    }

    /// Hands a job to every thread (waiting first for any previous job to finish).
    pub fn start(&self, job: Arc<Job>) {
        let mut s = self.shared.state.lock();
        while s.busy > 0 {
            self.shared.done.wait(&mut s);
        }
        s.job = Some(job);
        s.generation += 1;
        s.busy = self.handles.len();
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

fn worker(id: usize, shared: &Shared) {
    let placeholder = Arc::new(SearchControl::new(SearchLimits::default(), 1, false));
    let tt = Arc::new(Table::new(1).expect("a 1 MB table"));
    let mut searcher = Searcher::new(id, tt, placeholder);
    let mut seen = 0u64;
    loop {
        let job = {
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
        if let Some(job) = job {
            run_job(id, &mut searcher, &job, shared);
        }
        let mut s = shared.state.lock();
        s.busy -= 1;
        shared.done.notify_all();
    }
}

fn run_job(id: usize, searcher: &mut Searcher, job: &Job, shared: &Shared) {
    match &job.task {
        Task::ClearHistory => searcher.clear_history(),
        Task::Search(task) => {
            searcher.prepare(&job.tt, &job.ctl, &job.splits);
            // YBW helpers never run `iterate`, which sets the evaluation for the others.
            searcher.set_network(task.params.network.as_ref());
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
    {
        // Recorded before `bestmove` goes out, so a command that follows it sees the search as done.
        let mut o = job.outcome.lock();
        o.result = result.clone();
        o.done = true;
    }
    if let Some(reporter) = &params.reporter {
        let (best, ponder) = match &result {
            Some(r) => (r.best_move, r.ponder),
            None => (game.board.pos().legal_moves().first().copied(), None),
        };
        reporter.best_move(best, ponder, game.board.in_check());
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
        }))
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
