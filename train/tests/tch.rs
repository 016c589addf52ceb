//! libtorch (the `tch` feature): the same weights give the same losses on
//! ndarray and on libtorch, and a run trained on libtorch writes checkpoints
//! that load on the default backend and answer the same there.
//!
//! Needs PyTorch 2.9.0: `scripts/test-tch.sh` sets it up and runs these.
#![cfg(feature = "tch")]

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::search::UniformEvaluator;
use grandmaitre_model::checkpoint::{self, CheckpointMetadata, Provenance};
use grandmaitre_model::{Backend, Checkpoint, NetworkConfig, burn_forward};
use grandmaitre_selfplay::{SelfPlayConfig, play_games};
use grandmaitre_train::samples::{Batch, ReplayWindow, make_batch};
use grandmaitre_train::trainer::{Losses, Trainer};
use grandmaitre_train::{Run, StopAfter, TrainingConfig};
use rand::SeedableRng;
use rand::rngs::{SmallRng, StdRng};

fn libtorch() -> Device {
    Backend::LibTorch.device(false).expect("a tch build")
}

fn ndarray() -> Device {
    Backend::NdArray
        .device(false)
        .expect("ndarray is always built")
}

/// A batch of `size` positions from self-play games with the uniform
/// evaluator, on random layouts.
fn selfplay_batch(size: usize) -> Batch {
    let config = SelfPlayConfig {
        games_in_flight: 4,
        full_simulations: 16,
        cheap_simulations: 4,
        full_search_fraction: 0.5,
        ..SelfPlayConfig::default()
    };
    let mut records = Vec::new();
    play_games(
        &config,
        4,
        |seed| Heraldis::new(Layout::random(&mut StdRng::seed_from_u64(seed))),
        &UniformEvaluator,
        7,
        |g| records.push(g),
    );
    let window: ReplayWindow<Heraldis> = ReplayWindow::from_records(&records).expect("window");
    let indices: Vec<usize> = (0..window.samples.len().min(size)).collect();
    make_batch(&window, &indices, &mut SmallRng::seed_from_u64(3)).expect("batch")
}

/// Writes `network` as a checkpoint for Heraldis to `path`.
fn save(network: &grandmaitre_model::Network, config: &NetworkConfig, path: &std::path::Path) {
    let spec = Heraldis::default().spec().clone();
    let metadata = CheckpointMetadata {
        calibration: None,
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

fn assert_close(what: &str, a: Losses, b: Losses, tolerance: f32) {
    eprintln!(
        "{what}: ndarray {a:?}, libtorch {b:?}, differences {:.1e} and {:.1e}",
        (a.policy - b.policy).abs(),
        (a.value - b.value).abs()
    );
    assert!(
        (a.policy - b.policy).abs() <= tolerance && (a.value - b.value).abs() <= tolerance,
        "{what}: {a:?} against {b:?} (tolerance {tolerance})"
    );
}

#[test]
fn ndarray_and_libtorch_give_the_same_losses_from_the_same_weights() {
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
    let mut on_ndarray = trainer(&ndarray());
    let mut on_libtorch = trainer(&libtorch());
    let first = on_ndarray.losses(&batch);
    assert!(first.policy > 0.5 && first.value > 0.5, "{first:?}");
    assert_close("before training", first, on_libtorch.losses(&batch), 1e-4);
    // A step (gradients and AdamW) moves both alike.
    for _ in 0..3 {
        on_ndarray.step(&batch, 1e-3);
        on_libtorch.step(&batch, 1e-3);
    }
    let after = on_ndarray.losses(&batch);
    assert!(
        after.policy + after.value < first.policy + first.value,
        "{first:?} → {after:?}"
    );
    assert_close("after 3 steps", after, on_libtorch.losses(&batch), 1e-3);
}

#[test]
fn a_run_on_libtorch_writes_checkpoints_the_default_backend_loads() {
    let game = Heraldis::default();
    let directory = tempfile::tempdir().expect("temp dir");
    let settings = TrainingConfig::from_toml(
        "[network]\nchannels = 8\nblocks = 1\n\
         [selfplay]\ngames_per_generation = 4\ngames_per_shard = 2\ngames_in_flight = 2\n\
         full_simulations = 12\ncheap_simulations = 4\n\
         [optimizer]\nbatch_size = 16\nsteps_per_generation = 3\n",
    )
    .expect("valid");
    let run = Run::open(directory.path(), Some(settings)).expect("new run");
    let lines = run
        .train(
            |_| game.clone(),
            game.spec(),
            &libtorch(),
            StopAfter::Generations(2),
            &mut |_, _, _| Ok(Vec::new()),
            |_| {},
        )
        .expect("trains on libtorch");
    assert_eq!(lines.len(), 2);
    assert!(lines[1].policy_loss.is_finite() && lines[1].value_loss.is_finite());
    let (_, path) = run
        .latest_checkpoint()
        .expect("listed")
        .expect("a checkpoint");
    let on_flex = Checkpoint::load(&path, game.spec(), &Device::flex()).expect("loads on flex");
    assert_eq!(on_flex.metadata.provenance.training_steps, 6);
    let on_libtorch = Checkpoint::load(&path, game.spec(), &libtorch()).expect("loads on tch");
    // Both answer the same for the same positions.
    let config = &on_flex.metadata.network;
    let per_position = config.input_planes * config.cells();
    let states = grandmaitre_engine::game::random_states(&game, 16, 20, 5);
    let mut planes = vec![0.0; states.len() * per_position];
    for (state, slot) in states.iter().zip(planes.chunks_exact_mut(per_position)) {
        game.encode(state, slot);
    }
    let (policy_flex, wdl_flex) = burn_forward(&on_flex.network, config, &planes, &Device::flex());
    let (policy_tch, wdl_tch) = burn_forward(&on_libtorch.network, config, &planes, &libtorch());
    for (a, b) in policy_flex
        .iter()
        .zip(&policy_tch)
        .chain(wdl_flex.iter().zip(&wdl_tch))
    {
        assert!((a - b).abs() <= 1e-4, "{a} against {b}");
    }
}
