//! `bench selfplay`: self-play as training plays it (many games
//! at once, playout-cap randomisation, decisive moves), timed, against the
//! network's raw inference speed at the batch size self-play gives it — the
//! bound self-play cannot pass, since every searched position needs its
//! network evaluations.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::Result;
use burn::tensor::Device;
use grandmaitre_model::NetworkEvaluator;
use grandmaitre_selfplay::play_games;
use grandmaitre_train::TrainingConfig;

use super::{Counting, NetworkShape, positions_per_second, random_planes};
use grandmaitre_engine::{Hints, Notation};

/// Plays self-play as training plays it with `settings` for about
/// `seconds`, then times the raw inference bound at its mean batch; writes
/// the lines to `out`.
pub fn selfplay<G: Notation + Hints>(
    game: &G,
    network: &NetworkShape,
    settings: &TrainingConfig,
    seconds: f64,
    out: &mut dyn Write,
) -> Result<()> {
    let selfplay = &settings.selfplay.games;
    let device = Device::flex();
    let (network, config) = network.network(game, &device)?;
    let flops = 2.0 * config.multiply_adds() as f64;
    writeln!(
        out,
        "network: {} channels × {} blocks, {} heads on {}×{}: {:.1} MFLOP per evaluation",
        config.channels,
        config.blocks,
        config.heads_name(),
        config.height,
        config.width,
        flops / 1e6
    )?;
    writeln!(
        out,
        "self-play: {} games at once, {} / {} simulations ({:.0} % full), decisive moves {}",
        selfplay.games_in_flight,
        selfplay.full_simulations,
        selfplay.cheap_simulations,
        100.0 * selfplay.full_search_fraction,
        if selfplay.decisive_moves { "on" } else { "off" }
    )?;
    let evaluator = NetworkEvaluator::of(&network, &config);
    let counting = Counting::new(&evaluator);
    let start = Instant::now();
    let (mut games, mut positions, mut round) = (0usize, 0usize, 0u64);
    while start.elapsed().as_secs_f64() < seconds {
        play_games(
            selfplay,
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
    let elapsed = start.elapsed().as_secs_f64();
    let calls = counting.calls.load(Ordering::Relaxed);
    let evaluations = counting.positions.load(Ordering::Relaxed);
    let mean_batch = evaluations as f64 / calls.max(1) as f64;
    let evaluations_per_second = evaluations as f64 / elapsed;
    writeln!(
        out,
        "played: {games} games, {positions} positions in {elapsed:.1} s: {:.1} positions/s, {:.0} network evaluations/s ({:.1} per position), mean batch {mean_batch:.1}",
        positions as f64 / elapsed,
        evaluations_per_second,
        evaluations as f64 / positions.max(1) as f64
    )?;
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
    writeln!(
        out,
        "raw inference at batch {batch}: {raw:.0} positions/s; self-play evaluations / raw {:.2}",
        evaluations_per_second / raw
    )?;
    writeln!(
        out,
        "FLOP per self-play position: {:.1} M; achieved {:.1} GFLOP/s in self-play, {:.1} in raw inference",
        flops * evaluations as f64 / positions.max(1) as f64 / 1e6,
        evaluations_per_second * flops / 1e9,
        raw * flops / 1e9
    )?;
    Ok(())
}
