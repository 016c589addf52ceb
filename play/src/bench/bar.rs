//! `bench winprob`: the bar's latency on one thread.

use grandmaitre_engine::seats::Seats;
use std::time::Instant;

use anyhow::{Context, Result};
use grandmaitre_model::Calibration;
use grandmaitre_model::bar::{self, BAR_SIMULATIONS};
use grandmaitre_model::inference::NetworkEvaluator;

use crate::players::ModelChoice;
use crate::registry::Registered;

/// The bar's times on one thread, in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct BarTimes {
    /// The positions timed.
    pub positions: usize,
    /// Their mean.
    pub mean: f64,
    /// Their median.
    pub median: f64,
    /// Their 95th percentile.
    pub percentile_95: f64,
    /// The slowest.
    pub max: f64,
}

impl std::fmt::Display for BarTimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bar ({BAR_SIMULATIONS} simulations, one thread, {} positions): mean {:.2} ms, median {:.2} ms, 95th percentile {:.2} ms, max {:.2} ms (budget 20 ms)",
            self.positions, self.mean, self.median, self.percentile_95, self.max
        )
    }
}

/// The bar's times, and where its network runs Winograd's convolutions,
/// the same positions' times with im2col ones.
#[derive(Clone, Debug, PartialEq)]
pub struct BarBench {
    /// The bar as it runs.
    pub times: BarTimes,
    /// The bar with the im2col convolutions, if the network runs
    /// Winograd's.
    pub im2col: Option<BarTimes>,
}

impl std::fmt::Display for BarBench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.times)?;
        if let Some(im2col) = &self.im2col {
            write!(
                f,
                "\nthe same with im2col convolutions instead of Winograd's: mean {:.2} ms, median {:.2} ms (Winograd's {:.2}× faster on the mean)",
                im2col.mean,
                im2col.median,
                im2col.mean / self.times.mean
            )?;
        }
        Ok(())
    }
}

/// Times the bar of `model` on `positions` positions of random games, one
/// thread, without the book (the search is what costs).
pub fn bar<G: Registered>(game: &G, model: &ModelChoice, positions: usize) -> Result<BarBench> {
    let loaded = model.load(game)?;
    let calibration = loaded.calibration(game).cloned();
    let evaluator = loaded.evaluator;
    // Timed without the book: the search is what costs.
    let states: Vec<G::State> =
        grandmaitre_engine::game::random_states(game, positions.max(1), 12, 7)
            .into_iter()
            .filter(|s| game.outcome(s).is_none())
            .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .context("starting one thread")?;
    let times = pool.install(|| time(game, &states, &evaluator, calibration.as_ref()));
    // The same network with im2col convolutions, where it runs Winograd's.
    let im2col = evaluator.network().uses_winograd().then(|| {
        let evaluator = evaluator.with_winograd(false);
        pool.install(|| time(game, &states, &evaluator, calibration.as_ref()))
    });
    Ok(BarBench { times, im2col })
}

/// The bar's times at `states` on the calling thread.
fn time<G: Registered>(
    game: &G,
    states: &[G::State],
    evaluator: &NetworkEvaluator,
    calibration: Option<&Calibration>,
) -> BarTimes {
    let shown = |state: &G::State| {
        bar::bar(
            game,
            state,
            evaluator,
            calibration,
            None,
            &Seats::DEFAULT,
            &[],
        )
    };
    // Warm the buffers once.
    shown(&states[0]);
    let mut times: Vec<f64> = states
        .iter()
        .map(|state| {
            let start = Instant::now();
            std::hint::black_box(shown(state));
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    BarTimes {
        positions: times.len(),
        mean,
        median: at(0.5),
        percentile_95: at(0.95),
        max: at(1.0),
    }
}
