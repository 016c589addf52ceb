//! Bulltricker through the installed program: perft with rules and moves,
//! the drawing, its baselines in the arena, the engine protocol, and
//! one-line errors (the commands of every game, the shipped model's
//! included, are run in `every_game.rs`).

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

#[test]
fn perft_and_show_take_rules_and_moves() {
    let directory = tempfile::tempdir().expect("temp dir");
    let here = directory.path();
    // Counted by the naive implementation of the tests as well.
    assert_eq!(
        stdout(here, &["perft", "--game", "bulltricker", "--depth", "3"]).trim(),
        "perft 3 133547"
    );
    // A Black Pawn met head-on: the capture is the only move.
    let board = stdout(
        here,
        &[
            "show",
            "--game",
            "bulltricker",
            "--moves",
            "H7C4-H5C4 H2C4-H4C4",
        ],
    );
    assert!(board.contains("legal moves: H5C4xH3C4"), "{board}");
    assert!(board.contains(" H5   +  -  +  -  +  -  +  P  +"), "{board}");
    let after = stdout(
        here,
        &[
            "perft",
            "--game",
            "bulltricker",
            "--rules",
            "plies=2",
            "--moves",
            "H7C4-H5C4 H2C4-H4C4",
            "--depth",
            "1",
        ],
    );
    assert_eq!(after.trim(), "perft 1 0", "the ply cap ends the game");
}

#[test]
fn alpha_beta_beats_the_greedy_player_and_gtp_plays_it() {
    let directory = tempfile::tempdir().expect("temp dir");
    let report = stdout(
        directory.path(),
        &[
            "arena",
            "--game",
            "bulltricker",
            "--a",
            "alphabeta:depth=3",
            "--b",
            "greedy",
            "--games",
            "4",
            "--openings",
            "2",
            "--json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(report.trim()).expect("JSON");
    assert_eq!(report["games"], 4);
    assert!(report["score"].as_f64().expect("score") >= 0.75, "{report}");
    let output = grandmaitre(directory.path())
        .args([
            "gtp",
            "--game",
            "bulltricker",
            "--player",
            "greedy",
            "--model",
            "rollouts",
        ])
        .write_stdin("play white H7C4-H5C4\ngenmove black\nquit\n")
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    // `play` answers "=", `genmove` "= " and Black's move.
    let replies: Vec<&str> = text.lines().filter(|l| l.starts_with('=')).collect();
    assert_eq!(replies.len(), 3, "{text}");
    assert!(
        replies[1].starts_with("= A") || replies[1].starts_with("= H"),
        "{text}"
    );
}

#[test]
fn bad_input_gets_one_line_errors() {
    let directory = tempfile::tempdir().expect("temp dir");
    for (args, expected) in [
        (
            vec![
                "perft",
                "--game",
                "bulltricker",
                "--rules",
                "plies=0",
                "--depth",
                "1",
            ],
            "plies must be a whole number from 1",
        ),
        (
            vec![
                "perft",
                "--game",
                "bulltricker",
                "--moves",
                "A2V1-A4V1",
                "--depth",
                "1",
            ],
            "the piece on A2V1 cannot go to A4V1",
        ),
        (
            vec!["show", "--game", "bulltricker", "--position", "7/15 w 0"],
            "expected 15 rows",
        ),
        (
            vec!["winprob", "--game", "bulltricker", "--moves", "A2V1-A4V1"],
            "the piece on A2V1 cannot go to A4V1",
        ),
    ] {
        let output = grandmaitre(directory.path())
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
