//! The search: iterative deepening with aspiration windows ([`iterate`]), principal variation search
//! ([`alphabeta`]) and quiescence search ([`qsearch`]) over a per-thread [`Searcher`] that owns its
//! triangular PV table ([`pv`]), move-ordering memory ([`history`]) and node-type statistics
//! ([`node_type`]); all threads share the transposition table and the [`control`] block.

pub mod alphabeta;
pub mod control;
pub mod correction;
pub mod history;
pub mod iterate;
pub mod movepick;
pub mod moveplan;
pub mod node_type;
pub mod params;
pub mod pv;
pub mod qsearch;
pub mod report;
pub mod smp;
pub mod tactical;

use std::sync::Arc;

use crate::score::{MATE, MAX_PLY};
use crate::search::smp::{SmpMode, SmpStats, SplitBoard, SplitPoint};
use crate::tt::Table;
pub use control::{SearchControl, SearchLimits};
pub use iterate::{RootLine, SearchResult};
pub use moveplan::MovePlan;
pub use node_type::{NodeStats, NodeType, Outcome};
pub use report::{LineReport, Reporter, SearchTotals};

/// Greatest iteration depth.
pub const MAX_DEPTH: u32 = 120;

/// One thread's search state. Everything here is owned by its thread; only the TT and the control
/// block are shared.
pub struct Searcher {
    /// Thread index (0 = master, which reports and owns the root PV).
    pub id: usize,
    /// The shared transposition table.
    pub tt: Arc<Table>,
    /// The shared control block of the current search.
    pub ctl: Arc<SearchControl>,
    /// Nodes searched by this thread in the current search.
    pub nodes: u64,
    /// Tablebase probes of this thread that found the position, in the current search.
    pub tbhits: u64,
    /// Greatest ply reached in the current iteration.
    pub seldepth: usize,
    /// This thread's triangular PV table.
    pub pv: pv::PvTable,
    /// Killers and history.
    pub history: history::History,
    /// The pawn-structure correction of the static evaluation.
    pub correction: correction::Correction,
    /// Predicted-vs-actual node type counts.
    pub stats: NodeStats,
    /// Keys of the positions before the current node (game history, then the search path).
    pub keys: Vec<u64>,
    /// Set once this thread has seen the stop flag (results of the current iteration are void).
    pub stopped: bool,
    /// Depth of the current iteration (bounds extensions).
    pub root_depth: i32,
    /// While false, the stop flag is ignored (the first iteration always completes).
    pub can_stop: bool,
    /// Split points of the current search.
    pub splits: Arc<SplitBoard>,
    /// The innermost split point this searcher works under (its cutoff aborts our work).
    pub current_sp: Option<Arc<SplitPoint>>,
    /// A second searcher used to help at split points without disturbing this one's own search
    /// (Lazy SMP helpers in hybrid mode).
    pub sp_worker: Option<Box<Searcher>>,
    /// Split-point counters.
    pub smp: SmpStats,
    /// Singular extensions granted in the current search.
    pub singular: u64,
    /// Plies reached through a null move (no second null move in a row).
    null_plies: [bool; MAX_PLY + 2],
    /// The move left out at each ply while a singular-extension search runs there.
    excluded: [Option<shakmaty::Move>; MAX_PLY + 2],
    /// The static evaluation of the node at each ply of the current path (`-MATE` in check or
    /// unknown), for [`Searcher::improving`].
    evals: [i32; MAX_PLY + 2],
    /// The network's incremental evaluator when `EvalFile` names one; the hand-written
    /// evaluation otherwise.
    nnue: Option<crate::nnue::Evaluator>,
    /// The tablebases and the rules this search probes them by; `None`: no probing.
    syzygy: Option<crate::syzygy::Probing>,
}

impl Searcher {
    /// A fresh searcher for thread `id`.
    pub fn new(id: usize, tt: Arc<Table>, ctl: Arc<SearchControl>) -> Searcher {
        Searcher {
            id,
            tt,
            ctl,
            nodes: 0,
            tbhits: 0,
            seldepth: 0,
            pv: pv::PvTable::new(),
            history: history::History::new(),
            correction: correction::Correction::new(),
            stats: NodeStats::default(),
            keys: Vec::with_capacity(1024),
            stopped: false,
            root_depth: 0,
            can_stop: false,
            splits: Arc::new(SplitBoard::new(SmpMode::Lazy, 1, i32::MAX)),
            current_sp: None,
            sp_worker: None,
            smp: SmpStats::default(),
            singular: 0,
            null_plies: [false; MAX_PLY + 2],
            excluded: [None; MAX_PLY + 2],
            evals: [-MATE; MAX_PLY + 2],
            nnue: None,
            syzygy: None,
        }
    }

    /// Evaluates with `net` from now on (`None`: the hand-written evaluation); the side searcher
    /// follows. Keeps the incremental state when the network is the one already in use.
    pub fn set_network(&mut self, net: Option<&Arc<crate::nnue::Network>>) {
        let same = match (&self.nnue, net) {
            (Some(e), Some(n)) => Arc::ptr_eq(e.network(), n),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.nnue = net.map(|n| crate::nnue::Evaluator::new(Arc::clone(n), MAX_PLY + 2));
        }
        if let Some(w) = self.sp_worker.as_mut() {
            w.set_network(net);
        }
    }

    /// Probes the tablebases by `probing` from now on (`None`: never); the side searcher follows.
    pub fn set_tablebases(&mut self, probing: Option<&crate::syzygy::Probing>) {
        self.syzygy = probing.cloned();
        if let Some(w) = self.sp_worker.as_mut() {
            w.set_tablebases(probing);
        }
    }

    /// The tablebase probe of a node (see [`crate::syzygy::probe`]): the score and its bound,
    /// when the search probes `pos` and the tables know it; counted as a hit.
    #[inline]
    pub fn probe_tablebases(
        &mut self,
        pos: &shakmaty::Chess,
        depth: i32,
        ply: usize,
    ) -> Option<(i32, crate::tt::Bound)> {
        let probed = self.syzygy.as_ref()?.probe(pos, depth, ply);
        if probed.is_some() {
            self.tbhits += 1;
        }
        probed
    }

    /// Publishes this thread's node and tablebase-hit counts.
    #[inline]
    pub fn publish_counts(&self) {
        self.ctl.publish(self.id, self.nodes, self.tbhits);
    }

    /// Static evaluation of `pos`, reached at `ply`, side to move's view: the network's when one
    /// is loaded, else the hand-written one.
    #[inline]
    pub fn evaluate(&mut self, pos: &shakmaty::Chess, ply: usize) -> i32 {
        match self.nnue.as_mut() {
            Some(e) => e.evaluate(pos, ply),
            None => crate::eval::evaluate(pos),
        }
    }

    /// True if the node at `ply` was reached by a null move.
    #[inline]
    pub fn after_null(&self, ply: usize) -> bool {
        self.null_plies[ply.min(MAX_PLY + 1)]
    }

    /// The move a singular-extension search at `ply` leaves out, if one runs there.
    #[inline]
    pub fn excluded(&self, ply: usize) -> Option<shakmaty::Move> {
        self.excluded[ply.min(MAX_PLY + 1)]
    }

    /// Marks the node at `ply` as reached (or not) by a null move.
    #[inline]
    pub fn set_after_null(&mut self, ply: usize, on: bool) {
        self.null_plies[ply.min(MAX_PLY + 1)] = on;
    }

    /// Records `eval`, the static evaluation of the node at `ply` (`-MATE` in check).
    #[inline]
    pub fn set_static_eval(&mut self, ply: usize, eval: i32) {
        self.evals[ply.min(MAX_PLY + 1)] = eval;
    }

    /// The static evaluations recorded at `ply - 1` and `ply` (`-MATE` before the root), which a
    /// split point hands to its helpers.
    #[inline]
    pub fn static_evals_at(&self, ply: usize) -> [i32; 2] {
        let ply = ply.min(MAX_PLY + 1);
        let before = match ply {
            0 => -MATE,
            _ => self.evals[ply - 1],
        };
        [before, self.evals[ply]]
    }

    /// Takes over the evaluations [`Searcher::static_evals_at`] gave at `ply` (a helper joining
    /// a split point there).
    #[inline]
    pub fn set_static_evals_at(&mut self, ply: usize, evals: [i32; 2]) {
        let ply = ply.min(MAX_PLY + 1);
        if ply > 0 {
            self.evals[ply - 1] = evals[0];
        }
        self.evals[ply] = evals[1];
    }

    /// True when the side to move at `ply`, with static evaluation `eval`, stands better than it
    /// did two plies before. An improving node takes reverse futility's smaller margin and is
    /// pruned and reduced less by late moves. Near the root (plies 0 to 2: the root's eval is
    /// not recorded), or two plies after a node in check (`-MATE`), it counts as improving.
    #[inline]
    pub fn improving(&self, ply: usize, eval: i32) -> bool {
        ply < 2 || eval > self.evals[ply.min(MAX_PLY + 1) - 2]
    }

    /// Sets (or clears, with `None`) the move a singular-extension search at `ply` leaves out.
    #[inline]
    pub fn set_excluded(&mut self, ply: usize, m: Option<shakmaty::Move>) {
        self.excluded[ply.min(MAX_PLY + 1)] = m;
    }

    /// True if `key`, the position at `ply`, is a draw by repetition as the search scores it:
    /// a repeat of a position strictly after the root (the side that steered into the cycle can
    /// repeat it again, so the search treats the second occurrence as the draw), or the third
    /// occurrence of a position of the game (two earlier occurrences at or before the root). A
    /// single earlier occurrence before the root is not a draw: the opponent may still deviate.
    /// Only positions since the last irreversible move (`halfmoves` plies back) are compared.
    /// The key stack holds the game's positions, then the path from the root, so the position
    /// `d` plies back is strictly after the root when `d < ply`.
    #[inline]
    pub fn is_repetition(&self, key: u64, halfmoves: u32, ply: usize) -> bool {
        let n = self.keys.len();
        let back = (halfmoves as usize).min(n);
        let mut before_root = 0;
        let mut d = 4;
        while d <= back {
            if self.keys[n - d] == key {
                if d < ply {
                    return true;
                }
                before_root += 1;
                if before_root == 2 {
                    return true;
                }
            }
            d += 2;
        }
        false
    }

    /// Polls the stop flag and the limits every 1024 nodes; returns true when the search must stop.
    #[inline]
    pub fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if let Some(sp) = &self.current_sp {
            if sp.is_aborted() {
                self.stopped = true;
                return true;
            }
        }
        if self.nodes & 1023 != 0 || !self.can_stop {
            return false;
        }
        if self.sp_worker.is_some() && self.splits.has_work() {
            self.help_at_split_point();
        }
        self.publish_counts();
        if self.id == 0 {
            let over_nodes = self
                .ctl
                .limits
                .nodes
                .is_some_and(|limit| self.ctl.total_nodes() >= limit);
            if over_nodes || self.ctl.past_hard_limit() {
                self.ctl.request_stop();
            }
        }
        if self.ctl.stopped() {
            self.stopped = true;
        }
        self.stopped
    }
}
