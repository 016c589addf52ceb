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
