//! The model for embedding in an app (`grandmaitre export`): ONNX (batch
//! norm folded), the same weights as safetensors, `model.json` (game,
//! rules, encoding plane by plane, action indexing, calibration,
//! provenance, test vectors of the network and of the search) and, for a
//! game whose app has one, the JavaScript modules that encode positions,
//! run the model and search as the engine does (`web/heraldis.js`, and the
//! game-neutral `web/grandmaitre.js` and `web/search.js`). `model.json`'s
//! `search` gives the engine's search settings, levels and bar, which the
//! modules read instead of keeping copies.

use std::fs;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};
use burn::tensor::Device;
use grandmaitre_engine::book::Book;
use grandmaitre_engine::game::rule_symmetries;
use grandmaitre_engine::guard::Guard;
use grandmaitre_engine::levels::{ADVICE_LEVEL, LEVELS};
use grandmaitre_engine::search::{
    EvaluationRequest, Evaluations, Evaluator, MoveChoice, MovesLeftConfig, Search, SearchConfig,
    SearchResult, Tactics, UniformEvaluator,
};
use grandmaitre_engine::seats::{HUMAN_LEVELS, Seat, Seats};
use grandmaitre_engine::solve::{Budget, Solution, SolveReport, Solver};
use grandmaitre_engine::{Action, ForPlayers, Game, Outcome, ToMove};
use grandmaitre_model::bar::{BAR_SIMULATIONS, Shown, bar};
use grandmaitre_model::calibration::players::{FEATURES, PlayersModel};
use grandmaitre_model::inference::softmax3;
use grandmaitre_model::{
    Calibration, Checkpoint, FoldedWeights, Logits, NetworkEvaluator, burn_outputs, onnx,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::registry::{self, Registered};
use crate::write_atomically;

/// The solution book's file in the export, when one applies.
const BOOK_FILE: &str = "book.txt";

/// Version of the export directory's layout (`model.json` → `format`).
pub const EXPORT_FORMAT: u32 = 1;

/// What [`export`] wrote.
#[derive(Clone, Debug)]
pub struct Written {
    /// Bytes of `model.onnx`.
    pub onnx_bytes: usize,
    /// Bytes of `weights.safetensors`.
    pub safetensors_bytes: usize,
    /// Test vectors of the network in `model.json`.
    pub test_vectors: usize,
    /// Search vectors in `model.json`.
    pub searches: usize,
    /// The other files: the game's modules, and the solution book with its
    /// positions.
    pub extras: Vec<(String, Option<usize>)>,
}

/// Writes the export of `checkpoint` (a network of `game`) to the
/// directory `out`: `model.onnx`, `weights.safetensors`, `model.json` and
/// the game's modules and book, if it has them, each file atomically.
pub fn export<G: Registered>(game: &G, checkpoint: &Checkpoint, out: &Path) -> Result<Written> {
    let notes = game.export_notes();
    let [first, second] = registry::player_names(game);
    let config = &checkpoint.metadata.network;
    let weights = FoldedWeights::new(&checkpoint.network);
    let calibrations = checkpoint.metadata.calibrations();
    let calibration = calibrations.for_rules(game.rules());
    let book = registry::book_and_text(game);
    let vectors = test_vectors(game, checkpoint, calibration);
    let searches = search_vectors(
        game,
        checkpoint,
        calibration,
        book.as_ref().map(|(book, _)| &**book),
    );
    let mut description = json!({
        "format": EXPORT_FORMAT,
        "game": game.spec().name,
        "rules": notes.rules,
        "parameters": game.rules().to_string(),
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
        "outputs": outputs(config),
        "calibration": calibration.map(|c| json!({
            "temperature": c.temperature,
            "network_temperature": c.network_temperature,
            "bar_simulations": c.simulations,
            "curves": c.curves,
            "network_curves": c.network_curves,
            "rule": format!("on P({first} wins), P(draw), P({second} wins): first p ∝ exp(ln(max(p, 1e-6)) / T), then, when the curves are not null, each probability through its curve (curves[0] where {first} is to move, curves[1] where {second} is; per outcome {first}, draw, {second}; knots [x, y], linear between them, flat beyond the ends, no knots: unchanged) and the three renormalised to sum 1; network_temperature and network_curves apply to the network's own output, temperature and curves to the engine's bar after its search; where players is given, the engine's bar for who plays replaces temperature and curves"),
            "players": c.players.as_ref().map(|model| players_json(model, first, second)),
        })),
        "network": config,
        "provenance": checkpoint.metadata.provenance,
        "onnx_opset": onnx::OPSET,
        "files": {
            "onnx": "model.onnx",
            "safetensors": "weights.safetensors",
            "module": notes.modules.first().map(|(name, _)| name),
            "grandmaitre": notes.modules.get(1).map(|(name, _)| name),
            "search": notes.modules.get(2).map(|(name, _)| name),
            "solve": notes.modules.get(3).map(|(name, _)| name),
        },
        "search": search_settings(game),
        "test_vectors": vectors,
        "search_vectors": searches,
    });
    if let Some((book, _)) = &book {
        description["book"] = json!({
            "file": BOOK_FILE,
            "winner": game.player_name(book.winner()),
            "root": game.format_state(book.root()),
            "positions": book.len(),
            "symmetries": book.cell_maps(game),
            "rule": format!("a solution book, checked under these rules: lines '#…' are comments, every other line POSITION<TAB>MOVE, a position of the winner's and its winning move; a position is proven when it or its image under one of the symmetries (symmetries[k][i] is where cell i goes: pieces and truce cell alike; the move found is mapped back) has a line (the winner wins), or when the loser is to move and each legal move ends the game in the winner's win or leads to such a position (the loser loses); the bar of a proven position is its exact result, and a player that plays its best (no random moves, no temperature: levels 7 to 10 and the advice) plays the book's move; `search_vectors.book` lists positions with the engine's move and bar"),
        });
        description["files"]["book"] = json!(BOOK_FILE);
    }
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
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    write_atomically(&out.join("model.onnx"), &model)?;
    write_atomically(&out.join("weights.safetensors"), &tensors)?;
    for (name, module) in notes.modules {
        write_atomically(&out.join(name), module.as_bytes())?;
    }
    if let Some((_, text)) = &book {
        write_atomically(&out.join(BOOK_FILE), text.as_bytes())?;
    }
    write_atomically(
        &out.join("model.json"),
        format!("{}\n", serde_json::to_string_pretty(&description)?).as_bytes(),
    )?;
    Ok(Written {
        onnx_bytes: model.len(),
        safetensors_bytes: tensors.len(),
        test_vectors: vectors.len(),
        searches: searches["network"].as_array().map_or(0, Vec::len)
            + searches["uniform"].as_array().map_or(0, Vec::len)
            + searches["recorded"]["searches"]
                .as_array()
                .map_or(0, Vec::len),
        extras: notes
            .modules
            .iter()
            .map(|(name, _)| (name.to_string(), None))
            .chain(
                book.iter()
                    .map(|(book, _)| (BOOK_FILE.to_string(), Some(book.len()))),
            )
            .collect(),
    })
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
            let Logits {
                policy_logits: policy,
                wdl_logits: wdl,
                rules_wdl_logits,
            } = burn_outputs(&checkpoint.network, config, &planes, &Device::flex());
            // The bar reads the value under the game's own rules.
            let bar_logits = rules_wdl_logits.as_deref().unwrap_or(&wdl);
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
            let raw = ToMove(softmax3([bar_logits[0], bar_logits[1], bar_logits[2]]))
                .for_players(to_move);
            let ForPlayers([first_wins, draw, second_wins]) = match calibration {
                Some(c) => c.apply_network(raw, to_move),
                None => raw,
            };
            let mut vector = json!({
                "position": game.format_state(state),
                "planes": planes,
                "policy_logits": policy,
                "wdl_logits": wdl,
                "legal_moves": actions.iter().map(|&a| game.format_action(state, a)).collect::<Vec<_>>(),
                "bar": {first: first_wins, "draw": draw, second: second_wins},
                "best_move": best,
            });
            if let Some(logits) = rules_wdl_logits {
                vector["rules_wdl_logits"] = json!(logits);
            }
            vector
        })
        .collect()
}

/// `model.json`'s outputs of the network: what each means.
fn outputs(config: &grandmaitre_model::NetworkConfig) -> serde_json::Value {
    let mut outputs = json!({
        "policy_logits": {
            "shape": ["N", config.actions],
            "meaning": "move logits; mask the illegal moves, then softmax",
        },
        "wdl_logits": {
            "shape": ["N", 3],
            "meaning": "logits of win, draw, loss for the side to move",
        },
    });
    if config.rules_value_head {
        outputs["rules_wdl_logits"] = json!({
            "shape": ["N", 3],
            "meaning": "logits of win, draw, loss for the side to move under the game's own rules (wdl_logits may read a training rule's adjudication); the bar reads these, the search that plays reads wdl_logits",
        });
    }
    outputs
}

/// Simulations of the search vectors: the bar's, then a level's.
const SEARCH_VECTOR_SIMULATIONS: [u32; 2] = [BAR_SIMULATIONS, 800];

/// The engine's searches that a runtime of the search must reproduce, on
/// the start and positions of random games, under the levels' settings
/// (no noise, the move of best lower confidence bound): with the network
/// (a runtime's own inference differs in the last bits: see docs/embedding.md's
/// tolerance), with the uniform evaluator (exact: no network involved),
/// and with the network's outputs recorded batch by batch (exact: the
/// runtime replays them), plus the calibrated bar of each position.
fn search_vectors<G: Registered>(
    game: &G,
    checkpoint: &Checkpoint,
    calibration: Option<&Calibration>,
    book: Option<&Book<G>>,
) -> serde_json::Value {
    let mut states = vec![game.initial_state()];
    states.extend(
        grandmaitre_engine::game::random_states(game, 24, 16, 23)
            .into_iter()
            .filter(|s| game.outcome(s).is_none()),
    );
    states.truncate(6);
    let evaluator = checkpoint.evaluator();
    let search = |state: &G::State, simulations: u32, evaluator: &dyn Evaluator<G>| {
        // The exported weights have no moves-left head.
        let config = SearchConfig {
            simulations,
            moves_left: MovesLeftConfig::off(),
            ..SearchConfig::default()
        };
        let mut search = Search::new(game.clone(), state.clone(), config, 0);
        search.run(&evaluator);
        let action = search.choose_move(MoveChoice::LowerConfidenceBound);
        search_json(game, state, simulations, &search.result(), action)
    };
    let mut network = Vec::new();
    let mut uniform = Vec::new();
    let mut bars = Vec::new();
    for state in &states {
        for simulations in SEARCH_VECTOR_SIMULATIONS {
            network.push(search(state, simulations, &evaluator));
            uniform.push(search(state, simulations, &UniformEvaluator));
        }
        bars.push(bar_json(game, state, &evaluator, calibration, book));
    }
    // Where the book plays: its move and the bar, at the level-10 setting.
    let booked = book.map_or_else(Vec::new, |book| {
        book_positions(game, book)
            .iter()
            .map(|state| {
                let mut vector = bar_json(game, state, &evaluator, calibration, Some(book));
                vector["book_move"] = json!(
                    book.best_move(game, state)
                        .map(|action| game.format_action(state, action))
                );
                vector
            })
            .collect()
    });
    let mut recorded = Vec::new();
    let mut batches = Vec::new();
    for state in states.iter().take(2) {
        let recorder = Recorder {
            inner: &evaluator,
            batches: Mutex::new(Vec::new()),
        };
        recorded.push(search(state, BAR_SIMULATIONS, &recorder));
        batches.push(recorder.batches.into_inner().unwrap_or_default());
    }
    json!({
        "settings": format!(
            "PUCT as the levels run it (c_puct {c}, c_puct_base {base}, fpu_reduction {fpu}, leaves_per_batch {leaves}, the solver, tree reuse, no noise); `move` is the move of best lower confidence bound, `visits` each root move's visits, `wdl` the root's for the side to move",
            c = SearchConfig::default().c_puct,
            base = SearchConfig::default().c_puct_base,
            fpu = SearchConfig::default().fpu_reduction,
            leaves = SearchConfig::default().leaves_per_batch,
        ),
        "network": network,
        "uniform": uniform,
        "recorded": {
            "meaning": "searches with the network's outputs as the engine computed them, batch by batch (position, policy logits, win/draw/loss for the side to move): replayed, they give the same visits exactly",
            "searches": recorded,
            "batches": batches,
        },
        "bar": bars,
        "history_bars": history_vectors(game, &evaluator, calibration, book),
        "book": booked,
        // What an app's solver must reproduce (only a game with an app has
        // one; the positions cost a few seconds of solving).
        "guard": (!game.export_notes().modules.is_empty() && game.guard_nodes() > 0)
            .then(|| guard_vectors(game)),
    })
}

/// The engine's search settings as the levels, the advice and the bar run
/// them: what a runtime's search reads (`web/search.js`), never copies.
fn search_settings<G: Registered>(game: &G) -> serde_json::Value {
    let config = SearchConfig::default();
    let tactics = game.search_tactics();
    json!({
        "meaning": "PUCT's constants (c_puct, c_puct_base, fpu_reduction), the leaves gathered per network batch, the Monte-Carlo solver and tree reuse, as every level, the advice and the bar search; tactics: null, or the game's tactical settings that the levels that play their best (no random move, no temperature) and the advice add to the search, the bar's search not (a runtime without them cannot play those levels); levels: simulations, the move choice's temperature on visit counts (0: the move of best lower confidence bound) and the probability of a uniformly random legal move; advice_level: the level of the advice; bar_simulations: the bar's search; guard_nodes: the positions each solve of the guard may expand, where the levels that play their best ask the solver before trusting their search (search_vectors.guard)",
        "c_puct": config.c_puct,
        "c_puct_base": config.c_puct_base,
        "fpu_reduction": config.fpu_reduction,
        "leaves_per_batch": config.leaves_per_batch,
        "solver": config.solver,
        "reuse_tree": config.reuse_tree,
        "tactics": (tactics != Tactics::default()).then(|| json!({
            "minimax_weight": tactics.minimax_weight,
            "skip_single_moves": tactics.skip_single_moves,
            "leaf_depth": tactics.leaf_depth,
            "root_leaf_depth": tactics.root_leaf_depth,
            "leaf_weight": tactics.leaf_weight,
            "score_utility": tactics.score_utility,
            "score_scale": tactics.score_scale,
        })),
        "levels": LEVELS.iter().map(|l| json!({
            "number": l.number,
            "simulations": l.simulations,
            "temperature": l.temperature,
            "noise": l.noise,
        })).collect::<Vec<_>>(),
        "advice_level": ADVICE_LEVEL,
        "bar_simulations": BAR_SIMULATIONS,
        "guard_nodes": game.guard_nodes(),
    })
}

/// The solver before the search (`grandmaitre_engine::guard`), as a
/// runtime must reproduce it: positions near the end of random games, each
/// with the solver's value and node count within the guard's budget, and
/// the guard's answer for every legal move offered as the search's (the
/// others, in the game's order, as its preference), one fresh guard per
/// position.
fn guard_vectors<G: Registered>(game: &G) -> serde_json::Value {
    let budget = Budget {
        nodes: game.guard_nodes(),
        seconds: f64::INFINITY,
    };
    let mut states: Vec<(G::State, usize, SolveReport)> = Vec::new();
    let mut actions = Vec::new();
    // Positions the solver proves after a search, at once, or not at all
    // within the budget.
    let wanted = [4, 2, 2];
    for state in grandmaitre_engine::game::random_states(game, 120, 60, 48) {
        if game.outcome(&state).is_some() || states.iter().any(|(s, _, _)| *s == state) {
            continue;
        }
        let report = Solver::new(game.clone()).solve(&state, budget);
        let kind = match (report.solution, report.nodes) {
            (Solution::Unknown, _) => 2,
            (_, 0..=1) => 1,
            _ => 0,
        };
        if states.iter().filter(|(_, k, _)| *k == kind).count() < wanted[kind] {
            states.push((state, kind, report));
        }
        if states.len() == wanted.iter().sum::<usize>() {
            break;
        }
    }
    let name = |outcome: Outcome| match outcome {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    };
    let vectors: Vec<serde_json::Value> = states
        .iter()
        .map(|(state, _, report)| {
            game.legal_actions(state, &mut actions);
            let mut guard = Guard::new(game.clone(), game.guard_nodes());
            let checks: Vec<serde_json::Value> = actions
                .iter()
                .map(|&searched| {
                    let preference: Vec<Action> =
                        actions.iter().copied().filter(|&a| a != searched).collect();
                    let guarded = guard.check(game, state, searched, &preference);
                    json!({
                        "searched": game.format_action(state, searched),
                        "move": game.format_action(state, guarded.action),
                        "proven": guarded.proven.map(name),
                        "overruled": guarded.overruled,
                    })
                })
                .collect();
            json!({
                "position": game.format_state(state),
                "solution": match report.solution {
                    Solution::Solved(outcome) => Some(name(outcome)),
                    Solution::Unknown => None,
                },
                "best_move": report.best_move.map(|a| game.format_action(state, a)),
                "nodes": report.nodes,
                "checks": checks,
            })
        })
        .collect();
    json!({
        "meaning": format!("the solver (df-pn, its table keyed by the position reduced by the rules' symmetries) within {} positions a solve: each position's value for the side to move (null: unknown), a move keeping it and the positions expanded; then one guard, kept across the checks, asked about each legal move in turn as the search's, the other moves as its preference (the game's order)", game.guard_nodes()),
        "nodes": game.guard_nodes(),
        "positions": vectors,
    })
}

/// The bar for who plays in model.json: what [`features`] computes, the
/// levels' ratings and random-move rates, the weights, and how a human is
/// read.
fn players_json(model: &PlayersModel, first: &str, second: &str) -> serde_json::Value {
    json!({
        "features_version": model.features_version,
        "features": FEATURES.to_vec(),
        "ratings": model.ratings,
        "random_moves": LEVELS.map(|level| level.noise),
        "plays_its_best": LEVELS.map(|level| level.plays_its_best()),
        "ply_scale": model.ply_scale,
        "weights": model.weights,
        "search_ridge": model.search_ridge,
        "human_levels": HUMAN_LEVELS.collect::<Vec<u32>>(),
        "moves": model.moves,
        "rule": format!("for a {first} player and a {second} player of levels a and b (1-10): the features of the engine (model/src/calibration/players.rs, in the order of features) from the bar's search's P({first} wins), P(draw), P({second} wins), the proven result if any, the side to move, the ply, ratings[a-1] and ratings[b-1] (Elo, level 10 at 0) and random_moves of the side to move's level; logits [0, o[0] + weights[0]·x, o[1] + weights[1]·x] softmaxed give P({first} wins), P(draw), P({second} wins); a human side is the mixture of the answers over human_levels under the belief in that person's level (both sides human: over every pair, the product of the two beliefs): uniform before they move; where moves is given, each of their moves multiplies level l's weight by random_moves[l-1]/n + (1 - random_moves[l-1]) * (slip[l-1]/n + (1 - slip[l-1]) * q^sharpness[l-1] / sum of p^sharpness[l-1] over the legal moves) raised to the power tempering, with n the legal moves, p each one's prior (the softmax of the network's policy logits over the legal moves, floored at 1e-6) and q the move played's; where the solution book proves a win, or the search does and the search block's guard_nodes is not 0, and the winner's level plays_its_best, that win is certain (it plays the book's moves, or asks the solver); else, where the side to move can win at once (a share s of its legal moves wins), its level converts at once with probability c = 1 - r + r s (r its random_moves) and the answer is c for its win plus (1 - c) times the logistic answer; o is [0, 0] where search_ridge is null or the result is proven, else [0, ln P({second} wins) - ln P({first} wins)] of the bar's search, each probability floored at 1e-4 first"),
    })
}

/// Seats the bar vectors are computed for, besides the default.
const VECTOR_SEATS: [[Seat; 2]; 3] = [
    [Seat::Level(3), Seat::Level(8)],
    [Seat::Human, Seat::Level(6)],
    [Seat::Human, Seat::Human],
];

/// The bar of `state` (with the book) as a vector, for the default seats,
/// and for [`VECTOR_SEATS`] (`seated`) where the calibration reads them.
fn bar_json<G: Registered>(
    game: &G,
    state: &G::State,
    evaluator: &NetworkEvaluator,
    calibration: Option<&Calibration>,
    book: Option<&Book<G>>,
) -> serde_json::Value {
    let entry = |seats: &Seats| {
        let shown = bar(game, state, evaluator, calibration, book, seats, &[]);
        shown_json(game, seats, &shown)
    };
    let mut vector = entry(&Seats::DEFAULT);
    vector["position"] = json!(game.format_state(state));
    vector["seated_bars"] = json!(
        VECTOR_SEATS
            .iter()
            .map(|seats| entry(&Seats(*seats)))
            .collect::<Vec<_>>()
    );
    vector
}

/// What the bar showed for `seats`, as a vector: the players read, the
/// three probabilities under the players' names, what is proven, whether
/// the players were read, and the beliefs over the human seats' levels.
fn shown_json<G: Registered>(game: &G, seats: &Seats, shown: &Shown) -> serde_json::Value {
    let [first, second] = registry::player_names(game);
    let ForPlayers([first_wins, draw, second_wins]) = shown.wdl;
    json!({
        "players": seats.text(game),
        first: first_wins,
        "draw": draw,
        second: second_wins,
        "proven": shown.proven.map(|index| registry::outcome_names(game)[index].clone()),
        "seated": shown.seated,
        "beliefs": shown.beliefs.clone().map(|belief| belief.map(|b| b.levels)),
    })
}

/// Seats of the bar vectors that read a person's moves.
const HISTORY_SEATS: [[Seat; 2]; 3] = [
    [Seat::Human, Seat::Level(6)],
    [Seat::Level(3), Seat::Human],
    [Seat::Human, Seat::Human],
];

/// The bar after games from the start whose moves it reads: for each of
/// two games of random moves, the history (`history`: each position from
/// the start and the move played there, in notation), the position reached
/// and the bar for [`HISTORY_SEATS`], with the beliefs over the human
/// seats' levels (`beliefs`: the weight of each level, per side).
fn history_vectors<G: Registered>(
    game: &G,
    evaluator: &NetworkEvaluator,
    calibration: Option<&Calibration>,
    book: Option<&Book<G>>,
) -> Vec<serde_json::Value> {
    let mut rng = SmallRng::seed_from_u64(29);
    let mut vectors = Vec::new();
    for plies in [7, 12] {
        let mut state = game.initial_state();
        let mut history = Vec::new();
        let mut entries = Vec::new();
        let mut legal = Vec::new();
        while history.len() < plies && game.outcome(&state).is_none() {
            legal.clear();
            game.legal_actions(&state, &mut legal);
            let action = legal[rng.random_range(0..legal.len())];
            entries.push(json!({
                "position": game.format_state(&state),
                "move": game.format_action(&state, action),
            }));
            let next = game.play(&state, action).expect("a legal move");
            history.push((std::mem::replace(&mut state, next), action));
        }
        let bars: Vec<serde_json::Value> = HISTORY_SEATS
            .iter()
            .map(|seats| {
                let seats = Seats(*seats);
                let shown = bar(game, &state, evaluator, calibration, book, &seats, &history);
                shown_json(game, &seats, &shown)
            })
            .collect();
        vectors.push(json!({
            "history": entries,
            "position": game.format_state(&state),
            "bars": bars,
        }));
    }
    vectors
}

/// Positions around a book for its vectors: its root, the loser's
/// position after the root's move, the winner's positions after each of
/// the loser's first three replies and their images under every symmetry
/// of the rules (the book has only one of them), and a position off the
/// book (a loser's reply after the winner's first move that is not the
/// book's, when the winner moves first there).
fn book_positions<G: Registered>(game: &G, book: &Book<G>) -> Vec<G::State> {
    let root = book.root().clone();
    let mut states = vec![root.clone()];
    let mut actions = Vec::new();
    if let Some(action) = book.best_move(game, &root) {
        let after = game.play(&root, action).expect("the book's move is legal");
        game.legal_actions(&after, &mut actions);
        for &reply in actions.iter().take(3) {
            let reached = game.play(&after, reply).expect("legal");
            for symmetry in rule_symmetries(game) {
                let image = game.transform_state(&reached, symmetry);
                if !states.contains(&image) {
                    states.push(image);
                }
            }
        }
        states.insert(1, after);
        game.legal_actions(&root, &mut actions);
        if let Some(&other) = actions.iter().find(|&&a| {
            a != action
                && book
                    .outcome(game, &game.play(&root, a).expect("legal"))
                    .is_none()
        }) {
            let off = game.play(&root, other).expect("legal");
            game.legal_actions(&off, &mut actions);
            if let Some(&reply) = actions.first() {
                states.push(game.play(&off, reply).expect("legal"));
            }
        }
    }
    states
        .into_iter()
        .filter(|s| game.outcome(s).is_none())
        .collect()
}

/// One search vector.
fn search_json<G: Registered>(
    game: &G,
    state: &G::State,
    simulations: u32,
    result: &SearchResult,
    action: Action,
) -> serde_json::Value {
    let visits: serde_json::Map<String, serde_json::Value> = result
        .children
        .iter()
        .map(|c| (game.format_action(state, c.action), c.visits.into()))
        .collect();
    json!({
        "position": game.format_state(state),
        "simulations": simulations,
        "move": game.format_action(state, action),
        "visits": visits,
        "wdl": result.wdl.0,
        "proof": result.proof.map(|o| format!("{o:?}").to_lowercase()),
    })
}

/// An evaluator that writes down what another answers, batch by batch.
struct Recorder<'a, G: Game> {
    inner: &'a dyn Evaluator<G>,
    batches: Mutex<Vec<serde_json::Value>>,
}

impl<G: Registered> Evaluator<G> for Recorder<'_, G> {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        self.inner.evaluate(requests, output);
        // The logits of the legal moves only: the search reads no others,
        // and a game of thousands of actions would fill megabytes.
        let mut legal = Vec::new();
        let batch: Vec<serde_json::Value> = requests
            .iter()
            .enumerate()
            .map(|(index, request)| {
                request.game.legal_actions(request.state, &mut legal);
                let logits = output.policy(index);
                let legal_logits: Vec<(u16, f32)> = legal
                    .iter()
                    .map(|action| (action.0, logits[action.index()]))
                    .collect();
                json!({
                    "position": request.game.format_state(request.state),
                    "legal_logits": legal_logits,
                    "wdl": output.wdl[index].0,
                })
            })
            .collect();
        if let Ok(mut batches) = self.batches.lock() {
            batches.push(batch.into());
        }
    }
}
