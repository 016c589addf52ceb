//! The run's storage: shards, checkpoints and the pointer to the newest,
//! their local cache for a run in an object store, and the replay window
//! read from the newest shards.

use super::*;
use grandmaitre_engine::Notation;

impl Run {
    /// Removes what an interrupted checkpoint write left beside the
    /// checkpoint directories. Only the trainer does (one trainer per run
    /// writes them): a worker starting mid-run must not remove a staging
    /// file the trainer is about to publish. A copy being fetched into the
    /// cache (`gen-N.fetch-…`) is removed once it is an hour old.
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
            let abandoned = || {
                entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|time| time.elapsed().ok())
                    .is_some_and(|age| age > Duration::from_secs(3600))
            };
            if name.ends_with(".tmp") || name.ends_with(".old") {
                fs::remove_dir_all(&path).map_err(io)?;
            } else if name.starts_with("latest#") {
                fs::remove_file(&path).map_err(io)?;
            } else if name.contains(".fetch-") && abandoned() {
                // Another process may have removed it first.
                let _ = fs::remove_dir_all(&path);
            }
        }
        Ok(())
    }

    /// The names of the finished shards, in the order of their names (which
    /// start with their writer's clock: the order of arrival is
    /// [`Run::arrival_order`]'s).
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
            let name = self.new_shard_name(suffix);
            if self.store.create(&name, bytes.clone())? {
                return Ok(name);
            }
        }
    }

    /// A shard's name: the writer's time (which tells writers apart, not
    /// what is newest: see [`Run::arrival_order`]) and `suffix`.
    pub(super) fn new_shard_name(&self, suffix: &str) -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{SHARDS}/{nanos:024}-{suffix}.{}", shard::EXTENSION)
    }

    /// The folder on this machine where a worker keeps the shards the
    /// store did not take: beside the run's checkpoint cache, named after
    /// the run's location.
    pub fn spool_directory(&self) -> PathBuf {
        cache_directory(self.location())
            .parent()
            .map_or_else(|| PathBuf::from("spool"), |folder| folder.join("spool"))
    }

    /// Keeps the shard `name` (its `bytes`) in the spool folder, whole;
    /// returns its file.
    pub(super) fn spool(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, TrainError> {
        let folder = self.spool_directory();
        let file = folder.join(name.rsplit('/').next().unwrap_or(name));
        let io = |error| TrainError::Io {
            path: file.clone(),
            error,
        };
        fs::create_dir_all(&folder).map_err(io)?;
        grandmaitre_engine::files::write_atomically(&file, bytes).map_err(io)?;
        Ok(file)
    }

    /// Writes the shards kept in the spool folder under their own names,
    /// then removes them from it (a shard already in the store with the
    /// same bytes was written before).
    pub(super) fn write_spooled(&self) -> Result<usize, TrainError> {
        let folder = self.spool_directory();
        let Ok(entries) = fs::read_dir(&folder) else {
            return Ok(0);
        };
        let ending = format!(".{}", shard::EXTENSION);
        let mut written = 0;
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().to_string();
            if !file_name.ends_with(&ending) {
                continue; // staging files of a write in progress
            }
            let path = entry.path();
            let Ok(bytes) = fs::read(&path) else {
                continue; // another worker took it
            };
            // Only whole shards are spooled; a damaged one is set aside.
            let games = match shard::decode(&path, &bytes) {
                Ok(games) => games.len(),
                Err(error) => {
                    eprintln!("{error}: set aside as {}.damaged", path.display());
                    let _ = fs::rename(&path, path.with_extension("damaged"));
                    continue;
                }
            };
            let name = format!("{SHARDS}/{file_name}");
            let taken = self.store.create(&name, bytes.clone())?
                || self.store.get(&name)?.is_some_and(|stored| stored == bytes);
            if !taken {
                return Err(TrainError::Invalid {
                    path,
                    reason: format!("{}/{name} holds another shard", self.location()),
                });
            }
            let _ = fs::remove_file(&path);
            eprintln!(
                "{}: {games} games kept in {} written as {name}",
                self.location(),
                path.display()
            );
            written += 1;
        }
        Ok(written)
    }

    /// The shard that the trainer wrote with `tag`, among `names`.
    pub(super) fn tagged<'a>(names: &'a [String], tag: &str) -> Option<&'a String> {
        let ending = format!("-{tag}.{}", shard::EXTENSION);
        names.iter().find(|name| name.ends_with(&ending))
    }

    /// The shards listed now, in the order the trainer first listed them:
    /// those of the run's arrivals file (the order of earlier legs), then
    /// the new ones in the order of their names. A writer's clock does not
    /// decide what is newest.
    pub(super) fn arrival_order(&self, cache: &mut ShardCache) -> Result<Vec<String>, TrainError> {
        let listed = self.shard_names()?;
        for name in &listed {
            if cache.arrived.insert(name.clone()) {
                cache.arrivals.push(name.clone());
            }
        }
        let present: std::collections::HashSet<&String> = listed.iter().collect();
        Ok(cache
            .arrivals
            .iter()
            .filter(|name| present.contains(name))
            .cloned()
            .collect())
    }

    /// Reads the arrivals file into `cache` (the trainer, when it starts).
    pub(super) fn load_arrivals(&self, cache: &mut ShardCache) -> Result<(), TrainError> {
        let text = self.store.get(ARRIVALS_FILE)?.unwrap_or_default();
        for name in String::from_utf8_lossy(&text).lines() {
            if !name.is_empty() && cache.arrived.insert(name.to_string()) {
                cache.arrivals.push(name.to_string());
            }
        }
        cache.saved_arrivals = cache.arrivals.len();
        Ok(())
    }

    /// Writes the arrivals file if shards arrived since it was written.
    pub(super) fn save_arrivals(&self, cache: &mut ShardCache) -> Result<(), TrainError> {
        if cache.arrivals.len() == cache.saved_arrivals {
            return Ok(());
        }
        let mut text = cache.arrivals.join("\n");
        text.push('\n');
        self.store.put(ARRIVALS_FILE, text.into_bytes())?;
        cache.saved_arrivals = cache.arrivals.len();
        Ok(())
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
    /// the cache's copy, fetched unless the copy is the store's (the same
    /// `checkpoint.json`, and weights of its size and checksum: a later
    /// run at the same location, or a copy left half-written, is fetched
    /// again).
    pub(super) fn local_checkpoint(&self, generation: u32) -> Result<PathBuf, TrainError> {
        let path = self.checkpoint_path(generation);
        if self.store.directory().is_some() {
            return Ok(path);
        }
        let metadata = self.checkpoint_file(generation, checkpoint::METADATA_FILE)?;
        if !cached_copy_is(&path, &metadata) {
            let weights = self.checkpoint_file(generation, checkpoint::WEIGHTS_FILE)?;
            fill_cache(&path, &metadata, &weights)?;
        }
        Ok(path)
    }

    /// The file `name` of the checkpoint of `generation`, from the store.
    fn checkpoint_file(&self, generation: u32, name: &str) -> Result<Vec<u8>, TrainError> {
        let key = format!("{CHECKPOINTS}/gen-{generation:04}/{name}");
        self.store.get(&key)?.ok_or_else(|| TrainError::Invalid {
            path: PathBuf::from(format!("{}/{key}", self.location())),
            reason: "missing".to_string(),
        })
    }

    /// `checkpoint.json` and `weights.bpk` of `generation`, from the store.
    pub(super) fn checkpoint_files(
        &self,
        generation: u32,
    ) -> Result<(Vec<u8>, Vec<u8>), TrainError> {
        Ok((
            self.checkpoint_file(generation, checkpoint::METADATA_FILE)?,
            self.checkpoint_file(generation, checkpoint::WEIGHTS_FILE)?,
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

    /// Writes the files of the checkpoint of `generation` (not yet the
    /// pointer: [`Run::point_at`]); returns its directory (for a run in an
    /// object store, the cache's copy of what was uploaded).
    pub(super) fn write_checkpoint(
        &self,
        generation: u32,
        checkpoint: &Checkpoint,
    ) -> Result<PathBuf, TrainError> {
        let path = self.checkpoint_path(generation);
        if self.store.directory().is_some() {
            checkpoint.save(&path)?;
            return Ok(path);
        }
        let key = format!("{CHECKPOINTS}/gen-{generation:04}");
        let (metadata, weights) = checkpoint.to_bytes(&key)?;
        self.store.put(
            &format!("{key}/{}", checkpoint::WEIGHTS_FILE),
            weights.clone(),
        )?;
        self.store.put(
            &format!("{key}/{}", checkpoint::METADATA_FILE),
            metadata.clone().into_bytes(),
        )?;
        fill_cache(&path, metadata.as_bytes(), &weights)?;
        Ok(path)
    }

    /// Points `latest` at the checkpoint of `generation`.
    pub(super) fn point_at(&self, generation: u32) -> Result<(), TrainError> {
        Ok(self
            .store
            .put(LATEST, format!("gen-{generation:04}\n").into_bytes())?)
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

/// Whether the directory `path` holds the checkpoint whose
/// `checkpoint.json` is `metadata`: the same description, and weights of
/// the size and checksum it gives.
fn cached_copy_is(path: &Path, metadata: &[u8]) -> bool {
    let Ok(cached) = fs::read(path.join(checkpoint::METADATA_FILE)) else {
        return false;
    };
    if cached != metadata {
        return false;
    }
    let Ok(description) = checkpoint::read_metadata(path) else {
        return false;
    };
    fs::read(path.join(checkpoint::WEIGHTS_FILE)).is_ok_and(|weights| {
        weights.len() as u64 == description.weights_bytes
            && crc32fast::hash(&weights) == description.weights_crc32
    })
}

/// Puts a checkpoint's two files in the cache directory `path`, whole: in a
/// staging directory of this process's own, then renamed into place (a
/// process that got there first with the same files wins).
fn fill_cache(path: &Path, metadata: &[u8], weights: &[u8]) -> Result<(), TrainError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let staging = path.with_extension(format!("fetch-{}-{nanos}", std::process::id()));
    let io = |error| TrainError::Io {
        path: staging.clone(),
        error,
    };
    fs::create_dir_all(&staging).map_err(io)?;
    fs::write(staging.join(checkpoint::WEIGHTS_FILE), weights).map_err(io)?;
    fs::write(staging.join(checkpoint::METADATA_FILE), metadata).map_err(io)?;
    if path.exists() && !cached_copy_is(path, metadata) {
        // A stale copy (another run at this location, or an older write).
        let _ = fs::remove_dir_all(path);
    }
    match fs::rename(&staging, path) {
        Ok(()) => Ok(()),
        Err(_) if cached_copy_is(path, metadata) => {
            let _ = fs::remove_dir_all(&staging);
            Ok(())
        }
        Err(error) => {
            let _ = fs::remove_dir_all(&staging);
            Err(TrainError::Io {
                path: path.to_path_buf(),
                error,
            })
        }
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
