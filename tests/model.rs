//! End-to-end tests of the commands that use a network: `bench nn`,
//! `export`, `advise`, `winprob`, `calibrate`, and players guided by a
//! checkpoint in `arena` and `gtp`.

use std::path::Path;

use assert_cmd::Command;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_engine::{Game, Notation};

fn grandmaitre() -> Command {
    Command::cargo_bin("grandmaitre").expect("the binary is built")
}

/// Writes a fresh (untrained) small network as a checkpoint in `directory`.
fn fresh_checkpoint(directory: &Path) -> String {
    let path = directory.join("fresh");
    let output = grandmaitre()
        .args([
            "bench",
            "nn",
            "--channels",
            "8",
            "--blocks",
            "1",
            "--batches",
            "1,4",
        ])
        .args(["--seconds", "0.01", "--burn", "flex", "--save"])
        .arg(&path)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        text.contains("network: 8 channels × 1 blocks, dense heads, 30 planes → 26 actions"),
        "{text}"
    );
    assert!(text.contains("machine GEMM"), "{text}");
    // The MCTS line counts network calls and the batch they really carried.
    let mcts = text
        .lines()
        .find(|l| l.starts_with("MCTS (32 searches × up to 8 leaves, at most 256 a call)"))
        .unwrap_or_else(|| panic!("no MCTS line: {text}"));
    let mean_batch: f64 = mcts
        .split("(mean batch ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no mean batch: {mcts}"));
    assert!((1.0..=256.0).contains(&mean_batch), "{mcts}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(['1', '4']))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    path.to_str().expect("utf-8 path").to_string()
}

#[test]
fn export_writes_onnx_and_its_description() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let out = directory.path().join("export");
    grandmaitre()
        .args(["export", "--model", &model, "--out"])
        .arg(&out)
        .assert()
        .success();
    let onnx = std::fs::read(out.join("model.onnx")).expect("model.onnx");
    // An ONNX model is a protobuf ModelProto: field 1 (ir_version) first.
    assert_eq!(onnx[0], 0x08);
    for name in ["planes", "policy_logits", "wdl_logits", "Conv", "Gemm"] {
        assert!(
            onnx.windows(name.len()).any(|w| w == name.as_bytes()),
            "{name}"
        );
    }
    let description: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("model.json")).expect("model.json"))
            .expect("JSON");
    assert_eq!(description["game"], "heraldis");
    assert_eq!(
        description["encoding"]["planes"].as_array().map(Vec::len),
        Some(30)
    );
    assert_eq!(description["network"]["channels"], 8);
    assert_eq!(description["calibration"], serde_json::Value::Null);
    // Test vectors: the start position first, each with 30 × 25 planes,
    // 26 policy logits, 3 value logits and a bar that sums to one.
    let vectors = description["test_vectors"]
        .as_array()
        .expect("test vectors");
    assert!(vectors.len() >= 10);
    assert_eq!(vectors[0]["position"], "5/5/5/5/5 l - 0");
    for vector in vectors {
        assert_eq!(vector["planes"].as_array().map(Vec::len), Some(750));
        assert_eq!(vector["policy_logits"].as_array().map(Vec::len), Some(26));
        assert_eq!(vector["wdl_logits"].as_array().map(Vec::len), Some(3));
        let bar = &vector["bar"];
        let sum: f64 = ["light", "draw", "dark"]
            .iter()
            .map(|k| bar[k].as_f64().expect("probability"))
            .sum();
        assert!((sum - 1.0).abs() < 1e-5, "{bar}");
        let best = vector["best_move"].as_str().expect("a move");
        assert!(
            vector["legal_moves"]
                .as_array()
                .expect("moves")
                .iter()
                .any(|m| m == best)
        );
    }
    let tensors = std::fs::read(out.join("weights.safetensors")).expect("safetensors");
    // A safetensors file starts with the little-endian length of its JSON
    // header.
    let header = u64::from_le_bytes(tensors[..8].try_into().expect("8 bytes")) as usize;
    assert!(String::from_utf8_lossy(&tensors[8..8 + header]).contains("stem.weight"));
    // The game's module holds its rules and imports the game-neutral Grand
    // Maître, which imports the search.
    let module = std::fs::read_to_string(out.join("heraldis.js")).expect("module");
    assert!(module.contains("export class Heraldis"));
    assert!(module.contains("from './grandmaitre.js'"));
    let neutral = std::fs::read_to_string(out.join("grandmaitre.js")).expect("neutral module");
    assert!(neutral.contains("export class GrandMaitre"));
    assert!(neutral.contains("from './search.js'"));
    let search = std::fs::read_to_string(out.join("search.js")).expect("search module");
    assert!(search.contains("export class Search"));
    assert_eq!(description["files"]["grandmaitre"], "grandmaitre.js");
    assert_eq!(description["files"]["search"], "search.js");
    assert_eq!(description["files"]["solve"], "solve.js");
    assert_eq!(
        description["search"]["guard_nodes"],
        grandmaitre_engine::guard::GUARD_NODES
    );
    // The search's settings are the engine's: the modules read them here.
    let settings = &description["search"];
    let engine = grandmaitre_engine::search::SearchConfig::default();
    assert_eq!(settings["c_puct"].as_f64(), Some(f64::from(engine.c_puct)));
    assert_eq!(
        settings["c_puct_base"].as_f64(),
        Some(f64::from(engine.c_puct_base))
    );
    assert_eq!(
        settings["fpu_reduction"].as_f64(),
        Some(f64::from(engine.fpu_reduction))
    );
    assert_eq!(settings["leaves_per_batch"], engine.leaves_per_batch);
    assert_eq!(settings["levels"].as_array().map(Vec::len), Some(10));
    assert_eq!(settings["levels"][9]["simulations"], 3200);
    assert_eq!(
        settings["advice_level"],
        grandmaitre_engine::levels::ADVICE_LEVEL
    );
    assert_eq!(
        settings["bar_simulations"],
        grandmaitre_model::bar::BAR_SIMULATIONS
    );
    // Search vectors: searches whose root visits went one to the root's
    // own evaluation and the rest to its moves (unless the search proved
    // the root and stopped early).
    let searches = &description["search_vectors"];
    for kind in ["network", "uniform"] {
        let list = searches[kind].as_array().expect("searches");
        assert!(list.len() >= 6, "{kind}");
        for vector in list {
            let visits: u64 = vector["visits"]
                .as_object()
                .expect("visits")
                .values()
                .map(|v| v.as_u64().expect("count"))
                .sum();
            let simulations = vector["simulations"].as_u64().expect("simulations");
            assert!(
                visits + 1 == simulations || !vector["proof"].is_null(),
                "{kind}: {vector}"
            );
            let chosen = vector["move"].as_str().expect("move");
            assert!(vector["visits"].get(chosen).is_some(), "{vector}");
        }
    }
    // The replayed searches: one batch of the root alone, then batches of
    // at most eight leaves, each leaf with one logit per legal move.
    let batches = searches["recorded"]["batches"].as_array().expect("batches");
    assert!(!batches.is_empty());
    let game = Heraldis::default();
    let mut legal = Vec::new();
    for search in batches {
        let search = search.as_array().expect("a search's batches");
        assert_eq!(search[0].as_array().map(Vec::len), Some(1));
        assert!(
            search
                .iter()
                .all(|b| b.as_array().is_some_and(|b| b.len() <= 8))
        );
        for leaf in search.iter().flat_map(|b| b.as_array().expect("batch")) {
            let state = game
                .parse_state(leaf["position"].as_str().expect("position"))
                .expect("a position");
            game.legal_actions(&state, &mut legal);
            let actions: Vec<u64> = leaf["legal_logits"]
                .as_array()
                .expect("legal logits")
                .iter()
                .map(|pair| pair[0].as_u64().expect("action"))
                .collect();
            let expected: Vec<u64> = legal.iter().map(|a| u64::from(a.0)).collect();
            assert_eq!(actions, expected, "{leaf}");
        }
    }
}

#[test]
fn a_checkpoint_guides_arena_and_gtp_players() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let player = format!("mcts:model={model},sims=16");
    let output = grandmaitre()
        .args([
            "arena", "--a", &player, "--b", "random", "--games", "2", "--json",
        ])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["games"], 2);

    let output = grandmaitre()
        .args(["gtp", "--sims", "800", "--model", &model])
        .write_stdin("gm-position 5/5/5/DDD2/LLL2 l - 6\ngenmove light\nquit\n")
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    // Even an untrained network's search finds a win in one (the solver),
    // once it has tried every move: 32 simulations under a random network's
    // priors could leave d1 unvisited.
    assert!(text.contains("= d1"), "{text}");
}

#[test]
fn missing_or_corrupt_models_get_one_line_errors() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    std::fs::write(Path::new(&model).join("weights.bpk"), b"garbage").expect("corrupt");
    let missing = directory.path().join("none");
    let truncated = "weights.bpk has 7 bytes, expected";
    let not_a_checkpoint = "not a checkpoint directory";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "export".into(),
                "--model".into(),
                model.clone(),
                "--out".into(),
                "x".into(),
            ],
            truncated,
        ),
        (
            vec![
                "gtp".into(),
                "--model".into(),
                missing.to_string_lossy().into(),
            ],
            not_a_checkpoint,
        ),
        (
            vec![
                "arena".into(),
                "--a".into(),
                format!("mcts:model={model}"),
                "--b".into(),
                "random".into(),
            ],
            truncated,
        ),
        (
            vec!["bench".into(), "nn".into(), "--batches".into(), "0".into()],
            "invalid --batches '0'",
        ),
    ];
    for (args, message) in cases {
        let output = grandmaitre().args(&args).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    assert!(
        !directory.path().join("x").exists(),
        "no export left behind"
    );
}

#[test]
fn advise_gives_the_move_line_values_and_alternatives() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    // Light to move wins at d2 (a2 b2 c2 d2).
    let output = grandmaitre()
        .args([
            "advise",
            "--model",
            &model,
            "--position",
            "5/5/5/LLL2/DDD2 l - 6",
        ])
        .args(["--sims", "64", "--json"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["move"], "d2");
    assert_eq!(report["principal_variation"][0], "d2");
    assert_eq!(report["side_to_move"], "light");
    assert_eq!(report["proven"], "win");
    assert_eq!(
        (report["light"].as_f64(), report["dark"].as_f64()),
        (Some(1.0), Some(0.0))
    );
    assert_eq!(report["level"], serde_json::Value::Null);
    assert_eq!(report["simulations"], 64);
    assert_eq!(report["calibrated"], false);
    let alternatives = report["alternatives"].as_array().expect("alternatives");
    assert_eq!(alternatives.len(), 5);
    assert_eq!(alternatives[0]["move"], "d2");

    // A level, in text.
    let output = grandmaitre()
        .args(["advise", "--model", &model, "--level", "3", "--moves", "a2"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("(dark to move)"), "{text}");
    assert!(text.contains("level 3, 8 simulations"), "{text}");
}

#[test]
fn winprob_is_a_distribution_seen_from_light() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let read = |position: &str| -> serde_json::Value {
        let output = grandmaitre()
            .args([
                "winprob",
                "--model",
                &model,
                "--position",
                position,
                "--json",
            ])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    // Off the solution book (Light opened a1, not the book's b1): the
    // bar's search.
    let open = read("5/5/5/5/L4 d - 1");
    let sum: f64 = ["light", "draw", "dark"]
        .iter()
        .map(|k| open[k].as_f64().expect("probability"))
        .sum();
    assert!((sum - 1.0).abs() < 1e-5, "{open}");
    assert_eq!(open["finished"], false);
    assert_eq!(open["book_proves"], false);
    assert_eq!(open["simulations"], 64);
    // The start is proven by the book: exact, without a search.
    let start = read("5/5/5/5/5 l - 0");
    assert_eq!(start["light"], 1.0);
    assert_eq!(start["simulations"], 0);
    // Dark to move, Light has four in a row: over, Light won.
    let over = read("5/5/5/LLLL1/DDD2 d - 7");
    assert_eq!(over["light"], 1.0);
    assert_eq!(over["finished"], true);
    // Dark to move can win at d1 (a1 b1 c1): the search proves it.
    let dark = read("4L/4L/5/LL3/DDD2 d - 7");
    assert_eq!(dark["dark"], 1.0, "{dark}");
}

#[test]
fn calibrate_fits_stores_and_reports() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let report = directory.path().join("report");
    let output = grandmaitre()
        .args(["calibrate", "--model", &model, "--games", "6", "--report"])
        .arg(&report)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("| ECE, worst outcome |"), "{text}");
    for file in ["calibration.md", "calibration.json", "reliability.png"] {
        assert!(report.join(file).is_file(), "{file}");
    }
    let stored: serde_json::Value = serde_json::from_slice(
        &std::fs::read(Path::new(&model).join("checkpoint.json")).expect("checkpoint.json"),
    )
    .expect("JSON");
    let temperature = stored["calibration"]["temperature"].as_f64().expect("T");
    assert!(temperature > 0.0);
    assert_eq!(stored["calibration"]["test_games"], 3);
    // Curves for Light to move and for Dark to move, one per outcome.
    let curves = stored["calibration"]["curves"].as_array().expect("curves");
    assert_eq!(curves.len(), 2);
    assert!(
        curves
            .iter()
            .all(|side| side.as_array().map(Vec::len) == Some(3))
    );
    // The checkpoint still loads, and now says it is calibrated.
    let output = grandmaitre()
        .args(["winprob", "--model", &model, "--json"])
        .output()
        .expect("runs");
    let bar: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(bar["calibrated"], true);
}

#[test]
fn calibrate_over_pairings_fits_a_bar_that_reads_who_plays() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let output = grandmaitre()
        .args([
            "calibrate",
            "--model",
            &model,
            "--games",
            "48",
            "--pairing",
            "1v6,6v1,2v2,6v6",
            "--report",
        ])
        .arg(directory.path().join("report"))
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("### The bar for who plays"), "{text}");
    let stored: serde_json::Value = serde_json::from_slice(
        &std::fs::read(Path::new(&model).join("checkpoint.json")).expect("checkpoint.json"),
    )
    .expect("JSON");
    let players = &stored["calibration"]["players"];
    assert_eq!(players["ratings"].as_array().map(Vec::len), Some(10));
    assert_eq!(players["weights"][0].as_array().map(Vec::len), Some(37));
    assert_eq!(players["pairings"].as_array().map(Vec::len), Some(4));
    // The same position, other players: another bar, each as asked.
    let bar = |players: &str| -> serde_json::Value {
        let output = grandmaitre()
            .args(["winprob", "--model", &model, "--moves", "a1 e5", "--json"])
            .args(["--players", players])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let (gentle, strong) = (bar("light=1,dark=6"), bar("light=6,dark=1"));
    assert_eq!(gentle["seated"], true);
    assert_eq!(gentle["players"], "light=1 dark=6");
    assert_ne!(gentle["light"], strong["light"], "{gentle} {strong}");
    // The games' moves fitted how each playing level moves (levels 1, 2
    // and 6 here), and a person is read through the moves they played.
    let fitted: Vec<u64> = players["moves"]["moves"]
        .as_array()
        .expect("a move model")
        .iter()
        .map(|n| n.as_u64().expect("a count"))
        .collect();
    assert_eq!(fitted.len(), 10);
    for level in [1, 2, 6] {
        assert!(fitted[level - 1] > 0, "{fitted:?}");
    }
    assert_eq!(fitted[9], 0, "level 10 never played");
    let person = bar("light=human,dark=6");
    let weights = person["beliefs"]["light"]["levels"]
        .as_array()
        .expect("a belief");
    assert_eq!(weights.len(), 9);
    assert!(
        weights
            .iter()
            .any(|pair| (pair[1].as_f64().expect("a weight") - 1.0 / 9.0).abs() > 1e-6),
        "{person}"
    );
    // A bar for who plays fitted on features of another version of the
    // program is set aside, said once on stderr: the model still serves,
    // its bar reads no players until calibrate fits it again.
    let path = Path::new(&model).join("checkpoint.json");
    let mut edited = stored.clone();
    edited["calibration"]["players"]["features_version"] = serde_json::json!(1);
    std::fs::write(&path, serde_json::to_vec(&edited).expect("JSON")).expect("written");
    let output = grandmaitre()
        .args([
            "winprob",
            "--model",
            &model,
            "--json",
            "--players",
            "light=3",
        ])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let bar: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(bar["seated"], false, "{bar}");
    let warning = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(warning.contains("calibrate"), "{warning}");
}

#[test]
fn calibrate_keeps_its_games_and_refits_on_them() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let run = |args: &[&str]| {
        let output = grandmaitre()
            .args(["calibrate", "--model", &model, "--dry-run"])
            .args(args)
            .output()
            .expect("runs");
        (
            output.status.code(),
            String::from_utf8(output.stderr).expect("utf-8"),
        )
    };
    let report = |name: &str| -> serde_json::Value {
        let path = directory.path().join(name).join("calibration.json");
        serde_json::from_slice(&std::fs::read(path).expect("report")).expect("JSON")
    };
    let file = |name: &str| directory.path().join(name).display().to_string();
    let (first, second) = (file("games/seed-1.jsonl"), file("games/seed-2.jsonl"));
    for (seed, out, report_dir) in [("1", &first, "played-1"), ("2", &second, "played-2")] {
        let status = run(&[
            "--games",
            "6",
            "--seed",
            seed,
            "--games-out",
            out,
            "--report",
            &file(report_dir),
        ]);
        assert_eq!(status.0, Some(0), "{}", status.1);
    }
    // A header, then one game per line, with the bar at every position.
    let text = std::fs::read_to_string(&first).expect("records");
    assert_eq!(text.lines().count(), 7);
    let game: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).expect("a game")).expect("JSON");
    let positions = game["predictions"].as_array().expect("predictions").len();
    assert!(positions > 0);
    assert_eq!(game["sides"].as_array().expect("sides").len(), positions);

    // Refitting on the kept games gives the calibration of the run that
    // played them.
    let status = run(&["--games-in", &first, "--report", &file("refit")]);
    assert_eq!(status.0, Some(0), "{}", status.1);
    let (played, refit) = (report("played-1"), report("refit"));
    assert_eq!(played["temperature"], refit["temperature"]);
    assert_eq!(played["curves"], refit["curves"]);
    assert_eq!(played["after"], refit["after"]);

    // Pooled with held-out games of another seed: all of the first fit.
    let status = run(&[
        "--games-in",
        &first,
        "--held-out",
        &second,
        "--report",
        &file("held"),
    ]);
    assert_eq!(status.0, Some(0), "{}", status.1);
    let held = report("held");
    let count = |key: &str| held[key].as_u64().expect(key);
    // Each game once: a game repeated (no noise, one opening) counts once,
    // and a held-out copy of a fitting game does not measure.
    assert!(count("fit_games") <= 6 && count("test_games") <= 6);
    assert_eq!(
        count("fit_games") + count("test_games") + count("repeated_games_dropped"),
        12
    );

    // Games of other rules parameters (one model serves several boards)
    // pool with the same seed, and the report tells the boards apart.
    let other = file("games/seed-1-random-3.jsonl");
    let status = run(&[
        "--games",
        "6",
        "--seed",
        "1",
        "--layout",
        "random:3",
        "--games-out",
        &other,
        "--report",
        &file("played-other"),
    ]);
    assert_eq!(status.0, Some(0), "{}", status.1);
    let populations = |name: &str| -> Vec<String> {
        report(name)["populations"]
            .as_array()
            .expect("populations")
            .iter()
            .map(|p| p["population"].as_str().expect("a name").to_string())
            .collect()
    };
    let status = run(&[
        "--games-in",
        &first,
        "--held-out",
        &other,
        "--report",
        &file("across"),
    ]);
    assert_eq!(status.0, Some(0), "{}", status.1);
    assert_eq!(populations("across"), ["self-play, random:3"]);
    let status = run(&[
        "--games-in",
        &first,
        "--games-in",
        &other,
        "--report",
        &file("both"),
    ]);
    assert_eq!(status.0, Some(0), "{}", status.1);
    let both = report("both");
    assert_eq!(
        both["games"].as_u64().expect("games")
            + both["repeated_games_dropped"].as_u64().expect("repeated"),
        12
    );
    assert!(
        populations("both")
            .iter()
            .all(|p| p == "self-play" || p == "self-play, random:3")
    );

    // The same seed twice, and a file that is not a record, are refused.
    std::fs::write(directory.path().join("bad.jsonl"), "{\"format\": 1}\n").expect("write");
    for (args, message) in [
        (
            vec!["--games-in", &first, "--held-out", &first],
            "repeats seed 1",
        ),
        (
            vec!["--games-in", &file("bad.jsonl")],
            "not a calibrate --games-out file",
        ),
    ] {
        let (code, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
}

#[test]
fn an_interrupted_calibrate_resumes_where_it_stopped() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let file = |name: &str| directory.path().join(name).display().to_string();
    let run = |out: &str| {
        grandmaitre()
            .args(["calibrate", "--model", &model, "--dry-run", "--games", "6"])
            .args([
                "--seed",
                "4",
                "--games-out",
                out,
                "--report",
                &file("report"),
            ])
            .output()
            .expect("runs")
    };
    let whole = file("whole.jsonl");
    let output = run(&whole);
    assert!(output.status.success(), "{output:?}");
    assert!(!Path::new(&format!("{whole}.part")).exists());
    let text = std::fs::read_to_string(&whole).expect("records");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7);

    // A run stopped after two games (in the order its threads finished
    // them) and in the middle of writing a third: the same command plays
    // the four left and writes the records of the run that never stopped.
    let resumed = file("resumed.jsonl");
    let part = format!("{resumed}.part");
    let cut = &lines[2][..lines[2].len() / 2];
    let partial = format!("{}\n{}\n{}\n{cut}", lines[0], lines[4], lines[1]);
    std::fs::write(&part, partial).expect("written");
    let output = run(&resumed);
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(stderr.contains("2 of 6 games already played"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&resumed).expect("records"), text);
    assert!(!Path::new(&part).exists(), "the partial file served");

    // A partial file of other settings (here another seed) is refused in
    // one line and left as it is.
    let other = file("other.jsonl");
    let other_part = format!("{other}.part");
    let header = lines[0].replace("\"seed\":4", "\"seed\":5");
    assert_ne!(header, lines[0]);
    let partial = format!("{header}\n{}\n", lines[1]);
    std::fs::write(&other_part, &partial).expect("written");
    let output = run(&other);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("left by a run of other settings"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&other_part).expect("kept"), partial);
    assert!(!Path::new(&other).exists());
}

#[test]
fn advice_commands_refuse_bad_input_in_one_line() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    let cases: [(&[&str], &str); 7] = [
        (
            &["advise", "--position", "5/5/5/5 l - 0"],
            "invalid position '5/5/5/5 l - 0': expected 5 ranks separated by '/', found 4",
        ),
        (
            &["advise", "--layout", "A S"],
            "invalid layout 'A S': expected 5 ranks",
        ),
        (
            &["advise", "--level", "11"],
            "level must be between 1 and 10, found 11",
        ),
        (
            &["advise", "--moves", "b2"],
            "in --moves: invalid move 'b2': illegal move",
        ),
        (
            &["advise", "--position", "5/5/5/LLLL1/DDD2 d - 7"],
            "the game is over",
        ),
        (
            &["winprob", "--position", "5/5/5/5/5 x - 0"],
            "bad side 'x'",
        ),
        (&["calibrate", "--games", "2"], "--games must be at least 4"),
    ];
    for (args, message) in cases {
        let output = grandmaitre()
            .args(args)
            .args(["--model", &model])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// The committed export's JavaScript modules are the ones the program
/// writes (`web/`, compiled in): an edit of `web/` without a new export
/// fails here.
#[test]
fn the_committed_export_carries_the_modules_of_web() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut compared = 0;
    for game in std::fs::read_dir(root.join("checkpoints")).expect("checkpoints/") {
        let export = game.expect("an entry").path().join("export");
        let Ok(files) = std::fs::read_dir(&export) else {
            continue;
        };
        for file in files {
            let path = file.expect("an entry").path();
            if path.extension().is_none_or(|extension| extension != "js") {
                continue;
            }
            let name = path.file_name().expect("a file name");
            let committed = std::fs::read(&path).expect("the committed module");
            let source = std::fs::read(root.join("web").join(name)).expect("its source in web/");
            assert!(
                committed == source,
                "{} differs from web/{}: export the model again",
                path.display(),
                name.to_string_lossy()
            );
            compared += 1;
        }
    }
    assert!(compared >= 2, "only {compared} modules compared");
}
