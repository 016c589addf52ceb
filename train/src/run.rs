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
//! ```
//!
//! Everything is written whole or not at all: a shard is created under a
//! name no one else has (never overwritten, never half-visible), a
//! checkpoint's files come before the pointer that names it, and only the
//! trainer writes checkpoints and logs. After a crash (SIGKILL included)
//! the run resumes from its newest checkpoint; the shards written since are
//! kept, so at most the games of one unfinished shard are lost. The trainer
//! tags its shards with the generation and the shard's index, and a resumed
//! generation plays only the shards it has not written. Self-play workers
//! (`grandmaitre selfplay`, anywhere) read the pointer between shards and
//! add shards of their own; a trainer started with
//! [`SelfPlay::Workers`] plays none and trains on theirs.

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
use grandmaitre_model::{Checkpoint, InferenceNetwork, NetworkConfig, NetworkEvaluator};
use grandmaitre_selfplay::record::GameRecord;
use grandmaitre_selfplay::{play_games, shard};
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
    /// The shard's name (its tag: the worker's name and its count).
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
        run.remove_stale_staging()?;
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

    /// Removes what an interrupted checkpoint write left beside the
    /// checkpoint directories (one trainer per run writes them).
    fn remove_stale_staging(&self) -> Result<(), TrainError> {
        let directory = &self.checkpoints;
        let Ok(entries) = fs::read_dir(directory) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            // A checkpoint directory's staging copies, and the staging file
            // of a pointer write (`latest#N`).
            let path = entry.path();
            let io = |error| TrainError::Io {
                path: path.clone(),
                error,
            };
            if name.ends_with(".tmp") || name.ends_with(".old") {
                fs::remove_dir_all(&path).map_err(io)?;
            } else if name.starts_with("latest#") {
                fs::remove_file(&path).map_err(io)?;
            }
        }
        Ok(())
    }

    /// The names of the finished shards, oldest first (their names start
    /// with the time of writing).
    pub fn shard_names(&self) -> Result<Vec<String>, TrainError> {
        let ending = format!(".{}", shard::EXTENSION);
        Ok(self
            .store
            .list(SHARDS)?
            .into_iter()
            .map(|listed| listed.name)
            .filter(|name| name.ends_with(&ending))
            .collect())
    }

    /// The games of the shard `name` (as [`Run::shard_names`] gives it).
    pub fn read_shard(&self, name: &str) -> Result<Vec<GameRecord>, TrainError> {
        let bytes = self.store.get(name)?.ok_or_else(|| TrainError::Invalid {
            path: PathBuf::from(format!("{}/{name}", self.location())),
            reason: "the shard is gone".to_string(),
        })?;
        Ok(shard::decode(Path::new(name), &bytes)?)
    }

    /// Writes `games` as a new shard, named by the time of writing and
    /// `suffix` (a new time if the name is taken); returns its name.
    fn write_shard(&self, suffix: &str, games: &[GameRecord]) -> Result<String, TrainError> {
        let bytes = shard::encode(games);
        loop {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let name = format!("{SHARDS}/{nanos:024}-{suffix}.{}", shard::EXTENSION);
            if self.store.create(&name, bytes.clone())? {
                return Ok(name);
            }
        }
    }

    /// The shard that the trainer wrote with `tag`, among `names`.
    fn tagged<'a>(names: &'a [String], tag: &str) -> Option<&'a String> {
        let ending = format!("-{tag}.{}", shard::EXTENSION);
        names.iter().find(|name| name.ends_with(&ending))
    }

    /// The checkpoint directory of `generation` (in the cache for a run in
    /// an object store).
    fn checkpoint_path(&self, generation: u32) -> PathBuf {
        self.checkpoints.join(format!("gen-{generation:04}"))
    }

    /// The newest complete checkpoint's generation: the pointer's, or for a
    /// run written without one, the highest complete one listed.
    pub fn latest_generation(&self) -> Result<Option<u32>, TrainError> {
        if let Some(bytes) = self.store.get(LATEST)? {
            let text = String::from_utf8_lossy(&bytes);
            return text
                .trim()
                .strip_prefix("gen-")
                .and_then(|n| n.parse::<u32>().ok())
                .map(Some)
                .ok_or_else(|| TrainError::Invalid {
                    path: PathBuf::from(format!("{}/{LATEST}", self.location())),
                    reason: format!("expected gen-N, found '{}'", text.trim()),
                });
        }
        let mut files: HashMap<u32, usize> = HashMap::new();
        for listed in self.store.list(CHECKPOINTS)? {
            let mut parts = listed.name.split('/').skip(1);
            let (Some(directory), Some(file), None) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let Some(number) = directory
                .strip_prefix("gen-")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue; // staging directories and others
            };
            if file == checkpoint::METADATA_FILE || file == checkpoint::WEIGHTS_FILE {
                *files.entry(number).or_default() += 1;
            }
        }
        Ok(files
            .into_iter()
            .filter(|&(_, count)| count == 2)
            .map(|(number, _)| number)
            .max())
    }

    /// The newest complete checkpoint: its generation and directory (for a
    /// run in an object store, a copy in the local cache).
    pub fn latest_checkpoint(&self) -> Result<Option<(u32, PathBuf)>, TrainError> {
        let Some(generation) = self.latest_generation()? else {
            return Ok(None);
        };
        Ok(Some((generation, self.local_checkpoint(generation)?)))
    }

    /// The checkpoint of `generation` as a directory: the run's own, or
    /// fetched once into the cache.
    fn local_checkpoint(&self, generation: u32) -> Result<PathBuf, TrainError> {
        let path = self.checkpoint_path(generation);
        if self.store.directory().is_none() && checkpoint::read_metadata(&path).is_err() {
            let (metadata, weights) = self.checkpoint_files(generation)?;
            let staging = path.with_extension("tmp");
            let io = |error| TrainError::Io {
                path: staging.clone(),
                error,
            };
            fs::create_dir_all(&staging).map_err(io)?;
            fs::write(staging.join(checkpoint::WEIGHTS_FILE), &weights).map_err(io)?;
            fs::write(staging.join(checkpoint::METADATA_FILE), &metadata).map_err(io)?;
            if path.exists() {
                fs::remove_dir_all(&path).map_err(io)?;
            }
            fs::rename(&staging, &path).map_err(io)?;
        }
        Ok(path)
    }

    /// `checkpoint.json` and `weights.bpk` of `generation`, from the store.
    fn checkpoint_files(&self, generation: u32) -> Result<(Vec<u8>, Vec<u8>), TrainError> {
        let file = |name: &str| -> Result<Vec<u8>, TrainError> {
            let key = format!("{CHECKPOINTS}/gen-{generation:04}/{name}");
            self.store.get(&key)?.ok_or_else(|| TrainError::Invalid {
                path: PathBuf::from(format!("{}/{key}", self.location())),
                reason: "missing".to_string(),
            })
        };
        Ok((
            file(checkpoint::METADATA_FILE)?,
            file(checkpoint::WEIGHTS_FILE)?,
        ))
    }

    /// Loads the checkpoint of `generation` for `spec` onto `device`.
    fn load_checkpoint(
        &self,
        generation: u32,
        spec: &grandmaitre_engine::GameSpec,
        device: &Device,
    ) -> Result<Checkpoint, TrainError> {
        if self.store.directory().is_some() {
            return Ok(Checkpoint::load(
                &self.checkpoint_path(generation),
                spec,
                device,
            )?);
        }
        let (metadata, weights) = self.checkpoint_files(generation)?;
        let name = format!("{}/{CHECKPOINTS}/gen-{generation:04}", self.location());
        let metadata = String::from_utf8(metadata).map_err(|e| TrainError::Invalid {
            path: PathBuf::from(&name),
            reason: e.to_string(),
        })?;
        Ok(Checkpoint::from_bytes(
            &name, &metadata, &weights, spec, device,
        )?)
    }

    /// Writes the checkpoint of `generation`, then points `latest` at it;
    /// returns its directory (for a run in an object store, the cache's).
    fn publish(&self, generation: u32, checkpoint: &Checkpoint) -> Result<PathBuf, TrainError> {
        let path = self.checkpoint_path(generation);
        checkpoint.save(&path)?;
        if self.store.directory().is_none() {
            let key = format!("{CHECKPOINTS}/gen-{generation:04}");
            let (metadata, weights) = checkpoint.to_bytes(&key)?;
            self.store
                .put(&format!("{key}/{}", checkpoint::WEIGHTS_FILE), weights)?;
            self.store.put(
                &format!("{key}/{}", checkpoint::METADATA_FILE),
                metadata.into_bytes(),
            )?;
        }
        self.store
            .put(LATEST, format!("gen-{generation:04}\n").into_bytes())?;
        Ok(path)
    }

    /// The replay window: the newest shards holding `positions` positions
    /// (each read once into `cache`, dropped from it once out of the
    /// window).
    fn window<G: Game>(
        &self,
        names: &[String],
        cache: &mut ShardCache,
        positions: usize,
        mixed_boards: bool,
        targets: &crate::samples::Targets,
    ) -> Result<ReplayWindow<G>, TrainError> {
        let mut held = 0;
        let mut kept = HashMap::new();
        for name in names.iter().rev() {
            if held >= positions {
                break;
            }
            let games = match cache.games.remove(name) {
                Some(games) => games,
                None => {
                    let games = Arc::new(self.read_shard(name)?);
                    cache.counts.insert(name.clone(), games.len());
                    games
                }
            };
            held += games.iter().map(|g| g.positions.len()).sum::<usize>();
            kept.insert(name.clone(), games);
        }
        cache.games = kept;
        let records = names
            .iter()
            .filter_map(|name| cache.games.get(name))
            .flat_map(|games| games.iter());
        ReplayWindow::from_records(records, mixed_boards, targets)
    }

    /// Games in the shards `names` (each shard's count read once, from
    /// its header).
    fn count_games(&self, names: &[String], cache: &mut ShardCache) -> Result<usize, TrainError> {
        let mut games = 0;
        for name in names {
            games += match cache.counts.get(name) {
                Some(&count) => count,
                None => {
                    let header = self
                        .store
                        .get_head(name, shard::COUNT_BYTES)?
                        .unwrap_or_default();
                    let count = shard::games_in_header(Path::new(name), &header)?;
                    cache.counts.insert(name.clone(), count);
                    count
                }
            };
        }
        Ok(games)
    }

    /// Runs generations until `stop`, with the rules `make_game(seed)` gives
    /// each self-play game (`spec` is their common shape), training on
    /// `device` (burn's backend), reporting to `progress`. Self-play always
    /// runs on the fast CPU inference path.
    pub fn train<G: Game>(
        &self,
        make_game: impl Fn(u64) -> G + Sync,
        spec: &grandmaitre_engine::GameSpec,
        device: &Device,
        stop: StopAfter,
        evaluate: &mut Evaluate<'_>,
        mut progress: impl FnMut(Progress),
    ) -> Result<Vec<LogLine>, TrainError> {
        let started = Instant::now();
        let device = device.clone();
        let config = &self.config;
        let network_config = self.network_config(spec);
        let stages = self.stage_games::<G>(&network_config)?;
        let (mut generation, mut trainer, parent) = match self.latest_checkpoint()? {
            Some((generation, path)) => {
                let mut checkpoint = Checkpoint::load(&path, spec, &device)?;
                // A run that turns the moves-left head on gains it untrained.
                let gains_moves_left = network_config.moves_left_head
                    && !checkpoint.metadata.network.moves_left_head
                    && checkpoint
                        .metadata
                        .network
                        .clone()
                        .with_moves_left_head(true)
                        == network_config;
                if gains_moves_left {
                    checkpoint.network.moves_left = Some(network_config.init_moves_left(&device));
                } else if checkpoint.metadata.network != network_config {
                    return Err(TrainError::Invalid {
                        path,
                        reason: "the checkpoint's shape differs from the run's settings"
                            .to_string(),
                    });
                }
                let steps = checkpoint.metadata.provenance.training_steps;
                (
                    generation,
                    Trainer::new(
                        checkpoint.network,
                        network_config.clone(),
                        &device,
                        config.optimizer.weight_decay,
                        steps,
                    )
                    .with_ownership_weight(config.network.ownership_weight)
                    .with_moves_left_weight(config.network.moves_left_weight),
                    Some(path),
                )
            }
            None => (
                0,
                Trainer::new(
                    {
                        device.seed(config.seeded(0));
                        network_config.init(&device)
                    },
                    network_config.clone(),
                    &device,
                    config.optimizer.weight_decay,
                    0,
                )
                .with_ownership_weight(config.network.ownership_weight)
                .with_moves_left_weight(config.network.moves_left_weight),
                None,
            ),
        };
        let mut parent = parent.map(|p| p.display().to_string());
        let mut lines = Vec::new();
        let selfplay = self.config.selfplay.driver_config();
        let mut cache = self.cache.lock().map_err(|_| TrainError::Invalid {
            path: PathBuf::from(self.location()),
            reason: "an earlier training of this run panicked".to_string(),
        })?;
        // Games the log counted whose shards are gone (a run copied or
        // resumed without them) stay counted, so that the log's games are
        // the run's total; shards found beside the remainder count as
        // played before this leg.
        let logged = self.last_logged_games()?;
        let removed = logged.saturating_sub(self.count_games(&self.shard_names()?, &mut cache)?);
        // Games in the run when the previous generation trained (with
        // workers, the next one waits for as many more as it plays).
        let mut games_before = match self.self_play {
            SelfPlay::Own => 0,
            SelfPlay::Workers { .. } => logged,
        };
        loop {
            let done = match stop {
                StopAfter::Generations(count) => lines.len() as u32 >= count,
                StopAfter::Seconds(seconds) => started.elapsed().as_secs_f64() >= seconds,
            };
            if done {
                return Ok(lines);
            }
            generation += 1;
            progress(Progress::Generation { generation });

            // Self-play with the current network, a shard at a time, on the
            // stage's board.
            let selfplay_start = Instant::now();
            let (evaluator, make_stage_game) = stage_players(
                stage_of(&stages, config, generation),
                &trainer.network(),
                &network_config,
                &make_game,
            );
            let total = config.selfplay.games_per_generation;
            let mut played = 0;
            // Positions played now, not read back: the rate below is self-play's.
            let mut positions = 0;
            if let SelfPlay::Workers { poll } = self.self_play {
                // The workers' games: wait until enough have come.
                loop {
                    let names = self.shard_names()?;
                    let arrived = (removed + self.count_games(&names, &mut cache)?)
                        .saturating_sub(games_before);
                    progress(Progress::Games {
                        done: arrived.min(total),
                        total,
                    });
                    if arrived >= total {
                        break;
                    }
                    std::thread::sleep(poll);
                }
                played = total;
            }
            // Shards this generation wrote before an interruption stand: the
            // same seeds would only play their games a second time.
            let written = self.shard_names()?;
            let mut shard_index = 0;
            while played < total {
                let count = config.selfplay.games_per_shard.min(total - played);
                let tag = format!("gen{generation:04}-shard{shard_index:04}");
                shard_index += 1;
                if let Some(name) = Run::tagged(&written, &tag) {
                    // Read to check that it is whole, kept for the window.
                    let games = self.read_shard(name)?;
                    cache.counts.insert(name.clone(), games.len());
                    cache.games.insert(name.clone(), Arc::new(games));
                    played += count;
                    progress(Progress::Games {
                        done: played,
                        total,
                    });
                    continue;
                }
                let mut games = Vec::with_capacity(count);
                let seed = config.seeded(u64::from(generation) << 32 | played as u64);
                play_games(
                    &selfplay,
                    count,
                    &make_stage_game,
                    &evaluator,
                    seed,
                    |game| {
                        positions += game.positions.len();
                        games.push(game);
                        progress(Progress::Games {
                            done: played + games.len(),
                            total,
                        });
                    },
                );
                self.write_shard(&tag, &games)?;
                played += count;
            }
            let selfplay_seconds = selfplay_start.elapsed().as_secs_f64();

            // Training on the replay window.
            let training_start = Instant::now();
            // One listing for the window and the count of games on disk.
            let names = self.shard_names()?;
            let window: ReplayWindow<G> = self.window(
                &names,
                &mut cache,
                config.optimizer.replay_positions,
                network_config.pooled_heads,
                &config.optimizer.targets(),
            )?;
            let steps = config.optimizer.steps_per_generation;
            let learning_rate = config.optimizer.learning_rate
                * config
                    .optimizer
                    .learning_rate_decay
                    .powi(generation as i32 - 1)
                    .max(0.1);
            let mut rng = SmallRng::seed_from_u64(config.seeded(u64::from(generation)));
            let (mut policy_sum, mut value_sum) = (0.0f64, 0.0f64);
            let available = window.samples.len();
            if available == 0 {
                return Err(TrainError::EmptyWindow);
            }
            for step in 0..steps {
                let indices = draw_indices(&window, config.optimizer.batch_size, &mut rng);
                let batch = make_batch(&window, &indices, network_config.ownership_head, &mut rng)?;
                let losses = trainer.step(&batch, learning_rate);
                policy_sum += f64::from(losses.policy);
                value_sum += f64::from(losses.value);
                progress(Progress::Steps {
                    done: step + 1,
                    total: steps,
                });
            }
            let training_seconds = training_start.elapsed().as_secs_f64();

            // Checkpoint, then the log line.
            let games_played = removed + self.count_games(&names, &mut cache)?;
            games_before = games_played;
            let checkpoint = Checkpoint {
                metadata: CheckpointMetadata {
                    calibration: None,
                    rules_calibrations: Default::default(),
                    format: checkpoint::FORMAT_VERSION,
                    game: spec.name.to_string(),
                    encoding_version: spec.encoding_version,
                    network: network_config.clone(),
                    provenance: Provenance {
                        parent: parent.clone(),
                        training_steps: trainer.steps,
                        games: games_played as u64,
                        created: checkpoint::now(),
                        notes: format!("generation {generation} of run {}", self.location()),
                    },
                    weights_bytes: 0,
                    weights_crc32: 0,
                },
                network: trainer.network(),
            };
            let path = self.publish(generation, &checkpoint)?;
            parent = Some(path.display().to_string());
            let line = LogLine {
                generation,
                games: games_played,
                positions: window.samples.len(),
                steps: trainer.steps,
                policy_loss: (policy_sum / steps.max(1) as f64) as f32,
                value_loss: (value_sum / steps.max(1) as f64) as f32,
                selfplay_seconds,
                training_seconds,
                // A generation replayed entirely from its shards played nothing.
                positions_per_second: if positions == 0 {
                    0.0
                } else {
                    positions as f64 / selfplay_seconds
                },
            };
            self.append_log(&line)?;
            progress(Progress::Finished(line.clone()));
            let every = config.evaluation.every;
            if every > 0 && generation % every == 0 {
                let previous = self.last_rated()?;
                let ratings =
                    evaluate(generation, &path, previous.as_deref()).map_err(|reason| {
                        TrainError::Invalid {
                            path: path.clone(),
                            reason: format!("rating the checkpoint: {reason}"),
                        }
                    })?;
                self.append_ratings(generation, games_played, &ratings)?;
                progress(Progress::Rated(ratings));
            }
            lines.push(line);
        }
    }

    /// The network the run's settings describe, for the board `spec`.
    pub fn network_config(&self, spec: &grandmaitre_engine::GameSpec) -> NetworkConfig {
        self.config.network.network_config(spec)
    }

    /// The games of the curriculum's stages and the network on each one's
    /// board, in order.
    fn stage_games<G: Game>(
        &self,
        network: &NetworkConfig,
    ) -> Result<Vec<(G, NetworkConfig)>, TrainError> {
        self.config
            .curriculum
            .iter()
            .map(|stage| {
                let game = G::with_parameters(&stage.rules)?;
                let board = network
                    .for_board(game.spec())
                    .ok_or_else(|| TrainError::Invalid {
                        path: PathBuf::from(format!("{}/{CONFIG_FILE}", self.location())),
                        reason: format!(
                            "the curriculum's rules '{}' do not fit the run's network",
                            stage.rules
                        ),
                    })?;
                Ok((game, board))
            })
            .collect()
    }

    /// Adds self-play to a run from another process: plays shards of games
    /// with the run's newest checkpoint (reloaded before each shard) until
    /// `stop`, beside a `train` process on the same directory. Returns the
    /// games written. A run without a checkpoint yet plays with a fresh
    /// network of the run's shape. `progress` hears of each shard written.
    pub fn selfplay<G: Game>(
        &self,
        make_game: impl Fn(u64) -> G + Sync,
        spec: &grandmaitre_engine::GameSpec,
        stop: StopAfter,
        mut progress: impl FnMut(&ShardWritten),
    ) -> Result<usize, TrainError> {
        let started = Instant::now();
        let device = Device::flex();
        let network_config = self.network_config(spec);
        let stages = self.stage_games::<G>(&network_config)?;
        let selfplay = self.config.selfplay.driver_config();
        let count = self.config.selfplay.games_per_shard;
        let mut written = 0;
        let mut positions = 0;
        let mut shards = 0u32;
        // This worker's name in its shards' names: unique among workers
        // anywhere (the time and the process, mixed).
        static WORKERS: AtomicU64 = AtomicU64::new(0);
        let worker = format!(
            "w{:016x}",
            (std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
                ^ u64::from(std::process::id()).rotate_left(32)
                ^ WORKERS.fetch_add(1, Ordering::Relaxed).rotate_left(48))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        );
        let mut current: Option<(u32, grandmaitre_model::Network)> = None;
        loop {
            let done = match stop {
                StopAfter::Generations(limit) => shards >= limit,
                StopAfter::Seconds(seconds) => started.elapsed().as_secs_f64() >= seconds,
            };
            if done {
                return Ok(written);
            }
            // The newest model, fetched only when it changed.
            let newest = self.latest_generation()?.unwrap_or(0);
            if current.as_ref().is_none_or(|(g, _)| *g != newest) {
                let network = match newest {
                    0 => network_config.init(&device),
                    g => self.load_checkpoint(g, spec, &device)?.network,
                };
                current = Some((newest, network));
            }
            let (generation, network) = current.as_ref().expect("a network");
            let generation = *generation;
            // The games of the generation the trainer plays next.
            let (evaluator, make_stage_game) = stage_players(
                stage_of(&stages, &self.config, generation + 1),
                network,
                &network_config,
                &make_game,
            );
            let mut games = Vec::with_capacity(count);
            let seed = u64::from_str_radix(&worker[1..], 16).unwrap_or(0) ^ u64::from(shards);
            play_games(
                &selfplay,
                count,
                make_stage_game,
                &evaluator,
                seed,
                |game| games.push(game),
            );
            let name = format!("{worker}-{shards}");
            self.write_shard(&name, &games)?;
            written += games.len();
            positions += games.iter().map(|g| g.positions.len()).sum::<usize>();
            shards += 1;
            progress(&ShardWritten {
                name,
                generation,
                games: written,
                positions,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
    }

    /// The run's ratings (`evaluation.csv`).
    pub fn ratings(&self) -> Result<Vec<RatingRow>, TrainError> {
        match self.store.get(EVALUATION_FILE)? {
            Some(text) => ratings::parse(EVALUATION_FILE, &text).map_err(TrainError::Ratings),
            None => Ok(Vec::new()),
        }
    }

    /// The checkpoint of the newest row of `evaluation.csv`.
    fn last_rated(&self) -> Result<Option<PathBuf>, TrainError> {
        let generation = self.ratings()?.iter().map(|row| row.generation).max();
        Ok(match generation {
            Some(g) if self.store.directory().is_none() => Some(self.local_checkpoint(g)?),
            Some(g) => Some(self.checkpoint_path(g)).filter(|p| p.is_dir()),
            None => None,
        })
    }

    /// The games count of the last line of `log.csv` (0 without one).
    fn last_logged_games(&self) -> Result<usize, TrainError> {
        let text = self.store.get(LOG_FILE)?.unwrap_or_default();
        Ok(String::from_utf8_lossy(&text)
            .lines()
            .skip(1)
            .last()
            .and_then(|line| line.split(',').nth(1))
            .and_then(|games| games.parse().ok())
            .unwrap_or(0))
    }

    fn append_ratings(
        &self,
        generation: u32,
        games: usize,
        ratings: &[Rating],
    ) -> Result<(), TrainError> {
        let rows: Vec<RatingRow> = ratings
            .iter()
            .map(|r| RatingRow {
                generation,
                games,
                opponent: r.opponent.clone(),
                matches: r.games,
                score: r.score,
                elo: r.elo[0],
                elo_low: r.elo[1],
                elo_high: r.elo[2],
            })
            .collect();
        let mut text = self.store.get(EVALUATION_FILE)?.unwrap_or_default();
        let added = ratings::to_csv(&rows, text.is_empty()).map_err(TrainError::Ratings)?;
        text.extend(added);
        Ok(self.store.put(EVALUATION_FILE, text)?)
    }

    /// Appends a line to `log.csv` (its header first in a new one): the
    /// file replaced whole, as one trainer writes it.
    fn append_log(&self, line: &LogLine) -> Result<(), TrainError> {
        let mut text = self.store.get(LOG_FILE)?.unwrap_or_default();
        if text.is_empty() {
            text.extend(LOG_HEADER.as_bytes());
            text.push(b'\n');
        }
        text.extend(line.csv().as_bytes());
        text.push(b'\n');
        Ok(self.store.put(LOG_FILE, text)?)
    }
}

/// The curriculum stage of `generation` among `stages` (those of
/// `config.curriculum`, in order), if any.
fn stage_of<'a, G>(
    stages: &'a [(G, NetworkConfig)],
    config: &TrainingConfig,
    generation: u32,
) -> Option<&'a (G, NetworkConfig)> {
    config
        .curriculum
        .iter()
        .position(|stage| stage.has(generation))
        .map(|index| &stages[index])
}

/// Self-play's evaluator and rules in a curriculum `stage` (or the run's
/// own with `None`): `network` on the stage's board, and its game.
fn stage_players<'a, G: Game>(
    stage: Option<&'a (G, NetworkConfig)>,
    network: &grandmaitre_model::Network,
    network_config: &NetworkConfig,
    make_game: &'a (impl Fn(u64) -> G + Sync),
) -> (NetworkEvaluator, impl Fn(u64) -> G + Sync + 'a) {
    let board = stage.map_or(network_config, |(_, config)| config);
    let evaluator = NetworkEvaluator::new(InferenceNetwork::new(network, board));
    let game = move |seed: u64| match stage {
        Some((game, _)) => game.clone(),
        None => make_game(seed),
    };
    (evaluator, game)
}

/// Where the checkpoints of the run at `location` (an object store) are
/// kept on this machine: a folder of the system's temporary directory named
/// after the location.
fn cache_directory(location: &str) -> PathBuf {
    let name: String = location
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    std::env::temp_dir()
        .join("grandmaitre-runs")
        .join(name)
        .join(CHECKPOINTS)
}
