//! `grandmaitre export`: the model for embedding in an app: ONNX (batch
//! norm folded), the same weights as safetensors, `model.json` (game,
//! rules, encoding plane by plane, action indexing, calibration,
//! provenance, test vectors) and, for a game whose app has one, the
//! JavaScript module that encodes positions and runs the model
//! (`web/heraldis.js` for Heraldis).

use std::fs;

use anyhow::{Context, Result};
use burn::tensor::Device;
use grandmaitre_model::bar::for_first_player;
use grandmaitre_model::inference::softmax3;
use grandmaitre_model::{Calibration, Checkpoint, FoldedWeights, burn_forward, onnx};
use serde_json::json;

use super::write_atomically;
use crate::cli::ExportArgs;
use crate::registry::{self, GameTask, Registered};

/// Version of the export directory's layout (`model.json` → `format`).
pub const EXPORT_FORMAT: u32 = 1;

/// Writes the export directory: `model.onnx`, `weights.safetensors`,
/// `model.json` and the game's module, if it has one.
pub fn run(args: ExportArgs) -> Result<()> {
    registry::dispatch(
        &args.game.clone(),
        args.rules.clone().as_deref(),
        Export { args },
    )
}

struct Export {
    args: ExportArgs,
}

impl GameTask for Export {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        export(&game, &self.args)
    }
}

fn export<G: Registered>(game: &G, args: &ExportArgs) -> Result<()> {
    let checkpoint = Checkpoint::load(&args.model, game.spec(), &Device::flex())?;
    let notes = game.export_notes();
    let [first, second] = registry::player_names(game);
    let config = &checkpoint.metadata.network;
    let weights = FoldedWeights::new(&checkpoint.network);
    let calibration = checkpoint.metadata.calibration.as_ref();
    let vectors = test_vectors(game, &checkpoint, calibration);
    let mut description = json!({
        "format": EXPORT_FORMAT,
        "game": game.spec().name,
        "rules": notes.rules,
        "parameters": game.parameters(),
        "players": [first, second],
        "encoding": {
            "version": game.spec().encoding_version,
            "shape": [config.input_planes, config.height, config.width],
            "cell_index": notes.cell_index,
            "point_of_view": "the side to move: 'own' is the side to move, 'opponent' the other",
            "planes": notes.planes.iter().enumerate().map(|(index, name)| json!({"index": index, "name": name})).collect::<Vec<_>>(),
        },
        "actions": {
            "count": config.actions,
            "index": notes.actions,
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
            "rule": format!("on P({first} wins), P(draw), P({second} wins): first p ∝ exp(ln(max(p, 1e-6)) / T), then, when the curves are not null, each probability through its curve (curves[0] where {first} is to move, curves[1] where {second} is; per outcome {first}, draw, {second}; knots [x, y], linear between them, flat beyond the ends, no knots: unchanged) and the three renormalised to sum 1; network_temperature and network_curves apply to the network's own output, temperature and curves to the engine's bar after its search"),
        })),
        "network": config,
        "provenance": checkpoint.metadata.provenance,
        "onnx_opset": onnx::OPSET,
        "files": {
            "onnx": "model.onnx",
            "safetensors": "weights.safetensors",
            "module": notes.module.map(|(name, _)| name),
        },
        "test_vectors": vectors,
    });
    for (key, value) in &notes.fields {
        description[*key] = value.clone();
    }
    let metadata = vec![
        ("game".to_string(), game.spec().name.to_string()),
        (
            "encoding_version".to_string(),
            game.spec().encoding_version.to_string(),
        ),
    ];
    let model = onnx::export(&weights, config, &metadata);
    let tensors = onnx::safetensors(&weights, config, &metadata)
        .map_err(|e| anyhow::anyhow!("writing the safetensors weights: {e}"))?;
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    write_atomically(&args.out.join("model.onnx"), &model)?;
    write_atomically(&args.out.join("weights.safetensors"), &tensors)?;
    if let Some((name, module)) = notes.module {
        write_atomically(&args.out.join(name), module.as_bytes())?;
    }
    write_atomically(
        &args.out.join("model.json"),
        format!("{}\n", serde_json::to_string_pretty(&description)?).as_bytes(),
    )?;
    println!(
        "wrote {}: model.onnx ({} bytes), weights.safetensors ({} bytes), model.json ({} test vectors){}",
        args.out.display(),
        model.len(),
        tensors.len(),
        vectors.len(),
        notes
            .module
            .map_or(String::new(), |(name, _)| format!(", {name}"))
    );
    Ok(())
}

/// Positions with their planes and the network's outputs (burn, the
/// reference), the legal moves, the calibrated bar of the network alone and
/// its preferred legal move: what every runtime must reproduce.
fn test_vectors<G: Registered>(
    game: &G,
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
    let [first, second] = registry::player_names(game);
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
            let raw = for_first_player(to_move, softmax3([wdl[0], wdl[1], wdl[2]]));
            let [first_wins, draw, second_wins] = match calibration {
                Some(c) => c.apply_network(raw, to_move),
                None => raw,
            };
            json!({
                "position": game.format_state(state),
                "planes": planes,
                "policy_logits": policy,
                "wdl_logits": wdl,
                "legal_moves": actions.iter().map(|&a| game.format_action(state, a)).collect::<Vec<_>>(),
                "bar": {first: first_wins, "draw": draw, second: second_wins},
                "best_move": best,
            })
        })
        .collect()
}
