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
/// workers' shards. The workers play on while the trainer trains, and
/// write thousands of shards a minute: a window of 2 000 positions keeps
/// the trainer's reads to the newest hundred or so.
const SETTINGS: &str = "[network]\nchannels = 8\nblocks = 1\n\
[selfplay]\ngames_per_generation = 6\ngames_per_shard = 2\ngames_in_flight = 2\n\
full_simulations = 32\ncheap_simulations = 8\n\
[optimizer]\nbatch_size = 16\nsteps_per_generation = 2\nreplay_positions = 2000\n\
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

/// The shards a worker's output reports, with its running count of games.
fn reported_shards(log: &str) -> Vec<(String, usize)> {
    log.lines()
        .filter(|line| line.contains(" positions/s), playing generation "))
        .map(|line| {
            let (name, totals) = line.split_once(": ").expect("NAME: totals");
            let games = totals
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("N games");
            (name.to_string(), games)
        })
        .collect()
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
    // Each worker names every shard it wrote, with its running totals; at
    // the end of its time it writes the games it finished (a last shard
    // of fewer games, or none).
    let mut reported = Vec::new();
    for log in &worker_logs {
        let shards = reported_shards(log);
        assert!(!shards.is_empty(), "{log}");
        let mut total = 0;
        for (index, (name, games)) in shards.iter().enumerate() {
            assert!(names.contains(name), "{name} not in {names:?}");
            let added = games - total;
            let last = index + 1 == shards.len();
            assert!(added == 2 || (last && added == 1), "{log}");
            total = *games;
            reported.push((name.clone(), added));
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
        let expected = reported
            .iter()
            .find(|(reported, _)| reported == name)
            .map_or(2, |(_, games)| *games);
        assert_eq!(games.len(), expected, "{name}");
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

/// Sends `signal` (STOP, CONT, TERM) to the process `pid`.
fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

#[test]
#[ignore = "needs an S3-protocol server: scripts/test-s3.sh starts one and runs it"]
fn a_run_on_an_s3_server_rides_out_the_server_freezing() {
    // Set by scripts/test-s3.sh, which starts the server.
    let base = std::env::var("GM_S3_RUN")
        .expect("GM_S3_RUN names a run on an S3 server (scripts/test-s3.sh sets it)");
    let server: u32 = std::env::var("GM_S3_SERVER_PID")
        .expect("GM_S3_SERVER_PID names the server's process (scripts/test-s3.sh sets it)")
        .parse()
        .expect("a process id");
    let location = format!(
        "{}/freeze-{}",
        base.trim_end_matches('/'),
        std::process::id()
    );
    let settings = tempfile::NamedTempFile::new().expect("settings file");
    std::fs::write(settings.path(), SETTINGS).expect("written");
    let settings = settings.path().to_str().expect("utf-8").to_string();
    // Every request gives up after 2 s: the freeze outlasts several.
    let with_timeout = |mut command: std::process::Command| {
        command.env("AWS_TIMEOUT", "2s");
        command
    };
    let trainer = with_timeout(grandmaitre(&[
        "train",
        "--run",
        &location,
        "--config",
        &settings,
        "--workers",
        "--poll",
        "0.2s",
        "--generations",
        "3",
    ]))
    .spawn()
    .expect("trainer");
    let store = Store::open(&location).expect("the run's store");
    let start = Instant::now();
    while store.get("config.toml").expect("readable").is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "no run created");
        std::thread::sleep(Duration::from_millis(50));
    }
    let workers: Vec<Child> = (0..2)
        .map(|_| {
            with_timeout(grandmaitre(&[
                "selfplay", "--run", &location, "--time", "10m",
            ]))
            .spawn()
            .expect("worker")
        })
        .collect();
    // Once the first generation is trained, the server stops answering for
    // 15 s (its connections stay open: requests time out).
    while store.get("log.csv").expect("readable").is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "no generation trained"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    signal(server, "STOP");
    std::thread::sleep(Duration::from_secs(15));
    signal(server, "CONT");
    let trainer_log = finished_within(trainer, "trainer", Duration::from_secs(300));
    // Stopped on purpose, each worker writes the games it finished and
    // ends well.
    let pids: Vec<u32> = workers.iter().map(Child::id).collect();
    for pid in pids {
        signal(pid, "TERM");
    }
    let worker_logs: Vec<String> = workers
        .into_iter()
        .map(|worker| finished_within(worker, "worker", Duration::from_secs(60)))
        .collect();
    // The trainer lists the run every 0.2 s: its first request of the
    // freeze times out after 2 s, and it says so, then that the server is
    // back (the client's own silent retries are off).
    assert!(
        trainer_log.contains("; retrying for up to 900 s"),
        "the trainer did not feel the freeze: {trainer_log}"
    );
    assert!(trainer_log.contains(" answers again: "), "{trainer_log}");
    // Every shard a worker reported is in the bucket, whole, with the
    // games it counted.
    let run = Run::open(&location, None).expect("the run");
    let names = run.shard_names().expect("listed");
    for log in &worker_logs {
        let mut total = 0;
        for (name, games) in reported_shards(log) {
            assert!(names.contains(&name), "{name} not in {names:?}");
            assert_eq!(run.read_shard(&name).expect("whole").len(), games - total);
            total = games;
        }
        assert!(log.contains("asked to stop"), "{log}");
    }
    // Three generations, one after the other, and the newest loads.
    assert_eq!(generations_follow_and_the_newest_loads(&run), 3);
}

/// Checks that `log.csv` logs generations 1, 2, … one after the other, the
/// pointer naming the last, whose checkpoint loads; returns it.
fn generations_follow_and_the_newest_loads(run: &Run) -> u32 {
    let log = run.store().get("log.csv").expect("get").expect("a log");
    let log = String::from_utf8(log).expect("utf-8");
    let generations: Vec<u32> = log
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .next()
                .expect("generation")
                .parse()
                .expect("a number")
        })
        .collect();
    let expected: Vec<u32> = (1..=generations.len() as u32).collect();
    assert_eq!(generations, expected, "{log}");
    let newest = run
        .latest_generation()
        .expect("pointer")
        .expect("a checkpoint");
    assert_eq!(Some(&newest), generations.last());
    let (_, path) = run.latest_checkpoint().expect("read").expect("one");
    grandmaitre_model::Checkpoint::load(
        &path,
        grandmaitre_engine::Game::spec(&grandmaitre_engine::heraldis::Heraldis::default()),
        &burn::tensor::Device::flex(),
    )
    .expect("the newest checkpoint loads");
    newest
}

/// A process of the outage schedule, its output kept in a file (a killed
/// process's too).
struct Logged {
    child: Child,
    what: String,
    log: std::path::PathBuf,
    /// Whether the test stopped it.
    stopped: bool,
}

impl Logged {
    fn spawn(args: &[&str], what: &str, folder: &std::path::Path, threads: Option<&str>) -> Logged {
        let log = folder.join(format!("{what}.log"));
        let file = std::fs::File::create(&log).expect("log file");
        let mut command = std::process::Command::cargo_bin("grandmaitre").expect("binary");
        command
            .args(args)
            .current_dir(std::env::temp_dir())
            .stdout(file.try_clone().expect("log file"))
            .stderr(file);
        if let Some(threads) = threads {
            command.env("RAYON_NUM_THREADS", threads);
        }
        Logged {
            child: command.spawn().expect(what),
            what: what.to_string(),
            log,
            stopped: false,
        }
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The last lines of its output.
    fn tail(&self) -> String {
        let text = self.text();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(5)..].join("\n")
    }
}

#[test]
#[ignore = "11 minutes of outages over an S3 server: scripts/store-outages.sh runs it"]
fn a_run_rides_out_the_outage_schedule() {
    let base = std::env::var("GM_S3_RUN").expect("GM_S3_RUN (scripts/store-outages.sh sets it)");
    let server: u32 = std::env::var("GM_S3_SERVER_PID")
        .expect("GM_S3_SERVER_PID (scripts/store-outages.sh sets it)")
        .parse()
        .expect("a process id");
    let location = format!(
        "{}/outages-{}",
        base.trim_end_matches('/'),
        std::process::id()
    );
    let folder = tempfile::tempdir().expect("temp dir");
    let settings = folder.path().join("settings.toml");
    std::fs::write(
        &settings,
        "[network]\nchannels = 16\nblocks = 2\n\
         [selfplay]\ngames_per_generation = 64\ngames_per_shard = 16\ngames_in_flight = 8\n\
         full_simulations = 200\ncheap_simulations = 32\n\
         [optimizer]\nbatch_size = 64\nsteps_per_generation = 40\n\
         [evaluation]\nevery = 0\n",
    )
    .expect("settings");
    let settings = settings.to_str().expect("utf-8").to_string();
    let trainer_args = [
        "train",
        "--run",
        &location,
        "--config",
        &settings,
        "--workers",
        "--poll",
        "1s",
        "--generations",
        "100000",
    ];
    let worker_args = ["selfplay", "--run", &location, "--time", "1h"];
    let start = Instant::now();
    let mut trainers = vec![Logged::spawn(
        &trainer_args,
        "trainer-1",
        folder.path(),
        None,
    )];
    let store = Store::open(&location).expect("the run's store");
    while store.get("config.toml").expect("readable").is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "no run created");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut workers: Vec<Logged> = ["a-1", "b-1"]
        .iter()
        .map(|name| {
            Logged::spawn(
                &worker_args,
                &format!("worker-{name}"),
                folder.path(),
                Some("1"),
            )
        })
        .collect();
    // Processes that ended without being told to.
    let mut ended_alone: Vec<String> = Vec::new();
    let mut watch_until = |seconds: u64, trainers: &mut Vec<Logged>, workers: &mut Vec<Logged>| {
        while start.elapsed() < Duration::from_secs(seconds) {
            for process in trainers.iter_mut().chain(workers.iter_mut()) {
                if process.stopped {
                    continue;
                }
                if let Ok(Some(status)) = process.child.try_wait() {
                    let line = format!(
                        "{} ended alone ({status}): {}",
                        process.what,
                        process.tail()
                    );
                    eprintln!("{line}");
                    ended_alone.push(line);
                    process.stopped = true;
                }
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    };
    let freeze = |seconds: u64| {
        eprintln!(
            "{:.0} s: the server stops answering for {seconds} s",
            start.elapsed().as_secs_f64()
        );
        signal(server, "STOP");
        std::thread::sleep(Duration::from_secs(seconds));
        signal(server, "CONT");
    };
    let kill = |process: &mut Logged| {
        eprintln!(
            "{:.0} s: SIGKILL {}",
            start.elapsed().as_secs_f64(),
            process.what
        );
        process.stopped = true;
        process.child.kill().expect("SIGKILL");
        process.child.wait().expect("reaped");
    };
    // The 5-minute schedule: freezes of 20 s and 60 s, three processes
    // killed and restarted.
    let respawn = |group: &mut Vec<Logged>, index: usize, args: &[&str], what: &str, threads| {
        kill(&mut group[index]);
        group.push(Logged::spawn(args, what, folder.path(), threads));
    };
    watch_until(30, &mut trainers, &mut workers);
    freeze(20);
    watch_until(70, &mut trainers, &mut workers);
    respawn(&mut workers, 0, &worker_args, "worker-a-2", Some("1"));
    watch_until(100, &mut trainers, &mut workers);
    respawn(&mut trainers, 0, &trainer_args, "trainer-2", None);
    watch_until(130, &mut trainers, &mut workers);
    freeze(60);
    watch_until(200, &mut trainers, &mut workers);
    respawn(&mut workers, 1, &worker_args, "worker-b-2", Some("1"));
    watch_until(300, &mut trainers, &mut workers);
    // Then 5 minutes without an answer, and a minute after.
    freeze(300);
    watch_until(660, &mut trainers, &mut workers);
    // The workers are stopped on purpose: each writes what it finished.
    for worker in workers.iter().skip(2) {
        signal(worker.child.id(), "TERM");
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    for worker in workers.iter_mut().skip(2) {
        let status = loop {
            if let Some(status) = worker.child.try_wait().expect("polled") {
                break status;
            }
            assert!(Instant::now() < deadline, "{} did not stop", worker.what);
            std::thread::sleep(Duration::from_millis(200));
        };
        assert!(status.success(), "{}: {}", worker.what, worker.text());
    }
    // The trainer waits for the next games: stopped as a scheduler would.
    let trainer = trainers.last_mut().expect("a trainer");
    signal(trainer.child.id(), "TERM");
    trainer.child.wait().expect("reaped");
    assert!(ended_alone.is_empty(), "{ended_alone:#?}");
    // Every shard a worker reported is in the bucket and decodes.
    let run = Run::open(&location, None).expect("the run");
    let names = run.shard_names().expect("listed");
    let mut reported = 0;
    let mut games = 0;
    for worker in &workers {
        let mut total = 0;
        for (name, count) in reported_shards(&worker.text()) {
            assert!(
                names.contains(&name),
                "{}: {name} is not in the bucket",
                worker.what
            );
            assert_eq!(
                run.read_shard(&name).expect("decodes").len(),
                count - total,
                "{name}"
            );
            total = count;
            reported += 1;
        }
        games += total;
    }
    for name in &names {
        run.read_shard(name).expect("every shard decodes");
    }
    // Generations one after the other, and the pointer's checkpoint loads.
    let newest = generations_follow_and_the_newest_loads(&run);
    let waits: usize = trainers
        .iter()
        .chain(&workers)
        .map(|process| process.text().matches("; retrying for up to").count())
        .sum();
    eprintln!(
        "outage schedule: {:.0} s, {} processes, none ended alone; {reported} shards reported \
         ({games} games), all in the bucket and whole, {} shards in all; generations 1-{newest} \
         consecutive, gen-{newest:04} loads; {waits} waits for the store",
        start.elapsed().as_secs_f64(),
        trainers.len() + workers.len(),
        names.len()
    );
}
