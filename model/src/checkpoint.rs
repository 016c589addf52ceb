//! Checkpoints: a self-describing directory.
//!
//! ```text
//! NAME/
//!   checkpoint.json   game, encoding version, network shape, provenance,
//!                     size and CRC-32 of the weights
//!   weights.bpk       the weights in burn's burnpack format
//! ```
//!
//! A checkpoint is written into `NAME.tmp` first and renamed into place, so
//! that a reader never sees half of one. Loading refuses a checkpoint of
//! another game, encoding or shape, and a truncated or corrupt one, with a
//! one-line message; a network of an earlier encoding that the game's
//! extends (`GameSpec::earlier_encodings`) loads as one of the current
//! encoding, its new input planes weighted zero.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use grandmaitre_engine::GameSpec;
use grandmaitre_engine::game::OneLine;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::calibration::players::FEATURES_VERSION;
use crate::calibration::{Calibration, Calibrations};
use crate::inference::NetworkEvaluator;
use crate::network::{Network, NetworkConfig};

/// Version of the checkpoint layout.
pub const FORMAT_VERSION: u32 = 1;
/// The description file of a checkpoint directory.
pub const METADATA_FILE: &str = "checkpoint.json";
/// The weights file of a checkpoint directory.
pub const WEIGHTS_FILE: &str = "weights.bpk";

/// Where a checkpoint comes from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The checkpoint this one was trained from, if any.
    pub parent: Option<String>,
    /// Optimiser steps since the network was initialised.
    pub training_steps: u64,
    /// Self-play games the training has used.
    pub games: u64,
    /// When it was written (RFC 3339, UTC).
    pub created: String,
    /// Free text: the run, the command.
    pub notes: String,
}

/// The description stored in `checkpoint.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMetadata {
    /// [`FORMAT_VERSION`] of the writer.
    pub format: u32,
    /// The game's name (`GameSpec::name`).
    pub game: String,
    /// The game's encoding version.
    pub encoding_version: u32,
    /// The network's shape.
    pub network: NetworkConfig,
    /// Where it comes from.
    pub provenance: Provenance,
    /// Size of `weights.bpk` in bytes.
    pub weights_bytes: u64,
    /// CRC-32 of `weights.bpk`.
    pub weights_crc32: u32,
    /// Calibration of the displayed win/draw/loss (`grandmaitre
    /// calibrate`), if fitted.
    /// It serves every rules setting without a calibration of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// Calibrations fitted apart on one rules setting other than the
    /// game's default (`grandmaitre calibrate --rules …`), by the
    /// setting's full parameters (`Game::parameters`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules_calibrations: BTreeMap<String, Calibration>,
}

impl CheckpointMetadata {
    /// The checkpoint's calibrations, general and per rules setting.
    pub fn calibrations(&self) -> Calibrations {
        Calibrations {
            general: self.calibration.clone(),
            by_rules: self.rules_calibrations.clone(),
        }
    }
}

/// Why a checkpoint could not be read or written.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// An I/O failure on a path.
    #[error("checkpoint {path}: {error}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The failure (part of the message, not a separate cause, so that
        /// a printed chain names it once).
        error: io::Error,
    },
    /// Something in the checkpoint is wrong.
    #[error("checkpoint {path}: {reason}")]
    Invalid {
        /// The checkpoint directory.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

fn invalid(path: &Path, reason: impl Into<String>) -> CheckpointError {
    CheckpointError::Invalid {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> CheckpointError + '_ {
    move |error| CheckpointError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// A network with its description.
#[derive(Debug)]
pub struct Checkpoint {
    /// The description.
    pub metadata: CheckpointMetadata,
    /// The network, on the device it was loaded to.
    pub network: Network,
}

/// The current time in RFC 3339, for provenance.
pub fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl Checkpoint {
    /// The checkpoint's network as a search's evaluator.
    pub fn evaluator(&self) -> NetworkEvaluator {
        NetworkEvaluator::of(&self.network, &self.metadata.network)
    }

    /// Writes the checkpoint to the directory `path`, replacing any there.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        save(&self.network, &self.metadata.network, &self.metadata, path)
    }

    /// The checkpoint's two files, `checkpoint.json`'s text and
    /// `weights.bpk`'s bytes, as [`Checkpoint::save`] writes them (for a
    /// store other than a directory); `name` stands for it in messages.
    pub fn to_bytes(&self, name: &str) -> Result<(String, Vec<u8>), CheckpointError> {
        encode(
            &self.network,
            &self.metadata.network,
            &self.metadata,
            Path::new(name),
        )
    }

    /// Reads a checkpoint for the game `spec`, onto `device`.
    pub fn load(
        path: &Path,
        spec: &GameSpec,
        device: &Device,
    ) -> Result<Checkpoint, CheckpointError> {
        let metadata = read_metadata(path)?;
        let weights_path = path.join(WEIGHTS_FILE);
        let bytes = fs::read(&weights_path).map_err(io_error(&weights_path))?;
        Checkpoint::decode(path, metadata, bytes, spec, device)
    }

    /// A checkpoint from its two files' contents (a model compiled into
    /// the program), checked as [`Checkpoint::load`] checks a directory;
    /// `name` stands for the directory in messages.
    pub fn from_bytes(
        name: &str,
        metadata_json: &str,
        weights: &[u8],
        spec: &GameSpec,
        device: &Device,
    ) -> Result<Checkpoint, CheckpointError> {
        let path = Path::new(name);
        let metadata = serde_json::from_str(metadata_json)
            .map_err(|e| invalid(path, format!("bad {METADATA_FILE}: {e}")))?;
        Checkpoint::decode(path, metadata, weights.to_vec(), spec, device)
    }

    fn decode(
        path: &Path,
        mut metadata: CheckpointMetadata,
        bytes: Vec<u8>,
        spec: &GameSpec,
        device: &Device,
    ) -> Result<Checkpoint, CheckpointError> {
        if metadata.format != FORMAT_VERSION {
            return Err(invalid(
                path,
                format!(
                    "format {} is not the supported {FORMAT_VERSION}",
                    metadata.format
                ),
            ));
        }
        if metadata.game != spec.name {
            return Err(invalid(
                path,
                format!(
                    "it is a {} model, not a {} one",
                    OneLine(&metadata.game),
                    spec.name
                ),
            ));
        }
        // A network of an earlier encoding whose planes begin this one's
        // reads it with zero weights on the planes it lacks.
        let stored_planes = metadata.network.input_planes;
        if metadata.encoding_version != spec.encoding_version {
            let extends = spec.earlier_encodings.iter().any(|&earlier| {
                earlier == (metadata.encoding_version, stored_planes)
                    && stored_planes < spec.observation_shape[0]
            });
            if !extends {
                return Err(invalid(
                    path,
                    format!(
                        "encoding version {} does not match the game's {}",
                        metadata.encoding_version, spec.encoding_version
                    ),
                ));
            }
            metadata.encoding_version = spec.encoding_version;
            metadata.network.input_planes = spec.observation_shape[0];
        }
        // A bar for who plays fitted on features this program no longer
        // computes is set aside, said once: the network and the rest of
        // the calibration still serve, and `calibrate` fits it anew.
        let outdated = metadata
            .calibration
            .iter_mut()
            .chain(metadata.rules_calibrations.values_mut())
            .filter(|c| {
                c.players
                    .as_ref()
                    .is_some_and(|p| p.features_version != FEATURES_VERSION)
            });
        let mut set_aside = 0;
        for calibration in outdated {
            calibration.players = None;
            set_aside += 1;
        }
        if set_aside > 0 {
            eprintln!(
                "checkpoint {}: its bar for who plays was fitted on features of another version of the program; the bar reads no players until `grandmaitre calibrate` fits it again",
                path.display()
            );
        }
        metadata
            .calibrations()
            .check()
            .map_err(|why| invalid(path, why))?;
        let expected = NetworkConfig::for_game(spec);
        let stored = &metadata.network;
        let same_board = (
            stored.input_planes,
            stored.height,
            stored.width,
            stored.actions,
        ) == (
            expected.input_planes,
            expected.height,
            expected.width,
            expected.actions,
        );
        // Pooled heads play any board of their game: the network is set to
        // this one.
        let shape = match stored.for_board(spec) {
            Some(adapted) => adapted,
            None if same_board => stored.clone(),
            None => {
                return Err(invalid(
                    path,
                    format!(
                        "network shape {}×{}×{} → {} does not fit the game's {}×{}×{} → {}",
                        stored.input_planes,
                        stored.height,
                        stored.width,
                        stored.actions,
                        expected.input_planes,
                        expected.height,
                        expected.width,
                        expected.actions
                    ),
                ));
            }
        };
        if shape
            .mask_plane
            .is_some_and(|plane| plane >= shape.input_planes)
        {
            return Err(invalid(
                path,
                "the network's board plane is not an input plane",
            ));
        }
        if shape.pooled_heads && shape.actions < shape.board_actions() {
            return Err(invalid(
                path,
                "pooled heads need an action for every cell (or pair of cells)",
            ));
        }
        metadata.network = shape;
        let shape = &metadata.network;
        if bytes.len() as u64 != metadata.weights_bytes {
            return Err(invalid(
                path,
                format!(
                    "{WEIGHTS_FILE} has {} bytes, expected {} (truncated?)",
                    bytes.len(),
                    metadata.weights_bytes
                ),
            ));
        }
        if crc32fast::hash(&bytes) != metadata.weights_crc32 {
            return Err(invalid(
                path,
                format!("{WEIGHTS_FILE} is corrupt (CRC-32 mismatch)"),
            ));
        }
        // The description is checked against the weights before a network
        // of its size is built: a damaged channel count must not ask for
        // terabytes.
        let sizes = [
            ("channels", shape.channels),
            ("policy_channels", shape.policy_channels),
            ("value_channels", shape.value_channels),
            ("value_hidden", shape.value_hidden),
        ];
        if let Some((name, _)) = sizes.iter().find(|(_, size)| *size == 0) {
            return Err(invalid(path, format!("network {name} is 0")));
        }
        // The weights as stored, before their input is widened.
        let stored_shape = NetworkConfig {
            input_planes: stored_planes,
            ..shape.clone()
        };
        let fits = stored_shape
            .value_count()
            .and_then(|count| count.checked_mul(std::mem::size_of::<f32>()))
            .is_some_and(|needed| needed <= bytes.len());
        if !fits {
            return Err(invalid(
                path,
                format!(
                    "a network of {} channels and {} blocks does not fit in the {} bytes of {WEIGHTS_FILE}",
                    shape.channels,
                    shape.blocks,
                    bytes.len()
                ),
            ));
        }
        let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| invalid(path, format!("unreadable weights: {e}")))?;
        let mut network = stored_shape
            .init(device)
            .try_load_record(record)
            .map_err(|e| invalid(path, format!("weights do not fit the network: {e}")))?;
        if stored_planes < shape.input_planes {
            network = network.with_input_planes(shape.input_planes);
        }
        Ok(Checkpoint { metadata, network })
    }
}

/// Reads only `checkpoint.json`.
pub fn read_metadata(path: &Path) -> Result<CheckpointMetadata, CheckpointError> {
    let file = path.join(METADATA_FILE);
    if !path.is_dir() {
        return Err(invalid(path, "not a checkpoint directory"));
    }
    let text = fs::read_to_string(&file).map_err(io_error(&file))?;
    serde_json::from_str(&text).map_err(|e| invalid(path, format!("bad {METADATA_FILE}: {e}")))
}

/// Replaces `checkpoint.json` of the checkpoint `path` with `metadata`
/// (the weights stay as they are; their size and checksum must not change).
pub fn write_metadata(path: &Path, metadata: &CheckpointMetadata) -> Result<(), CheckpointError> {
    let current = read_metadata(path)?;
    if (current.weights_bytes, current.weights_crc32)
        != (metadata.weights_bytes, metadata.weights_crc32)
    {
        return Err(invalid(
            path,
            "the new description does not match the weights",
        ));
    }
    let json = serde_json::to_string_pretty(metadata)
        .map_err(|e| invalid(path, format!("cannot describe the checkpoint: {e}")))?;
    let file = path.join(METADATA_FILE);
    grandmaitre_engine::files::write_atomically(&file, json.as_bytes()).map_err(io_error(&file))
}

/// The two files of a checkpoint of `network`: `checkpoint.json`'s text
/// (with the weights' size and checksum) and `weights.bpk`'s bytes; `path`
/// names it in messages.
pub fn encode(
    network: &Network,
    config: &NetworkConfig,
    metadata: &CheckpointMetadata,
    path: &Path,
) -> Result<(String, Vec<u8>), CheckpointError> {
    let bytes = network
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| invalid(path, format!("cannot serialise the weights: {e}")))?;
    let bytes: Vec<u8> = bytes.to_vec();
    let metadata = CheckpointMetadata {
        format: FORMAT_VERSION,
        network: config.clone(),
        weights_bytes: bytes.len() as u64,
        weights_crc32: crc32fast::hash(&bytes),
        ..metadata.clone()
    };
    let json = serde_json::to_string_pretty(&metadata)
        .map_err(|e| invalid(path, format!("cannot describe the checkpoint: {e}")))?;
    Ok((json, bytes))
}

/// Writes `network` and its description to the directory `path`.
pub fn save(
    network: &Network,
    config: &NetworkConfig,
    metadata: &CheckpointMetadata,
    path: &Path,
) -> Result<(), CheckpointError> {
    let (json, bytes) = encode(network, config, metadata, path)?;
    let bytes: &[u8] = &bytes;
    let staging = sibling(path, "tmp");
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
    }
    fs::create_dir_all(&staging).map_err(io_error(&staging))?;
    write_synced(&staging.join(WEIGHTS_FILE), bytes)?;
    write_synced(&staging.join(METADATA_FILE), json.as_bytes())?;
    // Swap the new directory in; an old one is moved aside first, so that a
    // complete checkpoint exists under one of the two names at every moment.
    let old = sibling(path, "old");
    if path.exists() {
        if old.exists() {
            fs::remove_dir_all(&old).map_err(io_error(&old))?;
        }
        fs::rename(path, &old).map_err(io_error(path))?;
    }
    fs::rename(&staging, path).map_err(io_error(path))?;
    if old.exists() {
        fs::remove_dir_all(&old).map_err(io_error(&old))?;
    }
    Ok(())
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}"));
    path.with_file_name(name)
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    use std::io::Write;
    let mut file = fs::File::create(path).map_err(io_error(path))?;
    file.write_all(bytes).map_err(io_error(path))?;
    file.sync_all().map_err(io_error(path))
}
