//! `grandmaitre solve` as a user runs it: a small game solved with a move
//! that keeps its value, a budget that runs out, and bad input.

use assert_cmd::Command;

fn grandmaitre() -> Command {
    let mut command = Command::cargo_bin("grandmaitre").expect("the binary is built");
    command.current_dir(std::env::temp_dir());
    command
}

#[test]
fn solve_gives_the_value_and_a_move_or_says_the_budget_ran_out() {
    let output = grandmaitre()
        .args(["solve", "--game", "havannah", "--rules", "base=2 swap=0"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.starts_with("value: white wins\nmove: "), "{text}");
    let output = grandmaitre()
        .args([
            "solve", "--game", "havannah", "--rules", "base=4", "--nodes", "100",
        ])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        text.starts_with("value: unknown (the budget ran out)"),
        "{text}"
    );
    for (args, expected) in [
        (vec!["solve", "--time", "soon"], "invalid --time 'soon'"),
        (
            vec![
                "solve",
                "--game",
                "havannah",
                "--rules",
                "base=2 swap=0",
                "--moves",
                "a1 b2 a2",
            ],
            "the game is over",
        ),
    ] {
        let output = grandmaitre().args(&args).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn solve_writes_the_proof_of_a_win_and_refuses_to_write_a_draw() {
    let directory = tempfile::tempdir().expect("temp dir");
    let proof = directory.path().join("win.proof");
    let output = grandmaitre()
        .args([
            "solve",
            "--game",
            "havannah",
            "--rules",
            "base=2 swap=0",
            "--out",
        ])
        .arg(&proof)
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = std::fs::read_to_string(&proof).expect("the proof");
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .expect("header")
            .contains("--game havannah --rules 'base=2 swap=0'")
    );
    assert!(lines.next().expect("root").starts_with("# root: "));
    assert_eq!(lines.next(), Some("# winner: white"));
    assert!(lines.next().expect("count").starts_with("# "));
    // The start is White's and in the book, with a move.
    let book: Vec<(&str, &str)> = lines.map(|l| l.split_once('\t').expect("tab")).collect();
    assert!(!book.is_empty());
    assert!(
        book.iter().all(|(position, _)| position.ends_with(" w")),
        "{text}"
    );
    // Heraldis with a 4-ply limit is a draw from the start: no proof.
    let output = grandmaitre()
        .args(["solve", "--layout", "default | 4", "--out"])
        .arg(directory.path().join("draw.proof"))
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no proof to write"));
    assert!(!directory.path().join("draw.proof").exists());
}
