//! What the training tests share: self-play games, a batch of them, and a
//! comparison of two backends' training.
#![allow(dead_code)] // each test file uses a part

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::search::UniformEvaluator;
use grandmaitre_model::checkpoint::{self, CheckpointMetadata, Provenance};
use grandmaitre_model::{Checkpoint, NetworkConfig};
use grandmaitre_selfplay::{GameRecord, SelfPlayConfig, play_games};
use grandmaitre_train::samples::{Batch, ReplayWindow, Targets, make_batch};
use grandmaitre_train::trainer::{Losses, Trainer};
use rand::SeedableRng;
use rand::rngs::{SmallRng, StdRng};

/// `count` self-play games with the uniform evaluator on random layouts.
pub fn records(count: usize, seed: u64) -> Vec<GameRecord> {
    let config = SelfPlayConfig {
        games_in_flight: 4,
        full_simulations: 16,
        cheap_simulations: 4,
        full_search_fraction: 0.5,
        ..SelfPlayConfig::default()
    };
    let mut games = Vec::new();
    play_games(
        &config,
        count,
        |seed| Heraldis::new(Layout::random(&mut StdRng::seed_from_u64(seed))),
        &UniformEvaluator,
        seed,
        |g| games.push(g),
    );
    games
}

/// A batch of up to `size` positions from four self-play games.
fn selfplay_batch(size: usize) -> Batch {
    let window: ReplayWindow<Heraldis> =
        ReplayWindow::from_records(&records(4, 7), false, &Targets::default()).expect("window");
    let indices: Vec<usize> = (0..window.samples.len().min(size)).collect();
    make_batch(&window, &indices, false, &mut SmallRng::seed_from_u64(3)).expect("batch")
}

/// Writes `network` as a Heraldis checkpoint to `path`.
fn save(network: &grandmaitre_model::Network, config: &NetworkConfig, path: &std::path::Path) {
    let spec = Heraldis::default().spec().clone();
    let metadata = CheckpointMetadata {
        calibration: None,
        rules_calibrations: Default::default(),
        format: checkpoint::FORMAT_VERSION,
        game: spec.name.to_string(),
        encoding_version: spec.encoding_version,
        network: config.clone(),
        provenance: Provenance::default(),
        weights_bytes: 0,
        weights_crc32: 0,
    };
    checkpoint::save(network, config, &metadata, path).expect("saved");
}

/// Asserts that two backends, from the same weights on the same batch, give
/// the same losses, and still do after three AdamW steps on each.
pub fn assert_same_training(backends: [(&str, Device); 2]) {
    let game = Heraldis::default();
    let config = NetworkConfig::for_game(game.spec())
        .with_channels(16)
        .with_blocks(2);
    let batch = selfplay_batch(48);
    assert!(batch.size >= 32, "{} positions", batch.size);
    // One network, written once and read onto both devices.
    let directory = tempfile::tempdir().expect("temp dir");
    let path = directory.path().join("start");
    save(&config.init(&Device::flex()), &config, &path);
    let trainer = |device: &Device| {
        let network = Checkpoint::load(&path, game.spec(), device)
            .expect("loads")
            .network;
        Trainer::new(network, config.clone(), device, 1e-4, 0)
    };
    let [(name_a, device_a), (name_b, device_b)] = backends;
    let names = [name_a, name_b];
    let mut on_a = trainer(&device_a);
    let mut on_b = trainer(&device_b);
    let first = on_a.losses(&batch);
    assert!(first.policy > 0.5 && first.value > 0.5, "{first:?}");
    assert_close("before training", names, first, on_b.losses(&batch), 1e-4);
    // A step (gradients and AdamW) moves both alike.
    for _ in 0..3 {
        on_a.step(&batch, 1e-3);
        on_b.step(&batch, 1e-3);
    }
    let after = on_a.losses(&batch);
    assert!(
        after.policy + after.value < first.policy + first.value,
        "{first:?} → {after:?}"
    );
    assert_close("after 3 steps", names, after, on_b.losses(&batch), 1e-3);
}

/// Asserts that two backends' losses (named in `names`) agree within
/// `tolerance`, and prints the differences.
fn assert_close(what: &str, names: [&str; 2], a: Losses, b: Losses, tolerance: f32) {
    eprintln!(
        "{what}: {} {a:?}, {} {b:?}, differences {:.1e} and {:.1e}",
        names[0],
        names[1],
        (a.policy - b.policy).abs(),
        (a.value - b.value).abs()
    );
    assert!(
        (a.policy - b.policy).abs() <= tolerance && (a.value - b.value).abs() <= tolerance,
        "{what}: {a:?} against {b:?} (tolerance {tolerance})"
    );
}
