//! End-to-end tests of the `grandmaitre` binary.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn grandmaitre() -> Command {
    Command::cargo_bin("grandmaitre").expect("the binary is built")
}

/// Runs the binary expecting failure, and returns its one-line error.
fn error_of(args: &[&str]) -> String {
    let output = grandmaitre().args(args).output().expect("runs");
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(output.stdout.is_empty(), "{args:?}");
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

#[test]
fn perft_prints_the_count() {
    grandmaitre()
        .args(["perft", "--depth", "3"])
        .assert()
        .success()
        .stdout("perft 3 8280\n");
}

#[test]
fn perft_divide_prints_one_line_per_root_move_then_the_total() {
    let output = grandmaitre()
        .args(["perft", "--depth", "2", "--divide"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 16);
    assert_eq!(lines[15], "perft 2 360");
    // Every first move leaves Dark 24 empty cells.
    assert!(lines[..15].iter().all(|line| line.ends_with(" 24")));
    // a1 (Aigle+Cerf) is the first Alliance; d1 and e1 are Houses.
    assert_eq!(lines[0], "a1 24");
    assert!(!stdout.contains("d1 ") && !stdout.contains("e1 "));
}

#[test]
fn perft_follows_moves_from_a_position() {
    grandmaitre()
        .args([
            "perft",
            "--depth",
            "4",
            "--moves",
            "d5 e3 b1 b5 c5 d4 a5 xb1 a3 d1 b2 c3 c2 xd5",
        ])
        .assert()
        .success()
        .stdout("perft 4 22778\n");
    grandmaitre()
        .args([
            "perft",
            "--depth",
            "2",
            "--position",
            "DD1L1/3D1/DL2L/1LLD1/3LD l d2 14",
        ])
        .assert()
        .success()
        .stdout("perft 2 174\n");
}

#[test]
fn show_draws_the_board_on_another_layout() {
    grandmaitre()
        .args([
            "show",
            "--layout",
            "OS OS LO AC LO / O LC A C AC / L A AS L OA / C CS S OA LO / S OS AS O OC",
            "--moves",
            "c3",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "3 | L  . | A  . | AS L | L  . | OA . |",
        ))
        .stdout(predicate::str::contains("to move: Dark (d), ply 1 of 150"))
        .stdout(predicate::str::contains("reserves: Light 12, Dark 13"))
        .stdout(predicate::str::contains("legal moves (24):"));
}

#[test]
fn bad_input_gets_a_one_line_error_and_status_2() {
    let cases: [(&[&str], &str); 13] = [
        (
            &["perft", "--depth", "2", "--layout", "A S"],
            "invalid layout 'A S'",
        ),
        (
            &["show", "--position", "5/5/5/5/5 l - 1"],
            "side 'l' cannot move at ply 1",
        ),
        (
            &["show", "--moves", "c3 zz"],
            "in --moves after 'c3': invalid move 'zz'",
        ),
        (
            &["show", "--moves", "a5"],
            "in --moves: invalid move 'a5': illegal move",
        ),
        (&["show", "--game", "chess"], "unknown game 'chess'"),
        (
            &["perft", "--depth", "-2"],
            "invalid value '-2' for '--depth <DEPTH>'",
        ),
        (
            &["advise", "--sims", "-5"],
            "invalid value '-5' for '--sims <SIMULATIONS>'",
        ),
        (
            &["perft"],
            "the following required arguments were not provided: --depth <DEPTH>",
        ),
        (
            &["arena", "--b", "random"],
            "the following required arguments were not provided: --a <A>",
        ),
        (
            &["arena", "--a", "random", "--b", "random", "--games", "0"],
            "--games must be at least 1",
        ),
        (
            &["perft", "--depth", "2", "--colour", "red"],
            "unexpected argument '--colour'",
        ),
        (&["teleport"], "unrecognized subcommand 'teleport'"),
        (
            &["show", "--layout", "random:seven"],
            "expected random:SEED",
        ),
    ];
    for (args, expected) in cases {
        let error = error_of(args);
        assert!(error.contains(expected), "{args:?}: {error}");
    }
}

/// The README and the reference pages under `docs/`, each with its text.
fn documentation() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("documentation page reads");
            let name = path.strip_prefix(root).expect("inside the checkout");
            (name.display().to_string(), text)
        })
        .collect()
}

/// Every `$ grandmaitre …` line in the console blocks of the README and of
/// `docs/` runs, and prints the lines written under it.
#[test]
fn documented_examples_run_as_written() {
    let mut examples = 0;
    for (page, text) in documentation() {
        let mut in_console = false;
        let mut current: Option<(String, Vec<String>)> = None;
        let mut finished = Vec::new();
        for line in text.lines() {
            if line.starts_with("```console") {
                in_console = true;
                continue;
            }
            if !in_console {
                continue;
            }
            if line.starts_with("```") || line.starts_with("$ ") {
                finished.extend(current.take());
            }
            if line.starts_with("```") {
                in_console = false;
            } else if let Some(command) = line.strip_prefix("$ grandmaitre ") {
                current = Some((command.to_string(), Vec::new()));
            } else if let Some((_, expected)) = current.as_mut() {
                expected.push(line.to_string());
            }
        }
        for (command, expected) in finished {
            let args = shlex::split(&command).expect("documented command quotes");
            let output = grandmaitre().args(&args).output().expect("runs");
            assert!(output.status.success(), "{page}: grandmaitre {command}");
            let stdout = String::from_utf8(output.stdout).expect("utf-8");
            let printed: Vec<&str> = stdout.lines().collect();
            for line in &expected {
                if line.trim() == "…" {
                    continue;
                }
                assert!(
                    printed.contains(&line.as_str()),
                    "{page}: grandmaitre {command}: missing line '{line}' in:\n{stdout}"
                );
            }
            examples += 1;
        }
    }
    assert!(examples >= 3, "only {examples} documented examples found");
}

/// The relative links of the README and of `docs/` name files that exist
/// (a page moved or renamed leaves no dangling link).
#[test]
fn documentation_links_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut links = 0;
    for (page, text) in documentation() {
        let directory = root
            .join(&page)
            .parent()
            .expect("a page has a folder")
            .to_path_buf();
        for (start, _) in text.match_indices("](") {
            let rest = &text[start + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.starts_with("http") || target.starts_with('#') || target.contains(' ') {
                continue;
            }
            let file = target.split('#').next().expect("split yields one part");
            assert!(
                directory.join(file).exists(),
                "{page}: the link to '{target}' names no file"
            );
            links += 1;
        }
    }
    assert!(links >= 10, "only {links} documentation links found");
}
