//! The solution book as a user meets it (Heraldis's default layout, won by
//! Light): the bar exact and the Grand Maître playing the proven move
//! through `winprob`, `advise`, the engine protocol, `arena` and `export`,
//! and nothing of the book under rules where it is no proof.

use assert_cmd::Command;
use serde_json::Value;

fn grandmaitre() -> Command {
    let mut command = Command::cargo_bin("grandmaitre").expect("the binary is built");
    command.current_dir(std::env::temp_dir());
    command
}

fn json(args: &[&str]) -> Value {
    let output = grandmaitre().args(args).output().expect("runs");
    assert!(output.status.success(), "{args:?}: {output:?}");
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

#[test]
fn the_bar_of_a_proven_position_is_exact_and_the_advice_is_the_proven_move() {
    // The start, and a position after the book's move and a reply.
    for moves in [None, Some("b1 c3")] {
        let mut args = vec!["winprob", "--json"];
        args.extend(moves.iter().flat_map(|m| ["--moves", m]));
        let bar = json(&args);
        assert_eq!(
            [&bar["light"], &bar["draw"], &bar["dark"]],
            [1.0, 0.0, 0.0],
            "{moves:?}"
        );
        assert_eq!(bar["book_proves"], true);
        assert_eq!(bar["simulations"], 0);
        let mut args = vec!["advise", "--json", "--sims", "50"];
        args.extend(moves.iter().flat_map(|m| ["--moves", m]));
        let advice = json(&args);
        assert_eq!(advice["from_book"], true, "{advice}");
        assert_eq!(advice["book_proves"], true);
        assert_eq!(advice["light"], 1.0);
    }
    assert_eq!(json(&["advise", "--json", "--sims", "50"])["move"], "b1");
    // A level that plays with randomness plays its own search.
    let gentle = json(&["advise", "--json", "--level", "5"]);
    assert_eq!(gentle["from_book"], false);
    assert_eq!(gentle["book_proves"], true, "the bar is still exact");
    // Off the book (a1 is not its move), the bar is the network's.
    let off = json(&["winprob", "--json", "--moves", "a1 b1"]);
    let light = off["light"].as_f64().expect("a number");
    assert!(light > 0.0 && light < 1.0, "{off}");
    // Under 12 plies Light has no win to play: no book.
    let short = json(&[
        "advise",
        "--json",
        "--sims",
        "50",
        "--rules",
        "default | 12",
    ]);
    assert_eq!(short["from_book"], false);
    assert_eq!(short["book_proves"], false);
    // The text says where the move and the bar come from.
    let output = grandmaitre()
        .args(["advise", "--sims", "50"])
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        text.contains("move: b1 (the solution book's: a proven win)"),
        "{text}"
    );
    assert!(
        text.contains("(exact: the solution book proves it; "),
        "{text}"
    );
}

#[test]
fn the_engine_protocol_plays_the_book_and_shows_its_bar() {
    let output = grandmaitre()
        .args(["gtp", "--sims", "50"])
        .write_stdin("gm-winprob\ngenmove light\nplay dark c3\ngm-winprob\ngenmove light\nquit\n")
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let answers: Vec<&str> = text.split("\n\n").collect();
    // Level 10 on both sides (the default players): Light plays the
    // book's moves, and its proven win is certain.
    assert_eq!(answers[0], "= 1.0000 0.0000 0.0000 proven light wins");
    assert_eq!(answers[1], "= b1");
    assert_eq!(answers[3], "= 1.0000 0.0000 0.0000 proven light wins");
    assert!(answers[4].starts_with("= "), "{text}");
    // Under other rules the session has no book.
    let output = grandmaitre()
        .args(["gtp", "--sims", "50"])
        .write_stdin("gm-rules default | 12\ngm-winprob\nquit\n")
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let bar = text.split("\n\n").nth(1).expect("the bar");
    assert!(!bar.contains("proven"), "{text}");
}

#[test]
fn the_book_player_wins_every_game_as_light_from_the_start() {
    let result = json(&[
        "arena",
        "--a",
        "mcts:sims=16,book=1",
        "--b",
        "mcts:sims=16,opening=3",
        "--openings",
        "0",
        "--games",
        "6",
        "--threads",
        "2",
        "--json",
    ]);
    // Games 0, 2 and 4: the book player is Light.
    assert_eq!(
        result["a_first"],
        serde_json::json!({"wins": 3, "draws": 0, "losses": 0}),
        "{result}"
    );
    for (args, expected) in [
        (
            vec!["arena", "--a", "mcts:book=2", "--b", "random"],
            "book must be 0 or 1",
        ),
        (
            vec![
                "arena",
                "--a",
                "mcts:book=1",
                "--b",
                "random",
                "--rules",
                "random:1",
            ],
            "no solution book of heraldis proves a win under these rules",
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
fn the_export_ships_the_book_only_where_it_is_a_proof() {
    let directory = tempfile::tempdir().expect("temp dir");
    let shipped = directory.path().join("shipped");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/heraldis");
    let output = grandmaitre()
        .args(["export", "--model", model, "--out"])
        .arg(&shipped)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let description: Value = serde_json::from_str(
        &std::fs::read_to_string(shipped.join("model.json")).expect("model.json"),
    )
    .expect("JSON");
    assert_eq!(description["files"]["book"], "book.txt");
    assert_eq!(description["book"]["winner"], "light");
    assert_eq!(description["book"]["positions"], 16_809);
    let book = std::fs::read_to_string(shipped.join("book.txt")).expect("book.txt");
    assert!(book.contains("# root: 5/5/5/5/5 l - 0\n# winner: light\n"));
    // Each vector where the book has a move has an exact bar.
    let vectors = description["search_vectors"]["book"]
        .as_array()
        .expect("vectors");
    assert!(vectors.iter().any(|v| v["book_move"] == "b1"));
    for vector in vectors.iter().filter(|v| !v["book_move"].is_null()) {
        assert_eq!(vector["light"], 1.0, "{vector}");
    }
    // Another layout: no book.
    let other = directory.path().join("other");
    let output = grandmaitre()
        .args(["export", "--model", model, "--rules", "random:1", "--out"])
        .arg(&other)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    assert!(!other.join("book.txt").exists());
    let description: Value = serde_json::from_str(
        &std::fs::read_to_string(other.join("model.json")).expect("model.json"),
    )
    .expect("JSON");
    assert!(description.get("book").is_none());
}

#[test]
fn who_plays_changes_the_bar_and_every_interface_gives_the_same_bar() {
    // The start: Light's win is proven. Level 10 plays the book and
    // converts it every time; a beginner (level 1) against level 10
    // mostly does not.
    let strong = json(&["winprob", "--json"]);
    assert_eq!(strong["players"], "light=10 dark=10");
    assert_eq!(strong["players_given"], false);
    assert_eq!(strong["bar_proven"], "light wins");
    assert_eq!(strong["seated"], true, "the shipped model reads who plays");
    for players in [
        "light=1,dark=10",
        "light=human dark=6",
        "light=human,dark=human",
    ] {
        let bar = json(&["winprob", "--json", "--players", players]);
        assert_eq!(bar["bar_proven"], "light wins", "{players}");
        assert_eq!(bar["players_given"], true);
        let light = bar["light"].as_f64().expect("a number");
        assert!(light < 0.99, "{players}: {bar}");
        // The advice's headline is the same bar.
        let advice = json(&["advise", "--json", "--sims", "8", "--players", players]);
        assert_eq!(advice["light"], bar["light"], "{players}");
        // And the engine protocol's, told the same players.
        let seats = players.replace(',', " ");
        let output = grandmaitre()
            .args(["gtp", "--sims", "8"])
            .write_stdin(format!(
                "gm-players {seats}\ngm-players\ngm-winprob\nquit\n"
            ))
            .output()
            .expect("runs");
        let text = String::from_utf8(output.stdout).expect("utf-8");
        let answers: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(
            answers[1],
            format!("= {}", bar["players"].as_str().expect("text"))
        );
        assert_eq!(
            answers[2],
            format!(
                "= {:.4} {:.4} {:.4} proven light wins",
                light,
                bar["draw"].as_f64().expect("draw"),
                bar["dark"].as_f64().expect("dark")
            )
        );
    }
    let beginner = json(&["winprob", "--json", "--players", "light=1"]);
    assert!(beginner["light"].as_f64() < Some(0.5), "{beginner}");
    // Bad players: one line, a failure.
    for bad in ["light=11", "white=3", "light=strong", "light=3 light=4"] {
        let output = grandmaitre()
            .args(["winprob", "--players", bad])
            .output()
            .expect("runs");
        assert!(!output.status.success(), "{bad}");
        let error = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(error.trim_end().lines().count(), 1, "{bad}: {error}");
        assert!(error.contains("--players"), "{error}");
    }
}

#[test]
fn a_persons_moves_move_the_bar_the_same_through_every_interface() {
    // Light, a person, plays its first moves; Dark is level 6.
    let moves = "c3 b2 d4 b4 a1 e5";
    let players = "light=human dark=6";
    let before = json(&["winprob", "--json", "--players", players]);
    let after = json(&["winprob", "--json", "--players", players, "--moves", moves]);
    // Before any move, a person is every level alike; their moves move
    // the belief, and with it the bar.
    let mean = |bar: &Value| {
        bar["beliefs"]["light"]["mean_level"]
            .as_f64()
            .expect("a belief")
    };
    assert!((mean(&before) - 5.0).abs() < 1e-9, "{before}");
    assert!((mean(&after) - 5.0).abs() > 0.05, "{after}");
    assert!(
        after["beliefs"].get("dark").is_none(),
        "a level is no belief"
    );
    let weights: f64 = after["beliefs"]["light"]["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .map(|pair| pair[1].as_f64().expect("a weight"))
        .sum();
    assert!((weights - 1.0).abs() < 1e-9);
    // The advice's headline is the same bar.
    let advice = json(&[
        "advise",
        "--json",
        "--sims",
        "8",
        "--players",
        players,
        "--moves",
        moves,
    ]);
    assert_eq!(advice["light"], after["light"]);
    // The engine protocol reads the moves played on it.
    let plays: String = moves
        .split(' ')
        .enumerate()
        .map(|(ply, text)| {
            let colour = if ply % 2 == 0 { "light" } else { "dark" };
            format!("play {colour} {text}\n")
        })
        .collect();
    let output = grandmaitre()
        .args(["gtp", "--sims", "8"])
        .write_stdin(format!("gm-players {players}\n{plays}gm-winprob\nquit\n"))
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let answers: Vec<&str> = text.split("\n\n").collect();
    let number = |key: &str| after[key].as_f64().expect("a number");
    assert!(
        answers[7].starts_with(&format!(
            "= {:.4} {:.4} {:.4}",
            number("light"),
            number("draw"),
            number("dark")
        )),
        "{text}"
    );
}
