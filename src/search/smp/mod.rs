//! Parallel search inside the search: Lazy SMP's helper depth schedule ([`lazy`]) and split points
//! where the rest of a node is ALL work ([`split_point`]), offered on a per-search board
//! ([`split_board`]) that idle threads join; [`helping`] is the searcher's side (owning a split point,
//! helping at one); [`stats`] counts what happened. The thread pool that runs the searchers is
//! [`crate::threads`], above the search.

pub mod helping;
pub mod lazy;
pub mod split_board;
pub mod split_point;
pub mod stats;

pub use split_board::{SmpMode, SplitBoard, HYBRID_MARGIN, MIN_SPLIT_DEPTH};
pub use split_point::{SplitKind, SplitPoint, SplitResult, SplitSpec};
pub use stats::SmpStats;
