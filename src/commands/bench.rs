//! `grandmaitre bench`: speed measurements (never timed assertions in tests).

use grandmaitre_engine::History;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::search::{Search, SearchConfig, UniformEvaluator};
use grandmaitre_model::Backend;
use grandmaitre_play::bench::nn::NnSettings;
use grandmaitre_play::bench::train::TrainSettings;
use grandmaitre_play::bench::{self, NetworkShape};
use grandmaitre_play::players::ModelChoice;
use grandmaitre_play::registry::{self, GameTask, Registered};
use grandmaitre_train::TrainingConfig;

use super::PositionTask;
use crate::cli::{BenchNnArgs, BenchSelfplayArgs, BenchTrainArgs, NetworkArgs};

/// Times perft on one thread.
pub struct PerftBench {
    /// Length of the move sequences (the game's default without).
    pub depth: Option<u32>,
    /// Runs to time; the fastest is reported.
    pub repeat: u32,
}

impl PositionTask for PerftBench {
    fn run<G: Registered>(self, game: &G, state: G::State, _history: &History<G>) -> Result<()> {
        let depth = self.depth.unwrap_or(G::PERFT_BENCH_DEPTH);
        let mut best = f64::INFINITY;
        let mut count = 0;
        for run in 1..=self.repeat {
            let start = Instant::now();
            count = game.perft(&state, depth);
            let seconds = start.elapsed().as_secs_f64();
            println!("run {run}: perft {depth} {count} in {seconds:.3} s");
            best = best.min(seconds);
        }
        println!(
            "{}: perft {} {count}, best of {} runs {best:.3} s on one thread ({:.1} M leaves counted/s)",
            game.spec().name,
            depth,
            self.repeat,
            count as f64 / best / 1e6
        );
        Ok(())
    }
}

/// Times whole searches with the uniform evaluator on one thread.
pub struct SearchBench {
    /// Simulations per search.
    pub simulations: u32,
    /// Leaves gathered per evaluator call.
    pub leaves: u32,
    /// Searches to time; the fastest is reported.
    pub repeat: u32,
}

impl PositionTask for SearchBench {
    fn run<G: Registered>(self, game: &G, state: G::State, _history: &History<G>) -> Result<()> {
        let config = SearchConfig {
            simulations: self.simulations,
            leaves_per_batch: self.leaves,
            ..SearchConfig::default()
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
        // The best rate of simulations that ran: a search stops early once
        // the solver has proven its root.
        let mut best_rate = 0.0f64;
        let mut proven = false;
        for run in 1..=self.repeat {
            let mut search = Search::new(game.clone(), state.clone(), config.clone(), run.into());
            let start = Instant::now();
            let result = std::hint::black_box(pool.install(|| search.run(&UniformEvaluator)));
            let seconds = start.elapsed().as_secs_f64();
            println!(
                "run {run}: {} simulations in {seconds:.3} s, {} nodes{}",
                result.visits,
                search.node_count(),
                if result.proof.is_some() {
                    ", root proven"
                } else {
                    ""
                }
            );
            proven |= result.proof.is_some() && result.visits < self.simulations;
            best_rate = best_rate.max(f64::from(result.visits) / seconds);
        }
        println!(
            "{}: {best_rate:.0} simulations/s on one thread (uniform evaluator, {} leaves per batch, best of {})",
            game.spec().name,
            self.leaves,
            self.repeat
        );
        if proven {
            println!(
                "note: the solver proved the root before {} simulations; the rate counts the simulations that ran",
                self.simulations
            );
        }
        Ok(())
    }
}

/// The network `--model`, `--channels`, `--blocks` and `--pooled` name.
fn shape(args: &NetworkArgs) -> NetworkShape {
    NetworkShape {
        model: args.model.clone(),
        channels: args.channels,
        blocks: args.blocks,
        pooled: args.pooled,
    }
}

/// `bench nn` on the game of `--game`, on `--threads` threads.
pub fn nn(args: BenchNnArgs) -> Result<()> {
    if args.threads == Some(0) {
        bail!("--threads must be positive");
    }
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
    let burn = match args.burn.as_str() {
        "none" => None,
        name => Some(name.parse::<Backend>().map_err(anyhow::Error::msg)?),
    };
    let settings = NnSettings {
        network: shape(&args.network),
        batches,
        seconds: args.seconds,
        burn,
        save: args.save,
    };
    registry::dispatch(
        &args.game,
        None,
        NnBench {
            settings,
            threads: args.threads,
        },
    )
}

struct NnBench {
    settings: NnSettings,
    threads: Option<usize>,
}

impl GameTask for NnBench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .context("starting the benchmark's threads")?
            .install(|| bench::nn::nn(&game, &self.settings, &mut std::io::stdout()))
    }
}

/// `bench selfplay` on `--game` with `--rules`.
pub fn selfplay(args: BenchSelfplayArgs) -> Result<()> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!("--seconds must be positive");
    }
    let training = match &args.config {
        Some(path) => super::read_settings(path)?,
        None => TrainingConfig::default(),
    };
    let task = SelfplayBench {
        network: shape(&args.network),
        training,
        seconds: args.seconds,
    };
    registry::dispatch(&args.game, args.rules.as_deref(), task)
}

struct SelfplayBench {
    network: NetworkShape,
    training: TrainingConfig,
    seconds: f64,
}

impl GameTask for SelfplayBench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        bench::selfplay::selfplay(
            &game,
            &self.network,
            &self.training,
            self.seconds,
            &mut std::io::stdout(),
        )
    }
}

/// `bench train` on the game of `--game`.
pub fn train(args: BenchTrainArgs) -> Result<()> {
    let backends: Vec<Backend> = args
        .backends
        .split(',')
        .map(|name| name.trim().parse::<Backend>().map_err(anyhow::Error::msg))
        .collect::<Result<_>>()
        .context("in --backends")?;
    let cuda = match args.device.as_str() {
        "cpu" => false,
        "cuda" => true,
        other => bail!("unknown device '{other}': expected cpu or cuda"),
    };
    let training = args
        .config
        .as_deref()
        .map(super::read_settings)
        .transpose()?;
    let settings = TrainSettings {
        backends,
        cuda,
        training,
        channels: args.channels,
        blocks: args.blocks,
        batch: args.batch,
        steps: args.steps,
        warmup: args.warmup,
    };
    registry::dispatch(&args.game, None, TrainBench(settings))
}

struct TrainBench(TrainSettings);

impl GameTask for TrainBench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        bench::train::train(&game, &self.0, &mut std::io::stdout())
    }
}

/// `bench winprob`: the bar's latency on one thread.
pub struct BarBench {
    pub model: Option<PathBuf>,
    pub positions: usize,
}

/// Times the search's tactics on one thread.
pub struct TacticsBench {
    /// Plies of each search (the game's deepest without).
    pub depth: Option<u32>,
    pub positions: usize,
}

impl GameTask for TacticsBench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        let tactics = game.search_tactics();
        let depth = self.depth.unwrap_or(match tactics.leaf_depth {
            0 => 3,
            depth => depth.max(tactics.root_leaf_depth),
        });
        println!(
            "{}: {}",
            game.spec().name,
            bench::tactics::tactics(&game, depth, self.positions)
        );
        Ok(())
    }
}

impl GameTask for BarBench {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        let model = ModelChoice::from_arg(self.model.as_deref());
        println!("{}", bench::bar::bar(&game, &model, self.positions)?);
        Ok(())
    }
}
