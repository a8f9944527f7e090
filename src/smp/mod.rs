//! Parallel search: the persistent thread pool ([`pool`]), Lazy SMP's helper depth schedule
//! ([`lazy`]) and Young-Brothers-Wait split points at expected ALL-nodes ([`split`]).

pub mod lazy;
pub mod pool;
pub mod split;

pub use pool::{Job, JobOutcome, Pool};
pub use split::{SmpMode, SmpStats, SplitBoard, SplitKind, SplitPoint, SplitSpec};
