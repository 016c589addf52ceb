//! The run's storage: shards, checkpoints and the pointer to the newest,
//! their local cache for a run in an object store, and the replay window
//! read from the newest shards.

use super::*;
use grandmaitre_engine::Notation;

impl Run {
    /// Removes what an interrupted checkpoint write left beside the
    /// checkpoint directories (one trainer per run writes them).
    pub(super) fn remove_stale_staging(&self) -> Result<(), TrainError> {
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
    pub(super) fn write_shard(
        &self,
        suffix: &str,
        games: &[GameRecord],
    ) -> Result<String, TrainError> {
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
    pub(super) fn tagged<'a>(names: &'a [String], tag: &str) -> Option<&'a String> {
        let ending = format!("-{tag}.{}", shard::EXTENSION);
        names.iter().find(|name| name.ends_with(&ending))
    }

    /// The checkpoint directory of `generation` (in the cache for a run in
    /// an object store).
    pub(super) fn checkpoint_path(&self, generation: u32) -> PathBuf {
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
    pub(super) fn local_checkpoint(&self, generation: u32) -> Result<PathBuf, TrainError> {
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
    pub(super) fn checkpoint_files(
        &self,
        generation: u32,
    ) -> Result<(Vec<u8>, Vec<u8>), TrainError> {
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
    pub(super) fn load_checkpoint(
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
    pub(super) fn publish(
        &self,
        generation: u32,
        checkpoint: &Checkpoint,
    ) -> Result<PathBuf, TrainError> {
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
    pub(super) fn window<G: Notation>(
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
    pub(super) fn count_games(
        &self,
        names: &[String],
        cache: &mut ShardCache,
    ) -> Result<usize, TrainError> {
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
}

/// Where the checkpoints of the run at `location` (an object store) are
/// kept on this machine: a folder of the system's temporary directory named
/// after the location.
pub(super) fn cache_directory(location: &str) -> PathBuf {
    let name: String = location
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    std::env::temp_dir()
        .join("grandmaitre-runs")
        .join(name)
        .join(CHECKPOINTS)
}
