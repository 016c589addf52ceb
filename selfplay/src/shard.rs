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
/// The format written: 2 adds each game's final position to format 1,
/// which is still read.
const FORMAT: u32 = 2;
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
    #[error("shard {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
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

/// A game as format 1 stored it (no final position).
#[derive(serde::Deserialize)]
struct GameRecordV1 {
    parameters: String,
    positions: Vec<PositionRecord>,
    plies: u32,
}

impl From<GameRecordV1> for GameRecord {
    fn from(old: GameRecordV1) -> GameRecord {
        GameRecord {
            parameters: old.parameters,
            positions: old.positions,
            plies: old.plies,
            final_state: None,
        }
    }
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
    if format != FORMAT && format != 1 {
        return Err(invalid(
            path,
            format!("format {format} is not a supported one (1 or {FORMAT})"),
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
    let config = bincode::config::standard().with_limit::<LIMIT>();
    let (records, used): (Vec<GameRecord>, usize) = if format == 1 {
        let (records, used): (Vec<GameRecordV1>, usize) =
            bincode::serde::decode_from_slice(payload, config)
                .map_err(|e| invalid(path, format!("undecodable games: {e}")))?;
        (records.into_iter().map(GameRecord::from).collect(), used)
    } else {
        bincode::serde::decode_from_slice(payload, config)
            .map_err(|e| invalid(path, format!("undecodable games: {e}")))?
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

/// Writes `games` as a new shard in `directory` whose name ends with
/// `-{tag}`, so that its writer can tell after a restart that it was
/// written ([`tagged`]). A tag holds letters, digits and dashes and starts
/// with a letter (other writers' names end with numbers).
pub fn write_tagged(
    directory: &Path,
    tag: &str,
    games: &[GameRecord],
) -> Result<PathBuf, ShardError> {
    debug_assert!(
        tag.starts_with(|c: char| c.is_ascii_alphabetic())
            && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    );
    write_with_suffix(directory, tag, games)
}

/// The shard among `shards` written with `tag` by [`write_tagged`].
pub fn tagged<'a>(shards: &'a [PathBuf], tag: &str) -> Option<&'a PathBuf> {
    let ending = format!("-{tag}");
    shards.iter().find(|path| {
        path.file_stem()
            .and_then(|stem| stem.to_str())
            .is_some_and(|stem| stem.ends_with(&ending))
    })
}

/// Writes a shard named by the time of writing and `suffix`, through a
/// temporary file renamed once complete.
fn write_with_suffix(
    directory: &Path,
    suffix: &str,
    games: &[GameRecord],
) -> Result<PathBuf, ShardError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ShardError::Io { path, source }
    };
    fs::create_dir_all(directory).map_err(io_error(directory))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("{nanos:024}-{suffix}");
    let path = directory.join(format!("{name}.{EXTENSION}"));
    grandmaitre_engine::files::write_atomically(&path, &encode(games)).map_err(io_error(&path))?;
    Ok(path)
}

/// Reads the shard at `path`.
pub fn read(path: &Path) -> Result<Vec<GameRecord>, ShardError> {
    let bytes = fs::read(path).map_err(|source| ShardError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode(path, &bytes)
}

/// The number of games in the shard at `path`, from its header alone.
pub fn game_count(path: &Path) -> Result<usize, ShardError> {
    use std::io::Read;
    let mut header = [0u8; 16];
    fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut header))
        .map_err(|source| ShardError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if &header[..8] != MAGIC {
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
        Err(source) => {
            return Err(ShardError::Io {
                path: directory.to_path_buf(),
                source,
            });
        }
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

    /// A game as format 1 wrote it.
    #[derive(serde::Serialize)]
    struct WrittenV1 {
        parameters: String,
        positions: Vec<PositionRecord>,
        plies: u32,
    }

    #[test]
    fn format_1_shards_still_read_without_a_final_position() {
        let position = PositionRecord {
            state: "5/5/5/5/5 l - 0".to_string(),
            policy: vec![(3, 1.0)],
            outcome: 1,
            search_wdl: [0.5, 0.25, 0.25],
        };
        let old = vec![WrittenV1 {
            parameters: "layout=x".to_string(),
            positions: vec![position.clone()],
            plies: 7,
        }];
        let payload =
            bincode::serde::encode_to_vec(&old, bincode::config::standard()).expect("encodes");
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let games = decode(Path::new("old.shard"), &bytes).expect("format 1 reads");
        assert_eq!(
            games,
            [GameRecord {
                parameters: "layout=x".to_string(),
                positions: vec![position],
                plies: 7,
                final_state: None,
            }]
        );
        // And the current format keeps the final position.
        let mut game = games[0].clone();
        game.final_state = Some("5/5/5/5/5 d - 1".to_string());
        let written = encode(std::slice::from_ref(&game));
        assert_eq!(
            decode(Path::new("new.shard"), &written).expect("reads"),
            [game]
        );
    }
}
