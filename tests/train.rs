//! End-to-end tests of `grandmaitre train`: a seconds-long smoke run, and a
//! run killed (SIGKILL) in the middle of a generation that resumes intact.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;

const TINY: &str = "[network]\nchannels = 8\nblocks = 1\n\
[selfplay]\ngames_per_generation = 8\ngames_per_shard = 2\ngames_in_flight = 2\n\
full_simulations = 48\ncheap_simulations = 16\n\
[optimizer]\nbatch_size = 16\nsteps_per_generation = 4\n\
[evaluation]\nevery = 1\ngames = 2\nsimulations = 8\nanchors = [\"random\"]\n";

fn write_config(directory: &Path) -> std::path::PathBuf {
    let path = directory.join("tiny.toml");
    std::fs::write(&path, TINY).expect("config");
    path
}

/// `grandmaitre train --run RUN --config CONFIG` plus `extra` arguments.
fn train(run: &Path, config: &Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("grandmaitre")
        .expect("binary")
        .args(["train", "--run"])
        .arg(run)
        .arg("--config")
        .arg(config)
        .args(extra)
        .output()
        .expect("runs")
}

fn shards(run: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(run.join("shards"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "shard"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_smoke_run_trains_two_generations() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = write_config(directory.path());
    let run = directory.path().join("run");
    let output = train(&run, &config, &["--generations", "2"]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("generation 1: 8 games played"), "{text}");
    assert!(text.contains("generation 2: 16 games played"), "{text}");
    assert!(run.join("checkpoints/gen-0002/checkpoint.json").exists());
    // Each generation is rated against the anchor, and from the second on
    // against the checkpoint rated before it.
    assert!(text.contains("against random:"), "{text}");
    assert!(text.contains("gen-0001:"), "{text}");
    let ratings = std::fs::read_to_string(run.join("evaluation.csv")).expect("ratings");
    let lines: Vec<&str> = ratings.lines().collect();
    assert_eq!(
        lines[0],
        "generation,games,opponent,matches,score,elo,elo_low,elo_high"
    );
    assert_eq!(lines.len(), 4, "{ratings}");
    assert!(lines[1].starts_with("1,8,random,2,"), "{ratings}");
    // The strength curve is drawn after each rating.
    let chart = std::fs::read(run.join("strength.png")).expect("strength.png");
    assert_eq!(&chart[..4], b"\x89PNG");
}

#[test]
fn the_ndarray_backend_trains_too() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = write_config(directory.path());
    let run = directory.path().join("run");
    let output = train(&run, &config, &["--backend", "ndarray"]);
    assert!(output.status.success(), "{output:?}");
    // One generation of the tiny settings' 4 steps on 8 games, with finite
    // losses, into a checkpoint the default backend loads.
    let log = std::fs::read_to_string(run.join("log.csv")).expect("log");
    let fields: Vec<&str> = log
        .lines()
        .nth(1)
        .expect("a generation")
        .split(',')
        .collect();
    assert_eq!(fields[..2], ["1", "8"], "{log}");
    assert_eq!(fields[3], "4", "{log}");
    for loss in &fields[4..6] {
        let loss: f32 = loss.parse().expect("a loss");
        assert!(loss.is_finite() && loss > 0.0, "{log}");
    }
    let checkpoint = grandmaitre_model::Checkpoint::load(
        &run.join("checkpoints/gen-0001"),
        grandmaitre_engine::Game::spec(&grandmaitre_engine::heraldis::Heraldis::default()),
        &burn::tensor::Device::flex(),
    )
    .expect("loads on flex");
    assert_eq!(checkpoint.metadata.provenance.training_steps, 4);
    assert_eq!(checkpoint.metadata.provenance.games, 8);
}

#[test]
fn a_killed_run_resumes_without_losing_or_corrupting_anything() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = write_config(directory.path());
    let run = directory.path().join("run");
    let mut child = std::process::Command::cargo_bin("grandmaitre")
        .expect("binary")
        .args(["train", "--run"])
        .arg(&run)
        .arg("--config")
        .arg(&config)
        .args(["--generations", "50"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    // A generation is 4 shards of 2 games. Kill the run inside the self-play
    // of its second generation or a later one: the generation's first shard
    // written, three to come, its checkpoint not yet.
    // The run is stopped (SIGSTOP) before its shards are counted, so that
    // none can land between the count and the kill.
    let start = Instant::now();
    let inside_selfplay = |count: usize| count >= 5 && count % 4 == 1;
    let signal = |name: &str| {
        let status = std::process::Command::new("kill")
            .args([name, &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill {name}");
    };
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "never inside a generation's self-play: {} shards",
            shards(&run).len()
        );
        if inside_selfplay(shards(&run).len()) {
            signal("-STOP");
            if inside_selfplay(shards(&run).len()) {
                break;
            }
            signal("-CONT");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let before = shards(&run);
    assert!(
        inside_selfplay(before.len()),
        "not killed inside a generation's self-play: {} shards",
        before.len()
    );
    let generations_done = before.len() / 4;

    let output = Command::cargo_bin("grandmaitre")
        .expect("binary")
        .args(["train", "--run"])
        .arg(&run)
        .args(["--generations", "1"])
        .output()
        .expect("resumes");
    assert!(output.status.success(), "{output:?}");
    // Every shard from before the kill is still there, and every shard reads.
    let after = shards(&run);
    for path in &before {
        assert!(after.contains(path), "{path:?} lost");
    }
    for path in &after {
        grandmaitre_selfplay::shard::read(path).expect("whole shard");
    }
    // The checkpoints are whole and numbered without gaps; nothing half-written
    // is left beside them.
    let mut names: Vec<String> = std::fs::read_dir(run.join("checkpoints"))
        .expect("checkpoints")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    // The pointer to the newest, beside them.
    assert_eq!(names.pop().as_deref(), Some("latest"), "{names:?}");
    let latest = std::fs::read_to_string(run.join("checkpoints/latest")).expect("pointer");
    assert_eq!(Some(latest.trim()), names.last().map(String::as_str));
    for (index, name) in names.iter().enumerate() {
        assert_eq!(name, &format!("gen-{:04}", index + 1));
        assert!(
            run.join("checkpoints")
                .join(name)
                .join("weights.bpk")
                .exists()
        );
    }
    // The interrupted generation was finished, no more: its games topped up
    // to a whole generation, one more checkpoint and log line.
    assert_eq!(names.len(), generations_done + 1, "{names:?}");
    assert_eq!(after.len(), 4 * names.len(), "{} shards", after.len());
    let log = std::fs::read_to_string(run.join("log.csv")).expect("log");
    assert_eq!(log.lines().count(), names.len() + 1, "{log}");
}

#[test]
fn bad_training_arguments_get_one_line_errors() {
    let directory = tempfile::tempdir().expect("temp dir");
    let bad = directory.path().join("bad.toml");
    std::fs::write(&bad, "[network]\nchannels = -3\n").expect("config");
    let run = directory.path().join("run");
    let run = run.to_str().expect("path");
    let bad = bad.to_str().expect("path");
    let cases: [(Vec<&str>, &str); 4] = [
        (
            vec!["train", "--run", run, "--time", "soon"],
            "invalid --time 'soon': expected a duration such as 90s, 45m or 2h",
        ),
        (
            vec!["train", "--run", run, "--config", bad],
            "expected usize",
        ),
        (
            vec!["train", "--run", run, "--config", "/nonexistent.toml"],
            "reading /nonexistent.toml",
        ),
        (
            vec!["train", "--game", "chess", "--run", run],
            "unknown game 'chess'",
        ),
    ];
    for (args, message) in cases {
        let output = Command::cargo_bin("grandmaitre")
            .expect("binary")
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn a_selfplay_worker_adds_games_beside_training() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = write_config(directory.path());
    let run = directory.path().join("run");
    assert!(
        train(&run, &config, &["--generations", "1"])
            .status
            .success()
    );
    // A worker and the trainer on the same directory at once.
    let worker = std::process::Command::cargo_bin("grandmaitre")
        .expect("binary")
        .args(["selfplay", "--run"])
        .arg(&run)
        .args(["--shards", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    assert!(
        train(&run, &config, &["--generations", "1"])
            .status
            .success()
    );
    let output = worker.wait_with_output().expect("worker ends");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("6 self-play games added"), "{text}");
    // 2 generations × 8 games by the trainer, 3 shards × 2 by the worker.
    let games: usize = shards(&run)
        .iter()
        .map(|p| {
            grandmaitre_selfplay::shard::read(p)
                .expect("whole shard")
                .len()
        })
        .sum();
    assert_eq!(games, 16 + 6);
    let refused = Command::cargo_bin("grandmaitre")
        .expect("binary")
        .args(["selfplay", "--run"])
        .arg(directory.path().join("nothing"))
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8(refused.stderr).expect("utf-8");
    assert!(
        stderr.contains("is not a training run (no config.toml)"),
        "{stderr}"
    );
}

#[test]
fn a_run_keeps_its_rules_and_refuses_others() {
    let directory = tempfile::tempdir().expect("temp dir");
    let config = write_config(directory.path());
    let run = directory.path().join("run");
    let grandmaitre = |args: &[&str]| {
        Command::cargo_bin("grandmaitre")
            .expect("binary")
            .args(args)
            .arg("--run")
            .arg(&run)
            .output()
            .expect("runs")
    };
    let config = config.to_str().expect("path");
    let output = grandmaitre(&[
        "train",
        "--game",
        "havannah",
        "--rules",
        "base=4",
        "--config",
        config,
        "--generations",
        "1",
    ]);
    assert!(output.status.success(), "{output:?}");
    let settings = std::fs::read_to_string(run.join("config.toml")).expect("settings");
    assert!(settings.contains("rules = \"base=4 swap=1\""), "{settings}");
    // Resumed without --rules, the run plays its own board (37 cells).
    let output = grandmaitre(&["train", "--game", "havannah", "--generations", "1"]);
    assert!(output.status.success(), "{output:?}");
    let games = grandmaitre_selfplay::shard::read(&shards(&run)[0]).expect("shard");
    assert_eq!(games[0].parameters, "base=4 swap=1");
    // Other rules are refused by the trainer and a worker alike.
    for command in [
        vec![
            "train",
            "--game",
            "havannah",
            "--rules",
            "base=5",
            "--generations",
            "1",
        ],
        vec![
            "selfplay", "--game", "havannah", "--rules", "base=5", "--shards", "1",
        ],
    ] {
        let output = grandmaitre(&command);
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(
            stderr.trim(),
            "error: the run plays the rules 'base=4 swap=1', not 'base=5 swap=1': resume it without --rules, or use a new run"
        );
    }
}
