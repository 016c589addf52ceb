//! Grand Maître at play: everything between the network and the program.
//!
//! - [`registry`]: the games the program knows, their shipped models and
//!   books, and the one dispatch from a game's name to its type;
//! - [`players`]: player specifications (`mcts:sims=800`,
//!   `alphabeta:depth=4`…) and the one loader that turns a model choice
//!   into a network evaluator with its calibrations;
//! - [`openspiel`]: OpenSpiel's MCTS bot as a player;
//! - [`calibrate`]: the bar's calibration, fitted and measured on engine
//!   games;
//! - [`gtp`]: the engine protocol's session;
//! - [`export`]: the model for embedding, with its description and the
//!   vectors a runtime must reproduce;
//! - [`training`]: a run's games and its checkpoints' ratings against
//!   the anchors;
//! - [`plot`]: the PNG charts of reports.
//!
//! What it is not: no argument parsing and no printing of results (the
//! `grandmaitre` program's), no rules (`engine`'s), no network code
//! (`model`'s).

pub mod bench;
pub mod calibrate;
pub mod export;
pub mod gtp;
pub mod openspiel;
pub mod players;
pub mod plot;
pub mod registry;
pub mod training;

use anyhow::{Context, Result};

/// Writes `bytes` to `path` atomically (the engine's one way to replace a
/// file), with the path in the error.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    grandmaitre_engine::files::write_atomically(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}
