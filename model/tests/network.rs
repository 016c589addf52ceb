//! The fast inference path against burn's forward pass, backend parity, and
//! checkpoints that round-trip or are refused.

use burn::module::{Param, RunningState};
use burn::tensor::{Device, Distribution, Tensor, TensorData};
use grandmaitre_engine::Game;
use grandmaitre_engine::halma::Halma;
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_engine::seats::Seats;
use grandmaitre_model::network::ConvBn;
use grandmaitre_model::{
    Backend, Checkpoint, CheckpointMetadata, FoldedWeights, InferenceNetwork, MOVES_LEFT_SCALE,
    Network, NetworkConfig, NetworkEvaluator, Provenance, burn_forward, burn_outputs,
};

fn small_config() -> NetworkConfig {
    NetworkConfig::for_game(Heraldis::default().spec())
        .with_channels(16)
        .with_blocks(2)
}

/// Gives every batch normalisation non-trivial statistics, as training
/// would, so that folding them is really tested.
fn randomise_norms(network: &mut Network, device: &Device) {
    let mut layers: Vec<&mut ConvBn> = vec![
        &mut network.stem,
        &mut network.policy_conv,
        &mut network.value_conv,
    ];
    for block in &mut network.blocks {
        layers.push(&mut block.first);
        layers.push(&mut block.second);
    }
    for layer in layers {
        let norm = &mut layer.norm;
        let [n] = norm.gamma.dims();
        let random = |low: f64, high: f64| {
            Tensor::<1>::random([n], Distribution::Uniform(low, high), device)
        };
        norm.gamma = Param::initialized(norm.gamma.id, random(0.5, 1.5));
        norm.beta = Param::initialized(norm.beta.id, random(-0.5, 0.5));
        norm.running_mean = RunningState::new(random(-0.3, 0.3));
        norm.running_var = RunningState::new(random(0.5, 2.0));
    }
}

/// Encoded planes of `count` positions from random games.
fn random_planes(count: usize, seed: u64) -> Vec<f32> {
    planes_of(&Heraldis::default(), count, seed)
}

/// Encoded planes of `count` positions from random games of `game`.
fn planes_of<G: Game>(game: &G, count: usize, seed: u64) -> Vec<f32> {
    let len = game.spec().observation_len();
    let mut planes = vec![0.0; count * len];
    let states = grandmaitre_engine::game::random_states(game, count, 30, seed);
    for (state, slot) in states.iter().zip(planes.chunks_exact_mut(len)) {
        game.encode(state, slot);
    }
    planes
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// burn's moves-left output of `network` on `planes`, in plies.
fn burn_moves_left(network: &Network, config: &NetworkConfig, planes: &[f32]) -> Vec<f32> {
    let batch = planes.len() / (config.input_planes * config.cells());
    let input = Tensor::<4>::from_data(
        TensorData::new(
            planes.to_vec(),
            [batch, config.input_planes, config.height, config.width],
        ),
        &Device::flex(),
    );
    let output = network.forward(input).moves_left.expect("moves-left head");
    grandmaitre_model::inference::tensor_values(&output)
        .into_iter()
        .map(|units| units.max(0.0) * MOVES_LEFT_SCALE)
        .collect()
}

/// The fast path of `network` (shaped `config`) gives burn's outputs on
/// positions of `game` (the plies left too, with the moves-left head, the
/// own-rules value with that head, and the same policy and value whether
/// they are asked for or not).
fn fast_path_matches<G: Game>(game: &G, network: &Network, config: &NetworkConfig) {
    let device = Device::flex();
    let fast = InferenceNetwork::new(network, config);
    assert_eq!(fast.has_moves_left(), config.moves_left_head);
    assert_eq!(fast.has_rules_value(), config.rules_value_head);
    for (batch, seed) in [(1, 1), (7, 2), (40, 3)] {
        let planes = planes_of(game, batch, seed);
        let (policy, wdl) = burn_forward(network, config, &planes, &device);
        let mut fast_policy = vec![0.0; batch * config.actions];
        let mut fast_wdl = vec![0.0; batch * 3];
        if config.rules_value_head {
            let expected = burn_outputs(network, config, &planes, &device)
                .rules_wdl_logits
                .expect("own-rules value head");
            let mut rules = vec![0.0; batch * 3];
            fast.forward_all(
                &planes,
                &mut fast_policy,
                &mut fast_wdl,
                &mut [],
                &mut rules,
            );
            assert!(
                max_difference(&expected, &rules) <= 1e-4,
                "own-rules value, batch {batch}"
            );
            assert!(max_difference(&wdl, &fast_wdl) <= 1e-4, "value beside it");
        }
        if config.moves_left_head {
            let mut moves_left = vec![0.0; batch];
            fast.forward(&planes, &mut fast_policy, &mut fast_wdl, &mut moves_left);
            let expected = burn_moves_left(network, config, &planes);
            // Plies, so a tolerance of 1e-4 of the head's unit.
            assert!(
                max_difference(&expected, &moves_left) <= 1e-4 * MOVES_LEFT_SCALE,
                "moves left, batch {batch}, {expected:?} against {moves_left:?}"
            );
            assert!(moves_left.iter().all(|&plies| plies >= 0.0));
        }
        fast.forward(&planes, &mut fast_policy, &mut fast_wdl, &mut []);
        assert!(
            max_difference(&policy, &fast_policy) <= 1e-4,
            "policy, batch {batch}, {config:?}"
        );
        assert!(
            max_difference(&wdl, &fast_wdl) <= 1e-4,
            "value, batch {batch}, {config:?}"
        );
    }
}

/// A small network of pooled heads for `game`.
fn small_pooled_config<G: Game>(game: &G) -> NetworkConfig {
    NetworkConfig::pooled_for_game(game.spec())
        .with_channels(16)
        .with_blocks(2)
        .with_pooling_every(1)
}

#[test]
fn the_fast_path_matches_burns_forward_pass_with_pooled_heads() {
    let device = Device::flex();
    // Heraldis: the board fills the grid, and one action (the pass) is not
    // a cell.
    let game = Heraldis::default();
    let config = small_pooled_config(&game);
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    fast_path_matches(&game, &network, &config);
    // Havannah: a hexagon in its grid, marked by a plane; one network on
    // three board sizes.
    let small = Havannah::new(4, true);
    let config = small_pooled_config(&small);
    assert_eq!(config.mask_plane, Some(3));
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    for base in [4, 5, 8] {
        let game = Havannah::new(base, true);
        let on_board = config
            .for_board(game.spec())
            .expect("pooled heads fit any base");
        fast_path_matches(&game, &network, &on_board);
    }
}

#[test]
fn the_fast_path_matches_burns_forward_pass_over_pairs_of_cells() {
    // Halma: actions are moves (from, to), plus the pass; one network on
    // both boards, with as many weights on each.
    let device = Device::flex();
    let small = Halma::of_size(8);
    let config = small_pooled_config(&small);
    assert!(config.cell_pairs);
    assert_eq!(config.board_actions(), 64 * 64);
    assert_eq!(config.extra_actions(), 1);
    // With the moves-left and the own-rules value heads (Heraldis and
    // Havannah test the networks without them).
    let config = config
        .with_moves_left_head(true)
        .with_rules_value_head(true);
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    for size in [8, 10] {
        let game = Halma::of_size(size);
        let on_board = config
            .for_board(game.spec())
            .expect("pairs of cells fit either size");
        assert_eq!(on_board.actions, game.spec().action_count);
        assert_eq!(on_board.value_count(), config.value_count());
        fast_path_matches(&game, &network, &on_board);
    }
    // A network of cells does not fit a game of moves, nor the reverse.
    assert!(config.for_board(Heraldis::default().spec()).is_none());
    assert!(
        small_pooled_config(&Heraldis::default())
            .for_board(small.spec())
            .is_none()
    );
}

#[test]
fn a_pooled_network_ignores_what_lies_off_the_board() {
    // The same Havannah position of base 4 in its 7 × 7 grid and in a
    // 15 × 15 grid (base 8 with only the inner base-4 hexagon playable is
    // not a game, so the planes are built by hand): the tower is zeroed off
    // the board and pooling covers the board only, so every on-board logit
    // and the value agree.
    let device = Device::flex();
    let game = Havannah::new(4, true);
    let config = small_pooled_config(&game);
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    let planes = planes_of(&game, 3, 4);
    let (policy, wdl) = burn_forward(&network, &config, &planes, &device);
    let big = NetworkConfig {
        height: 15,
        width: 15,
        actions: 225,
        ..config.clone()
    };
    let mut padded = vec![0.0; 3 * config.input_planes * 225];
    for (position, plane, y, x) in (0..3).flat_map(|p| {
        (0..config.input_planes)
            .flat_map(move |c| (0..7).flat_map(move |y| (0..7).map(move |x| (p, c, y, x))))
    }) {
        // Off the hexagon, constant planes (the swap plane) stay 1 in the
        // small grid: copy them too, the network masks them.
        padded[((position * config.input_planes + plane) * 15 + y + 4) * 15 + x + 4] =
            planes[((position * config.input_planes + plane) * 7 + y) * 7 + x];
    }
    let (big_policy, big_wdl) = burn_forward(&network, &big, &padded, &device);
    assert!(max_difference(&wdl, &big_wdl) <= 1e-4, "value");
    for position in 0..3 {
        for y in 0..7 {
            for x in 0..7 {
                let cell = y * 7 + x;
                if planes[(position * config.input_planes + 3) * 49 + cell] == 1.0 {
                    let small = policy[position * 49 + cell];
                    let large = big_policy[position * 225 + (y + 4) * 15 + x + 4];
                    assert!((small - large).abs() <= 1e-4, "policy of cell {cell}");
                }
            }
        }
    }
}

#[test]
fn the_fast_path_matches_burns_forward_pass() {
    let device = Device::flex();
    let config = small_config();
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    let fast = InferenceNetwork::new(&network, &config);
    for (batch, seed) in [(1, 1), (7, 2), (40, 3)] {
        let planes = random_planes(batch, seed);
        let (policy, wdl) = burn_forward(&network, &config, &planes, &device);
        let mut fast_policy = vec![0.0; batch * config.actions];
        let mut fast_wdl = vec![0.0; batch * 3];
        fast.forward(&planes, &mut fast_policy, &mut fast_wdl, &mut []);
        assert!(
            max_difference(&policy, &fast_policy) <= 1e-4,
            "policy, batch {batch}"
        );
        assert!(
            max_difference(&wdl, &fast_wdl) <= 1e-4,
            "value, batch {batch}"
        );
    }
}

#[test]
fn flex_and_ndarray_give_the_same_outputs() {
    let flex = Device::flex();
    let ndarray = Backend::NdArray.device(false).expect("ndarray is built in");
    let config = small_config();
    let mut network = config.init(&flex);
    randomise_norms(&mut network, &flex);
    let bytes = {
        use burn::module::Module;
        network
            .clone()
            .into_record()
            .into_bytes()
            .expect("serialise")
    };
    let on_ndarray = {
        use burn::module::Module;
        let record = burn::store::ModuleRecord::from_bytes(bytes).expect("record");
        config
            .init(&ndarray)
            .try_load_record(record)
            .expect("same shape")
    };
    let planes = random_planes(5, 9);
    let (policy_a, wdl_a) = burn_forward(&network, &config, &planes, &flex);
    let (policy_b, wdl_b) = burn_forward(&on_ndarray, &config, &planes, &ndarray);
    assert!(max_difference(&policy_a, &policy_b) <= 1e-4);
    assert!(max_difference(&wdl_a, &wdl_b) <= 1e-4);
}

fn metadata(config: &NetworkConfig) -> CheckpointMetadata {
    CheckpointMetadata {
        calibration: None,
        rules_calibrations: Default::default(),
        format: 0,
        game: "heraldis".to_string(),
        encoding_version: Heraldis::default().spec().encoding_version,
        network: config.clone(),
        provenance: Provenance {
            parent: None,
            training_steps: 12,
            games: 3,
            created: grandmaitre_model::checkpoint::now(),
            notes: "test".to_string(),
        },
        weights_bytes: 0,
        weights_crc32: 0,
    }
}

fn saved_checkpoint(directory: &std::path::Path) -> (Checkpoint, std::path::PathBuf) {
    let device = Device::flex();
    let config = small_config();
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    let checkpoint = Checkpoint {
        metadata: metadata(&config),
        network,
    };
    let path = directory.join("model");
    checkpoint.save(&path).expect("saved");
    (checkpoint, path)
}

#[test]
fn a_checkpoint_round_trips_bit_for_bit() {
    let directory = tempfile::tempdir().expect("temp dir");
    let (checkpoint, path) = saved_checkpoint(directory.path());
    let game = Heraldis::default();
    let loaded = Checkpoint::load(&path, game.spec(), &Device::flex()).expect("loads");
    assert_eq!(loaded.metadata.provenance, checkpoint.metadata.provenance);
    assert_eq!(loaded.metadata.network, checkpoint.metadata.network);
    let planes = random_planes(6, 4);
    let config = &checkpoint.metadata.network;
    let before = burn_forward(&checkpoint.network, config, &planes, &Device::flex());
    let after = burn_forward(&loaded.network, config, &planes, &Device::flex());
    assert_eq!(before, after);
    // Saving again over it leaves no staging directory behind.
    loaded.save(&path).expect("saved again");
    let names: Vec<_> = std::fs::read_dir(directory.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["model"]);
}

fn load_error(path: &std::path::Path) -> String {
    let error = Checkpoint::load(path, Heraldis::default().spec(), &Device::flex())
        .expect_err("refused")
        .to_string();
    assert!(!error.contains('\n'), "{error}");
    error
}

#[test]
fn truncated_corrupt_and_foreign_checkpoints_are_refused() {
    let directory = tempfile::tempdir().expect("temp dir");
    let (_, path) = saved_checkpoint(directory.path());
    let weights = path.join("weights.bpk");
    let bytes = std::fs::read(&weights).expect("weights");

    std::fs::write(&weights, &bytes[..bytes.len() / 2]).expect("truncate");
    assert!(load_error(&path).contains("truncated"));

    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    std::fs::write(&weights, &flipped).expect("corrupt");
    assert!(load_error(&path).contains("corrupt (CRC-32 mismatch)"));
    std::fs::write(&weights, &bytes).expect("restore");

    let json_path = path.join("checkpoint.json");
    let json = std::fs::read_to_string(&json_path).expect("metadata");
    let edited = json.replace("\"heraldis\"", "\"havannah\"");
    assert_ne!(edited, json, "the metadata names the game");
    std::fs::write(&json_path, edited).expect("edit");
    assert!(load_error(&path).contains("it is a havannah model, not a heraldis one"));
    let version = Heraldis::default().spec().encoding_version;
    let edited = json.replace(
        &format!("\"encoding_version\": {version}"),
        "\"encoding_version\": 7",
    );
    assert_ne!(edited, json, "the metadata names the encoding version");
    std::fs::write(&json_path, edited).expect("edit");
    assert!(load_error(&path).contains("encoding version 7"));
    let edited = json.replace("\"actions\": 26", "\"actions\": 30");
    assert_ne!(edited, json, "the metadata names the action count");
    std::fs::write(&json_path, edited).expect("edit");
    assert!(load_error(&path).contains("does not fit the game's"));
    std::fs::write(&json_path, "{ not json").expect("edit");
    assert!(load_error(&path).contains("bad checkpoint.json"));
    assert!(load_error(&directory.path().join("missing")).contains("not a checkpoint directory"));
}

/// The exported ONNX file of a network for `game`, run by an independent
/// runtime (tract), gives burn's outputs.
fn onnx_runs_in_tract_with_burns_outputs<G: Game>(game: &G, config: NetworkConfig) {
    use tract_onnx::prelude::*;
    let device = Device::flex();
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    let folded = grandmaitre_model::FoldedWeights::new(&network);
    let bytes = grandmaitre_model::onnx::export(&folded, &config, &[]);
    let batch = 6;
    let planes = planes_of(game, batch, 9);
    let (policy, wdl) = burn_forward(&network, &config, &planes, &device);
    let rules = burn_outputs(&network, &config, &planes, &device).rules_wdl_logits;
    let shape = [batch, config.input_planes, config.height, config.width];
    let model = tract_onnx::onnx()
        .model_for_read(&mut bytes.as_slice())
        .expect("tract reads the file")
        .with_input_fact(0, f32::fact(shape).into())
        .expect("input shape")
        .into_optimized()
        .expect("optimised")
        .into_runnable()
        .expect("runnable");
    let input: Tensor = tract_ndarray::Array4::from_shape_vec(shape, planes)
        .expect("planes")
        .into();
    let outputs = model.run(tvec!(input.into())).expect("runs");
    let read = |index: usize| -> Vec<f32> {
        outputs[index]
            .to_plain_array_view::<f32>()
            .expect("f32 output")
            .iter()
            .copied()
            .collect()
    };
    assert_eq!(read(0).len(), batch * game.spec().action_count);
    assert!(max_difference(&policy, &read(0)) <= 1e-4, "policy logits");
    assert!(
        max_difference(&wdl, &read(1)) <= 1e-4,
        "win/draw/loss logits"
    );
    assert_eq!(outputs.len(), 2 + usize::from(rules.is_some()));
    if let Some(rules) = rules {
        assert!(
            max_difference(&rules, &read(2)) <= 1e-4,
            "own-rules win/draw/loss logits"
        );
    }
}

#[test]
fn the_onnx_export_runs_in_tract_with_burns_outputs() {
    let game = Heraldis::default();
    let config = NetworkConfig::for_game(game.spec())
        .with_channels(16)
        .with_blocks(2);
    onnx_runs_in_tract_with_burns_outputs(&game, config);
}

#[test]
fn a_pooled_export_runs_in_tract_with_burns_outputs() {
    // Heraldis: mean pooling over the whole grid and a pass logit; Havannah:
    // the board's mask.
    let game = Heraldis::default();
    onnx_runs_in_tract_with_burns_outputs(&game, small_pooled_config(&game));
    let game = Havannah::new(5, true);
    onnx_runs_in_tract_with_burns_outputs(&game, small_pooled_config(&game));
    // Halma: logits over pairs of cells, on both boards.
    for size in [8, 10] {
        let game = Halma::of_size(size);
        onnx_runs_in_tract_with_burns_outputs(&game, small_pooled_config(&game));
    }
    // Halma again with the own-rules value head: a third output.
    let game = Halma::of_size(8);
    let config = small_pooled_config(&game).with_rules_value_head(true);
    onnx_runs_in_tract_with_burns_outputs(&game, config);
}

#[test]
fn a_havannah_export_runs_in_tract_with_burns_outputs() {
    // 7 planes of 15 × 15 and 225 actions: another shape through the same
    // graph.
    let game = Havannah::default();
    let config = NetworkConfig::for_game(game.spec())
        .with_channels(16)
        .with_blocks(2);
    onnx_runs_in_tract_with_burns_outputs(&game, config);
}

/// The safetensors file holds every weight of the ONNX graph, by name.
#[test]
fn the_safetensors_export_holds_the_folded_weights() {
    let device = Device::flex();
    let config = small_config();
    let network = config.init(&device);
    let folded = grandmaitre_model::FoldedWeights::new(&network);
    let metadata: Vec<(String, String)> = ["game", "encoding_version", "a", "z", "m"]
        .iter()
        .map(|key| (key.to_string(), format!("{key} value")))
        .chain([("game".to_string(), "heraldis".to_string())])
        .collect();
    let bytes =
        grandmaitre_model::onnx::safetensors(&folded, &config, &metadata).expect("serialised");
    // The same file every time, though the library keeps the metadata in
    // a hash map.
    for _ in 0..8 {
        let again =
            grandmaitre_model::onnx::safetensors(&folded, &config, &metadata).expect("serialised");
        assert!(again == bytes, "the export is the same file every time");
    }
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).expect("header");
    assert_eq!(
        header
            .metadata()
            .as_ref()
            .and_then(|m| m.get("game"))
            .map(String::as_str),
        Some("heraldis")
    );
    let tensors = safetensors::SafeTensors::deserialize(&bytes).expect("readable");
    let stem = tensors.tensor("stem.weight").expect("stem weights");
    assert_eq!(stem.shape(), [16, config.input_planes, 3, 3]);
    let values: Vec<f32> = stem
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(values, folded.stem.weights);
    // Stem, two convolutions per block, two head convolutions and three
    // dense layers, each with weights and bias.
    assert_eq!(tensors.len(), 2 * (1 + 2 * 2 + 2 + 3));
}

#[test]
fn the_bar_is_the_same_with_or_without_the_moves_left_head() {
    // The exported module has no moves-left head: the bar's search must not
    // depend on it, while the search that chooses moves does use it.
    let device = Device::flex();
    let game = Halma::of_size(8);
    let config = small_pooled_config(&game).with_moves_left_head(true);
    let mut network = config.init(&device);
    randomise_norms(&mut network, &device);
    let with_head = FoldedWeights::new(&network);
    let without_head = FoldedWeights {
        moves_left: None,
        ..with_head.clone()
    };
    let evaluator = |weights: &FoldedWeights| {
        NetworkEvaluator::new(InferenceNetwork::from_weights(weights, &config))
    };
    let (with_head, without_head) = (evaluator(&with_head), evaluator(&without_head));
    for state in grandmaitre_engine::game::random_states(&game, 6, 20, 9) {
        if game.outcome(&state).is_some() {
            continue;
        }
        let a = grandmaitre_model::bar::bar(
            &game,
            &state,
            &with_head,
            None,
            None,
            &Seats::DEFAULT,
            &[],
        );
        let b = grandmaitre_model::bar::bar(
            &game,
            &state,
            &without_head,
            None,
            None,
            &Seats::DEFAULT,
            &[],
        );
        assert_eq!(a, b);
        let searched = grandmaitre_model::bar::bar_search(&game, &state, &with_head);
        assert!(searched.moves_left.is_some(), "the head is read");
    }
}

#[test]
fn the_bar_reads_the_own_rules_value_and_play_the_main_one() {
    // A network whose main value says "the side to move wins" (as a
    // material adjudication might) and whose own-rules value says "a
    // draw" (as the game's rules do at the cap): the bar's search shows
    // the draw, the search that plays reads the win.
    let device = Device::flex();
    let game = Halma::of_size(8);
    let config = small_pooled_config(&game).with_rules_value_head(true);
    let network = config.init(&device);
    let mut weights = FoldedWeights::new(&network);
    let certain = |layer: &mut grandmaitre_model::inference::DenseWeights, outcome: usize| {
        layer.weights.fill(0.0);
        layer.bias = vec![0.0; 3];
        layer.bias[outcome] = 12.0;
    };
    certain(&mut weights.value_output, 0);
    certain(weights.rules_value.as_mut().expect("the head"), 1);
    let evaluator = NetworkEvaluator::new(InferenceNetwork::from_weights(&weights, &config));
    let state = game.initial_state();
    let shown = grandmaitre_model::bar::bar_search(&game, &state, &evaluator);
    assert!(
        shown.wdl.0[1] > 0.99,
        "the bar reads the draw: {:?}",
        shown.wdl
    );
    let played = grandmaitre_engine::search::Search::new(
        game.clone(),
        state,
        grandmaitre_engine::search::SearchConfig {
            simulations: 64,
            ..Default::default()
        },
        0,
    )
    .run(&evaluator);
    // Each side to move reads its own win: the root's mean mixes them,
    // and is no draw.
    assert!(
        played.wdl.0[1] < 0.01,
        "play reads the main value: {:?}",
        played.wdl
    );
}
