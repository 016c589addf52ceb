//! A training run: a location (a directory, or an object store's URL: see
//! [`crate::store`]), and the loop self-play → training → checkpoint that
//! fills it, resumable after any interruption.
//!
//! ```text
//! RUN/
//!   config.toml          the run's settings (written once, read on resume)
//!   shards/              self-play games (any number of writers)
//!   checkpoints/gen-N/   one checkpoint per generation (checkpoint.json,
//!                        weights.bpk)
//!   checkpoints/latest   the newest checkpoint's name (`gen-N`)
//!   log.csv              one line per generation
//!   evaluation.csv       the checkpoints' ratings
//!   arrivals.txt         the shards in the order the trainer first saw them
//! ```
//!
//! Everything is written whole or not at all: a shard is created under a
//! name no one else has (never overwritten, never half-visible), a
//! checkpoint's files and its log line come before the pointer that names
//! it, and only the trainer writes checkpoints and logs (and removes what
//! its interrupted writes left). After a crash (SIGKILL included) at any
//! point the run resumes from its newest checkpoint, the log lines of a
//! generation the pointer never named dropped; the shards written since are
//! kept, so at most the games of one unfinished shard are lost. The replay
//! window takes the shards the trainer saw last, whatever their writers'
//! clocks say. The trainer
//! tags its shards with the generation and the shard's index, and a resumed
//! generation plays only the shards it has not written. Self-play workers
//! (`grandmaitre selfplay`, anywhere) read the pointer between shards and
//! add shards of their own; a trainer started with
//! [`SelfPlay::Workers`] plays none and trains on theirs.

mod logs;
mod selfplay;
mod storage;
#[cfg(test)]
pub(crate) mod tests;
mod training;

use storage::cache_directory;
use training::{stage_of, stage_players};

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_model::checkpoint::{self, CheckpointMetadata, Provenance};
use grandmaitre_model::{Checkpoint, NetworkConfig, NetworkEvaluator};
use grandmaitre_selfplay::record::GameRecord;
use grandmaitre_selfplay::{play_games, play_games_until, shard};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::TrainError;
use crate::config::TrainingConfig;
use crate::ratings::{self, RatingRow};
use crate::samples::{ReplayWindow, draw_indices, make_batch};
use crate::store::Store;
use crate::trainer::Trainer;

const CONFIG_FILE: &str = "config.toml";
const LOG_FILE: &str = "log.csv";
/// The ratings file of a run.
pub const EVALUATION_FILE: &str = "evaluation.csv";
/// The pointer to the newest checkpoint.
const LATEST: &str = "checkpoints/latest";
/// The shards in the order the trainer first listed them, one name a line.
const ARRIVALS_FILE: &str = "arrivals.txt";
const SHARDS: &str = "shards";
const CHECKPOINTS: &str = "checkpoints";
const LOG_HEADER: &str = "generation,games,positions,steps,policy_loss,value_loss,selfplay_seconds,training_seconds,positions_per_second";

/// What the loop reports as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// A generation starts.
    Generation {
        /// Its number.
        generation: u32,
    },
    /// Self-play games finished in this generation, out of how many.
    Games {
        /// Done.
        done: usize,
        /// Planned.
        total: usize,
    },
    /// Training steps done in this generation.
    Steps {
        /// Done.
        done: usize,
        /// Planned.
        total: usize,
    },
    /// A generation ended with this log line.
    Finished(LogLine),
    /// A checkpoint was rated.
    Rated(Vec<Rating>),
}

/// One line of `log.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// The generation.
    pub generation: u32,
    /// Self-play games the run has played (the shards removed since included).
    pub games: usize,
    /// Positions in the replay window.
    pub positions: usize,
    /// Optimiser steps so far.
    pub steps: u64,
    /// Mean policy loss of the generation's steps.
    pub policy_loss: f32,
    /// Mean value loss of the generation's steps.
    pub value_loss: f32,
    /// Seconds of self-play.
    pub selfplay_seconds: f64,
    /// Seconds of training.
    pub training_seconds: f64,
    /// Self-play positions per second.
    pub positions_per_second: f64,
}

impl LogLine {
    fn csv(&self) -> String {
        format!(
            "{},{},{},{},{:.5},{:.5},{:.1},{:.1},{:.0}",
            self.generation,
            self.games,
            self.positions,
            self.steps,
            self.policy_loss,
            self.value_loss,
            self.selfplay_seconds,
            self.training_seconds,
            self.positions_per_second
        )
    }
}

/// A checkpoint's result against one opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The opponent (a player spec or a checkpoint path).
    pub opponent: String,
    /// Games played.
    pub games: u32,
    /// The checkpoint's score in [0, 1].
    pub score: f64,
    /// Elo difference and its 95 % interval (infinite at 0 % or 100 %).
    pub elo: [f64; 3],
}

/// Rates checkpoint `checkpoint` (of `generation`) against the fixed
/// anchors and `previous` (the checkpoint rated last, if any).
pub type Evaluate<'a> = dyn FnMut(u32, &Path, Option<&Path>) -> Result<Vec<Rating>, String> + 'a;

/// When the loop stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StopAfter {
    /// After this many more generations.
    Generations(u32),
    /// Once this much wall time has passed (the current generation ends
    /// first).
    Seconds(f64),
}

/// A self-play worker's progress, once a shard is written
/// ([`Run::selfplay`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ShardWritten {
    /// The shard's name in the run (`shards/TIME-WORKER-N.gms`: the
    /// worker's name and its count after the writer's time).
    pub name: String,
    /// The checkpoint its games were played with (0: a fresh network).
    pub generation: u32,
    /// Games this worker has written so far, this shard's included.
    pub games: usize,
    /// Their positions.
    pub positions: usize,
    /// Seconds since the worker started.
    pub seconds: f64,
}

/// Where a trainer's self-play comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfPlay {
    /// It plays each generation's games itself (and workers may add more).
    Own,
    /// Workers play them: each generation waits until the run holds
    /// `games_per_generation` games more than at the previous one,
    /// looking every `poll`.
    Workers {
        /// How often the store is looked at while waiting.
        poll: Duration,
    },
}

/// What the trainer knows of the shards, so that each is read once: the
/// games of those in the replay window, and every shard's game count.
#[derive(Debug, Default)]
struct ShardCache {
    games: HashMap<String, Arc<Vec<GameRecord>>>,
    counts: HashMap<String, usize>,
    /// The shards in the order the trainer first listed them.
    arrivals: Vec<String>,
    arrived: std::collections::HashSet<String>,
    /// How many of `arrivals` the arrivals file holds.
    saved_arrivals: usize,
}

/// A training run.
#[derive(Debug)]
pub struct Run {
    store: Store,
    self_play: SelfPlay,
    /// The shards read so far (each once).
    cache: std::sync::Mutex<ShardCache>,
    /// Where the checkpoints are kept as directories: the run's own for a
    /// local run, a cache for one in an object store (the ratings play
    /// them from there).
    checkpoints: PathBuf,
    /// The run's settings.
    pub config: TrainingConfig,
}

impl Run {
    /// Opens the run at `location` (a directory, or an object store's URL:
    /// see [`Store::open`]), creating it with `config` (or the defaults) if
    /// it is new. An existing run keeps its own settings; a different
    /// `config` for it is an error.
    pub fn open(
        location: impl AsRef<OsStr>,
        config: Option<TrainingConfig>,
    ) -> Result<Run, TrainError> {
        let location = location.as_ref();
        let text = location.to_str().ok_or_else(|| TrainError::Invalid {
            path: PathBuf::from(location),
            reason: "the run's location is not UTF-8".to_string(),
        })?;
        Run::in_store(Store::open(text)?, config)
    }

    /// Opens the run in `store` (see [`Run::open`]).
    pub fn in_store(store: Store, config: Option<TrainingConfig>) -> Result<Run, TrainError> {
        let file = PathBuf::from(format!("{}/{CONFIG_FILE}", store.location()));
        let read = |bytes: Vec<u8>| {
            String::from_utf8(bytes)
                .map_err(|e| e.to_string())
                .and_then(|text| TrainingConfig::from_toml(&text))
                .map_err(|reason| TrainError::Invalid {
                    path: file.clone(),
                    reason,
                })
        };
        let stored = store.get(CONFIG_FILE)?.map(read).transpose()?;
        let config = match (stored, config) {
            (Some(stored), Some(given)) if stored != given => {
                return Err(TrainError::Invalid {
                    path: file,
                    reason: "the run exists with other settings (resume it without --config, or use a new run)".to_string(),
                });
            }
            (Some(stored), _) => stored,
            (None, given) => {
                let config = given.unwrap_or_default();
                if !store.create(CONFIG_FILE, config.to_toml().into_bytes())? {
                    // Another process created the run first: its settings.
                    return Run::in_store(store, Some(config));
                }
                config
            }
        };
        let checkpoints = match store.directory() {
            Some(directory) => directory.join(CHECKPOINTS),
            None => cache_directory(store.location()),
        };
        let run = Run {
            store,
            self_play: SelfPlay::Own,
            cache: std::sync::Mutex::default(),
            checkpoints,
            config,
        };
        Ok(run)
    }

    /// The same run, its self-play coming from `self_play`.
    pub fn with_self_play(mut self, self_play: SelfPlay) -> Run {
        self.self_play = self_play;
        self
    }

    /// The run's own directory, or for a run in an object store the local
    /// folder that caches its checkpoints.
    pub fn local_directory(&self) -> PathBuf {
        match self.store.directory() {
            Some(directory) => directory.to_path_buf(),
            None => self
                .checkpoints
                .parent()
                .map_or_else(|| self.checkpoints.clone(), Path::to_path_buf),
        }
    }

    /// The run's storage.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The run's location, as given.
    pub fn location(&self) -> &str {
        self.store.location()
    }

    /// The network the run's settings describe, for the board `spec`.
    pub fn network_config(&self, spec: &grandmaitre_engine::GameSpec) -> NetworkConfig {
        self.config.network.network_config(spec)
    }
}
