//! `grandmaitre calibrate`: fits the bar's calibration on engine games and
//! measures it on held-out ones.
//!
//! The engine plays itself at the advice level (10, or `--level`) from
//! random openings (1 to `--opening-plies` random plies, no noise
//! afterwards). At every position the bar's search (network +
//! [`BAR_SIMULATIONS`]) gives the uncalibrated P(first player wins),
//! P(draw), P(second player wins); the game's result is the label. Games
//! are split in two halves by a seeded shuffle: one fits the temperature
//! by log-likelihood, then a monotone curve per outcome (isotonic
//! regression), for positions where the first player is to move and for
//! those where the second is; the other measures expected calibration
//! error (15 bins, per outcome), Brier score and log-loss raw, after the
//! temperature, and after both, with 95 % intervals from a bootstrap over
//! whole games (positions of one game are correlated). The network's own
//! win/draw/loss (no search, what an embedding that runs only the network
//! shows) gets its own fit. The fitting, the metrics, the records and the
//! games are the model crate's (`grandmaitre_model::calibration`); this
//! command plays, prints and stores.
//!
//! `--games-out` keeps the games' records; `--games-in` refits on them
//! without playing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::Evaluator;
use grandmaitre_engine::{Game, Player};
use grandmaitre_model::bar::BAR_SIMULATIONS;
use grandmaitre_model::calibration::games::{GameSettings, play};
use grandmaitre_model::calibration::measure::{
    BINS, BOOTSTRAP_SAMPLES, Fitted, Metrics, bar_predictions, bootstrap, flatten,
    network_predictions,
};
use grandmaitre_model::calibration::records::{
    Played, RECORDS_FORMAT, RecordsHeader, pool_records, records_text,
};
use grandmaitre_model::calibration::{self, Calibration};
use grandmaitre_model::checkpoint::{read_metadata, write_metadata};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde_json::json;

use super::write_atomically;
use crate::cli::CalibrateArgs;
use crate::players::ModelChoice;
use crate::plot::{ReliabilityPanel, reliability_diagram};
use crate::registry::{self, GameTask, Registered};

/// Bins of fewer positions are left out of the reliability diagram (their
/// frequency is noise; the calibration error still counts them).
const MIN_PLOTTED_POSITIONS: usize = 20;

/// Validates the arguments and runs the calibration.
pub fn run(args: CalibrateArgs) -> Result<()> {
    if args.games < 4 {
        bail!("--games must be at least 4 (half fit, half measure)");
    }
    if args.opening_plies == 0 {
        bail!("--opening-plies must be at least 1");
    }
    let model = ModelChoice::from_arg(args.model.as_deref());
    if model == ModelChoice::Shipped && !(args.dry_run && args.report.is_some()) {
        bail!(
            "the shipped model is inside the program: pass --model DIR to fit and store a calibration, or --dry-run --report DIR to measure it"
        );
    }
    registry::dispatch(
        &args.game.clone(),
        args.rules.clone().as_deref(),
        Calibrate { args, model },
    )
}

struct Calibrate {
    args: CalibrateArgs,
    model: ModelChoice,
}

impl GameTask for Calibrate {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        let game = &game;
        let args = &self.args;
        let model_name = match &self.model {
            ModelChoice::Directory(path) => path.display().to_string(),
            _ => format!("the shipped {} model", G::NAME),
        };
        let [first, second] = [Player::First, Player::Second].map(|p| game.player_name(p));
        let (header, played, held_out, seeds) = if args.games_in.is_empty() {
            // Only playing needs the network; a refit reads the games.
            let evaluator = self.model.load(game)?.evaluator;
            let level = Level::get(args.level).map_err(anyhow::Error::msg)?;
            let played = play_games(game, &evaluator, &level, args)?;
            let header = RecordsHeader {
                format: RECORDS_FORMAT.to_string(),
                game: G::NAME.to_string(),
                layout: args.rules.clone(),
                model: model_name.clone(),
                level: level.number,
                advice_simulations: level.simulations,
                bar_simulations: BAR_SIMULATIONS,
                opening_plies: args.opening_plies,
                seed: args.seed,
            };
            if let Some(out) = &args.games_out {
                write_records(out, &header, &played)?;
            }
            let seeds = format!("seed {}", header.seed);
            (header, played, Vec::new(), seeds)
        } else {
            let files: Vec<PathBuf> = args
                .games_in
                .iter()
                .chain(&args.held_out)
                .cloned()
                .collect();
            let (header, mut per_file) =
                pool_records(&files, G::NAME, BAR_SIMULATIONS).map_err(anyhow::Error::msg)?;
            let held_entries = per_file.split_off(args.games_in.len());
            let seeds = if held_entries.is_empty() {
                seed_words(&per_file)
            } else {
                format!(
                    "{} fit, {} held out",
                    seed_words(&per_file),
                    seed_words(&held_entries)
                )
            };
            let held_out: Vec<Played> = held_entries.into_iter().flat_map(|(_, g)| g).collect();
            let played: Vec<Played> = per_file.into_iter().flat_map(|(_, g)| g).collect();
            (header, played, held_out, seeds)
        };

        let (fit, test): (Vec<&Played>, Vec<&Played>) = if held_out.is_empty() {
            let mut order: Vec<usize> = (0..played.len()).collect();
            order.shuffle(&mut SmallRng::seed_from_u64(header.seed ^ 0xCA11));
            let half = order.len() / 2;
            (
                order[..half].iter().map(|&i| &played[i]).collect(),
                order[half..].iter().map(|&i| &played[i]).collect(),
            )
        } else {
            (played.iter().collect(), held_out.iter().collect())
        };
        let bar = Fitted::on(&fit, bar_predictions);
        let network = Fitted::on(&fit, network_predictions);
        let stages = bar.measure(&test, bar_predictions);
        let network_stages = network.measure(&test, network_predictions);
        let intervals = bootstrap(&bar, &test, header.seed);
        let [before, _, after] = &stages;

        let report_directory = match (&args.report, &self.model) {
            (Some(report), _) => report.clone(),
            (None, ModelChoice::Directory(path)) => path.clone(),
            (None, _) => bail!("--report DIR: where to write the report"),
        };
        let metric_names = [
            format!("ECE, {first} wins"),
            "ECE, draw".to_string(),
            format!("ECE, {second} wins"),
            "ECE, worst outcome".to_string(),
            "Brier score".to_string(),
            "log-loss".to_string(),
        ];
        std::fs::create_dir_all(&report_directory)
            .with_context(|| format!("creating {}", report_directory.display()))?;
        let positions =
            |games: &[&Played]| games.iter().map(|g| g.predictions.len()).sum::<usize>();
        let mut table = String::new();
        let _ = writeln!(
            table,
            "| measure (held-out games) | before | temperature only | after (temperature and curves) |"
        );
        let _ = writeln!(table, "|---|---|---|---|");
        for (k, name) in metric_names.iter().enumerate() {
            let _ = write!(table, "| {name} |");
            for (stage, metrics) in stages.iter().enumerate() {
                let [low, high] = intervals[k][stage];
                let _ = write!(table, " {:.4} [{low:.4}, {high:.4}] |", metrics.values()[k]);
            }
            table.push('\n');
        }
        let summary = format!(
            "model {}\n{} games ({} positions fit the calibration, {} held-out games with {} positions measure it), \
             level {} ({} simulations), bar {} simulations, openings of 1–{} random plies, {}\n\
             temperature T = {:.4}, then curves (knots per outcome, 0: unchanged) {}\n\
             network alone (no search): T = {:.4}, worst-outcome ECE {:.4} → {:.4} (T) → {:.4} (T and curves), \
             log-loss {:.4} → {:.4} → {:.4}\n",
            model_name,
            fit.len() + test.len(),
            positions(&fit),
            test.len(),
            positions(&test),
            header.level,
            header.advice_simulations,
            BAR_SIMULATIONS,
            header.opening_plies,
            seeds,
            bar.temperature,
            bar.knots(first, second),
            network.temperature,
            network_stages[0].worst_ece(),
            network_stages[1].worst_ece(),
            network_stages[2].worst_ece(),
            network_stages[0].log_loss,
            network_stages[1].log_loss,
            network_stages[2].log_loss,
        );
        let markdown = format!(
            "# Calibration of the win-probability bar\n\n```\n{}```\n\n{table}\n\
             ECE: expected calibration error over {BINS} equal-width bins of the predicted \
             probability of each outcome; intervals: 95 %, bootstrap over {BOOTSTRAP_SAMPLES} \
             resamples of the held-out games. Reliability diagram: `reliability.png` \
             (bins of fewer than {MIN_PLOTTED_POSITIONS} positions left out).\n",
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
            "model": model_name,
            "games": fit.len() + test.len(),
            "fit_games": fit.len(),
            "test_games": test.len(),
            "fit_positions": positions(&fit),
            "test_positions": positions(&test),
            "level": header.level,
            "advice_simulations": header.advice_simulations,
            "bar_simulations": BAR_SIMULATIONS,
            "temperature": bar.temperature,
            "curves": bar.curves,
            "network_temperature": network.temperature,
            "network_curves": network.curves,
            "before": metrics_json(&stages[0]),
            "temperature_only": metrics_json(&stages[1]),
            "after": metrics_json(&stages[2]),
            "network_before": metrics_json(&network_stages[0]),
            "network_temperature_only": metrics_json(&network_stages[1]),
            "network_after": metrics_json(&network_stages[2]),
            "intervals": metric_names.iter().zip(&intervals).map(|(name, [b, t, a])| {
                json!({"measure": name, "before": b, "temperature_only": t, "after": a})
            }).collect::<Vec<_>>(),
        });
        write_atomically(
            &report_directory.join("calibration.json"),
            format!("{report:#}\n").as_bytes(),
        )?;
        let [raw_stage, _, full_stage] = bar.stages();
        let (test_before, test_outcomes) = flatten(&test, raw_stage, bar_predictions);
        let (test_after, _) = flatten(&test, full_stage, bar_predictions);
        let bins = |predictions: &[[f64; 3]], class: usize| {
            calibration::reliability(predictions, &test_outcomes, class, BINS)
                .into_iter()
                .filter(|b| b.count >= MIN_PLOTTED_POSITIONS)
                .map(|b| (b.mean_prediction, b.frequency, b.count))
                .collect::<Vec<_>>()
        };
        let panels: Vec<ReliabilityPanel> = registry::outcome_names(game)
            .iter()
            .enumerate()
            .map(|(class, name)| ReliabilityPanel {
                title: name.clone(),
                before: bins(&test_before, class),
                after: bins(&test_after, class),
            })
            .collect();
        reliability_diagram(
            &report_directory.join("reliability.png"),
            &format!(
                "Bar calibration on held-out games (T = {:.3}, then monotone curves)",
                bar.temperature
            ),
            &panels,
        )?;
        if let (false, ModelChoice::Directory(path)) = (args.dry_run, &self.model) {
            let stored = Calibration {
                temperature: bar.temperature,
                network_temperature: network.temperature,
                simulations: BAR_SIMULATIONS,
                fit_games: fit.len() as u32,
                test_games: test.len() as u32,
                ece_before: before.worst_ece(),
                ece_after: after.worst_ece(),
                curves: Some(bar.curves.clone()),
                network_curves: Some(network.curves.clone()),
            };
            store(path, stored)?;
        }
        print!("{summary}\n{table}");
        println!(
            "wrote {}/calibration.md, calibration.json, reliability.png{}",
            report_directory.display(),
            match (args.dry_run, &self.model) {
                (false, ModelChoice::Directory(path)) => format!(
                    "; stored the calibration in {}/checkpoint.json",
                    path.display()
                ),
                _ => String::new(),
            }
        );
        Ok(())
    }
}

/// "seed 1" or "seeds 1, 2" of pooled files.
fn seed_words(pooled: &[(u64, Vec<Played>)]) -> String {
    let seeds: Vec<String> = pooled.iter().map(|(seed, _)| seed.to_string()).collect();
    let plural = if seeds.len() > 1 { "s" } else { "" };
    format!("seed{plural} {}", seeds.join(", "))
}

/// Writes a `--games-out` file: the header, then a game per line.
fn write_records(path: &Path, header: &RecordsHeader, games: &[Played]) -> Result<()> {
    let text = records_text(header, games);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    write_atomically(path, text.as_bytes())
}

fn store(path: &Path, calibration: Calibration) -> Result<()> {
    let mut metadata = read_metadata(path)?;
    metadata.calibration = Some(calibration);
    write_metadata(path, &metadata)?;
    Ok(())
}

/// Plays `args.games` games on the calibration's threads.
fn play_games<G: Game, E: Evaluator<G> + Sync>(
    game: &G,
    evaluator: &E,
    level: &Level,
    args: &CalibrateArgs,
) -> Result<Vec<Played>> {
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
    let settings = GameSettings {
        level: *level,
        opening_plies: args.opening_plies,
        seed: args.seed,
    };
    let played: Vec<Played> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .filter_map(|index| {
                let played = play(game, evaluator, &settings, index);
                progress.inc(1);
                played
            })
            .collect()
    });
    progress.finish_and_clear();
    Ok(played)
}
