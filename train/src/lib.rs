//! Training for Grand Maître: the replay window over self-play shards with
//! symmetry augmentation ([`samples`]), optimiser steps on burn's autodiff
//! ([`trainer`]), and the resumable self-play → training → checkpoint loop
//! of a run directory ([`run`]).

pub mod config;
pub mod ratings;
pub mod run;
pub mod samples;
pub mod store;
pub mod trainer;

use std::path::PathBuf;

use thiserror::Error;

pub use config::TrainingConfig;
pub use run::{Progress, Run, SelfPlay, ShardWritten, StopAfter};

/// Why training could not go on.
#[derive(Debug, Error)]
pub enum TrainError {
    /// An I/O failure.
    #[error("{path}: {error}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The failure (part of the message, not a separate cause, so that
        /// a printed chain names it once).
        error: std::io::Error,
    },
    /// A file of the run is not what it should be.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A shard could not be read or written.
    #[error(transparent)]
    Shard(#[from] grandmaitre_selfplay::shard::ShardError),
    /// The run's storage failed.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A checkpoint could not be read or written.
    #[error(transparent)]
    Checkpoint(#[from] grandmaitre_model::CheckpointError),
    /// A record holds text the game does not read.
    #[error(transparent)]
    Parse(#[from] grandmaitre_engine::ParseError),
    /// The ratings file could not be read or written.
    #[error("ratings: {0}")]
    Ratings(String),
    /// There is nothing to train on.
    #[error("the replay window is empty: no self-play games yet")]
    EmptyWindow,
    /// A batch was asked for samples of several board shapes.
    #[error("a batch mixes boards of different shapes")]
    MixedBoards,
}
