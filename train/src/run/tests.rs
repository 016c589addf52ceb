//! The run's order of shards, its cache and its crash points, tested from
//! inside: a crash between two writes is a test that stops the trainer
//! there.

use std::cell::RefCell;

use grandmaitre_engine::heraldis::Heraldis;

use super::*;

thread_local! {
    /// The crash points armed by the test running on this thread.
    static ARMED: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// Stops the trainer at `point`, as a crash would, if the test running on
/// this thread armed it (once).
pub(crate) fn crash_point(point: &'static str) -> Result<(), TrainError> {
    let armed = ARMED.with(|armed| {
        let mut armed = armed.borrow_mut();
        let found = armed.iter().position(|p| *p == point);
        found.map(|index| armed.remove(index)).is_some()
    });
    if armed {
        return Err(TrainError::Invalid {
            path: PathBuf::from(point),
            reason: "the trainer stopped here (a test's crash)".to_string(),
        });
    }
    Ok(())
}

fn tiny() -> TrainingConfig {
    TrainingConfig::from_toml(
        "[network]\nchannels = 8\nblocks = 1\n\
         [selfplay]\ngames_per_generation = 4\ngames_per_shard = 2\ngames_in_flight = 2\n\
         full_simulations = 8\ncheap_simulations = 4\n\
         [optimizer]\nbatch_size = 16\nsteps_per_generation = 2\n",
    )
    .expect("valid")
}

fn train(run: &Run, generations: u32) -> Result<Vec<LogLine>, TrainError> {
    let game = Heraldis::default();
    run.train(
        |_| game.clone(),
        game.spec(),
        &Device::flex(),
        StopAfter::Generations(generations),
        &mut |_, _, _| Ok(Vec::new()),
        |_| {},
    )
}

fn text(store: &Store, name: &str) -> String {
    String::from_utf8(store.get(name).expect("get").unwrap_or_default()).expect("utf-8")
}

/// The generations of `log.csv`'s lines.
fn logged(store: &Store) -> Vec<u32> {
    text(store, LOG_FILE)
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .next()
                .expect("a field")
                .parse()
                .expect("a number")
        })
        .collect()
}

#[test]
fn the_log_and_the_pointer_agree_after_a_crash_between_them() {
    let store = Store::in_memory();
    let run = Run::in_store(store.clone(), Some(tiny())).expect("new run");
    train(&run, 1).expect("trains");
    // Generation 2 stops after its log line, before its pointer.
    ARMED.with(|armed| armed.borrow_mut().push("before the pointer"));
    assert!(train(&run, 1).is_err());
    assert_eq!(text(&store, LATEST), "gen-0001\n");
    assert_eq!(logged(&store), [1, 2]);
    // Resumed by a new process: generation 2 is played again from its
    // shards, and logged once.
    let resumed = Run::in_store(store.clone(), None).expect("resumed");
    let lines = train(&resumed, 2).expect("trains");
    assert_eq!(
        lines
            .iter()
            .map(|l| (l.generation, l.games))
            .collect::<Vec<_>>(),
        [(2, 8), (3, 12)]
    );
    assert_eq!(logged(&store), [1, 2, 3]);
    assert_eq!(text(&store, LATEST), "gen-0003\n");
}

/// Moves the shard `name` to the name a writer whose clock is `skew`
/// seconds off would have given it; returns the new name.
fn as_if_written_at(store: &Store, name: &str, skew: i64) -> String {
    let (time, rest) = name
        .trim_start_matches("shards/")
        .split_once('-')
        .expect("time-suffix");
    let time: i128 = time.parse().expect("nanoseconds");
    let moved = format!(
        "shards/{:024}-{rest}",
        time + i128::from(skew) * 1_000_000_000
    );
    let bytes = store.get(name).expect("get").expect("present");
    assert!(store.create(&moved, bytes).expect("create"));
    store.delete(name).expect("delete");
    moved
}

#[test]
fn shards_enter_the_window_in_the_order_they_arrive_whatever_the_writers_clock() {
    let store = Store::in_memory();
    let run = Run::in_store(store.clone(), Some(tiny())).expect("new run");
    let game = Heraldis::default();
    let play_shard = || {
        let before: Vec<String> = run.shard_names().expect("listed");
        run.selfplay(
            |_| game.clone(),
            game.spec(),
            StopAfter::Generations(1),
            |_| {},
        )
        .expect("plays");
        let after = run.shard_names().expect("listed");
        after
            .into_iter()
            .find(|name| !before.contains(name))
            .expect("a new shard")
    };
    let mut cache = ShardCache::default();
    let window_of_one_shard = |name: &str, cache: &mut ShardCache| {
        let positions: usize = run
            .read_shard(name)
            .expect("read")
            .iter()
            .map(|g| g.positions.len())
            .sum();
        let names = run.arrival_order(cache).expect("listed");
        run.window::<Heraldis>(
            &names,
            cache,
            positions,
            false,
            &run.config.optimizer.targets(),
        )
        .expect("window");
        let mut kept: Vec<String> = cache.games.keys().cloned().collect();
        kept.sort();
        kept
    };
    // A worker whose clock is an hour ahead writes first, then one on time:
    // the window of one shard holds the one on time, the newer arrival.
    let ahead = as_if_written_at(&store, &play_shard(), 3600);
    assert_eq!(
        run.arrival_order(&mut cache).expect("listed"),
        [ahead.clone()]
    );
    let on_time = play_shard();
    assert!(on_time < ahead, "the clock ahead sorts last by name");
    assert_eq!(window_of_one_shard(&on_time, &mut cache), [on_time.clone()]);
    // A worker whose clock is an hour behind writes next: its shard sorts
    // first by name and is the newest all the same.
    let behind = as_if_written_at(&store, &play_shard(), -3600);
    assert_eq!(window_of_one_shard(&behind, &mut cache), [behind.clone()]);
    assert_eq!(
        run.arrival_order(&mut cache).expect("listed"),
        [ahead.clone(), on_time.clone(), behind.clone()]
    );
    // The order outlives the trainer: written down, read by the next one.
    run.save_arrivals(&mut cache).expect("saved");
    let mut next = ShardCache::default();
    run.load_arrivals(&mut next).expect("read");
    assert_eq!(
        run.arrival_order(&mut next).expect("listed"),
        [ahead, on_time, behind]
    );
}

#[test]
fn only_the_trainer_removes_staging_files() {
    let directory = tempfile::tempdir().expect("temp dir");
    let location = directory.path().join("run");
    let run = Run::open(&location, Some(tiny())).expect("new run");
    let checkpoints = location.join(CHECKPOINTS);
    let staging = checkpoints.join("gen-0001.tmp");
    let pointer = checkpoints.join("latest#7");
    fs::create_dir_all(&staging).expect("staging");
    fs::write(&pointer, "gen-0001").expect("pointer staging");
    // A worker opening the run mid-write leaves them.
    let worker = Run::open(&location, None).expect("opens");
    assert!(staging.is_dir() && pointer.is_file());
    let game = Heraldis::default();
    worker
        .selfplay(
            |_| game.clone(),
            game.spec(),
            StopAfter::Generations(1),
            |_| {},
        )
        .expect("plays");
    assert!(staging.is_dir() && pointer.is_file());
    // The trainer, starting, removes what its interrupted writes left.
    train(&run, 1).expect("trains");
    assert!(!staging.exists() && !pointer.exists());
    assert!(checkpoints.join("gen-0001").is_dir());
}

#[test]
fn the_cache_of_checkpoints_is_checked_against_the_store() {
    let store = Store::in_memory();
    let run = Run::in_store(store.clone(), Some(tiny())).expect("new run");
    train(&run, 1).expect("trains");
    let cached = run.checkpoint_path(1);
    let weights = cached.join(checkpoint::WEIGHTS_FILE);
    let stored = store
        .get("checkpoints/gen-0001/weights.bpk")
        .expect("get")
        .expect("present");
    assert_eq!(fs::read(&weights).expect("cached"), stored);
    // A damaged copy is fetched again.
    fs::write(&weights, b"damaged").expect("damaged");
    let (_, path) = run.latest_checkpoint().expect("read").expect("one");
    assert_eq!(
        fs::read(path.join(checkpoint::WEIGHTS_FILE)).expect("cached"),
        stored
    );
    // So is the copy of an earlier run at the same location: the store's
    // generation 1 is now another checkpoint.
    let other = Store::in_memory();
    let earlier = Run::in_store(other.clone(), Some(TrainingConfig { seed: 7, ..tiny() }))
        .expect("another run");
    train(&earlier, 1).expect("trains");
    for file in [checkpoint::WEIGHTS_FILE, checkpoint::METADATA_FILE] {
        let key = format!("checkpoints/gen-0001/{file}");
        store
            .put(&key, other.get(&key).expect("get").expect("present"))
            .expect("replaced");
    }
    let (_, path) = run.latest_checkpoint().expect("read").expect("one");
    assert_eq!(
        fs::read(path.join(checkpoint::METADATA_FILE)).expect("cached"),
        other
            .get("checkpoints/gen-0001/checkpoint.json")
            .expect("get")
            .expect("present")
    );
}

#[test]
fn a_shard_the_store_refused_is_written_by_the_next_worker() {
    let store = Store::in_memory();
    let run = Run::in_store(store.clone(), Some(tiny())).expect("new run");
    let game = Heraldis::default();
    let play = || {
        run.selfplay(
            |_| game.clone(),
            game.spec(),
            StopAfter::Generations(1),
            |_| {},
        )
        .expect("plays")
    };
    play();
    // The shard as a worker keeps it when the store does not take it: out
    // of the store, in the spool.
    let name = run.shard_names().expect("listed").remove(0);
    let bytes = store.get(&name).expect("get").expect("present");
    store.delete(&name).expect("deleted");
    let kept = run.spool(&name, &bytes).expect("spooled");
    assert!(kept.is_file());
    // A damaged file beside it is set aside, not sent.
    let damaged = run.spool_directory().join("0-damaged.shard");
    fs::write(&damaged, b"not a shard").expect("written");
    // The next worker writes the kept shard under its name first.
    play();
    let names = run.shard_names().expect("listed");
    assert_eq!(names.len(), 2);
    assert_eq!(store.get(&name).expect("get"), Some(bytes));
    assert!(!kept.exists() && !damaged.exists());
    assert!(damaged.with_extension("damaged").is_file());
    fs::remove_dir_all(run.spool_directory()).expect("cleaned");
}
