//! Runs in an object store (the in-memory one here; the same code serves
//! S3, GCS and Azure): the trainer publishes checkpoints behind a pointer
//! and resumes from the store alone, and self-play workers and a trainer
//! meet only through the store.

use std::time::Duration;

use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_model::Checkpoint;
use grandmaitre_train::store::Store;
use grandmaitre_train::{Progress, Run, SelfPlay, StopAfter, TrainingConfig};

fn tiny() -> TrainingConfig {
    TrainingConfig::from_toml(
        "[network]\nchannels = 8\nblocks = 1\n\
         [selfplay]\ngames_per_generation = 6\ngames_per_shard = 2\ngames_in_flight = 2\n\
         full_simulations = 8\ncheap_simulations = 4\n\
         [optimizer]\nbatch_size = 16\nsteps_per_generation = 2\n",
    )
    .expect("valid")
}

fn train(run: &Run, generations: u32) -> Vec<grandmaitre_train::run::LogLine> {
    let game = Heraldis::default();
    run.train(
        |_| game.clone(),
        game.spec(),
        &burn::tensor::Device::flex(),
        StopAfter::Generations(generations),
        &mut |_, _, _| Ok(Vec::new()),
        |_| {},
    )
    .expect("trains")
}

fn text(store: &Store, name: &str) -> String {
    String::from_utf8(store.get(name).expect("get").expect("present")).expect("utf-8")
}

#[test]
fn a_run_in_an_object_store_publishes_its_checkpoints_and_resumes_from_it() {
    let store = Store::in_memory();
    let run = Run::in_store(store.clone(), Some(tiny())).expect("new run");
    assert_eq!(train(&run, 1)[0].games, 6);
    assert_eq!(text(&store, "checkpoints/latest"), "gen-0001\n");
    for file in ["checkpoint.json", "weights.bpk"] {
        assert!(
            store
                .get(&format!("checkpoints/gen-0001/{file}"))
                .expect("get")
                .is_some()
        );
    }
    assert_eq!(store.list("shards").expect("list").len(), 3);
    // Another process (a fresh Run on the same store) resumes from it.
    let resumed = Run::in_store(store.clone(), None).expect("resumed");
    assert_eq!(resumed.config, tiny());
    let lines = train(&resumed, 1);
    assert_eq!((lines[0].generation, lines[0].games), (2, 12));
    assert_eq!(text(&store, "checkpoints/latest"), "gen-0002\n");
    assert_eq!(text(&store, "log.csv").lines().count(), 3);
    // The newest checkpoint comes to a local directory and loads.
    let (generation, path) = resumed.latest_checkpoint().expect("listed").expect("one");
    assert_eq!(generation, 2);
    let checkpoint = Checkpoint::load(
        &path,
        Heraldis::default().spec(),
        &burn::tensor::Device::flex(),
    )
    .expect("loads");
    assert_eq!(checkpoint.metadata.provenance.training_steps, 4);
    // Other settings for the existing run are refused.
    let mut other = tiny();
    other.seed = 9;
    assert!(Run::in_store(store, Some(other)).is_err());
}

#[test]
fn workers_and_a_trainer_meet_only_through_the_store() {
    let store = Store::in_memory();
    let trainer = Run::in_store(store.clone(), Some(tiny()))
        .expect("new run")
        .with_self_play(SelfPlay::Workers {
            poll: Duration::from_millis(20),
        });
    let game = Heraldis::default();
    let worker = Run::in_store(store.clone(), None).expect("the run exists");
    let play = |shards: u32| {
        worker
            .selfplay(
                |_| game.clone(),
                game.spec(),
                StopAfter::Generations(shards),
                |_| {},
            )
            .expect("plays")
    };
    // Three shards of two games with a fresh network, then a generation
    // trained on them by a trainer that plays nothing itself.
    assert_eq!(play(3), 6);
    assert_eq!(train(&trainer, 1)[0].games, 6);
    assert_eq!(text(&store, "checkpoints/latest"), "gen-0001\n");
    // The trainer waits for the next six games while the worker, picking
    // up generation 1, plays them.
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| train(&trainer, 1));
        assert_eq!(play(3), 6);
        let lines = waiting.join().expect("trains");
        assert_eq!((lines[0].generation, lines[0].games), (2, 12));
    });
    let shards = store.list("shards").expect("list");
    assert_eq!(shards.len(), 6);
    // Every shard is a worker's (the trainer's own would be tagged -gen).
    assert!(
        shards.iter().all(|s| !s.name.contains("-gen")),
        "{shards:?}"
    );
    let reads = store.reads();
    // The trainer read each shard once; the worker fetched generation 1's
    // weights once, when the pointer moved.
    for shard in &shards {
        assert_eq!(reads.get(&shard.name), Some(&1), "{}", shard.name);
    }
    assert_eq!(reads.get("checkpoints/gen-0001/weights.bpk"), Some(&1));
    assert!(reads.get("checkpoints/latest").is_some_and(|&n| n >= 6));
    assert_eq!(text(&store, "checkpoints/latest"), "gen-0002\n");
}

#[test]
fn a_run_resumed_without_its_shards_keeps_counting_its_games() {
    let store = Store::in_memory();
    let run = Run::in_store(store.clone(), Some(tiny())).expect("new run");
    assert_eq!(train(&run, 1)[0].games, 6);
    // The run copied without its self-play: only the log and the
    // checkpoints remain.
    let drop_shards = || {
        for shard in store.list("shards").expect("list") {
            store.delete(&shard.name).expect("deleted");
        }
    };
    drop_shards();
    // Its own self-play: the log goes on from the six games it counted.
    let resumed = Run::in_store(store.clone(), None).expect("resumed");
    let lines = train(&resumed, 1);
    assert_eq!((lines[0].generation, lines[0].games), (2, 12));
    drop_shards();
    // With workers: the trainer waits for six new games, not for the
    // twelve the log counted to be on disk again.
    let trainer = std::sync::Arc::new(
        Run::in_store(store.clone(), None)
            .expect("resumed")
            .with_self_play(SelfPlay::Workers {
                poll: Duration::from_millis(20),
            }),
    );
    let (sender, receiver) = std::sync::mpsc::channel();
    let (started, waiting_for_games) = std::sync::mpsc::channel();
    let waiting = std::sync::Arc::clone(&trainer);
    std::thread::spawn(move || {
        let game = Heraldis::default();
        let lines = waiting.train(
            |_| game.clone(),
            game.spec(),
            &burn::tensor::Device::flex(),
            StopAfter::Generations(1),
            &mut |_, _, _| Ok(Vec::new()),
            |progress| {
                if let Progress::Games { .. } = progress {
                    let _ = started.send(());
                }
            },
        );
        sender.send(lines.expect("trains"))
    });
    // The worker starts once the trainer has counted the run's games.
    waiting_for_games
        .recv_timeout(Duration::from_secs(120))
        .expect("the trainer waits for games");
    let game = Heraldis::default();
    let worker = Run::in_store(store.clone(), None).expect("the run exists");
    let played = worker
        .selfplay(
            |_| game.clone(),
            game.spec(),
            StopAfter::Generations(3),
            |_| {},
        )
        .expect("plays");
    assert_eq!(played, 6);
    let lines = receiver
        .recv_timeout(Duration::from_secs(120))
        .expect("the trainer trained on the worker's six games");
    assert_eq!((lines[0].generation, lines[0].games), (3, 18));
    assert_eq!(text(&store, "checkpoints/latest"), "gen-0003\n");
}
