//! End-to-end tests of the commands that use a network: `bench nn`,
//! `export`, and players guided by a checkpoint in `arena` and `gtp`.

use std::path::Path;

use assert_cmd::Command;

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
        text.contains("network: 8 channels × 1 blocks, 30 planes → 26 actions"),
        "{text}"
    );
    assert!(text.contains("machine GEMM"), "{text}");
    assert!(
        text.contains("MCTS (32 searches × 8 leaves, batch 256)"),
        "{text}"
    );
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
        description["input"]["planes"].as_array().map(Vec::len),
        Some(30)
    );
    assert_eq!(description["network"]["channels"], 8);
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
        .args(["gtp", "--sims", "32", "--model", &model])
        .write_stdin("gm-position 5/5/5/DDD2/LLL2 l - 6\ngenmove light\nquit\n")
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    // Even an untrained network's search finds a win in one (the solver).
    assert!(text.contains("= d1"), "{text}");
}

#[test]
fn missing_or_corrupt_models_get_one_line_errors() {
    let directory = tempfile::tempdir().expect("temp dir");
    let model = fresh_checkpoint(directory.path());
    std::fs::write(Path::new(&model).join("weights.bpk"), b"garbage").expect("corrupt");
    let missing = directory.path().join("none");
    let cases: Vec<Vec<String>> = vec![
        vec![
            "export".into(),
            "--model".into(),
            model.clone(),
            "--out".into(),
            "x".into(),
        ],
        vec![
            "gtp".into(),
            "--model".into(),
            missing.to_string_lossy().into(),
        ],
        vec![
            "arena".into(),
            "--a".into(),
            format!("mcts:model={model}"),
            "--b".into(),
            "random".into(),
        ],
        vec!["bench".into(), "nn".into(), "--batches".into(), "0".into()],
    ];
    for args in cases {
        let output = grandmaitre().args(&args).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("utf-8");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    assert!(
        !directory.path().join("x").exists(),
        "no export left behind"
    );
}
