//! Halma through the installed program: perft with rules and moves, the
//! drawing, its baselines in the arena, the shipped model on both sizes,
//! a calibration per board, and one-line errors.

use assert_cmd::Command;

/// The program, started outside the checkout.
fn grandmaitre(directory: &std::path::Path) -> Command {
    let mut command = Command::cargo_bin("grandmaitre").expect("the binary is built");
    command.current_dir(directory);
    command
}

fn stdout(directory: &std::path::Path, args: &[&str]) -> String {
    let output = grandmaitre(directory).args(args).output().expect("runs");
    assert!(
        output.status.success(),
        "grandmaitre {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

fn one_line_error(directory: &std::path::Path, args: &[&str]) -> String {
    let output = grandmaitre(directory).args(args).output().expect("runs");
    assert_eq!(
        output.status.code(),
        Some(2),
        "grandmaitre {}",
        args.join(" ")
    );
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn perft_and_show_take_the_size_and_moves() {
    let directory = tempfile::tempdir().expect("temp dir");
    let here = directory.path();
    // The fixtures' counts (engine/tests/fixtures/halma.perft).
    assert_eq!(
        stdout(here, &["perft", "--game", "halma", "--depth", "3"]).trim(),
        "perft 3 20050"
    );
    assert_eq!(
        stdout(
            here,
            &[
                "perft", "--game", "halma", "--rules", "size=10", "--depth", "2"
            ]
        )
        .trim(),
        "perft 2 1024"
    );
    let after = stdout(
        here,
        &[
            "perft",
            "--game",
            "halma",
            "--rules",
            "size=10",
            "--moves",
            "a5-b6 j6-i5",
            "--depth",
            "1",
        ],
    );
    assert!(after.starts_with("perft 1 "), "{after}");
    let board = stdout(here, &["show", "--game", "halma", "--moves", "a2-c4"]);
    assert!(
        board.contains("position: 4BBBB/5BBB/6BB/7B/W1W5/WW6/1WW5/WWWW4 b 1 0"),
        "{board}"
    );
    assert!(board.contains("legal moves (24)"), "{board}");
}

#[test]
fn alpha_beta_beats_the_greedy_player() {
    let directory = tempfile::tempdir().expect("temp dir");
    let report = stdout(
        directory.path(),
        &[
            "arena",
            "--game",
            "halma",
            "--a",
            "alphabeta:depth=3",
            "--b",
            "greedy",
            "--games",
            "4",
            "--json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(report.trim()).expect("JSON");
    assert_eq!(report["games"], 4);
    assert!(report["score"].as_f64().expect("score") >= 0.75, "{report}");
}

#[test]
fn the_shipped_model_advises_on_both_sizes() {
    let directory = tempfile::tempdir().expect("temp dir");
    let here = directory.path();
    for size in ["size=8", "size=10"] {
        let advice = stdout(
            here,
            &[
                "advise", "--game", "halma", "--rules", size, "--sims", "32", "--json",
            ],
        );
        let advice: serde_json::Value = serde_json::from_str(advice.trim()).expect("JSON");
        let best = advice["move"].as_str().expect("a move");
        // The advice is a legal move of that board: perft plays it.
        let after = stdout(
            here,
            &[
                "perft", "--game", "halma", "--rules", size, "--moves", best, "--depth", "1",
            ],
        );
        assert!(after.starts_with("perft 1 "), "{size} {best}: {after}");
        let white = advice["white"].as_f64().expect("P(white wins)");
        assert!((0.0..=1.0).contains(&white), "{advice}");
        // The shipped model predicts the plies left, at the root and for
        // every move the search visited.
        let plies = advice["plies_left"].as_f64().expect("plies left");
        assert!(plies > 0.0, "{advice}");
        for row in advice["alternatives"].as_array().expect("rows") {
            let visited = row["visits"].as_u64().expect("visits") > 0;
            assert_eq!(row["plies_left"].is_number(), visited, "{row}");
        }
    }
}

/// The start's P(white wins) on the board `size`, by the checkpoint at
/// `model`.
fn start_bar(here: &std::path::Path, model: &str, size: &str) -> f64 {
    let bar = stdout(
        here,
        &[
            "winprob", "--game", "halma", "--rules", size, "--model", model, "--json",
        ],
    );
    let bar: serde_json::Value = serde_json::from_str(bar.trim()).expect("JSON");
    assert_eq!(bar["calibrated"], true, "{bar}");
    bar["white"].as_f64().expect("P(white wins)")
}

fn metadata(model: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(format!("{model}/checkpoint.json")).expect("metadata");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn each_board_keeps_its_own_calibration() {
    let directory = tempfile::tempdir().expect("temp dir");
    let here = directory.path();
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/halma");
    let model = here.join("model");
    std::fs::create_dir(&model).expect("model directory");
    for file in ["checkpoint.json", "weights.bpk"] {
        std::fs::copy(shipped.join(file), model.join(file)).expect("copy");
    }
    let model = model.display().to_string();
    let before = [
        start_bar(here, &model, "size=8"),
        start_bar(here, &model, "size=10"),
    ];
    let general = metadata(&model)["calibration"].clone();
    let calibrate = |extra: &[&str]| {
        let mut args = vec![
            "calibrate",
            "--game",
            "halma",
            "--model",
            &model,
            "--level",
            "1",
        ];
        args.extend_from_slice(extra);
        stdout(here, &args)
    };

    // Games of 10 × 10 fit 10 × 10's own calibration; 8 × 8 keeps its bar.
    let said = calibrate(&[
        "--rules",
        "size=10",
        "--games",
        "4",
        "--opening-plies",
        "1",
        "--games-out",
        "g10.jsonl",
    ]);
    assert!(said.contains("of the rules 'size=10 limit=50'"), "{said}");
    assert!(
        here.join("model/rules-size-10-limit-50/calibration.md")
            .is_file()
    );
    let stored = metadata(&model);
    assert_eq!(stored["calibration"], general);
    let own = stored["rules_calibrations"].as_object().expect("a map");
    assert_eq!(own.len(), 1, "{own:?}");
    let (rules, fitted) = own.iter().next().expect("one");
    assert!(rules.starts_with("size=10 "), "{rules}");
    assert_eq!(fitted["fit_games"], 2);
    assert_eq!(start_bar(here, &model, "size=8"), before[0]);
    let ten = start_bar(here, &model, "size=10");
    assert_ne!(ten, before[1]);
    // The engine protocol's bar follows the rules `gm-rules` sets.
    let output = grandmaitre(here)
        .args(["gtp", "--game", "halma", "--model", &model])
        .write_stdin("gm-winprob\ngm-rules size=10\ngm-winprob\nquit\n")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let answers = String::from_utf8(output.stdout).expect("utf-8");
    let bars: Vec<&str> = answers
        .lines()
        .filter_map(|line| line.strip_prefix("= "))
        .collect();
    assert_eq!(bars.len(), 2, "{answers}");
    assert!(
        bars[0].starts_with(&format!("{:.4} ", before[0])),
        "{answers}"
    );
    assert!(bars[1].starts_with(&format!("{ten:.4} ")), "{answers}");

    // The default board's games replace the general calibration, which
    // 10 × 10 does not use.
    calibrate(&[
        "--games",
        "4",
        "--opening-plies",
        "1",
        "--games-out",
        "g8.jsonl",
    ]);
    let stored = metadata(&model);
    assert_eq!(stored["calibration"]["fit_games"], 2);
    assert_eq!(
        stored["rules_calibrations"].as_object().map(|m| m.len()),
        Some(1)
    );
    assert_ne!(start_bar(here, &model, "size=8"), before[0]);
    assert_eq!(start_bar(here, &model, "size=10"), ten);

    // Both boards pooled fit one calibration for both: 10 × 10 loses its own.
    let said = calibrate(&["--games-in", "g8.jsonl", "--games-in", "g10.jsonl"]);
    assert!(
        said.contains("for every rules setting without its own"),
        "{said}"
    );
    let stored = metadata(&model);
    assert_eq!(stored["calibration"]["fit_games"], 4);
    assert!(stored.get("rules_calibrations").is_none(), "{stored}");
}

#[test]
fn bad_input_gets_one_line_errors() {
    let directory = tempfile::tempdir().expect("temp dir");
    let here = directory.path();
    for (args, expected) in [
        (
            vec![
                "perft", "--game", "halma", "--rules", "size=9", "--depth", "1",
            ],
            "size must be 8 or 10",
        ),
        (
            vec![
                "perft", "--game", "halma", "--moves", "a1-a2", "--depth", "1",
            ],
            "cannot reach a2",
        ),
        (
            vec!["advise", "--game", "halma", "--position", "8/8 w 0 0"],
            "expected 8 ranks separated by '/', found 2",
        ),
        (
            vec![
                "arena", "--game", "heraldis", "--a", "greedy", "--b", "random",
            ],
            "greedy is not available for heraldis",
        ),
    ] {
        let stderr = one_line_error(here, &args);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
