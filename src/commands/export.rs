//! `grandmaitre export`: the model for embedding in the app: ONNX (batch
//! norm folded), the same weights as safetensors, `model.json` (game,
//! layout, encoding plane by plane, action indexing, calibration,
//! provenance, test vectors) and the JavaScript module that encodes
//! positions and runs the model (`web/heraldis.js`).

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::{Heraldis, Layout, PLANE_NAMES};
use grandmaitre_model::inference::softmax3;
use grandmaitre_model::{Calibration, Checkpoint, FoldedWeights, burn_forward, onnx};
use serde_json::json;

use crate::cli::ExportArgs;

/// The JavaScript module of the export (`web/heraldis.js`).
const MODULE: &str = include_str!("../../web/heraldis.js");

/// Version of the export directory's layout (`model.json` → `format`).
pub const EXPORT_FORMAT: u32 = 1;

/// Writes the export directory: `model.onnx`, `weights.safetensors`,
/// `model.json` and `heraldis.js`.
pub fn run(args: ExportArgs) -> Result<()> {
    if args.game != "heraldis" {
        bail!("unknown game '{}': expected heraldis", args.game);
    }
    let game = match &args.layout {
        Some(spec) => Heraldis::new(Layout::from_spec(spec)?),
        None => Heraldis::default(),
    };
    let checkpoint = Checkpoint::load(&args.model, game.spec(), &Device::flex())?;
    let config = &checkpoint.metadata.network;
    let weights = FoldedWeights::new(&checkpoint.network);
    let calibration = checkpoint.metadata.calibration.as_ref();
    let vectors = test_vectors(&game, &checkpoint, calibration);
    let description = json!({
        "format": EXPORT_FORMAT,
        "game": game.spec().name,
        "layout": game.layout().to_string(),
        "ply_limit": game.ply_limit(),
        "encoding": {
            "version": game.spec().encoding_version,
            "shape": [config.input_planes, config.height, config.width],
            "cell_index": "5 × (rank − 1) + file: a1 = 0, b1 = 1, …, e5 = 24; planes are plane-major, each 25 values",
            "point_of_view": "the side to move: 'own' is the side to move, 'opponent' the other",
            "planes": PLANE_NAMES.iter().enumerate().map(|(index, name)| json!({"index": index, "name": name})).collect::<Vec<_>>(),
        },
        "actions": {
            "count": config.actions,
            "index": "0..24 are the cells (5 × (rank − 1) + file: a1 = 0, …, e5 = 24), placing or capturing there; 25 is pass",
        },
        "input": {
            "name": "planes",
            "shape": ["N", config.input_planes, config.height, config.width],
        },
        "outputs": {
            "policy_logits": {
                "shape": ["N", config.actions],
                "meaning": "move logits; mask the illegal moves, then softmax",
            },
            "wdl_logits": {
                "shape": ["N", 3],
                "meaning": "logits of win, draw, loss for the side to move",
            },
        },
        "calibration": calibration.map(|c| json!({
            "temperature": c.temperature,
            "network_temperature": c.network_temperature,
            "bar_simulations": c.simulations,
            "curves": c.curves,
            "network_curves": c.network_curves,
            "rule": "on P(Light wins), P(draw), P(Dark wins): first p ∝ exp(ln(max(p, 1e-6)) / T), then, when the curves are not null, each probability through its curve (curves[0] where Light is to move, curves[1] where Dark is; per outcome Light, draw, Dark; knots [x, y], linear between them, flat beyond the ends, no knots: unchanged) and the three renormalised to sum 1; network_temperature and network_curves apply to the network's own output, temperature and curves to the engine's bar after its search",
        })),
        "network": config,
        "provenance": checkpoint.metadata.provenance,
        "onnx_opset": onnx::OPSET,
        "files": {
            "onnx": "model.onnx",
            "safetensors": "weights.safetensors",
            "module": "heraldis.js",
        },
        "test_vectors": vectors,
    });
    let metadata = vec![
        ("game".to_string(), game.spec().name.to_string()),
        (
            "encoding_version".to_string(),
            game.spec().encoding_version.to_string(),
        ),
    ];
    let model = onnx::export(&weights, config, &metadata);
    let tensors = onnx::safetensors(&weights, &metadata)
        .map_err(|e| anyhow::anyhow!("writing the safetensors weights: {e}"))?;
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    write_atomically(&args.out.join("model.onnx"), &model)?;
    write_atomically(&args.out.join("weights.safetensors"), &tensors)?;
    write_atomically(&args.out.join("heraldis.js"), MODULE.as_bytes())?;
    write_atomically(
        &args.out.join("model.json"),
        format!("{}\n", serde_json::to_string_pretty(&description)?).as_bytes(),
    )?;
    println!(
        "wrote {}: model.onnx ({} bytes), weights.safetensors ({} bytes), model.json ({} test vectors), heraldis.js",
        args.out.display(),
        model.len(),
        tensors.len(),
        vectors.len()
    );
    Ok(())
}

/// Positions with their planes and the network's outputs (burn, the
/// reference), the legal moves, the calibrated bar of the network alone and
/// its preferred legal move: what every runtime must reproduce.
fn test_vectors(
    game: &Heraldis,
    checkpoint: &Checkpoint,
    calibration: Option<&Calibration>,
) -> Vec<serde_json::Value> {
    let mut states = vec![game.initial_state()];
    states.extend(
        grandmaitre_engine::game::random_states(game, 40, 30, 11)
            .into_iter()
            .filter(|s| game.outcome(s).is_none()),
    );
    states.truncate(24);
    let config = &checkpoint.metadata.network;
    let per_position = config.input_planes * config.cells();
    let mut actions = Vec::new();
    states
        .iter()
        .map(|state| {
            let mut planes = vec![0.0; per_position];
            game.encode(state, &mut planes);
            let (policy, wdl) = burn_forward(&checkpoint.network, config, &planes, &Device::flex());
            game.legal_actions(state, &mut actions);
            let best = actions
                .iter()
                .copied()
                .max_by(|a, b| {
                    policy[a.index()]
                        .total_cmp(&policy[b.index()])
                        .then(b.index().cmp(&a.index()))
                })
                .map(|a| game.format_action(state, a));
            let to_move = game.current_player(state);
            let first = crate::advice::for_first_player(to_move, softmax3([wdl[0], wdl[1], wdl[2]]));
            let [light, draw, dark] = match calibration {
                Some(c) => c.apply_network(first, to_move),
                None => first,
            };
            json!({
                "position": game.format_state(state),
                "planes": planes,
                "policy_logits": policy,
                "wdl_logits": wdl,
                "legal_moves": actions.iter().map(|&a| game.format_action(state, a)).collect::<Vec<_>>(),
                "bar": {"light": light, "draw": draw, "dark": dark},
                "best_move": best,
            })
        })
        .collect()
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    grandmaitre_engine::files::write_atomically(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}
