//! Self-play from a worker beside the trainer: shards played with the
//! run's newest checkpoint, fetched when the pointer moves.

use super::*;
use grandmaitre_engine::{Hints, Notation};

impl Run {
    /// The games of the curriculum's stages and the network on each one's
    /// board, in order.
    pub(super) fn stage_games<G: Game>(
        &self,
        network: &NetworkConfig,
    ) -> Result<Vec<(G, NetworkConfig)>, TrainError> {
        self.config
            .curriculum
            .iter()
            .map(|stage| {
                let game = G::with_rules(&stage.rules)?;
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
    ///
    /// The store's outages are waited out (its patience: see
    /// [`crate::store`]). A shard the store still refuses when the
    /// patience runs out, or when the process is asked to stop
    /// ([`Store::with_stopping`]), is kept in the spool folder on this
    /// machine ([`Run::spool_directory`]) and the worker ends with the
    /// error; the next worker of the run started here writes it first.
    /// Asked to stop, or at the end of `stop`'s time, the worker stops
    /// playing at once and writes the games it finished as a last shard.
    pub fn selfplay<G: Notation + Hints>(
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
        let selfplay = self.config.selfplay.games.clone();
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
        let out_of_time = || match stop {
            StopAfter::Seconds(seconds) => started.elapsed().as_secs_f64() >= seconds,
            StopAfter::Generations(_) => false,
        };
        let stopping = || self.store.is_stopping() || out_of_time();
        self.write_spooled()?;
        loop {
            let done = match stop {
                StopAfter::Generations(limit) => shards >= limit,
                StopAfter::Seconds(_) => out_of_time(),
            };
            if done || self.store.is_stopping() {
                return Ok(written);
            }
            // The newest model, fetched only when it changed. Asked to stop
            // while the store does not answer, the worker has nothing to
            // write and ends.
            let stopped = |error: &TrainError| {
                self.store.is_stopping()
                    && matches!(error, TrainError::Store(e) if e.is_transient())
            };
            let newest = match self.latest_generation() {
                Ok(newest) => newest.unwrap_or(0),
                Err(error) if stopped(&error) => return Ok(written),
                Err(error) => return Err(error),
            };
            if current.as_ref().is_none_or(|(g, _)| *g != newest) {
                let network = match newest {
                    0 => network_config.init(&device),
                    g => match self.load_checkpoint(g, spec, &device) {
                        Ok(checkpoint) => checkpoint.network,
                        Err(error) if stopped(&error) => return Ok(written),
                        Err(error) => return Err(error),
                    },
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
            play_games_until(
                &selfplay,
                count,
                make_stage_game,
                &evaluator,
                seed,
                stopping,
                |game| games.push(game),
            );
            if games.is_empty() {
                continue;
            }
            let tag = format!("{worker}-{shards}");
            let bytes = shard::encode(&games);
            let name = loop {
                let key = self.new_shard_name(&tag);
                match self.store.create(&key, bytes.clone()) {
                    Ok(true) => break key,
                    Ok(false) => continue,
                    Err(error) if error.is_transient() => {
                        let kept = self.spool(&key, &bytes)?;
                        eprintln!(
                            "{}: the store did not take the shard ({error}); its {} games are kept in {} and written when a worker of this run starts here again",
                            self.location(),
                            games.len(),
                            kept.display()
                        );
                        if self.store.is_stopping() {
                            return Ok(written);
                        }
                        return Err(error.into());
                    }
                    Err(error) => return Err(error.into()),
                }
            };
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
}
