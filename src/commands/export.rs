//! `grandmaitre export`: the model as ONNX (batch norm folded) and
//! `model.json` describing its input, outputs and provenance.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::{Heraldis, PLANE_NAMES};
use grandmaitre_model::{Checkpoint, FoldedWeights, onnx};
use serde_json::json;

use crate::cli::ExportArgs;

/// Writes the export directory.
pub fn run(args: ExportArgs) -> Result<()> {
    if args.game != "heraldis" {
        bail!("unknown game '{}': expected heraldis", args.game);
    }
    let game = Heraldis::default();
    let checkpoint = Checkpoint::load(&args.model, game.spec(), &Device::flex())?;
    let config = &checkpoint.metadata.network;
    let weights = FoldedWeights::new(&checkpoint.network);
    let description = json!({
        "game": game.spec().name,
        "encoding_version": game.spec().encoding_version,
        "input": {
            "name": "planes",
            "shape": ["N", config.input_planes, config.height, config.width],
            "planes": PLANE_NAMES,
        },
        "outputs": {
            "policy_logits": {
                "shape": ["N", config.actions],
                "actions": "0..25 are the cells a1=0, b1=1, ..., e5=24 (5 × (rank − 1) + file); 25 is pass",
            },
            "wdl_logits": {
                "shape": ["N", 3],
                "meaning": "logits of win, draw, loss for the side to move",
            },
        },
        "network": config,
        "provenance": checkpoint.metadata.provenance,
        "onnx_opset": onnx::OPSET,
    });
    let metadata = vec![
        ("game".to_string(), game.spec().name.to_string()),
        (
            "encoding_version".to_string(),
            game.spec().encoding_version.to_string(),
        ),
    ];
    let model = onnx::export(&weights, config, &metadata);
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    write_atomically(&args.out.join("model.onnx"), &model)?;
    write_atomically(
        &args.out.join("model.json"),
        serde_json::to_string_pretty(&description)?.as_bytes(),
    )?;
    println!(
        "wrote {} ({} bytes) and model.json",
        args.out.join("model.onnx").display(),
        model.len()
    );
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path`, then renames it.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let staging = path.with_extension("tmp");
    fs::write(&staging, bytes).with_context(|| format!("writing {}", staging.display()))?;
    fs::rename(&staging, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
