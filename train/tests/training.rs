//! Training: losses fall on a fixed batch, runs resume, settings are checked.

mod support;

use grandmaitre_engine::Game;
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_model::{Checkpoint, NetworkConfig};
use grandmaitre_selfplay::shard;
use grandmaitre_train::samples::{ReplayWindow, Targets, make_batch};
use grandmaitre_train::trainer::Trainer;
use grandmaitre_train::{Run, StopAfter, TrainingConfig};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn records(count: usize) -> Vec<grandmaitre_selfplay::GameRecord> {
    support::records(count, 3)
}

#[test]
fn batches_hold_distributions_and_one_hot_results() {
    let window: ReplayWindow<Heraldis> =
        ReplayWindow::from_records(&records(6), false, &Targets::default()).expect("window");
    assert!(window.games.len() > 1, "several layouts");
    let indices: Vec<usize> = (0..window.samples.len()).collect();
    let batch =
        make_batch(&window, &indices, false, &mut SmallRng::seed_from_u64(1)).expect("batch");
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

/// A batch of up to 64 positions of four self-play games.
fn first_positions_of_four_games() -> grandmaitre_train::samples::Batch {
    let window: ReplayWindow<Heraldis> =
        ReplayWindow::from_records(&records(4), false, &Targets::default()).expect("window");
    let indices: Vec<usize> = (0..window.samples.len().min(64)).collect();
    make_batch(&window, &indices, false, &mut SmallRng::seed_from_u64(2)).expect("batch")
}

#[test]
fn steps_on_one_batch_lower_its_loss() {
    let batch = first_positions_of_four_games();
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
fn the_moves_left_target_counts_the_plies_to_the_games_end() {
    let games = records(3);
    let window: ReplayWindow<Heraldis> =
        ReplayWindow::from_records(&games, false, &Targets::default()).expect("window");
    let mut start = 0;
    for game in &games {
        let samples = &window.samples[start..start + game.positions.len()];
        let plies: Vec<f32> = samples.iter().map(|s| s.moves_left).collect();
        let expected: Vec<f32> = (1..=game.positions.len()).rev().map(|n| n as f32).collect();
        assert_eq!(plies, expected);
        // Self-play records every ply from the start to the end.
        assert_eq!(game.positions.len(), game.plies as usize);
        start += game.positions.len();
    }
    let indices: Vec<usize> = (0..window.samples.len()).collect();
    let batch =
        make_batch(&window, &indices, false, &mut SmallRng::seed_from_u64(1)).expect("batch");
    let targets: Vec<f32> = window.samples.iter().map(|s| s.moves_left).collect();
    assert_eq!(batch.moves_left, targets);
}

#[test]
fn a_run_resumed_with_the_moves_left_weight_gains_the_head_and_trains_it() {
    let directory = tempfile::tempdir().expect("temp dir");
    let game = Heraldis::default();
    let run = Run::open(directory.path(), Some(tiny())).expect("new run");
    one_generation(&run, &game);
    let device = burn::tensor::Device::flex();
    let first = Checkpoint::load(
        &run.latest_checkpoint().expect("listed").expect("one").1,
        game.spec(),
        &device,
    )
    .expect("loads");
    assert!(!first.metadata.network.moves_left_head);
    assert!(first.network.moves_left.is_none());
    // The run's settings are edited to turn the head on; it resumes.
    let mut settings = tiny();
    settings.network.moves_left_weight = 1.0;
    std::fs::write(directory.path().join("config.toml"), settings.to_toml()).expect("written");
    let run = Run::open(directory.path(), None).expect("resumed");
    let lines = one_generation(&run, &game);
    assert_eq!(lines[0].generation, 2);
    let second = Checkpoint::load(
        &run.latest_checkpoint().expect("listed").expect("two").1,
        game.spec(),
        &device,
    )
    .expect("loads");
    assert!(second.metadata.network.moves_left_head);
    assert!(second.network.moves_left.is_some());
    // The tower carries on from the first generation's weights.
    let stem = |c: &Checkpoint| {
        grandmaitre_model::inference::tensor_values(&c.network.stem.conv.weight.val())
    };
    let moved: f32 = stem(&first)
        .iter()
        .zip(stem(&second))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(
        moved < 0.1,
        "the tower was kept, not re-initialised: {moved}"
    );
    // A third generation resumes from a checkpoint that has the head.
    let lines = one_generation(&run, &game);
    assert_eq!(lines[0].generation, 3);
}

#[test]
fn the_moves_left_loss_falls_on_one_batch() {
    let batch = first_positions_of_four_games();
    let config = NetworkConfig::for_game(Heraldis::default().spec())
        .with_channels(8)
        .with_blocks(1)
        .with_moves_left_head(true);
    let device = burn::tensor::Device::flex();
    let mut trainer =
        Trainer::new(config.init(&device), config, &device, 1e-4, 0).with_moves_left_weight(1.0);
    let first = trainer.step(&batch, 3e-3);
    assert!(first.moves_left > 0.0);
    let mut last = first;
    for _ in 0..40 {
        last = trainer.step(&batch, 3e-3);
    }
    assert!(
        last.moves_left < 0.5 * first.moves_left,
        "{first:?} → {last:?}"
    );
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
        // The run's keys and the self-play driver's share one table.
        (
            "[selfplay]\nwidth = 3\n",
            "unknown field `width`, expected one of `games_per_generation`, `games_per_shard`, `layouts`, `games_in_flight`",
        ),
        (
            "[selfplay]\ngames_in_flight = \"x\"\n",
            "invalid type: string \"x\", expected usize in `games_in_flight`",
        ),
        (
            "[selfplay]\ngames_per_shard = -3\n",
            "invalid value: integer `-3`, expected usize in `games_per_shard`",
        ),
        (
            "[selfplay]\ndecided_threshold = 0.2\n",
            "selfplay.decided_threshold must be between 0.5 and 1",
        ),
        (
            "[optimizer]\nlearning_rate = -1.0\n",
            "learning_rate must be positive",
        ),
        (
            "[network]\nmoves_left_weight = -1.0\n",
            "moves_left_weight must be zero or positive",
        ),
    ] {
        let error = TrainingConfig::from_toml(text).expect_err(text);
        assert!(error.contains(expected), "{text}: {error}");
        assert!(!error.contains('\n'));
    }
    let config = TrainingConfig::default();
    assert_eq!(TrainingConfig::from_toml(&config.to_toml()), Ok(config));
}

/// `count` self-play games of Havannah of base `base` with the uniform
/// evaluator.
fn havannah_records(base: usize, count: usize, seed: u64) -> Vec<grandmaitre_selfplay::GameRecord> {
    let config = grandmaitre_selfplay::SelfPlayConfig {
        games_in_flight: 4,
        full_simulations: 8,
        cheap_simulations: 2,
        full_search_fraction: 0.5,
        ..grandmaitre_selfplay::SelfPlayConfig::default()
    };
    let mut games = Vec::new();
    grandmaitre_selfplay::play_games(
        &config,
        count,
        |_| Havannah::new(base, true),
        &grandmaitre_engine::search::UniformEvaluator,
        seed,
        |g| games.push(g),
    );
    games
}

#[test]
fn ownership_targets_are_the_final_stones_seen_by_the_side_to_move() {
    let records = havannah_records(4, 3, 5);
    let window: ReplayWindow<Havannah> =
        ReplayWindow::from_records(&records, false, &Targets::default()).expect("window");
    let indices: Vec<usize> = (0..window.samples.len()).collect();
    let batch =
        make_batch(&window, &indices, true, &mut SmallRng::seed_from_u64(1)).expect("batch");
    let cells = 49;
    let planes = grandmaitre_engine::havannah::PLANE_COUNT;
    for row in 0..batch.size {
        // 37 cells on the hexagon of base 4, each stone's owner ±1.
        assert_eq!(batch.ownership_cells[row], 37.0);
        let owners = &batch.ownership[row * cells..(row + 1) * cells];
        let position = &batch.planes[row * planes * cells..(row + 1) * planes * cells];
        for cell in 0..cells {
            // A stone stays to the end: the side to move's own stones now
            // are its own at the end (the swap aside, at the first plies).
            if position[cell] == 1.0 && position[6 * cells] == 0.0 {
                assert_eq!(owners[cell], 1.0, "row {row} cell {cell}");
            }
            if position[3 * cells + cell] == 0.0 {
                assert_eq!(owners[cell], 0.0, "off the board");
            }
        }
        assert!(owners.iter().any(|&o| o == -1.0));
    }
}

#[test]
fn a_window_of_several_boards_gives_batches_of_one_board() {
    let mut records = havannah_records(3, 2, 1);
    records.extend(havannah_records(4, 2, 2));
    let refused = ReplayWindow::<Havannah>::from_records(&records, false, &Targets::default())
        .expect_err("two boards for a dense network")
        .to_string();
    assert!(refused.contains("board differs"), "{refused}");
    let window: ReplayWindow<Havannah> =
        ReplayWindow::from_records(&records, true, &Targets::default()).expect("window");
    assert_eq!(window.boards.len(), 2);
    let mut rng = SmallRng::seed_from_u64(4);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let indices = grandmaitre_train::samples::draw_indices(&window, 8, &mut rng);
        let batch = make_batch(&window, &indices, true, &mut rng).expect("one board");
        seen.insert(batch.shape[1]);
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), [5, 7]);
    let mixed: Vec<usize> = window.boards.iter().map(|b| b[0]).collect();
    let error = make_batch(&window, &mixed, true, &mut rng).expect_err("two boards");
    assert!(error.to_string().contains("mixes boards"));
}

/// Trains `run` (Havannah, its own rules base 5) for `generations` and
/// returns the rules of each generation's games, in order (one shard
/// each).
fn boards_played(run: &Run, generations: u32) -> Vec<String> {
    let game = Havannah::new(5, true);
    let lines = run
        .train(
            |_| game.clone(),
            game.spec(),
            &burn::tensor::Device::flex(),
            StopAfter::Generations(generations),
            &mut |_, _, _| Ok(Vec::new()),
            |_| {},
        )
        .expect("trains");
    assert_eq!(lines.len(), generations as usize);
    run.shard_names()
        .expect("shards")
        .iter()
        .map(|name| run.read_shard(name).expect("shard")[0].parameters.clone())
        .collect()
}

#[test]
fn a_curriculum_trains_one_network_on_growing_boards() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = TrainingConfig::from_toml(
        "[network]\nchannels = 8\nblocks = 2\nheads = \"pooled\"\nownership_weight = 0.5\n\
         [selfplay]\ngames_per_generation = 4\ngames_per_shard = 4\ngames_in_flight = 4\n\
         full_simulations = 8\ncheap_simulations = 2\n\
         [optimizer]\nbatch_size = 16\nsteps_per_generation = 2\n\
         [[curriculum]]\nrules = \"base=3 swap=1\"\nuntil = 1\n\
         [[curriculum]]\nrules = \"base=4 swap=1\"\nuntil = 2\n",
    )
    .expect("valid");
    let run = Run::open(directory.path(), Some(config)).expect("new run");
    // Each generation played on its stage's board.
    assert_eq!(
        boards_played(&run, 3),
        ["base=3 swap=1", "base=4 swap=1", "base=5 swap=1"]
    );
    // The checkpoint plays every base.
    let (_, path) = run
        .latest_checkpoint()
        .expect("listed")
        .expect("a checkpoint");
    for base in [3, 5, 8] {
        let spec = Havannah::new(base, true).spec().clone();
        let checkpoint =
            Checkpoint::load(&path, &spec, &burn::tensor::Device::flex()).expect("any base");
        assert_eq!(checkpoint.metadata.network.height, 2 * base - 1);
    }
}

#[test]
fn an_interleaved_stage_takes_every_kth_generation() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = TrainingConfig::from_toml(
        "[network]\nchannels = 8\nblocks = 2\nheads = \"pooled\"\n\
         [selfplay]\ngames_per_generation = 2\ngames_per_shard = 2\ngames_in_flight = 2\n\
         full_simulations = 8\ncheap_simulations = 2\n\
         [optimizer]\nbatch_size = 16\nsteps_per_generation = 2\n\
         [[curriculum]]\nrules = \"base=3 swap=1\"\nuntil = 1\n\
         [[curriculum]]\nrules = \"base=4 swap=1\"\nuntil = 5\nevery = 2\n\
         [[curriculum]]\nrules = \"base=6 swap=1\"\nuntil = 5\n",
    )
    .expect("valid");
    let run = Run::open(directory.path(), Some(config)).expect("new run");
    let bases = boards_played(&run, 7);
    // Generation 1 is the first stage's; of 2 to 5, the even ones are the
    // interleaved stage's and the odd ones the next stage's; then the run's.
    assert_eq!(
        bases,
        [
            "base=3 swap=1",
            "base=4 swap=1",
            "base=6 swap=1",
            "base=4 swap=1",
            "base=6 swap=1",
            "base=5 swap=1",
            "base=5 swap=1"
        ]
    );
}

#[test]
fn an_interleaved_stage_may_end_with_the_next_but_a_plain_one_may_not() {
    let config = |first: &str| {
        format!(
            "[network]\nheads = \"pooled\"\n\
             [[curriculum]]\nrules = \"base=4\"\nuntil = 9\n{first}\
             [[curriculum]]\nrules = \"base=6\"\nuntil = 9\n"
        )
    };
    let interleaved = TrainingConfig::from_toml(&config("every = 3\n")).expect("interleaved");
    assert_eq!(interleaved.curriculum[0].every, 3);
    assert!(interleaved.curriculum[0].has(6) && !interleaved.curriculum[0].has(7));
    assert_eq!(interleaved.curriculum[1].every, 1);
    let plain = TrainingConfig::from_toml(&config("")).expect_err("a stage with no generation");
    assert!(plain.contains("increasing"), "{plain}");
    let never = TrainingConfig::from_toml(&config("every = 0\n")).expect_err("every 0");
    assert!(never.contains("every"), "{never}");
}

#[test]
fn a_curriculum_needs_pooled_heads() {
    let error = TrainingConfig::from_toml("[[curriculum]]\nrules = \"base=4\"\nuntil = 3\n")
        .expect_err("dense heads");
    assert!(error.contains("pooled"), "{error}");
}

#[test]
fn runs_of_other_seeds_play_other_games() {
    let game = Heraldis::default();
    let games_of = |seed: u64| {
        let directory = tempfile::tempdir().expect("temp dir");
        let mut config = tiny();
        config.seed = seed;
        let run = Run::open(directory.path(), Some(config)).expect("new run");
        one_generation(&run, &game);
        let mut records = Vec::new();
        for path in shard::list(&directory.path().join("shards")).expect("shards") {
            records.extend(shard::read(&path).expect("shard"));
        }
        records
    };
    let (first, second) = (games_of(1), games_of(2));
    assert_eq!((first.len(), second.len()), (6, 6));
    assert_ne!(first, second);
    // The seed is a setting the run keeps.
    let mut config = tiny();
    config.seed = 7;
    let text = config.to_toml();
    assert!(text.contains("seed = 7"), "{text}");
    assert_eq!(TrainingConfig::from_toml(&text).expect("reads"), config);
}

/// Every run's settings committed under `checkpoints/` still read, and
/// write back to the same settings: the `[selfplay]` table of the run's
/// keys and the self-play driver's reads as it always did.
#[test]
fn the_committed_runs_settings_read_and_write_back() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../checkpoints");
    let mut stack = vec![root];
    let mut read = 0;
    while let Some(directory) = stack.pop() {
        for entry in std::fs::read_dir(&directory).expect("a checkpoints folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|name| name == "config.toml") {
                let text = std::fs::read_to_string(&path).expect("readable");
                let config = TrainingConfig::from_toml(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(
                    TrainingConfig::from_toml(&config.to_toml()).as_ref(),
                    Ok(&config),
                    "{}",
                    path.display()
                );
                read += 1;
            }
        }
    }
    assert!(read >= 10, "only {read} run settings found");
}
