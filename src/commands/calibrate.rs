//! `grandmaitre calibrate`: fits the bar's temperature on engine games and
//! measures it on held-out ones.
//!
//! The engine plays itself at the advice level (10, or `--level`) from
//! random openings (1 to
//! `--opening-plies` random plies, no noise afterwards). At every position
//! the bar's search (network + [`BAR_SIMULATIONS`]) gives the uncalibrated
//! P(Light wins), P(draw), P(Dark wins); the game's result is the label.
//! Games are split in two halves by a seeded shuffle: one fits the
//! temperature by log-likelihood, the other measures expected calibration
//! error (15 bins, per outcome), Brier score and log-loss before and
//! after, with 95 % intervals from a bootstrap over whole games (positions of
//! one game are correlated).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::Outcome;
use grandmaitre_engine::arena::opening_moves;
use grandmaitre_engine::search::{Search, SearchConfig};
use grandmaitre_model::calibration::{self, Calibration};
use grandmaitre_model::checkpoint::{read_metadata, write_metadata};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde_json::json;

use super::export::write_atomically;
use super::{CliGame, GameTask, PositionArgs, with_position};
use crate::advice::{self, BAR_SIMULATIONS, Level};
use crate::cli::CalibrateArgs;
use crate::players::{load_model, model_or_shipped};
use crate::plot::{ReliabilityPanel, reliability_diagram};

const BINS: usize = 15;
const BOOTSTRAP_SAMPLES: usize = 500;
const OUTCOMES: [&str; 3] = ["Light wins", "draw", "Dark wins"];

/// Validates the arguments and runs the calibration.
pub fn run(args: CalibrateArgs) -> Result<()> {
    if args.games < 4 {
        bail!("--games must be at least 4 (half fit, half measure)");
    }
    if args.opening_plies == 0 {
        bail!("--opening-plies must be at least 1");
    }
    let position = PositionArgs {
        game: args.game.clone(),
        layout: args.layout.clone(),
        position: None,
        moves: None,
    };
    with_position(&position, Calibrate { args })
}

struct Calibrate {
    args: CalibrateArgs,
}

/// The bar at every position of one game, and how the game ended.
struct Played {
    /// P(Light wins), P(draw), P(Dark wins) of the bar, before calibration.
    predictions: Vec<[f64; 3]>,
    /// The same from the network alone, without search.
    network: Vec<[f64; 3]>,
    /// 0 Light won, 1 draw, 2 Dark won.
    result: usize,
}

/// Calibration error, Brier score and log-loss of a set of predictions.
#[derive(Clone, Copy, Debug, Default)]
struct Metrics {
    ece: [f64; 3],
    brier: f64,
    log_loss: f64,
}

impl Metrics {
    fn of(predictions: &[[f64; 3]], outcomes: &[usize]) -> Metrics {
        let mut ece = [0.0; 3];
        for (class, e) in ece.iter_mut().enumerate() {
            *e = calibration::expected_calibration_error(predictions, outcomes, class, BINS);
        }
        Metrics {
            ece,
            brier: calibration::brier(predictions, outcomes),
            log_loss: calibration::log_loss(predictions, outcomes, 1.0),
        }
    }

    fn worst_ece(&self) -> f64 {
        self.ece.iter().copied().fold(0.0, f64::max)
    }

    /// The values reported, in order: ECE per outcome, worst ECE, Brier,
    /// log-loss.
    fn values(&self) -> [f64; 6] {
        [
            self.ece[0],
            self.ece[1],
            self.ece[2],
            self.worst_ece(),
            self.brier,
            self.log_loss,
        ]
    }
}

/// The reported values before and after calibration, in `METRIC_NAMES` order.
type BeforeAfter = ([f64; 6], [f64; 6]);

const METRIC_NAMES: [&str; 6] = [
    "ECE, Light wins",
    "ECE, draw",
    "ECE, Dark wins",
    "ECE, worst outcome",
    "Brier score",
    "log-loss",
];

fn flatten(games: &[&Played], temperature: f64) -> (Vec<[f64; 3]>, Vec<usize>) {
    flatten_with(games, temperature, |game| &game.predictions)
}

fn flatten_with(
    games: &[&Played],
    temperature: f64,
    pick: impl Fn(&Played) -> &Vec<[f64; 3]>,
) -> (Vec<[f64; 3]>, Vec<usize>) {
    let mut predictions = Vec::new();
    let mut outcomes = Vec::new();
    for game in games {
        for &p in pick(game) {
            predictions.push(calibration::scale(p, temperature));
            outcomes.push(game.result);
        }
    }
    (predictions, outcomes)
}

impl GameTask for Calibrate {
    fn run<G: CliGame>(self, game: &G, _state: G::State) -> Result<()> {
        let args = &self.args;
        let path = model_or_shipped::<G>(args.model.as_deref())?;
        let (evaluator, _) = load_model(&path, game.spec())?;
        let level = Level::get(args.level).map_err(anyhow::Error::msg)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads.unwrap_or(0))
            .build()
            .context("starting the calibration's threads")?;
        let progress = ProgressBar::new(u64::from(args.games));
        progress.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} games  [{elapsed_precise} < {eta_precise}]",
            )
            .expect("valid template"),
        );
        progress.enable_steady_tick(Duration::from_millis(500));
        let played: Vec<Played> = pool.install(|| {
            (0..args.games)
                .into_par_iter()
                .filter_map(|index| {
                    let played = play(game, &evaluator, &level, args, index);
                    progress.inc(1);
                    played
                })
                .collect()
        });
        progress.finish_and_clear();

        let mut order: Vec<usize> = (0..played.len()).collect();
        order.shuffle(&mut SmallRng::seed_from_u64(args.seed ^ 0xCA11));
        let half = order.len() / 2;
        let fit: Vec<&Played> = order[..half].iter().map(|&i| &played[i]).collect();
        let test: Vec<&Played> = order[half..].iter().map(|&i| &played[i]).collect();
        let (fit_predictions, fit_outcomes) = flatten(&fit, 1.0);
        let temperature = calibration::fit_temperature(&fit_predictions, &fit_outcomes);
        let (fit_network, _) = flatten_with(&fit, 1.0, |g| &g.network);
        let network_temperature = calibration::fit_temperature(&fit_network, &fit_outcomes);
        let network_metrics = |t: f64| {
            let (p, o) = flatten_with(&test, t, |g| &g.network);
            Metrics::of(&p, &o)
        };
        let (network_before, network_after) =
            (network_metrics(1.0), network_metrics(network_temperature));

        let measure = |games: &[&Played], t: f64| {
            let (p, o) = flatten(games, t);
            Metrics::of(&p, &o)
        };
        let before = measure(&test, 1.0);
        let after = measure(&test, temperature);
        let mut rng = SmallRng::seed_from_u64(args.seed ^ 0xB007);
        let mut samples: Vec<BeforeAfter> = Vec::with_capacity(BOOTSTRAP_SAMPLES);
        for _ in 0..BOOTSTRAP_SAMPLES {
            let resample: Vec<&Played> = (0..test.len())
                .map(|_| test[rng.random_range(0..test.len())])
                .collect();
            samples.push((
                measure(&resample, 1.0).values(),
                measure(&resample, temperature).values(),
            ));
        }
        let interval = |pick: &dyn Fn(&BeforeAfter) -> f64| {
            let mut values: Vec<f64> = samples.iter().map(pick).collect();
            values.sort_by(f64::total_cmp);
            let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
            [at(0.025), at(0.975)]
        };
        let intervals: Vec<([f64; 2], [f64; 2])> = (0..6)
            .map(|k| (interval(&|s| s.0[k]), interval(&|s| s.1[k])))
            .collect();

        let positions =
            |games: &[&Played]| games.iter().map(|g| g.predictions.len()).sum::<usize>();
        let stored = Calibration {
            temperature,
            network_temperature,
            simulations: BAR_SIMULATIONS,
            fit_games: fit.len() as u32,
            test_games: test.len() as u32,
            ece_before: before.worst_ece(),
            ece_after: after.worst_ece(),
        };
        let report_directory = args.report.clone().unwrap_or_else(|| path.clone());
        std::fs::create_dir_all(&report_directory)
            .with_context(|| format!("creating {}", report_directory.display()))?;
        let mut table = String::new();
        let _ = writeln!(table, "| measure (held-out games) | before | after |");
        let _ = writeln!(table, "|---|---|---|");
        for (k, name) in METRIC_NAMES.iter().enumerate() {
            let (b, a) = (before.values()[k], after.values()[k]);
            let (bi, ai) = &intervals[k];
            let _ = writeln!(
                table,
                "| {name} | {b:.4} [{:.4}, {:.4}] | {a:.4} [{:.4}, {:.4}] |",
                bi[0], bi[1], ai[0], ai[1]
            );
        }
        let summary = format!(
            "model {}\n{} games ({} positions fit the temperature, {} held-out games with {} positions measure it), \
             level {} ({} simulations), bar {} simulations, openings of 1–{} random plies, seed {}\n\
             temperature T = {temperature:.4}\n\
             network alone (no search): T = {network_temperature:.4}, worst-outcome ECE {:.4} → {:.4}, \
             log-loss {:.4} → {:.4}\n",
            path.display(),
            played.len(),
            positions(&fit),
            test.len(),
            positions(&test),
            level.number,
            level.simulations,
            BAR_SIMULATIONS,
            args.opening_plies,
            args.seed,
            network_before.worst_ece(),
            network_after.worst_ece(),
            network_before.log_loss,
            network_after.log_loss
        );
        let markdown = format!(
            "# Calibration of the win-probability bar\n\n```\n{}```\n\n{table}\n\
             ECE: expected calibration error over {BINS} equal-width bins of the predicted \
             probability of each outcome; intervals: 95 %, bootstrap over {BOOTSTRAP_SAMPLES} \
             resamples of the held-out games. Reliability diagram: `reliability.png`.\n",
            summary.replace("model ", "grandmaitre calibrate on ")
        );
        write_atomically(
            &report_directory.join("calibration.md"),
            markdown.as_bytes(),
        )?;
        let metrics_json = |m: &Metrics| {
            json!({
                "ece_light": m.ece[0], "ece_draw": m.ece[1], "ece_dark": m.ece[2],
                "ece_worst": m.worst_ece(), "brier": m.brier, "log_loss": m.log_loss,
            })
        };
        let report = json!({
            "model": path.display().to_string(),
            "games": played.len(),
            "fit_games": fit.len(),
            "test_games": test.len(),
            "fit_positions": positions(&fit),
            "test_positions": positions(&test),
            "advice_simulations": level.simulations,
            "bar_simulations": BAR_SIMULATIONS,
            "temperature": temperature,
            "network_temperature": network_temperature,
            "before": metrics_json(&before),
            "after": metrics_json(&after),
            "network_before": metrics_json(&network_before),
            "network_after": metrics_json(&network_after),
            "intervals": METRIC_NAMES.iter().zip(&intervals).map(|(name, (b, a))| {
                json!({"measure": name, "before": b, "after": a})
            }).collect::<Vec<_>>(),
        });
        write_atomically(
            &report_directory.join("calibration.json"),
            format!("{report:#}\n").as_bytes(),
        )?;
        let (test_before, test_outcomes) = flatten(&test, 1.0);
        let (test_after, _) = flatten(&test, temperature);
        let bins = |predictions: &[[f64; 3]], class: usize| {
            calibration::reliability(predictions, &test_outcomes, class, BINS)
                .into_iter()
                .filter(|b| b.count > 0)
                .map(|b| (b.mean_prediction, b.frequency, b.count))
                .collect::<Vec<_>>()
        };
        let panels: Vec<ReliabilityPanel> = OUTCOMES
            .iter()
            .enumerate()
            .map(|(class, name)| ReliabilityPanel {
                title: (*name).to_string(),
                before: bins(&test_before, class),
                after: bins(&test_after, class),
            })
            .collect();
        reliability_diagram(
            &report_directory.join("reliability.png"),
            &format!("Bar calibration on held-out games (T = {temperature:.3})"),
            &panels,
        )?;
        if !args.dry_run {
            store(&path, stored)?;
        }
        print!("{summary}\n{table}");
        println!(
            "wrote {}/calibration.md, calibration.json, reliability.png{}",
            report_directory.display(),
            if args.dry_run {
                String::new()
            } else {
                format!("; stored T in {}/checkpoint.json", path.display())
            }
        );
        Ok(())
    }
}

fn store(path: &Path, calibration: Calibration) -> Result<()> {
    let mut metadata = read_metadata(path)?;
    metadata.calibration = Some(calibration);
    write_metadata(path, &metadata)?;
    Ok(())
}

/// Game `index`: a random opening, then the engine against itself, the
/// bar recorded before every move. `None` if no opening could be drawn.
fn play<G: CliGame, E: grandmaitre_engine::search::Evaluator<G>>(
    game: &G,
    evaluator: &E,
    level: &Level,
    args: &CalibrateArgs,
    index: u32,
) -> Option<Played> {
    let mut rng = SmallRng::seed_from_u64(args.seed ^ (u64::from(index) << 20) ^ 0x0CA1);
    let plies = rng.random_range(1..=args.opening_plies);
    let opening = opening_moves(game, index, plies, args.seed);
    if opening.is_empty() {
        return None;
    }
    let mut state = game.initial_state();
    for &action in &opening {
        game.apply_unchecked(&mut state, action);
    }
    let mut predictions = Vec::new();
    let mut network = Vec::new();
    let one = SearchConfig {
        simulations: 1,
        ..SearchConfig::default()
    };
    let mut search = Search::new(
        game.clone(),
        state.clone(),
        level.search_config(),
        u64::from(index),
    );
    let choice = level.choice();
    while game.outcome(&state).is_none() {
        let bar = advice::bar_search(game, &state, evaluator);
        let wdl = advice::for_first_player(bar.side, bar.wdl);
        predictions.push(wdl.map(f64::from));
        let raw = Search::new(game.clone(), state.clone(), one.clone(), 0).run(evaluator);
        network.push(advice::for_first_player(raw.side, raw.wdl).map(f64::from));
        search.run(evaluator);
        let action = search.choose_move(choice);
        search.advance(action);
        game.apply_unchecked(&mut state, action);
    }
    let light = grandmaitre_engine::Player::First;
    let result = match game.outcome_for(&state, light) {
        Some(Outcome::Win) => 0,
        Some(Outcome::Draw) => 1,
        _ => 2,
    };
    Some(Played {
        predictions,
        network,
        result,
    })
}
