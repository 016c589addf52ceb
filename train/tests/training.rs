//! Training: losses fall on a fixed batch, runs resume, settings are checked.

mod support;

use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_model::{Checkpoint, NetworkConfig};
use grandmaitre_train::samples::{ReplayWindow, make_batch};
use grandmaitre_train::trainer::Trainer;
use grandmaitre_train::{Run, StopAfter, TrainingConfig};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn records(count: usize) -> Vec<grandmaitre_selfplay::GameRecord> {
    support::records(count, 3)
}

#[test]
fn batches_hold_distributions_and_one_hot_results() {
    let window: ReplayWindow<Heraldis> = ReplayWindow::from_records(&records(6)).expect("window");
    assert!(window.games.len() > 1, "several layouts");
    let indices: Vec<usize> = (0..window.samples.len()).collect();
    let batch = make_batch(&window, &indices, &mut SmallRng::seed_from_u64(1)).expect("batch");
    let actions = 26;
    for row in 0..batch.size {
        let policy: f32 = batch.policy[row * actions..(row + 1) * actions]
            .iter()
            .sum();
        if batch.policy_weight[row] > 0.0 {
            assert!((policy - 1.0).abs() < 1e-4);
        } else {
            assert_eq!(policy, 0.0);
        }
        let outcome = &batch.outcome[row * 3..row * 3 + 3];
        assert_eq!(outcome.iter().sum::<f32>(), 1.0);
    }
}

#[test]
fn steps_on_one_batch_lower_its_loss() {
    let window: ReplayWindow<Heraldis> = ReplayWindow::from_records(&records(4)).expect("window");
    let indices: Vec<usize> = (0..window.samples.len().min(64)).collect();
    let batch = make_batch(&window, &indices, &mut SmallRng::seed_from_u64(2)).expect("batch");
    let config = NetworkConfig::for_game(Heraldis::default().spec())
        .with_channels(8)
        .with_blocks(1);
    let device = burn::tensor::Device::flex();
    let mut trainer = Trainer::new(config.init(&device), config, &device, 1e-4, 0);
    let first = trainer.step(&batch, 3e-3);
    let mut last = first;
    for _ in 0..40 {
        last = trainer.step(&batch, 3e-3);
    }
    assert_eq!(trainer.steps, 41);
    assert!(
        last.policy + last.value < 0.8 * (first.policy + first.value),
        "{first:?} → {last:?}"
    );
}

fn tiny() -> TrainingConfig {
    TrainingConfig::from_toml(
        "[network]\nchannels = 8\nblocks = 1\n\
         [selfplay]\ngames_per_generation = 6\ngames_per_shard = 3\ngames_in_flight = 3\n\
         full_simulations = 12\ncheap_simulations = 4\n\
         [optimizer]\nbatch_size = 16\nsteps_per_generation = 3\n",
    )
    .expect("valid")
}

/// Trains `run` for one generation, without ratings.
fn one_generation(run: &Run, game: &Heraldis) -> Vec<grandmaitre_train::run::LogLine> {
    run.train(
        |_| game.clone(),
        game.spec(),
        &burn::tensor::Device::flex(),
        StopAfter::Generations(1),
        &mut |_, _, _| Ok(Vec::new()),
        |_| {},
    )
    .expect("trains")
}

#[test]
fn a_run_writes_checkpoints_and_resumes_where_it_stopped() {
    let directory = tempfile::tempdir().expect("temp dir");
    let game = Heraldis::default();
    let run = Run::open(directory.path(), Some(tiny())).expect("new run");
    let lines = one_generation(&run, &game);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].games, 6);
    // Resuming (without settings) continues with generation 2.
    let run = Run::open(directory.path(), None).expect("resumed");
    assert_eq!(run.config, tiny());
    let lines = one_generation(&run, &game);
    assert_eq!(lines[0].generation, 2);
    assert_eq!(lines[0].games, 12);
    assert_eq!(lines[0].steps, 6);
    let (generation, path) = run
        .latest_checkpoint()
        .expect("listed")
        .expect("a checkpoint");
    assert_eq!(generation, 2);
    let checkpoint =
        Checkpoint::load(&path, game.spec(), &burn::tensor::Device::flex()).expect("loads");
    assert_eq!(checkpoint.metadata.provenance.training_steps, 6);
    assert!(
        checkpoint
            .metadata
            .provenance
            .parent
            .is_some_and(|p| p.ends_with("gen-0001"))
    );
    let log = std::fs::read_to_string(directory.path().join("log.csv")).expect("log");
    assert_eq!(log.lines().count(), 3);
    // Other settings for an existing run are refused.
    let mut other = tiny();
    other.network.channels = 16;
    let error = Run::open(directory.path(), Some(other))
        .expect_err("refused")
        .to_string();
    assert!(error.contains("other settings"), "{error}");
}

#[test]
fn bad_settings_say_what_is_wrong() {
    for (text, expected) in [
        (
            "[network]\nchannels = 0\n",
            "network.channels must be positive",
        ),
        ("[network]\nwidth = 3\n", "unknown field `width`"),
        (
            "[selfplay]\nfull_search_fraction = 2.0\n",
            "between 0 and 1",
        ),
        (
            "[selfplay]\nlayouts = \"square\"\n",
            "unknown variant `square`",
        ),
        (
            "[optimizer]\nlearning_rate = -1.0\n",
            "learning_rate must be positive",
        ),
    ] {
        let error = TrainingConfig::from_toml(text).expect_err(text);
        assert!(error.contains(expected), "{text}: {error}");
        assert!(!error.contains('\n'));
    }
    let config = TrainingConfig::default();
    assert_eq!(TrainingConfig::from_toml(&config.to_toml()), Ok(config));
}
