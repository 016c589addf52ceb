//! A network of an earlier encoding that its game's encoding extends
//! (`GameSpec::earlier_encodings`) loads as one of the current encoding:
//! Bulltricker's version 1 read 16 planes, version 2 appends the
//! opponent's moves. The loaded network reads 19 planes and gives, on any
//! position, what the version-1 network gives on its 16; an encoding the
//! game does not extend is refused.

use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::bulltricker::Bulltricker;
use grandmaitre_model::{
    Checkpoint, CheckpointMetadata, InferenceNetwork, NetworkConfig, Provenance, burn_forward,
};

const OLD_PLANES: usize = 16;

/// A small pooled network of Bulltricker's version-1 shape, saved as a
/// version-`version` checkpoint of `planes` planes in `directory`.
fn saved(directory: &std::path::Path, version: u32, planes: usize) -> Checkpoint {
    let game = Bulltricker::default();
    let mut spec = game.spec().clone();
    spec.observation_shape[0] = planes;
    let config = NetworkConfig::pooled_for_game(&spec)
        .with_channels(8)
        .with_blocks(2);
    let checkpoint = Checkpoint {
        metadata: CheckpointMetadata {
            format: 1,
            game: "bulltricker".to_string(),
            encoding_version: version,
            network: config.clone(),
            provenance: Provenance::default(),
            weights_bytes: 0,
            weights_crc32: 0,
            calibration: None,
            rules_calibrations: Default::default(),
        },
        network: config.init(&Device::flex()),
    };
    checkpoint.save(directory).expect("saved");
    checkpoint
}

#[test]
fn a_version_1_network_reads_version_2_planes_as_it_read_its_own() {
    let game = Bulltricker::default();
    let spec = game.spec().clone();
    assert_eq!(spec.encoding_version, 2);
    assert!(spec.earlier_encodings.contains(&(1, OLD_PLANES)));
    let directory = tempfile::tempdir().expect("temp dir");
    let path = directory.path().join("v1");
    let old = saved(&path, 1, OLD_PLANES);
    let device = Device::flex();
    let loaded = Checkpoint::load(&path, &spec, &device).expect("a version-1 network loads");
    assert_eq!(loaded.metadata.encoding_version, 2);
    assert_eq!(
        loaded.metadata.network.input_planes,
        spec.observation_shape[0]
    );

    // Positions along a game, where the new planes are not empty.
    let cells = spec.observation_shape[1] * spec.observation_shape[2];
    let mut state = game.initial_state();
    let (mut planes, mut old_planes) = (Vec::new(), Vec::new());
    let mut actions = Vec::new();
    for ply in 0..24 {
        if ply % 6 == 5 {
            let mut encoded = vec![0.0; spec.observation_len()];
            game.encode(&state, &mut encoded);
            assert!(encoded[OLD_PLANES * cells..].contains(&1.0));
            old_planes.extend_from_slice(&encoded[..OLD_PLANES * cells]);
            planes.extend(encoded);
        }
        game.legal_actions(&state, &mut actions);
        state = game
            .play(&state, actions[ply * 7 % actions.len()])
            .expect("legal");
    }
    let before = burn_forward(&old.network, &old.metadata.network, &old_planes, &device);
    let after = burn_forward(&loaded.network, &loaded.metadata.network, &planes, &device);
    let fast = InferenceNetwork::new(&loaded.network, &loaded.metadata.network);
    let (mut policy, mut wdl) = (vec![0.0; before.0.len()], vec![0.0; before.1.len()]);
    fast.forward(&planes, &mut policy, &mut wdl, &mut []);
    for (name, old, new) in [
        ("policy", &before.0, &after.0),
        ("value", &before.1, &after.1),
        ("fast policy", &before.0, &policy),
        ("fast value", &before.1, &wdl),
    ] {
        assert_eq!(old.len(), new.len(), "{name}");
        let worst = old
            .iter()
            .zip(new)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{name} changed by {worst}");
    }
}

#[test]
fn an_encoding_the_game_does_not_extend_is_refused() {
    let spec = Bulltricker::default().spec().clone();
    let directory = tempfile::tempdir().expect("temp dir");
    for (name, version, planes) in [
        ("v1-17", 1, 17),
        ("v3", 3, OLD_PLANES),
        ("v0", 0, OLD_PLANES),
    ] {
        let path = directory.path().join(name);
        saved(&path, version, planes);
        let error = Checkpoint::load(&path, &spec, &Device::flex())
            .err()
            .unwrap_or_else(|| panic!("{name} loaded"));
        let message = error.to_string();
        assert!(
            message.contains(&format!(
                "encoding version {version} does not match the game's 2"
            )),
            "{name}: {message}"
        );
    }
}
