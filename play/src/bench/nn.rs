//! `bench nn`: inference speed of the network, ours against burn's, next
//! to the machine's GEMM speed, and MCTS with the network as evaluator
//! against the raw inference rate at the same batch size.

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::Result;
use burn::tensor::Device;
use grandmaitre_engine::search::{Search, SearchConfig, run_searches};
use grandmaitre_model::checkpoint::{self, CheckpointMetadata, Provenance};
use grandmaitre_model::{
    Backend, InferenceNetwork, Network, NetworkConfig, NetworkEvaluator, burn_forward,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Counting, NetworkShape, gemm_speed, positions_per_second, random_planes};
use grandmaitre_engine::{Game, Hints};

/// What `bench nn` measures.
#[derive(Clone, Debug)]
pub struct NnSettings {
    /// The network.
    pub network: NetworkShape,
    /// Batch sizes to time.
    pub batches: Vec<usize>,
    /// Seconds per measurement.
    pub seconds: f64,
    /// burn's backend to compare with, if any.
    pub burn: Option<Backend>,
    /// Where to save the network as a checkpoint, if anywhere.
    pub save: Option<PathBuf>,
}

/// Times inference on the current rayon pool's threads and writes the
/// table to `out`.
pub fn nn<G: Hints>(game: &G, settings: &NnSettings, out: &mut dyn Write) -> Result<()> {
    let batches = &settings.batches;
    let burn_backend = settings.burn;
    let device = Device::flex();
    let (network, config) = settings.network.network(game, &device)?;
    if let Some(path) = &settings.save {
        save(game, &network, &config, path)?;
    }
    let fast = InferenceNetwork::new(&network, &config);
    // The im2col convolutions beside Winograd's, where Winograd's run.
    let im2col = fast
        .uses_winograd()
        .then(|| InferenceNetwork::new(&network, &config).with_winograd(false));
    let flops = 2.0 * config.multiply_adds() as f64;
    writeln!(
        out,
        "network: {} channels × {} blocks, {} heads, {} planes → {} actions; {:.2} M multiply-adds ({:.1} MFLOP) per position",
        config.channels,
        config.blocks,
        config.heads_name(),
        config.input_planes,
        config.actions,
        config.multiply_adds() as f64 / 1e6,
        flops / 1e6
    )?;
    writeln!(
        out,
        "3×3 convolutions: {}",
        if fast.uses_winograd() {
            "Winograd's F(4×4, 3×3) (GFLOP/s: the direct convolutions' multiply-adds per second)"
        } else {
            "im2col and one GEMM"
        }
    )?;
    let threads = rayon::current_num_threads();
    writeln!(
        out,
        "machine GEMM (gemm crate, f32, 1024×1024×1024): {:.1} GFLOP/s on 1 thread, {:.1} GFLOP/s on {threads}",
        gemm_speed(1, settings.seconds),
        gemm_speed(threads, settings.seconds)
    )?;
    let planes_per_position = config.input_planes * config.cells();
    let largest = batches.iter().copied().max().unwrap_or(1).max(256);
    let planes = random_planes(game, largest, planes_per_position);
    let burn_name = burn_backend.map_or("none".to_string(), |backend| backend.to_string());
    match im2col {
        Some(_) => writeln!(
            out,
            "batch   ours pos/s (GFLOP/s)   im2col pos/s   ours/im2col   burn-{burn_name} pos/s   ours/burn"
        )?,
        None => writeln!(
            out,
            "batch   ours pos/s (GFLOP/s)   burn-{burn_name} pos/s   ours/burn"
        )?,
    }
    let mut ours_at = Vec::new();
    for &batch in batches {
        let input = &planes[..batch * planes_per_position];
        let mut policy = vec![0.0; batch * config.actions];
        let mut wdl = vec![0.0; batch * 3];
        let ours = positions_per_second(batch, settings.seconds, || {
            fast.forward(input, &mut policy, &mut wdl, &mut []);
            black_box((&policy, &wdl));
        });
        ours_at.push((batch, ours));
        let direct = im2col.as_ref().map(|im2col| {
            positions_per_second(batch, settings.seconds, || {
                im2col.forward(input, &mut policy, &mut wdl, &mut []);
                black_box((&policy, &wdl));
            })
        });
        let burn = burn_backend
            .map(|backend| -> Result<f64> {
                let device = backend.device(false).map_err(anyhow::Error::msg)?;
                let network = if backend == Backend::Flex {
                    network.clone()
                } else {
                    reload(&network, &config, &device)?
                };
                Ok(positions_per_second(batch, settings.seconds, || {
                    black_box(burn_forward(&network, &config, input, &device));
                }))
            })
            .transpose()?;
        let mut row = format!("{batch:>5}   {ours:>10.0} ({:>6.1})", ours * flops / 1e9);
        if let Some(direct) = direct {
            row += &format!("   {direct:>12.0}   {:>11.2}", ours / direct);
        }
        if let Some(burn) = burn {
            row += &format!("   {burn:>14.0}   {:>9.2}", ours / burn);
        }
        writeln!(out, "{row}")?;
    }
    mcts_speed(
        game,
        fast,
        &planes,
        planes_per_position,
        settings.seconds,
        out,
    )?;
    Ok(())
}

fn save<G: Game>(game: &G, network: &Network, config: &NetworkConfig, path: &Path) -> Result<()> {
    let metadata = CheckpointMetadata {
        calibration: None,
        rules_calibrations: Default::default(),
        format: checkpoint::FORMAT_VERSION,
        game: game.spec().name.to_string(),
        encoding_version: game.spec().encoding_version,
        network: config.clone(),
        provenance: Provenance {
            created: checkpoint::now(),
            notes: "untrained network written by grandmaitre bench nn".to_string(),
            ..Provenance::default()
        },
        weights_bytes: 0,
        weights_crc32: 0,
    };
    checkpoint::save(network, config, &metadata, path)?;
    Ok(())
}

fn reload(network: &Network, config: &NetworkConfig, device: &Device) -> Result<Network> {
    use burn::module::Module;
    let bytes = network.clone().into_record().into_bytes()?;
    let record = burn::store::ModuleRecord::from_bytes(bytes)?;
    Ok(config.init(device).try_load_record(record)?)
}

/// MCTS with the network as evaluator: network evaluations per second (the
/// simulations that needed the network; finished and proven positions do
/// not) and the mean batch the searches actually gave it, against the raw
/// inference rate at that batch size.
fn mcts_speed<G: Hints>(
    game: &G,
    network: InferenceNetwork,
    planes: &[f32],
    per_position: usize,
    seconds: f64,
    out: &mut dyn Write,
) -> Result<()> {
    let searches_count = 32;
    let leaves = 8;
    let evaluator = NetworkEvaluator::new(network);
    let config = SearchConfig {
        simulations: 200,
        leaves_per_batch: leaves as u32,
        ..SearchConfig::default()
    };
    let mut rng = StdRng::seed_from_u64(2);
    let mut actions = Vec::new();
    let mut make_searches = || -> Vec<Search<G>> {
        (0..searches_count)
            .map(|i| {
                let mut state = game.initial_state();
                for _ in 0..rng.random_range(0..10) {
                    game.legal_actions(&state, &mut actions);
                    game.apply_unchecked(&mut state, actions[rng.random_range(0..actions.len())]);
                }
                Search::new(game.clone(), state, config.clone(), i as u64)
            })
            .collect()
    };
    let mut searches = make_searches();
    run_searches(&mut searches, &evaluator);
    let counting = Counting::new(&evaluator);
    let start = Instant::now();
    let mut simulations = 0u64;
    while start.elapsed().as_secs_f64() < seconds || simulations == 0 {
        let mut searches = make_searches();
        run_searches(&mut searches, &counting);
        simulations += searches
            .iter()
            .map(|s| u64::from(black_box(s.result()).visits))
            .sum::<u64>();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let calls = counting.calls.load(Ordering::Relaxed);
    let evaluated = counting.positions.load(Ordering::Relaxed);
    let mean_batch = evaluated as f64 / calls.max(1) as f64;
    let batch = (mean_batch.round() as usize).max(1);
    let input = &planes[..batch * per_position];
    let config = evaluator.network().config().clone();
    let mut policy = vec![0.0; batch * config.actions];
    let mut wdl = vec![0.0; batch * 3];
    let raw = positions_per_second(batch, seconds, || {
        evaluator
            .network()
            .forward(input, &mut policy, &mut wdl, &mut []);
        black_box((&policy, &wdl));
    });
    let evaluations_per_second = evaluated as f64 / elapsed;
    writeln!(
        out,
        "MCTS ({searches_count} searches × up to {leaves} leaves, at most {} a call): {:.0} simulations/s, {:.0} of them network evaluations/s in {:.0} calls/s (mean batch {mean_batch:.1}); raw inference at batch {batch}: {raw:.0} positions/s; evaluations / raw {:.2}",
        searches_count * leaves,
        simulations as f64 / elapsed,
        evaluations_per_second,
        calls as f64 / elapsed,
        evaluations_per_second / raw
    )?;
    Ok(())
}
