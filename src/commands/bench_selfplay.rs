//! `grandmaitre bench selfplay`: self-play as training plays it (many games
//! at once, playout-cap randomisation, decisive moves), timed, against the
//! network's raw inference speed at the batch size self-play gives it — the
//! bound self-play cannot pass, since every searched position needs its
//! network evaluations.

use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Result, bail};
use burn::tensor::Device;
use grandmaitre_model::{InferenceNetwork, NetworkEvaluator};
use grandmaitre_selfplay::play_games;
use grandmaitre_train::TrainingConfig;

use super::bench_nn::{Counting, positions_per_second, random_planes};
use crate::cli::BenchSelfplayArgs;
use crate::registry::{self, GameTask, Registered};

/// Runs the benchmark on `--game` with `--rules`.
pub fn run(args: BenchSelfplayArgs) -> Result<()> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!("--seconds must be positive");
    }
    registry::dispatch(
        &args.game.clone(),
        args.rules.clone().as_deref(),
        Bench { args },
    )
}

struct Bench {
    args: BenchSelfplayArgs,
}

impl GameTask for Bench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        measure(&game, &self.args)
    }
}

fn measure<G: Registered>(game: &G, args: &BenchSelfplayArgs) -> Result<()> {
    let settings = match &args.config {
        Some(path) => super::read_settings(path)?,
        None => TrainingConfig::default(),
    };
    let selfplay = settings.selfplay.driver_config();
    let device = Device::flex();
    let (network, config) = args.network.network(game, &device)?;
    let flops = 2.0 * config.multiply_adds() as f64;
    println!(
        "network: {} channels × {} blocks, {} heads on {}×{}: {:.1} MFLOP per evaluation",
        config.channels,
        config.blocks,
        config.heads_name(),
        config.height,
        config.width,
        flops / 1e6
    );
    println!(
        "self-play: {} games at once, {} / {} simulations ({:.0} % full), decisive moves {}",
        selfplay.games_in_flight,
        selfplay.full_simulations,
        selfplay.cheap_simulations,
        100.0 * selfplay.full_search_fraction,
        if selfplay.decisive_moves { "on" } else { "off" }
    );
    let evaluator = NetworkEvaluator::new(InferenceNetwork::new(&network, &config));
    let counting = Counting::new(&evaluator);
    let start = Instant::now();
    let (mut games, mut positions, mut round) = (0usize, 0usize, 0u64);
    while start.elapsed().as_secs_f64() < args.seconds {
        play_games(
            &selfplay,
            selfplay.games_in_flight,
            |_| game.clone(),
            &counting,
            round,
            |record| {
                games += 1;
                positions += record.positions.len();
            },
        );
        round += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    let calls = counting.calls.load(Ordering::Relaxed);
    let evaluations = counting.positions.load(Ordering::Relaxed);
    let mean_batch = evaluations as f64 / calls.max(1) as f64;
    let evaluations_per_second = evaluations as f64 / seconds;
    println!(
        "played: {games} games, {positions} positions in {seconds:.1} s: {:.1} positions/s, {:.0} network evaluations/s ({:.1} per position), mean batch {mean_batch:.1}",
        positions as f64 / seconds,
        evaluations_per_second,
        evaluations as f64 / positions.max(1) as f64
    );
    // The bound: the same network on batches of the mean size, nothing else.
    let batch = mean_batch.round().max(1.0) as usize;
    let per_position = config.input_planes * config.cells();
    let planes = random_planes(game, batch, per_position);
    let mut policy = vec![0.0; batch * config.actions];
    let mut wdl = vec![0.0; batch * 3];
    let raw = positions_per_second(batch, 2.0, || {
        evaluator
            .network()
            .forward(&planes, &mut policy, &mut wdl, &mut []);
    });
    println!(
        "raw inference at batch {batch}: {raw:.0} positions/s; self-play evaluations / raw {:.2}",
        evaluations_per_second / raw
    );
    println!(
        "FLOP per self-play position: {:.1} M; achieved {:.1} GFLOP/s in self-play, {:.1} in raw inference",
        flops * evaluations as f64 / positions.max(1) as f64 / 1e6,
        evaluations_per_second * flops / 1e9,
        raw * flops / 1e9
    );
    Ok(())
}
