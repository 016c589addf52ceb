//! A training run: a directory, and the loop self-play → training →
//! checkpoint that fills it, resumable after any interruption.
//!
//! ```text
//! RUN/
//!   config.toml          the run's settings (written once, read on resume)
//!   shards/              self-play games (several writers may share it)
//!   checkpoints/gen-N/   one checkpoint per generation
//!   log.csv              one line per generation
//! ```
//!
//! Everything is written atomically: a shard or checkpoint either exists
//! whole or not at all. After a crash (SIGKILL included) the run resumes
//! from its newest checkpoint; the shards written since are kept, so at most
//! the games of one unfinished shard are lost. The trainer tags its shards
//! with the generation and the shard's index, and a resumed generation plays
//! only the shards it has not written.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_model::checkpoint::{self, CheckpointMetadata, Provenance};
use grandmaitre_model::{Checkpoint, InferenceNetwork, NetworkConfig, NetworkEvaluator};
use grandmaitre_selfplay::{play_games, shard};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::TrainError;
use crate::config::{Heads, TrainingConfig};
use crate::ratings::{self, RatingRow};
use crate::samples::{ReplayWindow, draw_indices, make_batch};
use crate::trainer::Trainer;

const CONFIG_FILE: &str = "config.toml";
const LOG_FILE: &str = "log.csv";
/// The ratings file of a run.
pub const EVALUATION_FILE: &str = "evaluation.csv";
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
    /// Self-play games on disk.
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

/// A run directory.
#[derive(Debug)]
pub struct Run {
    directory: PathBuf,
    /// The run's settings.
    pub config: TrainingConfig,
}

impl Run {
    /// Opens the run in `directory`, creating it with `config` (or the
    /// defaults) if it is new. An existing run keeps its own settings; a
    /// different `config` for it is an error.
    pub fn open(directory: &Path, config: Option<TrainingConfig>) -> Result<Run, TrainError> {
        let file = directory.join(CONFIG_FILE);
        let stored =
            match fs::read_to_string(&file) {
                Ok(text) => Some(TrainingConfig::from_toml(&text).map_err(|reason| {
                    TrainError::Invalid {
                        path: file.clone(),
                        reason,
                    }
                })?),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(source) => return Err(TrainError::Io { path: file, source }),
            };
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
                fs::create_dir_all(directory).map_err(|source| TrainError::Io {
                    path: directory.to_path_buf(),
                    source,
                })?;
                write_atomically(&file, config.to_toml().as_bytes())?;
                config
            }
        };
        let run = Run {
            directory: directory.to_path_buf(),
            config,
        };
        run.remove_stale_staging()?;
        Ok(run)
    }

    /// Removes what an interrupted checkpoint write left beside the
    /// checkpoints (one trainer per run writes them).
    fn remove_stale_staging(&self) -> Result<(), TrainError> {
        let directory = self.checkpoint_directory();
        let Ok(entries) = fs::read_dir(&directory) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.ends_with(".tmp") || name.ends_with(".old") {
                fs::remove_dir_all(entry.path()).map_err(|source| TrainError::Io {
                    path: entry.path(),
                    source,
                })?;
            }
        }
        Ok(())
    }

    /// Where the self-play shards are.
    pub fn shard_directory(&self) -> PathBuf {
        self.directory.join("shards")
    }

    fn checkpoint_directory(&self) -> PathBuf {
        self.directory.join("checkpoints")
    }

    /// The newest complete checkpoint: its generation and path.
    pub fn latest_checkpoint(&self) -> Result<Option<(u32, PathBuf)>, TrainError> {
        let directory = self.checkpoint_directory();
        let entries = match fs::read_dir(&directory) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(TrainError::Io {
                    path: directory,
                    source,
                });
            }
        };
        let mut best = None;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(number) = name
                .strip_prefix("gen-")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue; // staging directories and others
            };
            if checkpoint::read_metadata(&entry.path()).is_ok()
                && best.as_ref().is_none_or(|(g, _)| number > *g)
            {
                best = Some((number, entry.path()));
            }
        }
        Ok(best)
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
                let checkpoint = Checkpoint::load(&path, spec, &device)?;
                if checkpoint.metadata.network != network_config {
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
                    .with_ownership_weight(config.network.ownership_weight),
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
                .with_ownership_weight(config.network.ownership_weight),
                None,
            ),
        };
        let mut parent = parent.map(|p| p.display().to_string());
        let mut lines = Vec::new();
        let selfplay = self.config.selfplay.driver_config();
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
            // Shards this generation wrote before an interruption stand: the
            // same seeds would only play their games a second time.
            let written = shard::list(&self.shard_directory())?;
            let mut shard_index = 0;
            while played < total {
                let count = config.selfplay.games_per_shard.min(total - played);
                let tag = format!("gen{generation:04}-shard{shard_index:04}");
                shard_index += 1;
                if let Some(path) = shard::tagged(&written, &tag) {
                    // Read only to check that it is whole.
                    shard::read(path)?;
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
                shard::write_tagged(&self.shard_directory(), &tag, &games)?;
                played += count;
            }
            let selfplay_seconds = selfplay_start.elapsed().as_secs_f64();

            // Training on the replay window.
            let training_start = Instant::now();
            let window: ReplayWindow<G> = ReplayWindow::load(
                &self.shard_directory(),
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
            let games_on_disk = count_games(&self.shard_directory())?;
            let path = self
                .checkpoint_directory()
                .join(format!("gen-{generation:04}"));
            let checkpoint = Checkpoint {
                metadata: CheckpointMetadata {
                    calibration: None,
                    format: checkpoint::FORMAT_VERSION,
                    game: spec.name.to_string(),
                    encoding_version: spec.encoding_version,
                    network: network_config.clone(),
                    provenance: Provenance {
                        parent: parent.clone(),
                        training_steps: trainer.steps,
                        games: games_on_disk as u64,
                        created: checkpoint::now(),
                        notes: format!(
                            "generation {generation} of run {}",
                            self.directory.display()
                        ),
                    },
                    weights_bytes: 0,
                    weights_crc32: 0,
                },
                network: trainer.network(),
            };
            checkpoint.save(&path)?;
            parent = Some(path.display().to_string());
            let line = LogLine {
                generation,
                games: games_on_disk,
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
                self.append_ratings(generation, games_on_disk, &ratings)?;
                progress(Progress::Rated(ratings));
            }
            lines.push(line);
        }
    }

    /// The network the run's settings describe, for the board `spec`.
    pub fn network_config(&self, spec: &grandmaitre_engine::GameSpec) -> NetworkConfig {
        let settings = &self.config.network;
        let shape = match settings.heads {
            Heads::Dense => NetworkConfig::for_game(spec),
            Heads::Pooled => {
                NetworkConfig::pooled_for_game(spec).with_pooling_every(settings.pooling_every)
            }
        };
        shape
            .with_channels(settings.channels)
            .with_blocks(settings.blocks)
            .with_ownership_head(settings.ownership_weight > 0.0)
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
                        path: self.directory.join(CONFIG_FILE),
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
    /// network of the run's shape.
    pub fn selfplay<G: Game>(
        &self,
        make_game: impl Fn(u64) -> G + Sync,
        spec: &grandmaitre_engine::GameSpec,
        stop: StopAfter,
        mut progress: impl FnMut(usize),
    ) -> Result<usize, TrainError> {
        let started = Instant::now();
        let device = Device::flex();
        let network_config = self.network_config(spec);
        let stages = self.stage_games::<G>(&network_config)?;
        let selfplay = self.config.selfplay.driver_config();
        let count = self.config.selfplay.games_per_shard;
        let mut written = 0;
        let mut shards = 0u32;
        loop {
            let done = match stop {
                StopAfter::Generations(limit) => shards >= limit,
                StopAfter::Seconds(seconds) => started.elapsed().as_secs_f64() >= seconds,
            };
            if done {
                return Ok(written);
            }
            let (generation, network) = match self.latest_checkpoint()? {
                Some((generation, path)) => {
                    (generation, Checkpoint::load(&path, spec, &device)?.network)
                }
                None => (0, network_config.init(&device)),
            };
            // The games of the generation the trainer plays next.
            let (evaluator, make_stage_game) = stage_players(
                stage_of(&stages, &self.config, generation + 1),
                &network,
                &network_config,
                &make_game,
            );
            let mut games = Vec::with_capacity(count);
            let seed = u64::from(std::process::id()) << 32 | u64::from(shards);
            play_games(
                &selfplay,
                count,
                make_stage_game,
                &evaluator,
                seed,
                |game| games.push(game),
            );
            shard::write(&self.shard_directory(), &games)?;
            written += games.len();
            shards += 1;
            progress(written);
        }
    }

    /// The checkpoint of the newest row of `evaluation.csv`.
    fn last_rated(&self) -> Result<Option<PathBuf>, TrainError> {
        let rows =
            ratings::read(&self.directory.join(EVALUATION_FILE)).map_err(TrainError::Ratings)?;
        let generation = rows.iter().map(|row| row.generation).max();
        Ok(generation
            .map(|g| self.checkpoint_directory().join(format!("gen-{g:04}")))
            .filter(|p| p.is_dir()))
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
        ratings::append(&self.directory.join(EVALUATION_FILE), &rows).map_err(TrainError::Ratings)
    }

    fn append_log(&self, line: &LogLine) -> Result<(), TrainError> {
        append_lines(&self.directory.join(LOG_FILE), LOG_HEADER, &[line.csv()])
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
        .position(|stage| generation <= stage.until)
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

/// Appends `lines` to the CSV file `path`, writing `header` first into a
/// new file; synced before returning.
fn append_lines(path: &Path, header: &str, lines: &[String]) -> Result<(), TrainError> {
    let io_error = |source| TrainError::Io {
        path: path.to_path_buf(),
        source,
    };
    let new = !path.exists();
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_error)?;
    let mut text = String::new();
    if new {
        text.push_str(header);
        text.push('\n');
    }
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    file.write_all(text.as_bytes()).map_err(io_error)?;
    file.sync_all().map_err(io_error)
}

/// Games in all the shards of `directory`.
fn count_games(directory: &Path) -> Result<usize, TrainError> {
    let mut games = 0;
    for path in shard::list(directory)? {
        games += shard::game_count(&path)?;
    }
    Ok(games)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    grandmaitre_engine::files::write_atomically(path, bytes).map_err(|source| TrainError::Io {
        path: path.to_path_buf(),
        source,
    })
}
