//! Self-play workers and a trainer as separate processes meeting only in
//! the run's storage: a local directory here, and an S3-protocol server
//! when `GM_S3_RUN` names a run URL on one (`scripts/test-s3.sh` starts a
//! server on 127.0.0.1 and sets it). Every shard is read once by the
//! trainer, and a worker killed at any moment leaves nothing half-written
//! that anyone reads.

use std::io::Read;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use grandmaitre_train::Run;
use grandmaitre_train::store::Store;

/// Two games a shard, six a generation: each generation waits for three
/// workers' shards.
const SETTINGS: &str = "[network]\nchannels = 8\nblocks = 1\n\
[selfplay]\ngames_per_generation = 6\ngames_per_shard = 2\ngames_in_flight = 2\n\
full_simulations = 32\ncheap_simulations = 8\n\
[optimizer]\nbatch_size = 16\nsteps_per_generation = 2\n\
[evaluation]\nevery = 0\n";

fn grandmaitre(args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::cargo_bin("grandmaitre").expect("binary");
    command
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn finished(child: Child, what: &str) -> String {
    let output = child.wait_with_output().expect("waited");
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{what}: {stderr}");
    String::from_utf8_lossy(&output.stdout).to_string() + &stderr
}

/// Reads `pipe` to its end on a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            pipe.read_to_string(&mut text).expect("read");
        }
        text
    })
}

/// [`finished`], but a process still running after `limit` is killed and
/// the test fails with what it printed (a slow or stuck run fails instead
/// of hanging the suite).
fn finished_within(mut child: Child, what: &str, limit: Duration) -> String {
    // Read both pipes while waiting, so that a full pipe cannot stall it.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("polled") {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill().expect("SIGKILL");
            child.wait().expect("reaped");
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = stdout.join().expect("stdout read");
    let stderr = stderr.join().expect("stderr read");
    match status {
        None => panic!("{what}: still running after {limit:?}: {stderr}"),
        Some(status) => assert!(status.success(), "{what}: {stderr}"),
    }
    stdout + &stderr
}

/// The run at `location`, trained for two generations by a trainer that
/// waits for three workers (one of them killed mid-way).
fn workers_and_a_trainer(location: &str) {
    let settings = tempfile::NamedTempFile::new().expect("settings file");
    std::fs::write(settings.path(), SETTINGS).expect("written");
    let settings = settings.path().to_str().expect("utf-8").to_string();
    // The trainer creates the run and waits for the workers' games.
    let trainer = grandmaitre(&[
        "train",
        "--run",
        location,
        "--config",
        &settings,
        "--workers",
        "--poll",
        "0.1s",
        "--generations",
        "2",
    ])
    .spawn()
    .expect("trainer");
    let start = Instant::now();
    let store = Store::open(location).expect("the run's store");
    while store.get("config.toml").expect("readable").is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "no run created");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A worker killed at a random moment: whatever it was writing is lost,
    // and never seen half-written.
    let doomed = grandmaitre(&["selfplay", "--run", location, "--time", "60s"])
        .spawn()
        .expect("worker");
    let workers: Vec<Child> = (0..2)
        .map(|_| {
            grandmaitre(&["selfplay", "--run", location, "--time", "6s"])
                .spawn()
                .expect("worker")
        })
        .collect();
    // The moment varies from run to run within the window of the workers'
    // first shards; the seed that chose it is printed, and GM_TEST_SEED
    // replays it.
    let seed = std::env::var("GM_TEST_SEED")
        .ok()
        .map(|text| text.parse::<u64>().expect("GM_TEST_SEED is a whole number"))
        .unwrap_or_else(|| u64::from(std::process::id()));
    eprintln!(
        "the worker is killed {} ms in (GM_TEST_SEED={seed})",
        1500 + seed % 1000
    );
    std::thread::sleep(Duration::from_millis(1500 + seed % 1000));
    let mut doomed = doomed;
    doomed.kill().expect("SIGKILL");
    doomed.wait().expect("reaped");
    let trainer_log = finished_within(trainer, "trainer", Duration::from_secs(300));
    let worker_logs: Vec<String> = workers
        .into_iter()
        .map(|worker| finished(worker, "worker"))
        .collect();
    let run = Run::open(location, None).expect("the run");
    let names = run.shard_names().expect("listed");
    // Each worker names every shard it wrote, with its running totals.
    for log in &worker_logs {
        let shards: Vec<&str> = log
            .lines()
            .filter(|line| line.contains(" positions/s), playing generation "))
            .collect();
        assert!(!shards.is_empty(), "{log}");
        for (index, line) in shards.iter().enumerate() {
            let (name, totals) = line.split_once(": ").expect("NAME: totals");
            assert!(
                names.iter().any(|n| n.contains(name)),
                "{name} not in {names:?}"
            );
            let games = 2 * (index + 1);
            assert!(totals.starts_with(&format!("{games} games, ")), "{line}");
        }
    }
    // The trainer played none: each generation says how long it waited.
    assert!(
        trainer_log.contains("s for games, trained "),
        "{trainer_log}"
    );
    assert!(names.len() >= 6, "{} shards", names.len());
    // Every shard reads whole: the killed worker left nothing visible that
    // is not.
    for name in &names {
        let games = run.read_shard(name).expect("a whole shard");
        assert_eq!(games.len(), 2, "{name}");
        assert!(!name.contains("-gen"), "the trainer played none: {name}");
    }
    // Two generations, the second trained on at least six more games.
    assert_eq!(run.latest_generation().expect("pointer"), Some(2));
    let log = run.store().get("log.csv").expect("get").expect("log");
    let log = String::from_utf8(log).expect("utf-8");
    let games: Vec<usize> = log
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .nth(1)
                .expect("games")
                .parse()
                .expect("a count")
        })
        .collect();
    assert_eq!(games.len(), 2, "{log}");
    assert!(games[0] >= 6 && games[1] >= games[0] + 6, "{log}");
    // The trainer read each shard it used once.
    let read = trainer_log
        .lines()
        .find_map(|line| line.strip_prefix("shards read: "))
        .expect("the trainer's count of shards read");
    let (shards, reads) = read.split_once(" (").expect("N (M reads)");
    assert_eq!(
        format!("{shards} reads)"),
        reads.to_string(),
        "each shard once: {read}"
    );
    assert!(shards.parse::<usize>().expect("a count") >= 3, "{read}");
}

#[test]
fn workers_and_a_trainer_share_a_local_run() {
    let directory = tempfile::tempdir().expect("temp dir");
    let run = directory.path().join("run");
    workers_and_a_trainer(run.to_str().expect("utf-8"));
}

#[test]
#[ignore = "needs an S3-protocol server: scripts/test-s3.sh starts one and runs it"]
fn workers_and_a_trainer_share_a_run_on_an_s3_server() {
    // Set by scripts/test-s3.sh, which starts the server.
    let base = std::env::var("GM_S3_RUN")
        .expect("GM_S3_RUN names a run on an S3 server (scripts/test-s3.sh sets it)");
    let location = format!(
        "{}/distributed-{}",
        base.trim_end_matches('/'),
        std::process::id()
    );
    workers_and_a_trainer(&location);
}
