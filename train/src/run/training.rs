//! The training loop: self-play (or the workers' games), the replay
//! window, training steps, the checkpoint and its ratings, a generation
//! at a time.

use super::*;
use grandmaitre_engine::Playable;

impl Run {
    /// Runs generations until `stop`, with the rules `make_game(seed)` gives
    /// each self-play game (`spec` is their common shape), training on
    /// `device` (burn's backend), reporting to `progress`. Self-play always
    /// runs on the fast CPU inference path.
    pub fn train<G: Playable>(
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
        // What an interrupted write of this trainer's left: staging files,
        // and log lines of a generation whose pointer was never written.
        self.remove_stale_staging()?;
        self.drop_unpublished_lines(self.latest_generation()?.unwrap_or(0))?;
        let (mut generation, mut trainer, parent) = match self.latest_checkpoint()? {
            Some((generation, path)) => {
                let mut checkpoint = Checkpoint::load(&path, spec, &device)?;
                // A run that turns the moves-left or the own-rules value
                // head on gains it untrained.
                let stored = &checkpoint.metadata.network;
                let gains_moves_left = network_config.moves_left_head && !stored.moves_left_head;
                let gains_rules_value = network_config.rules_value_head && !stored.rules_value_head;
                let gained = stored
                    .clone()
                    .with_moves_left_head(stored.moves_left_head || gains_moves_left)
                    .with_rules_value_head(stored.rules_value_head || gains_rules_value);
                if gained != network_config {
                    return Err(TrainError::Invalid {
                        path,
                        reason: "the checkpoint's shape differs from the run's settings"
                            .to_string(),
                    });
                }
                if gains_moves_left {
                    checkpoint.network.moves_left = Some(network_config.init_moves_left(&device));
                }
                if gains_rules_value {
                    checkpoint.network.rules_value = Some(network_config.init_rules_value(&device));
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
        let selfplay = self.config.selfplay.games.clone();
        let mut cache = self.cache.lock().map_err(|_| TrainError::Invalid {
            path: PathBuf::from(self.location()),
            reason: "an earlier training of this run panicked".to_string(),
        })?;
        // Games the log counted whose shards are gone (a run copied or
        // resumed without them) stay counted, so that the log's games are
        // the run's total; shards found beside the remainder count as
        // played before this leg.
        let logged = self.last_logged_games()?;
        self.load_arrivals(&mut cache)?;
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
                    let names = self.arrival_order(&mut cache)?;
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
            // One listing for the window and the count of games on disk,
            // newest by arrival.
            let names = self.arrival_order(&mut cache)?;
            self.save_arrivals(&mut cache)?;
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
            // The checkpoint's files, its log line, then the pointer: a crash
            // before the pointer redoes the generation (its line dropped).
            let path = self.write_checkpoint(generation, &checkpoint)?;
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
            #[cfg(test)]
            crate::run::tests::crash_point("before the pointer")?;
            self.point_at(generation)?;
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
}

/// The curriculum stage of `generation` among `stages` (those of
/// `config.curriculum`, in order), if any.
pub(super) fn stage_of<'a, G>(
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
pub(super) fn stage_players<'a, G: Game>(
    stage: Option<&'a (G, NetworkConfig)>,
    network: &grandmaitre_model::Network,
    network_config: &NetworkConfig,
    make_game: &'a (impl Fn(u64) -> G + Sync),
) -> (NetworkEvaluator, impl Fn(u64) -> G + Sync + 'a) {
    let board = stage.map_or(network_config, |(_, config)| config);
    let evaluator = NetworkEvaluator::of(network, board);
    let game = move |seed: u64| match stage {
        Some((game, _)) => game.clone(),
        None => make_game(seed),
    };
    (evaluator, game)
}
