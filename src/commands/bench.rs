//! `grandmaitre bench`: speed measurements (never timed assertions in tests).

use std::time::Instant;

use anyhow::Result;
use grandmaitre_engine::search::{Search, SearchConfig, UniformEvaluator};

use super::PositionTask;
use crate::registry::Registered;

/// Times perft on one thread.
pub struct PerftBench {
    /// Length of the move sequences (the game's default without).
    pub depth: Option<u32>,
    /// Runs to time; the fastest is reported.
    pub repeat: u32,
}

impl PositionTask for PerftBench {
    fn run<G: Registered>(self, game: &G, state: G::State) -> Result<()> {
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
    fn run<G: Registered>(self, game: &G, state: G::State) -> Result<()> {
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
