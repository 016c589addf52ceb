//! Loading checkpoints under random and damaged files: `checkpoint.json`
//! as arbitrary bytes, with characters edited, and with values swapped for
//! odd ones (huge sizes, negative numbers, strings with line breaks, wrong
//! types); and `weights.bpk` damaged then sealed again (size and CRC-32
//! fixed up in the description) so that burn's reader sees the damage.
//! Never a panic; a bad checkpoint gets a one-line error.

use std::cell::RefCell;
use std::path::Path;
use std::sync::LazyLock;

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_model::calibration::Curve;
use grandmaitre_model::{
    Calibration, Checkpoint, CheckpointMetadata, InferenceNetwork, NetworkConfig, Provenance,
    burn_forward,
};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;
use tempfile::TempDir;

/// Characters that start a new line on a terminal or in a log.
const LINE_BREAKS: [char; 7] = [
    '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
];

/// A small calibrated checkpoint (a general calibration and one of
/// another rules setting): the text of its `checkpoint.json` and
/// the bytes of its `weights.bpk`.
static VALID: LazyLock<(String, Vec<u8>)> = LazyLock::new(|| {
    let game = Heraldis::default();
    let config = NetworkConfig::for_game(game.spec())
        .with_channels(4)
        .with_blocks(1);
    let curve = Curve {
        knots: vec![[0.1, 0.05], [0.5, 0.5], [0.9, 0.95]],
    };
    let curves = std::array::from_fn(|_| std::array::from_fn(|_| curve.clone()));
    let calibration = Calibration {
        temperature: 0.6,
        network_temperature: 0.9,
        simulations: 64,
        fit_games: 10,
        test_games: 10,
        ece_before: 0.1,
        ece_after: 0.02,
        curves: Some(curves),
        network_curves: None,
        players: None,
    };
    let metadata = CheckpointMetadata {
        format: 1,
        game: "heraldis".to_string(),
        encoding_version: game.spec().encoding_version,
        network: config.clone(),
        provenance: Provenance {
            parent: Some("gen-1".to_string()),
            training_steps: 10,
            games: 4,
            created: "2026-01-01T00:00:00Z".to_string(),
            notes: "fuzz".to_string(),
        },
        weights_bytes: 0,
        weights_crc32: 0,
        calibration: Some(calibration.clone()),
        rules_calibrations: [("layout=other".to_string(), calibration)].into(),
    };
    let checkpoint = Checkpoint {
        metadata,
        network: config.init(&Device::flex()),
    };
    let directory = tempfile::tempdir().expect("temp dir");
    let path = directory.path().join("model");
    checkpoint.save(&path).expect("saved");
    let json = std::fs::read_to_string(path.join("checkpoint.json")).expect("metadata");
    let weights = std::fs::read(path.join("weights.bpk")).expect("weights");
    (json, weights)
});

thread_local! {
    /// Each test thread writes its checkpoints into its own directory.
    static DIRECTORY: RefCell<TempDir> = RefCell::new(tempfile::tempdir().expect("temp dir"));
}

/// Fails unless the checkpoint of `json` and `weights` loads or gets a
/// one-line error.
fn check(json: &[u8], weights: &[u8]) -> Result<(), TestCaseError> {
    DIRECTORY.with(|directory| {
        let directory = directory.borrow();
        let path = directory.path().join("model");
        std::fs::create_dir_all(&path).expect("directory");
        std::fs::write(path.join("checkpoint.json"), json).expect("metadata");
        std::fs::write(path.join("weights.bpk"), weights).expect("weights");
        load(&path, weights)
    })
}

fn load(path: &Path, weights: &[u8]) -> Result<(), TestCaseError> {
    let spec = Heraldis::default().spec().clone();
    match Checkpoint::load(path, &spec, &Device::flex()) {
        Ok(checkpoint) => {
            prop_assert_eq!(checkpoint.metadata.calibrations().check(), Ok(()));
            // What loads runs: the description fits the weights.
            let config = &checkpoint.metadata.network;
            let planes = vec![0.5; spec.observation_len()];
            let (policy, wdl) = burn_forward(&checkpoint.network, config, &planes, &Device::flex());
            prop_assert_eq!((policy.len(), wdl.len()), (spec.action_count, 3));
            let fast = InferenceNetwork::new(&checkpoint.network, config);
            let (mut policy, mut wdl) = (vec![0.0; spec.action_count], [0.0; 3]);
            fast.forward(&planes, &mut policy, &mut wdl, &mut []);
            // Damaged weights may be any floats; the shipped ones are finite.
            if weights == VALID.1 {
                prop_assert!(policy.iter().chain(&wdl).all(|x| x.is_finite()));
            }
        }
        Err(error) => {
            let message = error.to_string();
            let reason = message.rsplit_once(": ").map_or("", |(_, reason)| reason);
            prop_assert!(!reason.trim().is_empty(), "no reason: {message:?}");
            prop_assert!(!message.contains(LINE_BREAKS), "not one line: {message:?}");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Damage

/// Numbers (and a few near misses) to put where another value was.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "25",
    "26",
    "31",
    "64",
    "1000",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "1e300",
    "-1e300",
    "0.5",
    "-0.0",
    "1.5",
];

/// Values to put where another value was.
fn an_odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        select(NUMBERS).prop_map(|n| serde_json::from_str::<Value>(n).expect("a number")),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        select(&["", "heraldis", "havannah", "a\nb", "\r", "x\u{2028}y", "é"][..])
            .prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        Just(Value::Array(Vec::new())),
        Just(serde_json::json!([[0.5, 0.5]])),
        Just(serde_json::json!({ "knots": [[0.9, 0.1], [0.1, 0.9]] })),
        Just(serde_json::json!({})),
    ]
}

/// An edit of a JSON document: at the `index`-th value (counting every
/// value, depth first), replace it, remove it, or add an unknown member.
#[derive(Clone, Debug)]
enum JsonEdit {
    Replace(usize, Value),
    Remove(usize),
    AddMember(usize, String, Value),
}

fn a_json_edit() -> impl Strategy<Value = JsonEdit> {
    let index = any::<usize>();
    prop_oneof![
        6 => (index, an_odd_value()).prop_map(|(i, v)| JsonEdit::Replace(i, v)),
        2 => index.prop_map(JsonEdit::Remove),
        1 => (index, "[a-z_]{1,8}", an_odd_value()).prop_map(|(i, k, v)| JsonEdit::AddMember(i, k, v)),
    ]
}

fn value_count(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(value_count).sum(),
        Value::Object(members) => members.values().map(value_count).sum(),
        _ => 0,
    }
}

/// Applies `edit` to the value numbered `*at` below `value` (counting
/// down); returns whether it was applied.
fn edit_at(value: &mut Value, at: &mut usize, edit: &JsonEdit) -> bool {
    if *at == 0 {
        match edit {
            JsonEdit::Replace(_, new) => *value = new.clone(),
            JsonEdit::AddMember(_, key, new) => match value {
                Value::Object(members) => {
                    members.insert(key.clone(), new.clone());
                }
                Value::Array(items) => items.push(new.clone()),
                _ => *value = new.clone(),
            },
            JsonEdit::Remove(_) => return false,
        }
        return true;
    }
    *at -= 1;
    match value {
        Value::Array(items) => {
            for index in 0..items.len() {
                if *at == 0 && matches!(edit, JsonEdit::Remove(_)) {
                    items.remove(index);
                    return true;
                }
                if edit_at(&mut items[index], at, edit) {
                    return true;
                }
            }
        }
        Value::Object(members) => {
            let keys: Vec<String> = members.keys().cloned().collect();
            for key in keys {
                if *at == 0 && matches!(edit, JsonEdit::Remove(_)) {
                    members.remove(&key);
                    return true;
                }
                if edit_at(members.get_mut(&key).expect("a member"), at, edit) {
                    return true;
                }
            }
        }
        _ => {}
    }
    false
}

/// The valid description after `edits`.
fn edited_json(edits: &[JsonEdit]) -> String {
    let mut document: Value = serde_json::from_str(&VALID.0).expect("valid JSON");
    for edit in edits {
        let (JsonEdit::Replace(index, _)
        | JsonEdit::Remove(index)
        | JsonEdit::AddMember(index, ..)) = edit;
        let mut at = index % value_count(&document);
        edit_at(&mut document, &mut at, edit);
    }
    serde_json::to_string_pretty(&document).expect("JSON")
}

/// One edit of some bytes; positions are taken modulo the length.
#[derive(Clone, Debug)]
enum ByteEdit {
    Set(usize, u8),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Truncate(usize),
}

fn byte_edits() -> impl Strategy<Value = Vec<ByteEdit>> {
    let index = any::<usize>();
    let edit = prop_oneof![
        (index, any::<u8>()).prop_map(|(i, b)| ByteEdit::Set(i, b)),
        (index, 1..16usize).prop_map(|(i, n)| ByteEdit::Delete(i, n)),
        (index, prop::collection::vec(any::<u8>(), 1..12))
            .prop_map(|(i, b)| ByteEdit::Insert(i, b)),
        index.prop_map(ByteEdit::Truncate),
    ];
    prop::collection::vec(edit, 1..5)
}

fn damaged(bytes: &[u8], edits: &[ByteEdit]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for edit in edits {
        let n = bytes.len();
        match edit {
            ByteEdit::Insert(i, new) => {
                let at = i % (n + 1);
                bytes.splice(at..at, new.iter().copied());
            }
            _ if n == 0 => {}
            ByteEdit::Set(i, value) => bytes[i % n] = *value,
            ByteEdit::Delete(i, count) => {
                let at = i % n;
                bytes.drain(at..(at + count).min(n));
            }
            ByteEdit::Truncate(i) => bytes.truncate(i % n),
        }
    }
    bytes
}

/// The valid description with `weights`' size and CRC-32.
fn sealed_json(weights: &[u8]) -> String {
    let mut document: Value = serde_json::from_str(&VALID.0).expect("valid JSON");
    document["weights_bytes"] = Value::from(weights.len());
    document["weights_crc32"] = Value::from(crc32fast::hash(weights));
    serde_json::to_string_pretty(&document).expect("JSON")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn descriptions_with_odd_values(edits in prop::collection::vec(a_json_edit(), 1..4)) {
        check(edited_json(&edits).as_bytes(), &VALID.1)?;
    }

    #[test]
    fn descriptions_with_damaged_bytes(edits in byte_edits()) {
        check(&damaged(VALID.0.as_bytes(), &edits), &VALID.1)?;
    }

    #[test]
    fn arbitrary_descriptions(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&bytes, &VALID.1)?;
    }

    #[test]
    fn damaged_weights_sealed_again(edits in byte_edits()) {
        let weights = damaged(&VALID.1, &edits);
        check(sealed_json(&weights).as_bytes(), &weights)?;
    }
}

#[test]
fn the_valid_checkpoint_loads() {
    let directory = tempfile::tempdir().expect("temp dir");
    let path = directory.path().join("model");
    std::fs::create_dir_all(&path).expect("directory");
    std::fs::write(path.join("checkpoint.json"), &VALID.0).expect("metadata");
    std::fs::write(path.join("weights.bpk"), &VALID.1).expect("weights");
    Checkpoint::load(&path, Heraldis::default().spec(), &Device::flex()).expect("loads");
    load(&path, &VALID.1).expect("runs");
}

#[test]
fn a_description_of_another_size_is_refused_before_a_network_is_built() {
    // A huge block count once made burn allocate the tower and abort the
    // process; zero channels made it panic.
    let valid: Value = serde_json::from_str(&VALID.0).expect("valid JSON");
    for (field, value, message) in [
        ("blocks", Value::from(1u64 << 62), "does not fit in the"),
        ("channels", Value::from(1u64 << 40), "does not fit in the"),
        ("channels", Value::from(0), "network channels is 0"),
        ("value_hidden", Value::from(0), "network value_hidden is 0"),
    ] {
        let mut document = valid.clone();
        document["network"][field] = value;
        let directory = tempfile::tempdir().expect("temp dir");
        let path = directory.path().join("model");
        std::fs::create_dir_all(&path).expect("directory");
        std::fs::write(path.join("checkpoint.json"), document.to_string()).expect("metadata");
        std::fs::write(path.join("weights.bpk"), &VALID.1).expect("weights");
        let error = Checkpoint::load(&path, Heraldis::default().spec(), &Device::flex())
            .expect_err(field)
            .to_string();
        assert!(error.contains(message), "{field}: {error}");
    }
}
