//! Reading shards under random and damaged bytes: arbitrary files, valid
//! shards with bytes flipped, cut, inserted or repeated, and damaged
//! payloads sealed again (length and CRC-32 fixed up) so that the games
//! decoder itself sees the damage. Never a panic; a bad file gets a
//! one-line error; games that read write back to the same bytes.

use std::path::Path;
use std::sync::LazyLock;

use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::search::UniformEvaluator;
use grandmaitre_selfplay::{GameRecord, SelfPlayConfig, play_games, shard};
use proptest::prelude::*;
use proptest::sample::select;
use rand::SeedableRng;
use rand::rngs::StdRng;

const CASES: u32 = 3000;
const HEADER: usize = 8 + 4 + 4 + 8 + 4;

/// Characters that start a new line on a terminal or in a log.
const LINE_BREAKS: [char; 7] = [
    '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
];

/// Three short self-play games on random layouts, as records and as the
/// bytes of their shard.
static VALID: LazyLock<(Vec<GameRecord>, Vec<u8>)> = LazyLock::new(|| {
    let config = SelfPlayConfig {
        games_in_flight: 3,
        full_simulations: 8,
        cheap_simulations: 2,
        ..SelfPlayConfig::default()
    };
    let mut records = Vec::new();
    play_games(
        &config,
        3,
        |seed| Heraldis::new(Layout::random(&mut StdRng::seed_from_u64(seed))),
        &UniformEvaluator,
        5,
        |game| records.push(game),
    );
    let bytes = shard::encode(&records);
    (records, bytes)
});

/// Fails unless `message` is one line that says more than the path.
fn one_line(message: &str) -> Result<(), TestCaseError> {
    prop_assert!(message.len() > "shard games.shard: ".len(), "{message:?}");
    prop_assert!(!message.contains(LINE_BREAKS), "not one line: {message:?}");
    Ok(())
}

/// Fails unless `bytes`, as the bytes of a shard, decode as games that
/// write back to the same bytes or get a one-line error.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    match shard::decode(Path::new("games.shard"), bytes) {
        Ok(records) => {
            // Compared as bytes: a damaged float may read as NaN.
            let written = shard::encode(&records);
            let again = shard::decode(Path::new("again"), &written).map(|r| shard::encode(&r));
            prop_assert_eq!(again.ok(), Some(written));
        }
        Err(error) => one_line(&error.to_string())?,
    }
    Ok(())
}

/// Fails unless the bytes of a damaged shard are refused with a one-line
/// error: without its header sealed again (length and CRC-32 fixed up),
/// no damage may decode, whatever the games decoder would make of it. Only
/// edits that leave the bytes as they were (a bit flipped twice, a byte set
/// to itself) read.
fn refused_unless_intact(bytes: &[u8]) -> Result<(), TestCaseError> {
    match shard::decode(Path::new("games.shard"), bytes) {
        Ok(_) => prop_assert!(bytes == VALID.1.as_slice(), "damage read as a shard"),
        Err(error) => one_line(&error.to_string())?,
    }
    Ok(())
}

/// `check` through a file, with the header-only count too.
fn check_file(bytes: &[u8]) -> Result<(), TestCaseError> {
    let directory = tempfile::tempdir().expect("temp dir");
    let path = directory.path().join("games.shard");
    std::fs::write(&path, bytes).expect("written");
    // Compared as bytes written again: a damaged float may read as NaN.
    let read = shard::read(&path).map_err(|e| e.to_string());
    let decoded = shard::decode(&path, bytes).map_err(|e| e.to_string());
    prop_assert_eq!(
        read.as_ref().map(|r| shard::encode(r)),
        decoded.as_ref().map(|r| shard::encode(r))
    );
    if let Err(message) = read {
        one_line(&message)?;
    }
    if let Err(error) = shard::game_count(&path) {
        one_line(&error.to_string())?;
    }
    Ok(())
}

/// Bytes that mean something to bincode's variable-length integers (251:
/// a u16 follows, 252: a u32, 253: a u64, 254: a u128) or are extremes.
const SPECIAL_BYTES: &[u8] = &[0, 1, 2, 0x7f, 0x80, 250, 251, 252, 253, 254, 255];

/// One edit of some bytes; positions are taken modulo the length.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Set(usize, u8),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Repeat(usize, usize),
    Truncate(usize),
}

fn a_byte() -> impl Strategy<Value = u8> {
    prop_oneof![select(SPECIAL_BYTES), any::<u8>()]
}

fn an_edit() -> impl Strategy<Value = Edit> {
    let index = any::<usize>();
    prop_oneof![
        (index, 0..8u8).prop_map(|(i, b)| Edit::Flip(i, 1 << b)),
        (index, a_byte()).prop_map(|(i, b)| Edit::Set(i, b)),
        (index, 1..16usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        (index, prop::collection::vec(a_byte(), 1..12)).prop_map(|(i, b)| Edit::Insert(i, b)),
        (index, 1..64usize).prop_map(|(i, n)| Edit::Repeat(i, n)),
        index.prop_map(Edit::Truncate),
    ]
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(an_edit(), 1..5)
}

/// `bytes` after `edits`.
fn damaged(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for edit in edits {
        let n = bytes.len();
        match edit {
            Edit::Insert(i, new) => {
                let at = i % (n + 1);
                bytes.splice(at..at, new.iter().copied());
            }
            _ if n == 0 => {}
            Edit::Flip(i, mask) => bytes[i % n] ^= mask,
            Edit::Set(i, value) => bytes[i % n] = *value,
            Edit::Delete(i, count) => {
                let at = i % n;
                bytes.drain(at..(at + count).min(n));
            }
            Edit::Repeat(i, count) => {
                let at = i % n;
                let copy = bytes[at..(at + count).min(n)].to_vec();
                bytes.splice(at..at, copy);
            }
            Edit::Truncate(i) => bytes.truncate(i % n),
        }
    }
    bytes
}

/// A shard of `payload` with a header that fits it: `games` games, the
/// payload's length and CRC-32.
fn sealed(games: u32, payload: &[u8]) -> Vec<u8> {
    // The magic and the format of a shard written now.
    let mut bytes = VALID.1[..12].to_vec();
    bytes.extend_from_slice(&games.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn arbitrary_files(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check(&bytes)?;
    }

    #[test]
    fn arbitrary_files_behind_the_magic(bytes in prop::collection::vec(a_byte(), 0..200)) {
        let mut file = b"GMSHARD\0\x01\0\0\0".to_vec();
        file.extend_from_slice(&bytes);
        check(&file)?;
    }

    #[test]
    fn damaged_shards(edits in edits()) {
        refused_unless_intact(&damaged(&VALID.1, &edits))?;
    }

    #[test]
    fn damaged_games_sealed_again(edits in edits(), games in prop_oneof![Just(3u32), any::<u32>()]) {
        let payload = damaged(&VALID.1[HEADER..], &edits);
        check(&sealed(games, &payload))?;
    }

    #[test]
    fn arbitrary_games_sealed(payload in prop::collection::vec(a_byte(), 0..300), games in 0..4u32) {
        check(&sealed(games, &payload))?;
    }
}

proptest! {
    // Files are slow to write: fewer cases, the same damage.
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn damaged_shard_files(edits in edits(), sealed_again in any::<bool>()) {
        let bytes = if sealed_again {
            sealed(3, &damaged(&VALID.1[HEADER..], &edits))
        } else {
            damaged(&VALID.1, &edits)
        };
        check_file(&bytes)?;
        if !sealed_again {
            refused_unless_intact(&bytes)?;
            let directory = tempfile::tempdir().expect("temp dir");
            let path = directory.path().join("games.shard");
            std::fs::write(&path, &bytes).expect("written");
            prop_assert_eq!(shard::read(&path).is_ok(), bytes == VALID.1);
        }
    }
}

#[test]
fn the_valid_shard_reads() {
    let (records, bytes) = &*VALID;
    assert_eq!(records.len(), 3);
    let read = shard::decode(Path::new("valid"), bytes).expect("valid");
    assert_eq!(&read, records);
}

#[test]
fn a_sealed_shard_claiming_a_huge_string_is_refused() {
    // One game whose parameters claim 2⁶² bytes (bincode: 253, then a u64):
    // the decoder once tried to allocate them and aborted the process.
    let payload = [1, 253, 0, 0, 0, 0, 0, 0, 0, 0x40];
    let error = shard::decode(Path::new("huge"), &sealed(1, &payload))
        .expect_err("huge string")
        .to_string();
    assert!(error.contains("undecodable games"), "{error}");
}

#[test]
fn bytes_after_the_games_are_refused() {
    let mut payload = VALID.1[HEADER..].to_vec();
    payload.push(0);
    let error = shard::decode(Path::new("longer"), &sealed(3, &payload))
        .expect_err("a byte too many")
        .to_string();
    assert_eq!(error, "shard longer: 1 bytes after the games");
}
