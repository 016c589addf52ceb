//! End-to-end tests of `grandmaitre arena` and `grandmaitre gtp`.

use assert_cmd::Command;

fn grandmaitre() -> Command {
    Command::cargo_bin("grandmaitre").expect("the binary is built")
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let output = grandmaitre().args(args).output().expect("runs");
    assert!(output.status.success(), "{args:?}: {output:?}");
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

#[test]
fn arena_json_counts_every_game_and_both_colours() {
    let report = json_of(&[
        "arena",
        "--a",
        "rollout:sims=50",
        "--b",
        "random",
        "--games",
        "8",
        "--openings",
        "4",
        "--threads",
        "2",
        "--json",
    ]);
    let count = |key: &str| report[key].as_u64().expect(key);
    assert_eq!(count("games"), 8);
    assert_eq!(count("wins") + count("draws") + count("losses"), 8);
    for side in ["a_first", "a_second"] {
        let games: u64 = ["wins", "draws", "losses"]
            .iter()
            .map(|k| report[side][k].as_u64().expect(k))
            .sum();
        assert_eq!(games, 4, "{side}");
    }
    let score = report["score"].as_f64().expect("score");
    let expected = (count("wins") as f64 + 0.5 * count("draws") as f64) / 8.0;
    assert!((score - expected).abs() < 1e-12);
    assert_eq!(report["a"], "rollout:sims=50");
}

#[test]
fn arena_sprt_stops_a_clean_sweep_within_its_first_pairs() {
    // Alpha-beta at depth 2 never loses to random play: every pair is two
    // wins, and the eighth pair crosses the upper bound ln 19.
    let report = json_of(&[
        "arena",
        "--a",
        "alphabeta:depth=2",
        "--b",
        "random",
        "--games",
        "400",
        "--sprt",
        "0,200",
        "--json",
    ]);
    assert_eq!(report["sprt"]["verdict"], "H1");
    assert_eq!(report["sprt"]["pairs"], serde_json::json!([0, 0, 0, 0, 8]));
    let llr = report["sprt"]["llr"].as_f64().expect("llr");
    assert!((llr - 3.3475).abs() < 1e-3, "{llr}");
    assert_eq!(report["stopped_early"], true);
    let games = report["games"].as_u64().expect("games");
    assert_eq!(report["wins"].as_u64(), Some(games));
    // The 16 games of the 8 pairs, and games of unfinished pairs that ended
    // first on other threads.
    assert!((16..=24).contains(&games), "{games} games");
}

#[test]
fn arena_text_report_names_players_score_and_elo() {
    let output = grandmaitre()
        .args([
            "arena",
            "--a",
            "alphabeta:depth=1",
            "--b",
            "random",
            "--games",
            "4",
        ])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        text.starts_with("A: alphabeta:depth=1\nB: random\ngames 4: A wins "),
        "{text}"
    );
    assert!(text.contains("score ") && text.contains("Elo "), "{text}");
}

#[test]
fn arena_on_random_layouts_plays_every_game() {
    let report = json_of(&[
        "arena",
        "--a",
        "alphabeta:depth=2",
        "--b",
        "random",
        "--games",
        "6",
        "--layout",
        "random",
        "--json",
    ]);
    assert_eq!(report["games"], 6);
}

#[test]
fn arena_refuses_bad_players_and_tests_with_one_line() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["arena", "--a", "chess", "--b", "random"],
            "unknown kind 'chess'",
        ),
        (
            &["arena", "--a", "random", "--b", "rollout:sims=-3"],
            "sims must be a positive",
        ),
        (
            &["arena", "--a", "random", "--b", "random", "--sprt", "50,0"],
            "ELO0 must be below ELO1",
        ),
        (
            &["arena", "--a", "random", "--b", "random", "--sprt", "x"],
            "expected ELO0,ELO1",
        ),
    ];
    for (args, expected) in cases {
        let output = grandmaitre().args(args).output().expect("runs");
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn arena_plays_the_openings_of_a_file_in_turn_and_names_a_bad_line() {
    let directory = tempfile::tempdir().expect("temp dir");
    let lines = directory.path().join("openings.txt");
    std::fs::write(&lines, "# two openings\nc3 a1\n\nb1 # a comment\n").expect("written");
    let records = directory.path().join("games.jsonl");
    let report = json_of(&[
        "arena",
        "--a",
        "alphabeta:depth=1",
        "--b",
        "random",
        "--games",
        "6",
        "--opening-file",
        lines.to_str().expect("utf-8"),
        "--games-out",
        records.to_str().expect("utf-8"),
        "--json",
    ]);
    assert_eq!(report["games"], 6);
    let text = std::fs::read_to_string(&records).expect("records");
    let games: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(games.len(), 6);
    for game in &games {
        // Games 0 and 1, 4 and 5 play the first line, 2 and 3 the second.
        let opening: &[&str] = if game["opening"] == 1 {
            &["b1"]
        } else {
            &["c3", "a1"]
        };
        let moves: Vec<&str> = game["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m.as_str().expect("a move"))
            .collect();
        assert_eq!(moves[..opening.len()], *opening, "{game}");
    }
    let openings: Vec<u64> = games
        .iter()
        .map(|g| g["opening"].as_u64().expect("opening"))
        .collect();
    let mut sorted = openings.clone();
    sorted.sort();
    assert_eq!(sorted, [0, 0, 0, 0, 1, 1]);
    // The second line's two games: A moves first in one of them.
    let second: Vec<&serde_json::Value> = games.iter().filter(|g| g["opening"] == 1).collect();
    assert_ne!(second[0]["light"], second[1]["light"]);

    std::fs::write(&lines, "c3\nc3 c3\n").expect("written");
    let output = grandmaitre()
        .args(["arena", "--a", "random", "--b", "random", "--opening-file"])
        .arg(&lines)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("openings.txt line 2"), "{stderr}");
}

/// Runs a GTP session and returns the answers, one string per command.
fn gtp(commands: &str) -> Vec<String> {
    let output = grandmaitre()
        .args(["gtp", "--sims", "200", "--model", "rollouts"])
        .write_stdin(commands)
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        text.ends_with("\n\n"),
        "every answer ends with a blank line"
    );
    text.trim_end().split("\n\n").map(str::to_string).collect()
}

#[test]
fn gtp_answers_the_standard_commands() {
    let answers = gtp(
        "protocol_version\n2 name\nknown_command genmove\nknown_command fly\nlist_commands\nquit\n",
    );
    assert_eq!(answers[0], "= 2");
    assert_eq!(answers[1], "=2 Grand Maître");
    assert_eq!(answers[2], "= true");
    assert_eq!(answers[3], "= false");
    assert!(answers[4].starts_with("= protocol_version\nname\n"));
    assert!(answers[4].contains("\ngm-winprob"));
    assert_eq!(answers[5], "=");
}

#[test]
fn gtp_plays_refuses_illegal_moves_and_undoes() {
    let answers = gtp(
        "play light c3\nplay light c4\nplay dark a5\nplay dark c4\nplay light a5\nundo\nundo\nundo\nshowboard\n",
    );
    assert_eq!(answers[0], "=");
    assert_eq!(answers[1], "? illegal move"); // Dark's turn
    assert_eq!(answers[2], "="); // a5 is a House: open after the First Oath
    assert_eq!(answers[3], "? illegal move"); // Light's turn
    assert_eq!(answers[4], "? illegal move"); // a5 is Dark's, on a House
    assert_eq!(answers[5], "=");
    assert_eq!(answers[6], "=");
    assert_eq!(answers[7], "? cannot undo");
    assert!(
        answers[8].contains("position: 5/5/5/5/5 l - 0"),
        "{}",
        answers[8]
    );
}

#[test]
fn gtp_genmove_finds_the_win_and_winprob_sees_it() {
    let answers = gtp(
        "gm-position 5/5/5/DDD2/LLL2 l - 6\ngm-winprob\ngenmove light\ngm-winprob\ngenmove dark\n",
    );
    assert_eq!(answers[0], "=");
    // Three probabilities, then the proof the bar's search found.
    let (numbers, proven) = answers[1][2..].split_at(20);
    let before: Vec<f32> = numbers
        .split_whitespace()
        .map(|x| x.parse().expect("probability"))
        .collect();
    assert_eq!(before.len(), 3);
    assert!((before.iter().sum::<f32>() - 1.0).abs() < 1e-3);
    assert!(before[0] > 0.99, "Light wins by force: {before:?}");
    assert_eq!(proven, " proven light wins");
    assert_eq!(answers[2], "= d1");
    assert_eq!(answers[3], "= 1.0000 0.0000 0.0000 proven light wins");
    assert_eq!(answers[4], "? game is over");
}

/// In `L4/D2D1/DL3/3L1/5 l - 6` the search of level 10 prefers b2 (69 %),
/// which loses in 5 plies; c2 wins by force.
const SEARCH_TRAP: &str = "L4/D2D1/DL3/3L1/5 l - 6";

#[test]
fn at_full_strength_the_solver_overrules_a_search_that_walks_into_a_loss() {
    // The advice: the shipped model's level 10.
    let advice = json_of(&[
        "advise",
        "--position",
        SEARCH_TRAP,
        "--level",
        "10",
        "--json",
    ]);
    let most_visited = advice["alternatives"]
        .as_array()
        .expect("alternatives")
        .iter()
        .max_by_key(|row| row["visits"].as_u64())
        .expect("a move");
    assert_eq!(most_visited["move"], "b2", "the search's own choice");
    assert_eq!(advice["move"], "c2");
    assert_eq!(advice["solved"], "win");
    assert_eq!(advice["solver_overruled"], true);
    // A gentle level plays as its search and randomness say: no solver.
    let gentle = json_of(&[
        "advise",
        "--position",
        SEARCH_TRAP,
        "--level",
        "3",
        "--json",
    ]);
    assert_eq!(gentle["solver_overruled"], false);
    assert_eq!(gentle["solved"], serde_json::Value::Null);
    // The engine protocol's genmove at full strength.
    let output = grandmaitre()
        .args(["gtp", "--sims", "3200"])
        .write_stdin(format!("gm-position {SEARCH_TRAP}\ngenmove light\n"))
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("= c2"), "{text}");
}

#[test]
fn gtp_plays_as_an_arena_player() {
    // Alpha-beta blocks Light's open three (a1 b1 c1: d1 wins) and the
    // session's moves are the players' alternately.
    let output = grandmaitre()
        .args(["gtp", "--player", "alphabeta:depth=2", "--model", "rollouts"])
        .write_stdin("gm-position 5/5/DD3/5/LLL2 d - 5\ngenmove dark\ngm-level 3\ngenmove light\nshowboard\n")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let answers: Vec<&str> = text.trim_end().split("\n\n").collect();
    assert_eq!(answers[0], "=");
    assert_eq!(answers[1], "= d1");
    assert_eq!(
        answers[2],
        "? gm-level sets the Grand Maître's search, and this session plays as alphabeta:depth=2"
    );
    assert!(answers[3].starts_with("= "), "{}", answers[3]);
    let output = grandmaitre()
        .args(["gtp", "--player", "alphabeta:sims=3"])
        .write_stdin("quit\n")
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown option 'sims' for alphabeta"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn gtp_extensions_change_layout_level_and_refuse_bad_values() {
    let answers = gtp(
        "gm-layout random:4\ngm-layout A S\ngm-level 3\ngm-level 11\ngm-sims 0\ngm-game havannah\ngm-game heraldis\ngm-position 5/5/5/5/5 d - 0\nfly\n",
    );
    assert_eq!(answers[0], "=");
    assert!(
        answers[1].starts_with("? invalid layout 'A S'"),
        "{}",
        answers[1]
    );
    assert_eq!(answers[2], "=");
    assert_eq!(answers[3], "? level must be between 1 and 10");
    assert_eq!(answers[4], "? simulations must be a positive whole number");
    // Another game, then back: a fresh Heraldis session.
    assert_eq!(answers[5], "=");
    assert_eq!(answers[6], "=");
    assert!(
        answers[7].starts_with("? invalid position"),
        "{}",
        answers[7]
    );
    assert_eq!(answers[8], "? unknown command");
}

#[test]
fn gtp_switches_games_within_one_session() {
    let answers = gtp(
        "gm-game havannah\nshowboard\ngenmove white\ngm-game chess\ngm-game heraldis\nplay light c3\nshowboard\n",
    );
    assert_eq!(answers[0], "=");
    assert!(
        answers[1].contains("to move: White (w), ply 0"),
        "{}",
        answers[1]
    );
    assert!(
        answers[2].starts_with("= ") && answers[2].len() > 2,
        "{}",
        answers[2]
    );
    assert_eq!(
        answers[3],
        "? unknown game 'chess': expected heraldis, havannah, halma, bulltricker"
    );
    assert_eq!(answers[4], "=");
    assert_eq!(answers[5], "=");
    assert!(
        answers[6].contains("position: 5/5/2L2/5/5 d - 1"),
        "{}",
        answers[6]
    );
}

#[test]
fn gtp_winprob_is_the_bar_of_winprob() {
    // The shipped model, found inside the program: the engine protocol's
    // bar is `winprob`'s, whatever the session's own search budget.
    for moves in ["", "a1 e5 c3"] {
        let mut args = vec!["winprob", "--json"];
        if !moves.is_empty() {
            args.extend(["--moves", moves]);
        }
        let bar = json_of(&args);
        let mut commands = String::new();
        for (index, text) in moves.split_whitespace().enumerate() {
            let colour = if index % 2 == 0 { "light" } else { "dark" };
            commands += &format!("play {colour} {text}\n");
        }
        commands += "gm-level 10\ngm-winprob\n";
        let output = grandmaitre()
            .args(["gtp", "--sims", "3200"])
            .write_stdin(commands)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8(output.stdout).expect("utf-8");
        let last = text.trim_end().split("\n\n").last().expect("an answer");
        let proven = match bar["bar_proven"].as_str() {
            Some(outcome) => format!(" proven {outcome}"),
            None => String::new(),
        };
        let expected = format!(
            "= {:.4} {:.4} {:.4}{proven}",
            bar["light"].as_f64().expect("light"),
            bar["draw"].as_f64().expect("draw"),
            bar["dark"].as_f64().expect("dark")
        );
        assert_eq!(last, expected, "after '{moves}'");
    }
}

#[test]
fn a_network_player_loads_the_model_of_its_own_game() {
    // Without model=, Havannah's network player is Havannah's shipped
    // model; another game's checkpoint is refused in one line.
    let report = json_of(&[
        "arena",
        "--game",
        "havannah",
        "--a",
        "mcts:sims=4",
        "--b",
        "random",
        "--games",
        "2",
        "--openings",
        "1",
        "--json",
    ]);
    assert_eq!(report["games"], 2);
    let heraldis = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/heraldis");
    let output = grandmaitre()
        .args([
            "arena", "--game", "havannah", "--b", "random", "--games", "2",
        ])
        .args(["--a", &format!("mcts:model={heraldis}")])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("it is a heraldis model, not a havannah one"),
        "{stderr}"
    );
}

#[test]
fn the_shipped_model_is_measured_but_never_rewritten() {
    let output = grandmaitre()
        .args(["calibrate", "--games", "4"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        stderr.contains("the shipped model is inside the program"),
        "{stderr}"
    );
}
