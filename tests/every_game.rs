//! Every command of the README, for every game, run as a user runs the
//! installed program: from a directory outside the checkout, with the
//! shipped models found inside the program.

use std::path::Path;

use assert_cmd::Command;

/// The games, with the name of their first player (as the engine protocol
/// and the reports write it) and, for a game whose games run to hundreds
/// of plies, rules that end them sooner for the small training run.
const GAMES: [(&str, &str, Option<&str>); 4] = [
    ("heraldis", "light", None),
    ("havannah", "white", None),
    ("halma", "white", None),
    ("bulltricker", "white", Some("plies=60")),
];

/// The program, started in `directory`.
fn grandmaitre(directory: &Path) -> Command {
    let mut command = Command::cargo_bin("grandmaitre").expect("the binary is built");
    command.current_dir(directory);
    command
}

/// Runs `args` in `directory` and returns stdout; fails on a non-zero exit.
fn run(directory: &Path, args: &[&str]) -> String {
    let output = grandmaitre(directory).args(args).output().expect("runs");
    assert!(
        output.status.success(),
        "grandmaitre {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A copy of the shipped checkpoint of `game` in `directory`.
fn copy_checkpoint(game: &str, directory: &Path) -> String {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("checkpoints")
        .join(game);
    let to = directory.join(format!("{game}-model"));
    std::fs::create_dir_all(&to).expect("model directory");
    for file in ["checkpoint.json", "weights.bpk"] {
        std::fs::copy(from.join(file), to.join(file)).expect("copy");
    }
    to.display().to_string()
}

/// A small training run's settings that leave the anchors to the game.
const TINY_RUN: &str = "[network]\nchannels = 8\nblocks = 1\n\n[selfplay]\ngames_per_generation = 2\ngames_per_shard = 2\ngames_in_flight = 2\nfull_simulations = 8\ncheap_simulations = 4\n\n[optimizer]\nbatch_size = 16\nsteps_per_generation = 2\n\n[evaluation]\nevery = 1\ngames = 2\nsimulations = 4\n";

fn every_command((game, first, short_games): (&str, &str, Option<&str>)) {
    let directory = tempfile::tempdir().expect("temp dir");
    let here = directory.path();

    // perft, with and without --divide.
    let total = run(here, &["perft", "--game", game, "--depth", "2"]);
    let divided = run(here, &["perft", "--game", game, "--depth", "2", "--divide"]);
    assert!(total.starts_with("perft 2 "), "{total}");
    assert_eq!(divided.lines().last(), total.lines().last());

    // show.
    let board = run(here, &["show", "--game", game]);
    assert!(board.contains("legal moves"), "{board}");

    // arena: the network player loads this game's shipped model (its
    // search alone: with Bulltricker's tactics these two games, one of
    // them to the 400-ply cap, take about a minute instead of a second or
    // two; advise and the engine protocol below search with them).
    let report = json(&run(
        here,
        &[
            "arena",
            "--game",
            game,
            "--a",
            "mcts:sims=8,tactics=0",
            "--b",
            "random",
            "--games",
            "2",
            "--openings",
            "1",
            "--json",
        ],
    ));
    assert_eq!(report["games"], 2);

    // advise and winprob: the same bar.
    let advice = json(&run(
        here,
        &["advise", "--game", game, "--sims", "16", "--json"],
    ));
    let bar = json(&run(here, &["winprob", "--game", game, "--json"]));
    assert_eq!(advice["side_to_move"], first);
    assert_eq!(advice[first], bar[first], "{advice} {bar}");
    assert_eq!(bar["calibrated"], advice["calibrated"]);

    // gtp: the bar again, and a move.
    let output = grandmaitre(here)
        .args(["gtp", "--game", game, "--sims", "16"])
        .write_stdin(format!("gm-winprob\ngenmove {first}\nquit\n"))
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let answers = String::from_utf8(output.stdout).expect("utf-8");
    let answers: Vec<&str> = answers.trim_end().split("\n\n").collect();
    let first_wins = bar[first].as_f64().expect("probability");
    assert_eq!(
        answers[0].split(' ').nth(1),
        Some(format!("{first_wins:.4}").as_str())
    );
    assert!(
        answers[1].starts_with("= ") && answers[1].len() > 2,
        "{answers:?}"
    );

    // calibrate: measured on the shipped model, fitted on a copy.
    run(
        here,
        &[
            "calibrate",
            "--game",
            game,
            "--games",
            "4",
            "--level",
            "1",
            "--opening-plies",
            "1",
            "--dry-run",
            "--report",
            "shipped-report",
        ],
    );
    assert!(here.join("shipped-report/calibration.md").is_file());
    let model = copy_checkpoint(game, here);
    run(
        here,
        &[
            "calibrate",
            "--game",
            game,
            "--model",
            &model,
            "--games",
            "4",
            "--level",
            "1",
            "--opening-plies",
            "1",
        ],
    );
    assert!(Path::new(&model).join("reliability.png").is_file());

    // train with the game's own default anchors, then more self-play.
    std::fs::write(here.join("tiny.toml"), TINY_RUN).expect("config");
    let mut train = vec![
        "train",
        "--game",
        game,
        "--run",
        "run",
        "--config",
        "tiny.toml",
        "--generations",
        "1",
    ];
    if let Some(rules) = short_games {
        train.extend(["--rules", rules]);
    }
    let trained = run(here, &train);
    assert!(trained.contains("generation 1:"), "{trained}");
    assert!(
        trained.contains("against "),
        "rated against an anchor: {trained}"
    );
    let settings = std::fs::read_to_string(here.join("run/config.toml")).expect("config.toml");
    assert!(settings.contains("anchors = ["), "{settings}");
    run(
        here,
        &["selfplay", "--game", game, "--run", "run", "--shards", "1"],
    );

    // export.
    run(
        here,
        &[
            "export", "--game", game, "--model", &model, "--out", "export",
        ],
    );
    let description =
        json(&std::fs::read_to_string(here.join("export/model.json")).expect("model.json"));
    assert_eq!(description["game"], game);
    assert!(here.join("export/model.onnx").is_file());
    // Without --model: the shipped model, as every other command takes it.
    run(here, &["export", "--game", game, "--out", "shipped-export"]);
    let shipped =
        json(&std::fs::read_to_string(here.join("shipped-export/model.json")).expect("model.json"));
    assert_eq!(shipped["game"], game);
    assert_eq!(shipped["network"], description["network"]);

    // The benchmarks.
    run(
        here,
        &[
            "bench", "perft", "--game", game, "--depth", "2", "--repeat", "1",
        ],
    );
    run(
        here,
        &[
            "bench",
            "search",
            "--game",
            game,
            "--simulations",
            "100",
            "--repeat",
            "1",
        ],
    );
    run(
        here,
        &[
            "bench",
            "nn",
            "--game",
            game,
            "--batches",
            "1",
            "--seconds",
            "0.05",
            "--burn",
            "none",
        ],
    );
    run(
        here,
        &["bench", "winprob", "--game", game, "--positions", "3"],
    );
    let text = run(
        here,
        &[
            "bench",
            "tactics",
            "--game",
            game,
            "--depth",
            "2",
            "--positions",
            "3",
        ],
    );
    assert!(text.contains("2 plies, one thread, 3 positions"), "{text}");
    run(
        here,
        &[
            "bench",
            "train",
            "--game",
            game,
            "--backends",
            "flex",
            "--steps",
            "1",
            "--warmup",
            "0",
            "--batch",
            "8",
            "--channels",
            "8",
            "--blocks",
            "1",
        ],
    );
    // The network a training config describes, at its batch size.
    std::fs::write(
        here.join("pooled.toml"),
        "[network]\nheads = \"pooled\"\nchannels = 8\nblocks = 1\n[optimizer]\nbatch_size = 4\n",
    )
    .expect("settings");
    let text = run(
        here,
        &[
            "bench",
            "train",
            "--game",
            game,
            "--backends",
            "flex",
            "--steps",
            "1",
            "--warmup",
            "0",
            "--config",
            "pooled.toml",
        ],
    );
    assert!(
        text.contains("8 channels × 1 blocks, pooled heads") && text.contains("batch 4,"),
        "{text}"
    );
    std::fs::write(
        here.join("few-games.toml"),
        "[selfplay]\ngames_in_flight = 2\nfull_simulations = 8\ncheap_simulations = 4\n",
    )
    .expect("settings");
    let text = run(
        here,
        &[
            "bench",
            "selfplay",
            "--game",
            game,
            "--channels",
            "8",
            "--blocks",
            "1",
            "--pooled",
            "--config",
            "few-games.toml",
            "--seconds",
            "0.1",
        ],
    );
    assert!(text.contains(" positions/s, "), "{text}");
    assert!(text.contains("self-play evaluations / raw"), "{text}");
}

#[test]
fn every_command_plays_heraldis_from_outside_the_checkout() {
    every_command(GAMES[0]);
}

#[test]
fn every_command_plays_havannah_from_outside_the_checkout() {
    every_command(GAMES[1]);
}

#[test]
fn every_command_plays_halma_from_outside_the_checkout() {
    every_command(GAMES[2]);
}

#[test]
fn every_command_plays_bulltricker_from_outside_the_checkout() {
    every_command(GAMES[3]);
}
