//! Shards: files of self-play games, checksummed and written atomically.
//!
//! ```text
//! magic "GMSHARD\0" | format u32 | games u32 | payload bytes u64 | CRC-32 u32 | payload
//! ```
//! (little-endian); the payload is the games encoded with bincode 2 (serde,
//! standard configuration). This module is the only user of bincode, so that
//! another format can replace it here alone.
//!
//! A shard is written to a temporary name in the same directory and renamed
//! into place, so readers (other processes included) never see half of one;
//! names carry the writer's process id and a counter, so several writers on
//! one directory never collide.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::record::{GameRecord, PositionRecord};

const MAGIC: &[u8; 8] = b"GMSHARD\0";
/// The format written: 2 adds each game's final position to format 1, 3
/// each position's surprise; 1 and 2 are still read.
const FORMAT: u32 = 3;
const HEADER: usize = 8 + 4 + 4 + 8 + 4;
/// Bytes that the lengths in a payload may claim in all: far above any real
/// shard, low enough that a damaged length (a string of 2⁶² bytes) is an
/// error rather than an allocation that aborts the process.
const LIMIT: usize = 1 << 30;
/// Extension of finished shards.
pub const EXTENSION: &str = "shard";

/// Why a shard could not be written or read.
#[derive(Debug, Error)]
pub enum ShardError {
    /// An I/O failure.
    #[error("shard {path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure (part of the message, not a separate cause, so that
        /// a printed chain names it once).
        error: io::Error,
    },
    /// The file is not a whole, valid shard.
    #[error("shard {path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

fn invalid(path: &Path, reason: impl Into<String>) -> ShardError {
    ShardError::Invalid {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// A position as formats 1 and 2 stored it (no surprise).
#[derive(serde::Deserialize)]
struct PositionRecordV2 {
    state: String,
    policy: Vec<(u16, f32)>,
    outcome: i8,
    search_wdl: [f32; 3],
}

impl From<PositionRecordV2> for PositionRecord {
    fn from(old: PositionRecordV2) -> PositionRecord {
        PositionRecord {
            state: old.state,
            policy: old.policy,
            outcome: old.outcome,
            search_wdl: old.search_wdl,
            surprise: 0.0,
        }
    }
}

/// A game as format 1 stored it (no final position).
#[derive(serde::Deserialize)]
struct GameRecordV1 {
    parameters: String,
    positions: Vec<PositionRecordV2>,
    plies: u32,
}

impl From<GameRecordV1> for GameRecord {
    fn from(old: GameRecordV1) -> GameRecord {
        GameRecord::from(GameRecordV2 {
            parameters: old.parameters,
            positions: old.positions,
            plies: old.plies,
            final_state: None,
        })
    }
}

/// A game as format 2 stored it.
#[derive(serde::Deserialize)]
struct GameRecordV2 {
    parameters: String,
    positions: Vec<PositionRecordV2>,
    plies: u32,
    final_state: Option<String>,
}

impl From<GameRecordV2> for GameRecord {
    fn from(old: GameRecordV2) -> GameRecord {
        GameRecord {
            parameters: old.parameters,
            positions: old
                .positions
                .into_iter()
                .map(PositionRecord::from)
                .collect(),
            plies: old.plies,
            final_state: old.final_state,
        }
    }
}

/// Decodes a payload of games stored as `Stored`.
fn decode_games<Stored>(path: &Path, payload: &[u8]) -> Result<(Vec<GameRecord>, usize), ShardError>
where
    Stored: serde::de::DeserializeOwned,
    GameRecord: From<Stored>,
{
    let config = bincode::config::standard().with_limit::<LIMIT>();
    let (records, used): (Vec<Stored>, usize) = bincode::serde::decode_from_slice(payload, config)
        .map_err(|e| invalid(path, format!("undecodable games: {e}")))?;
    Ok((records.into_iter().map(GameRecord::from).collect(), used))
}

/// Encodes games as shard bytes.
pub fn encode(games: &[GameRecord]) -> Vec<u8> {
    let payload = bincode::serde::encode_to_vec(games, bincode::config::standard())
        .expect("records always encode");
    let mut bytes = Vec::with_capacity(HEADER + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&(games.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes
}

/// Decodes shard bytes read from `path`.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<Vec<GameRecord>, ShardError> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(invalid(path, "not a shard (bad header)"));
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let format = word(8);
    if !(1..=FORMAT).contains(&format) {
        return Err(invalid(
            path,
            format!("format {format} is not a supported one (1 to {FORMAT})"),
        ));
    }
    let games = word(12) as usize;
    let length = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")) as usize;
    let crc = word(24);
    let payload = &bytes[HEADER..];
    if payload.len() != length {
        return Err(invalid(
            path,
            format!(
                "payload of {} bytes, expected {length} (truncated?)",
                payload.len()
            ),
        ));
    }
    if crc32fast::hash(payload) != crc {
        return Err(invalid(path, "corrupt (CRC-32 mismatch)"));
    }
    let (records, used) = match format {
        1 => decode_games::<GameRecordV1>(path, payload)?,
        2 => decode_games::<GameRecordV2>(path, payload)?,
        _ => decode_games::<GameRecord>(path, payload)?,
    };
    if used != payload.len() {
        return Err(invalid(
            path,
            format!("{} bytes after the games", payload.len() - used),
        ));
    }
    if records.len() != games {
        return Err(invalid(
            path,
            format!("{} games, header says {games}", records.len()),
        ));
    }
    Ok(records)
}

/// Writes `games` as a new shard in `directory`; returns its path.
pub fn write(directory: &Path, games: &[GameRecord]) -> Result<PathBuf, ShardError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let suffix = format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    write_with_suffix(directory, &suffix, games)
}

/// Writes a shard named by the time of writing and `suffix`, through a
/// temporary file renamed once complete.
fn write_with_suffix(
    directory: &Path,
    suffix: &str,
    games: &[GameRecord],
) -> Result<PathBuf, ShardError> {
    fs::create_dir_all(directory).map_err(io_error(directory))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("{nanos:024}-{suffix}");
    let path = directory.join(format!("{name}.{EXTENSION}"));
    grandmaitre_engine::files::write_atomically(&path, &encode(games)).map_err(io_error(&path))?;
    Ok(path)
}

/// The I/O failure of an operation on `path`.
fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ShardError + '_ {
    move |error| ShardError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Reads the shard at `path`.
pub fn read(path: &Path) -> Result<Vec<GameRecord>, ShardError> {
    let bytes = fs::read(path).map_err(io_error(path))?;
    decode(path, &bytes)
}

/// The bytes at the start of a shard that say how many games it holds.
pub const COUNT_BYTES: usize = 16;

/// The number of games in the shard at `path`, from its header alone.
pub fn game_count(path: &Path) -> Result<usize, ShardError> {
    use std::io::Read;
    let mut header = [0u8; COUNT_BYTES];
    fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut header))
        .map_err(io_error(path))?;
    games_in_header(path, &header)
}

/// The number of games a shard holds, from its first [`COUNT_BYTES`]
/// bytes; `path` names it in messages.
pub fn games_in_header(path: &Path, header: &[u8]) -> Result<usize, ShardError> {
    if header.len() < COUNT_BYTES || &header[..8] != MAGIC {
        return Err(invalid(path, "not a shard (bad header)"));
    }
    Ok(u32::from_le_bytes(header[12..16].try_into().expect("4 bytes")) as usize)
}

/// The finished shards in `directory`, oldest first (names start with the
/// time of writing).
pub fn list(directory: &Path) -> Result<Vec<PathBuf>, ShardError> {
    let entries = match fs::read_dir(directory) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(io_error(directory)(error)),
    };
    let mut shards: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
        .collect();
    shards.sort();
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position as formats 1 and 2 wrote it.
    #[derive(serde::Serialize)]
    struct WrittenPositionV2 {
        state: String,
        policy: Vec<(u16, f32)>,
        outcome: i8,
        search_wdl: [f32; 3],
    }

    /// A game as format 1 wrote it.
    #[derive(serde::Serialize)]
    struct WrittenV1 {
        parameters: String,
        positions: Vec<WrittenPositionV2>,
        plies: u32,
    }

    /// A game as format 2 wrote it.
    #[derive(serde::Serialize)]
    struct WrittenV2 {
        parameters: String,
        positions: Vec<WrittenPositionV2>,
        plies: u32,
        final_state: Option<String>,
    }

    fn old_position() -> WrittenPositionV2 {
        WrittenPositionV2 {
            state: "5/5/5/5/5 l - 0".to_string(),
            policy: vec![(3, 1.0)],
            outcome: 1,
            search_wdl: [0.5, 0.25, 0.25],
        }
    }

    fn shard_bytes(format: u32, payload: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&format.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        bytes.extend_from_slice(payload);
        bytes
    }

    #[test]
    fn formats_1_and_2_still_read_without_what_they_lacked() {
        let position = PositionRecord {
            state: "5/5/5/5/5 l - 0".to_string(),
            policy: vec![(3, 1.0)],
            outcome: 1,
            search_wdl: [0.5, 0.25, 0.25],
            surprise: 0.0,
        };
        let v1 = vec![WrittenV1 {
            parameters: "layout=x".to_string(),
            positions: vec![old_position()],
            plies: 7,
        }];
        let payload =
            bincode::serde::encode_to_vec(&v1, bincode::config::standard()).expect("encodes");
        let games = decode(Path::new("v1.shard"), &shard_bytes(1, &payload)).expect("format 1");
        assert_eq!(
            games,
            [GameRecord {
                parameters: "layout=x".to_string(),
                positions: vec![position.clone()],
                plies: 7,
                final_state: None,
            }]
        );
        let v2 = vec![WrittenV2 {
            parameters: "layout=x".to_string(),
            positions: vec![old_position()],
            plies: 7,
            final_state: Some("5/5/5/5/5 d - 1".to_string()),
        }];
        let payload =
            bincode::serde::encode_to_vec(&v2, bincode::config::standard()).expect("encodes");
        let games = decode(Path::new("v2.shard"), &shard_bytes(2, &payload)).expect("format 2");
        assert_eq!(games[0].final_state.as_deref(), Some("5/5/5/5/5 d - 1"));
        assert_eq!(games[0].positions, [position]);
        // And the current format keeps the final position and the surprise.
        let mut game = games[0].clone();
        game.positions[0].surprise = 0.75;
        let written = encode(std::slice::from_ref(&game));
        assert_eq!(
            decode(Path::new("new.shard"), &written).expect("reads"),
            [game]
        );
    }
}
