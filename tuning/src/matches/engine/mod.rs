//! UCI engines as match players: configuration ([`config`]), the process and its line
//! channel ([`process`]), the UCI conversation ([`uci`]), and [`EngineSlot`], which keeps one
//! engine per seat of a worker and restarts it after a crash or a hang.

pub mod config;
pub mod process;
pub mod uci;

pub use config::EngineConfig;
pub use uci::{Failure, FailureKind, Score, SearchReply, UciEngine};

use std::time::Duration;

/// How long an engine gets to quit before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(300);

/// One engine seat: the configuration and, while it is healthy, the running engine.
pub struct EngineSlot {
    /// How to start the engine.
    pub config: EngineConfig,
    engine: Option<UciEngine>,
    /// How many times the engine was started.
    pub starts: u32,
}

impl EngineSlot {
    /// A seat with no engine running yet.
    pub fn new(config: EngineConfig) -> Self {
        Self {
            config,
            engine: None,
            starts: 0,
        }
    }

    /// Makes the engine ready for a new game, starting it first if needed. On failure the
    /// engine is killed, so the next call starts a fresh one.
    pub fn prepare(&mut self, timeout: Duration) -> Result<&mut UciEngine, Failure> {
        let mut engine = match self.engine.take() {
            Some(e) => e,
            None => {
                self.starts += 1;
                UciEngine::start(&self.config, timeout)?
            }
        };
        if let Err(f) = engine.new_game(timeout) {
            engine.kill();
            return Err(f);
        }
        Ok(self.engine.insert(engine))
    }

    /// The running engine, if any.
    pub fn engine(&mut self) -> Option<&mut UciEngine> {
        self.engine.as_mut()
    }

    /// Kills the engine (after a crash, a hang or a search that would not stop).
    pub fn discard(&mut self) {
        if let Some(e) = self.engine.take() {
            e.kill();
        }
    }

    /// Lets the engine quit politely (end of the match).
    pub fn shutdown(&mut self) {
        if let Some(e) = self.engine.take() {
            e.shutdown(QUIT_GRACE);
        }
    }
}

impl Drop for EngineSlot {
    fn drop(&mut self) {
        self.shutdown();
    }
}
