//! `grandmaitre bench nn`: inference speed of the network, ours against
//! burn's, next to the machine's GEMM speed, and MCTS with the network as
//! evaluator against the raw inference rate at the same batch size.

use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::search::{
    EvaluationRequest, Evaluations, Evaluator, Search, SearchConfig, run_searches,
};
use grandmaitre_model::checkpoint::{self, CheckpointMetadata, Provenance};
use grandmaitre_model::{
    Backend, Checkpoint, InferenceNetwork, Network, NetworkConfig, NetworkEvaluator, burn_forward,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::cli::{BenchNnArgs, NetworkArgs};
use crate::registry::{self, GameTask, Registered};

/// Runs the benchmark on the game of `--game`, on `--threads` threads.
pub fn run(args: BenchNnArgs) -> Result<()> {
    if args.threads == Some(0) {
        bail!("--threads must be positive");
    }
    registry::dispatch(&args.game.clone(), None, NnBench { args })
}

struct NnBench {
    args: BenchNnArgs,
}

impl GameTask for NnBench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.args.threads.unwrap_or(0))
            .build()
            .context("starting the benchmark's threads")?
            .install(|| measure(&game, &self.args))
    }
}

fn measure<G: Registered>(game: &G, args: &BenchNnArgs) -> Result<()> {
    let batches: Vec<usize> = args
        .batches
        .split(',')
        .map(|b| b.trim().parse::<usize>().ok().filter(|&b| b > 0))
        .collect::<Option<_>>()
        .with_context(|| {
            format!(
                "invalid --batches '{}': expected sizes like 1,8,64",
                args.batches
            )
        })?;
    let burn_backend = match args.burn.as_str() {
        "none" => None,
        name => Some(name.parse::<Backend>().map_err(anyhow::Error::msg)?),
    };
    let device = Device::flex();
    let (network, config) = args.network.network(game, &device)?;
    if let Some(path) = &args.save {
        save(game, &network, &config, path)?;
    }
    let fast = InferenceNetwork::new(&network, &config);
    let flops = 2.0 * config.multiply_adds() as f64;
    println!(
        "network: {} channels × {} blocks, {} heads, {} planes → {} actions; {:.2} M multiply-adds ({:.1} MFLOP) per position",
        config.channels,
        config.blocks,
        config.heads_name(),
        config.input_planes,
        config.actions,
        config.multiply_adds() as f64 / 1e6,
        flops / 1e6
    );
    let threads = rayon::current_num_threads();
    println!(
        "machine GEMM (gemm crate, f32, 1024×1024×1024): {:.1} GFLOP/s on 1 thread, {:.1} GFLOP/s on {threads}",
        gemm_speed(1, args.seconds),
        gemm_speed(threads, args.seconds)
    );
    let planes_per_position = config.input_planes * config.cells();
    let largest = batches.iter().copied().max().unwrap_or(1).max(256);
    let planes = random_planes(game, largest, planes_per_position);
    println!(
        "batch   ours pos/s (GFLOP/s)   burn-{} pos/s   ours/burn",
        args.burn
    );
    let mut ours_at = Vec::new();
    for &batch in &batches {
        let input = &planes[..batch * planes_per_position];
        let mut policy = vec![0.0; batch * config.actions];
        let mut wdl = vec![0.0; batch * 3];
        let ours = positions_per_second(batch, args.seconds, || {
            fast.forward(input, &mut policy, &mut wdl, &mut []);
            black_box((&policy, &wdl));
        });
        ours_at.push((batch, ours));
        let burn = burn_backend
            .map(|backend| -> Result<f64> {
                let device = backend.device(false).map_err(anyhow::Error::msg)?;
                let network = if backend == Backend::Flex {
                    network.clone()
                } else {
                    reload(&network, &config, &device)?
                };
                Ok(positions_per_second(batch, args.seconds, || {
                    black_box(burn_forward(&network, &config, input, &device));
                }))
            })
            .transpose()?;
        match burn {
            Some(burn) => println!(
                "{batch:>5}   {ours:>10.0} ({:>6.1})   {burn:>14.0}   {:>9.2}",
                ours * flops / 1e9,
                ours / burn
            ),
            None => println!("{batch:>5}   {ours:>10.0} ({:>6.1})", ours * flops / 1e9),
        }
    }
    mcts_speed(game, fast, &planes, planes_per_position, args.seconds)?;
    Ok(())
}

impl NetworkArgs {
    /// The network and its shape for `game`'s board: a checkpoint, or a
    /// fresh one of a shape.
    pub fn network<G: Game>(&self, game: &G, device: &Device) -> Result<(Network, NetworkConfig)> {
        if let Some(path) = &self.model {
            if self.channels.is_some() || self.blocks.is_some() || self.pooled {
                bail!(
                    "--channels, --blocks and --pooled describe a fresh network: not with --model"
                );
            }
            let checkpoint = Checkpoint::load(path, game.spec(), device)?;
            return Ok((checkpoint.network, checkpoint.metadata.network));
        }
        let mut config = if self.pooled {
            NetworkConfig::pooled_for_game(game.spec())
        } else {
            NetworkConfig::for_game(game.spec())
        };
        if let Some(channels) = self.channels {
            config.channels = channels;
        }
        if let Some(blocks) = self.blocks {
            config.blocks = blocks;
        }
        if config.channels == 0 || config.blocks == 0 {
            bail!("--channels and --blocks must be positive");
        }
        Ok((config.init(device), config))
    }
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

/// Planes of positions from random games.
pub(crate) fn random_planes<G: Game>(game: &G, count: usize, per_position: usize) -> Vec<f32> {
    let mut planes = vec![0.0; count * per_position];
    let states = grandmaitre_engine::game::random_states(game, count, 20, 1);
    for (state, slot) in states.iter().zip(planes.chunks_exact_mut(per_position)) {
        game.encode(state, slot);
    }
    planes
}

/// Calls `run` (one batch of `batch` positions) for about `seconds`.
pub(crate) fn positions_per_second(batch: usize, seconds: f64, mut run: impl FnMut()) -> f64 {
    run(); // warm-up: buffers, caches
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < seconds || calls < 3 {
        run();
        calls += 1;
    }
    (calls * batch as u64) as f64 / start.elapsed().as_secs_f64()
}

/// GFLOP/s of a 1024³ single-precision GEMM on `threads` threads.
fn gemm_speed(threads: usize, seconds: f64) -> f64 {
    let n = 1024;
    let a = vec![1.0f32; n * n];
    let b = vec![0.5f32; n * n];
    let mut c = vec![0.0f32; n * n];
    let parallelism = if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    let multiply = |c: &mut [f32]| {
        #[allow(unsafe_code)]
        // SAFETY: three n×n row-major matrices held by slices of n² floats.
        unsafe {
            gemm::gemm(
                n,
                n,
                n,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                1,
                n as isize,
                b.as_ptr(),
                1,
                n as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                parallelism,
            );
        }
    };
    multiply(&mut c);
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < seconds || calls < 2 {
        multiply(&mut c);
        calls += 1;
    }
    calls as f64 * 2.0 * (n * n * n) as f64 / start.elapsed().as_secs_f64() / 1e9
}

/// An evaluator that counts its calls and the positions they carried.
#[derive(Debug)]
pub(crate) struct Counting<'a, E> {
    inner: &'a E,
    /// Calls so far.
    pub calls: AtomicU64,
    /// Positions evaluated so far.
    pub positions: AtomicU64,
}

impl<'a, E> Counting<'a, E> {
    /// Counts the calls to `inner`.
    pub fn new(inner: &'a E) -> Self {
        Counting {
            inner,
            calls: AtomicU64::new(0),
            positions: AtomicU64::new(0),
        }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counting<'_, E> {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.positions
            .fetch_add(requests.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(requests, output);
    }
}

/// MCTS with the network as evaluator: network evaluations per second (the
/// simulations that needed the network; finished and proven positions do
/// not) and the mean batch the searches actually gave it, against the raw
/// inference rate at that batch size.
fn mcts_speed<G: Game>(
    game: &G,
    network: InferenceNetwork,
    planes: &[f32],
    per_position: usize,
    seconds: f64,
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
    println!(
        "MCTS ({searches_count} searches × up to {leaves} leaves, at most {} a call): {:.0} simulations/s, {:.0} of them network evaluations/s in {:.0} calls/s (mean batch {mean_batch:.1}); raw inference at batch {batch}: {raw:.0} positions/s; evaluations / raw {:.2}",
        searches_count * leaves,
        simulations as f64 / elapsed,
        evaluations_per_second,
        calls as f64 / elapsed,
        evaluations_per_second / raw
    );
    Ok(())
}
