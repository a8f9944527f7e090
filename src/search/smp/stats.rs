//! Parallel-search counters, per thread and summed for reports.

use super::SplitKind;

/// Parallel-search counters of one thread, summed over threads for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmpStats {
    /// Split points this thread created.
    pub splits_created: u64,
    /// Split points created, by [`SplitKind`] (`All`, `TtAll`, `Cut`, `Pv`, `Root`).
    pub splits_by_kind: [u64; 5],
    /// Smallest remaining depth of a split point this thread created (0: none created).
    pub shallowest_split: u32,
    /// Split points this thread joined as a helper.
    pub splits_joined: u64,
    /// Split points ended by a fail-high.
    pub splits_aborted: u64,
    /// Split points whose merged result contradicted its bound (a cutoff below beta, or a score
    /// at or above beta without a cutoff): always 0 in a correct search, counted so that tests
    /// check it inside real searches.
    pub split_bound_errors: u64,
    /// Time helpers spent waiting for work, microseconds.
    pub idle_us: u64,
    /// Time owners spent waiting for their helpers to finish, microseconds.
    pub owner_wait_us: u64,
    /// Moves an owner searched again beside the helper still searching them (no split point below
    /// to help at).
    pub moves_shadowed: u64,
}

impl SmpStats {
    /// Counts a split point created at remaining `depth`.
    pub fn count_split(&mut self, kind: SplitKind, depth: i32) {
        self.splits_created += 1;
        self.splits_by_kind[kind as usize] += 1;
        let d = depth.max(1) as u32;
        if self.shallowest_split == 0 || d < self.shallowest_split {
            self.shallowest_split = d;
        }
    }

    /// Adds another thread's counters.
    pub fn merge(&mut self, o: &SmpStats) {
        self.splits_created += o.splits_created;
        for (a, b) in self.splits_by_kind.iter_mut().zip(o.splits_by_kind) {
            *a += b;
        }
        if o.shallowest_split != 0
            && (self.shallowest_split == 0 || o.shallowest_split < self.shallowest_split)
        {
            self.shallowest_split = o.shallowest_split;
        }
        self.splits_joined += o.splits_joined;
        self.splits_aborted += o.splits_aborted;
        self.split_bound_errors += o.split_bound_errors;
        self.idle_us += o.idle_us;
        self.owner_wait_us += o.owner_wait_us;
        self.moves_shadowed += o.moves_shadowed;
    }
}
