//! libtorch (the `tch` feature): the same weights give the same losses on
//! ndarray and on libtorch, and a run trained on libtorch writes checkpoints
//! that load on the default backend and answer the same there.
//!
//! Needs PyTorch 2.9.0: `scripts/test-tch.sh` sets it up and runs these.
#![cfg(feature = "tch")]

mod support;

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_model::{Backend, Checkpoint, burn_forward};
use grandmaitre_train::{Run, StopAfter, TrainingConfig};
use support::assert_same_training;

fn libtorch() -> Device {
    Backend::LibTorch.device(false).expect("a tch build")
}

fn ndarray() -> Device {
    Backend::NdArray
        .device(false)
        .expect("ndarray is always built")
}

#[test]
fn ndarray_and_libtorch_give_the_same_losses_from_the_same_weights() {
    assert_same_training([("ndarray", ndarray()), ("libtorch", libtorch())]);
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
