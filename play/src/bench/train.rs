//! `bench train`: training-step throughput (samples/s) of burn's
//! backends, on one batch of random positions and the same initial weights,
//! measured in one run.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_model::{Backend, Network, NetworkConfig};
use grandmaitre_train::TrainingConfig;
use grandmaitre_train::config::OptimizerSettings;
use grandmaitre_train::samples::Batch;
use grandmaitre_train::trainer::{Losses, Trainer};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// What one backend measured.
struct Measurement {
    samples_per_second: f64,
    seconds_per_step: f64,
    losses: Losses,
}

/// What `bench train` measures.
#[derive(Clone, Debug)]
pub struct TrainSettings {
    /// The backends, the first the base of the ratios.
    pub backends: Vec<Backend>,
    /// On CUDA instead of the CPU.
    pub cuda: bool,
    /// A training configuration whose network and optimizer to time.
    pub training: Option<TrainingConfig>,
    /// Channels (default: the configuration's or the game's).
    pub channels: Option<usize>,
    /// Residual blocks (default: the configuration's or the game's).
    pub blocks: Option<usize>,
    /// Samples per step (default: the configuration's).
    pub batch: Option<usize>,
    /// Timed steps.
    pub steps: usize,
    /// Untimed steps first.
    pub warmup: usize,
}

/// Times training steps of each backend from the same weights on the same
/// batch; writes the lines to `out`.
pub fn train<G: Game>(game: &G, settings: &TrainSettings, out: &mut dyn Write) -> Result<()> {
    let backends = settings.backends.clone();
    let cuda = settings.cuda;
    let (shape, optimizer) = match &settings.training {
        Some(settings) => (
            settings.network.network_config(game.spec()),
            settings.optimizer.clone(),
        ),
        None => (
            NetworkConfig::for_game(game.spec()),
            OptimizerSettings::default(),
        ),
    };
    let channels = settings.channels.unwrap_or(shape.channels);
    let blocks = settings.blocks.unwrap_or(shape.blocks);
    let batch_size = settings.batch.unwrap_or(optimizer.batch_size);
    for (name, value) in [
        ("--channels", channels),
        ("--blocks", blocks),
        ("--batch", batch_size),
        ("--steps", settings.steps),
    ] {
        if value == 0 {
            bail!("{name} must be positive");
        }
    }
    let config = shape.with_channels(channels).with_blocks(blocks);
    // One network and one batch, so that every backend does the same work
    // from the same weights.
    let network = config.init(&Device::flex());
    let weights = network.into_record().into_bytes()?;
    let batch = random_batch(game, batch_size, 1);
    writeln!(
        out,
        "network: {} channels × {} blocks, {} heads ({:.2} M multiply-adds per position); batch {}, {} warm-up + {} timed AdamW steps",
        config.channels,
        config.blocks,
        config.heads_name(),
        config.multiply_adds() as f64 / 1e6,
        batch_size,
        settings.warmup,
        settings.steps
    )?;
    let mut measured: Vec<(Backend, f64)> = Vec::new();
    for backend in backends {
        let device = match backend.device(cuda) {
            Ok(device) => device,
            Err(reason) => {
                writeln!(out, "{:<8} unavailable: {reason}", backend.to_string())?;
                continue;
            }
        };
        let record = ModuleRecord::from_bytes(weights.clone())?;
        let network = config
            .init(&device)
            .try_load_record(record)
            .with_context(|| format!("loading the weights on {backend}"))?;
        let result = measure(network, &config, &device, &batch, &optimizer, settings);
        writeln!(
            out,
            "{:<8} {:>8.0} samples/s   {:>8.1} ms/step   last step's loss: policy {:.4}, value {:.4}",
            backend.to_string(),
            result.samples_per_second,
            1e3 * result.seconds_per_step,
            result.losses.policy,
            result.losses.value
        )?;
        measured.push((backend, result.samples_per_second));
    }
    match measured.as_slice() {
        [] => bail!(
            "no backend of --backends '{}' is available",
            settings
                .backends
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        [(base, base_speed), rest @ ..] => {
            for (backend, speed) in rest {
                writeln!(out, "{backend}/{base}: {:.2}", speed / base_speed)?;
            }
        }
    }
    Ok(())
}

/// Warm-up steps, then `settings.steps` timed steps on `batch`.
fn measure(
    network: Network,
    config: &NetworkConfig,
    device: &Device,
    batch: &Batch,
    optimizer: &OptimizerSettings,
    settings: &TrainSettings,
) -> Measurement {
    let mut trainer = Trainer::new(network, config.clone(), device, optimizer.weight_decay, 0);
    for _ in 0..settings.warmup {
        trainer.step(batch, optimizer.learning_rate);
    }
    // Untimed: the losses to report should no step run (steps are at least 1).
    let mut losses = trainer.losses(batch);
    let start = Instant::now();
    for _ in 0..settings.steps {
        // A step reads its losses back, so each one has finished on the
        // device before the next starts.
        losses = trainer.step(batch, optimizer.learning_rate);
    }
    let seconds = start.elapsed().as_secs_f64();
    Measurement {
        samples_per_second: (settings.steps * batch.size) as f64 / seconds,
        seconds_per_step: seconds / settings.steps as f64,
        losses,
    }
}

/// `size` positions of random games with valid targets: a random
/// distribution over the legal moves (none in a finished position) and a
/// random result.
fn random_batch<G: Game>(game: &G, size: usize, seed: u64) -> Batch {
    let spec = game.spec();
    let per_position = spec.observation_len();
    let actions = spec.action_count;
    let mut rng = SmallRng::seed_from_u64(seed);
    let [planes, height, width] = spec.observation_shape;
    let mut batch = Batch {
        size,
        shape: [planes, height, width, actions],
        planes: vec![0.0; size * per_position],
        policy: vec![0.0; size * actions],
        policy_weight: vec![0.0; size],
        outcome: vec![0.0; size * 3],
        rules_outcome: Vec::new(),
        ownership: Vec::new(),
        ownership_cells: vec![0.0; size],
        moves_left: vec![0.0; size],
    };
    let mut legal = Vec::new();
    let states = grandmaitre_engine::game::random_states(game, size, 30, seed);
    for (row, state) in states.iter().enumerate() {
        game.encode(
            state,
            &mut batch.planes[row * per_position..(row + 1) * per_position],
        );
        game.legal_actions(state, &mut legal);
        let weights: Vec<f32> = legal.iter().map(|_| rng.random_range(0.1..1.0)).collect();
        let total: f32 = weights.iter().sum();
        for (action, weight) in legal.iter().zip(&weights) {
            batch.policy[row * actions + action.index()] = weight / total;
        }
        batch.policy_weight[row] = f32::from(u8::from(!legal.is_empty()));
        batch.outcome[row * 3 + rng.random_range(0..3)] = 1.0;
    }
    batch
}
