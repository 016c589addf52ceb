//! `grandmaitre calibrate`: fits the bar's calibration on engine games and
//! measures it on held-out ones.
//!
//! The engine plays itself at the advice level (10, or `--level`) from
//! random openings (1 to `--opening-plies` random plies, no noise
//! afterwards). At every position the bar's search (network +
//! [`BAR_SIMULATIONS`]) gives the uncalibrated P(Light wins), P(draw),
//! P(Dark wins); the game's result is the label. Games are split in two
//! halves by a seeded shuffle: one fits the temperature by log-likelihood,
//! then a monotone curve per outcome (isotonic regression), for positions
//! where Light is to move and for those where Dark is; the other
//! measures expected calibration error (15 bins, per outcome), Brier score
//! and log-loss raw, after the temperature, and after both, with 95 %
//! intervals from a bootstrap over whole games (positions of one game are
//! correlated). The network's own win/draw/loss (no search, what an
//! embedding that runs only the network shows) gets its own fit.
//!
//! `--games-out` keeps the games' records; `--games-in` refits on them
//! without playing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::Outcome;
use grandmaitre_engine::arena::opening_moves;
use grandmaitre_engine::game::OneLine;
use grandmaitre_engine::search::{Search, SearchConfig};
use grandmaitre_model::calibration::{self, Calibration, Curve, SideCurves};
use grandmaitre_model::checkpoint::{read_metadata, write_metadata};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::export::write_atomically;
use super::{CliGame, GameTask, PositionArgs, with_position};
use crate::advice::{self, BAR_SIMULATIONS, Level};
use crate::cli::CalibrateArgs;
use crate::players::{load_model, model_or_shipped};
use crate::plot::{ReliabilityPanel, reliability_diagram};

const BINS: usize = 15;
/// Bins of fewer positions are left out of the reliability diagram (their
/// frequency is noise; the calibration error still counts them).
const MIN_PLOTTED_POSITIONS: usize = 20;
/// Games an outcome must have ended for its curves to be fitted.
const MIN_OUTCOME_GAMES: usize = 40;
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

/// The bar at every position of one game, and how the game ended (a line
/// of a `--games-out` file).
#[derive(Debug, Serialize, Deserialize)]
struct Played {
    /// P(Light wins), P(draw), P(Dark wins) of the bar, before calibration.
    predictions: Vec<[f32; 3]>,
    /// The same from the network alone, without search.
    network: Vec<[f32; 3]>,
    /// Who was to move at each position: 0 Light, 1 Dark.
    sides: Vec<u8>,
    /// 0 Light won, 1 draw, 2 Dark won.
    result: usize,
}

/// The first line of a `--games-out` file: how its games were played.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct RecordsHeader {
    format: String,
    game: String,
    layout: Option<String>,
    model: String,
    level: u32,
    advice_simulations: u32,
    bar_simulations: u32,
    opening_plies: u32,
    seed: u64,
}

const RECORDS_FORMAT: &str = "grandmaitre calibration games 1";

/// The header and games of a `--games-out` file: games of `game`, with the
/// bar's present number of simulations, every record consistent.
fn read_records(path: &Path, game: &str) -> Result<(RecordsHeader, Vec<Played>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse_records(&text, path, game)
}

/// [`read_records`] on the text of the file `path`.
fn parse_records(text: &str, path: &Path, game: &str) -> Result<(RecordsHeader, Vec<Played>)> {
    let mut lines = text.lines().enumerate();
    let header: RecordsHeader = match lines.next() {
        Some((_, line)) => serde_json::from_str(line)
            .ok()
            .filter(|h: &RecordsHeader| h.format == RECORDS_FORMAT)
            .with_context(|| format!("{}: not a calibrate --games-out file", path.display()))?,
        None => bail!("{}: empty file", path.display()),
    };
    if header.game != game {
        bail!(
            "{}: the games are {} games, not {game} ones",
            path.display(),
            OneLine(&header.game)
        );
    }
    if header.bar_simulations != BAR_SIMULATIONS {
        bail!(
            "{}: the bar had {} simulations there, {BAR_SIMULATIONS} now",
            path.display(),
            header.bar_simulations
        );
    }
    let mut games = Vec::new();
    for (number, line) in lines {
        let played: Played = serde_json::from_str(line).map_err(|e| {
            anyhow::anyhow!("{}:{}: bad game record: {e}", path.display(), number + 1)
        })?;
        let positions = played.predictions.len();
        if played.network.len() != positions
            || played.sides.len() != positions
            || played.result > 2
            || played.sides.iter().any(|&s| s > 1)
            || played
                .predictions
                .iter()
                .chain(&played.network)
                .flatten()
                .any(|p| !(0.0..=1.0).contains(p))
        {
            bail!(
                "{}:{}: inconsistent game record",
                path.display(),
                number + 1
            );
        }
        games.push(played);
    }
    if games.len() < 4 {
        bail!(
            "{}: {} games, at least 4 needed",
            path.display(),
            games.len()
        );
    }
    Ok((header, games))
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

/// The three stages reported: raw, temperature only, temperature and
/// curves (the calibration stored).
const STAGES: usize = 3;

/// The reported values of each stage, in `METRIC_NAMES` order.
type StageValues = [[f64; 6]; STAGES];

const METRIC_NAMES: [&str; 6] = [
    "ECE, Light wins",
    "ECE, draw",
    "ECE, Dark wins",
    "ECE, worst outcome",
    "Brier score",
    "log-loss",
];

/// A way of showing predictions: under a temperature, then maybe curves.
#[derive(Clone, Copy)]
struct Stage<'a> {
    temperature: f64,
    curves: Option<&'a SideCurves>,
}

const RAW: Stage<'static> = Stage {
    temperature: 1.0,
    curves: None,
};

/// Which predictions of a game are calibrated: the bar's or the network's.
type Pick = fn(&Played) -> &[[f32; 3]];

fn bar_predictions(game: &Played) -> &[[f32; 3]] {
    &game.predictions
}

fn network_predictions(game: &Played) -> &[[f32; 3]] {
    &game.network
}

/// Every position of `games`, shown as `stage` says, with its game's result.
fn flatten(games: &[&Played], stage: Stage, pick: Pick) -> (Vec<[f64; 3]>, Vec<usize>) {
    let mut predictions = Vec::new();
    let mut outcomes = Vec::new();
    for game in games {
        for (&p, &side) in pick(game).iter().zip(&game.sides) {
            let curves = stage.curves.map(|c| &c[usize::from(side)]);
            predictions.push(calibration::calibrate(
                p.map(f64::from),
                stage.temperature,
                curves,
            ));
            outcomes.push(game.result);
        }
    }
    (predictions, outcomes)
}

/// A temperature and curves fitted on some games.
struct Fitted {
    temperature: f64,
    curves: SideCurves,
}

impl Fitted {
    /// One temperature for all positions, then curves for the positions
    /// where Light is to move and for those where Dark is; an outcome that
    /// ended fewer than [`MIN_OUTCOME_GAMES`] games gets none (its
    /// positions, however many, are too few independent facts).
    fn on(games: &[&Played], pick: Pick) -> Fitted {
        let (predictions, outcomes) = flatten(games, RAW, pick);
        let temperature = calibration::fit_temperature(&predictions, &outcomes);
        let fitted =
            [0, 1, 2].map(|k| games.iter().filter(|g| g.result == k).count() >= MIN_OUTCOME_GAMES);
        let sides: Vec<u8> = games.iter().flat_map(|g| g.sides.iter().copied()).collect();
        let curves = [0, 1].map(|side| {
            let (scaled, outcomes): (Vec<[f64; 3]>, Vec<usize>) = predictions
                .iter()
                .zip(&outcomes)
                .zip(&sides)
                .filter(|&(_, &s)| s == side)
                .map(|((&p, &k), _)| (calibration::scale(p, temperature), k))
                .unzip();
            calibration::fit_curves(&scaled, &outcomes, fitted)
        });
        Fitted {
            temperature,
            curves,
        }
    }

    /// Knots of each curve, as "Light to move a/b/c, Dark to move d/e/f".
    fn knots(&self) -> String {
        let counts = |curves: &[Curve; 3]| {
            curves
                .iter()
                .map(|c| c.knots.len().to_string())
                .collect::<Vec<_>>()
                .join("/")
        };
        format!(
            "Light to move {}, Dark to move {}",
            counts(&self.curves[0]),
            counts(&self.curves[1])
        )
    }

    /// Raw, temperature only, temperature and curves.
    fn stages(&self) -> [Stage<'_>; STAGES] {
        [
            RAW,
            Stage {
                temperature: self.temperature,
                curves: None,
            },
            Stage {
                temperature: self.temperature,
                curves: Some(&self.curves),
            },
        ]
    }

    /// The metrics of each stage on `games`.
    fn measure(&self, games: &[&Played], pick: Pick) -> [Metrics; STAGES] {
        self.stages().map(|stage| {
            let (p, o) = flatten(games, stage, pick);
            Metrics::of(&p, &o)
        })
    }
}

/// 95 % intervals of each metric at each stage, from a bootstrap over whole
/// games (positions of one game are correlated).
fn bootstrap(fitted: &Fitted, test: &[&Played], seed: u64) -> [[[f64; 2]; STAGES]; 6] {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xB007);
    let samples: Vec<StageValues> = (0..BOOTSTRAP_SAMPLES)
        .map(|_| {
            let resample: Vec<&Played> = (0..test.len())
                .map(|_| test[rng.random_range(0..test.len())])
                .collect();
            fitted
                .measure(&resample, bar_predictions)
                .map(|m| m.values())
        })
        .collect();
    std::array::from_fn(|metric| {
        std::array::from_fn(|stage| {
            let mut values: Vec<f64> = samples.iter().map(|s| s[stage][metric]).collect();
            values.sort_by(f64::total_cmp);
            let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
            [at(0.025), at(0.975)]
        })
    })
}

impl GameTask for Calibrate {
    fn run<G: CliGame>(self, game: &G, _state: G::State) -> Result<()> {
        let args = &self.args;
        let path = model_or_shipped::<G>(args.model.as_deref())?;
        let (header, played, held_out, seeds) = if args.games_in.is_empty() {
            // Only playing needs the network; a refit reads the games.
            let (evaluator, _) = load_model(&path, game.spec())?;
            let level = Level::get(args.level).map_err(anyhow::Error::msg)?;
            let played = play_games(game, &evaluator, &level, args)?;
            let header = RecordsHeader {
                format: RECORDS_FORMAT.to_string(),
                game: G::NAME.to_string(),
                layout: args.layout.clone(),
                model: path.display().to_string(),
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
            let (header, mut per_file) = pool_records(&files, G::NAME)?;
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

        let report_directory = args.report.clone().unwrap_or_else(|| path.clone());
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
        for (k, name) in METRIC_NAMES.iter().enumerate() {
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
            path.display(),
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
            bar.knots(),
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
            "model": path.display().to_string(),
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
            "intervals": METRIC_NAMES.iter().zip(&intervals).map(|(name, [b, t, a])| {
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
            &format!(
                "Bar calibration on held-out games (T = {:.3}, then monotone curves)",
                bar.temperature
            ),
            &panels,
        )?;
        if !args.dry_run {
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
            store(&path, stored)?;
        }
        print!("{summary}\n{table}");
        println!(
            "wrote {}/calibration.md, calibration.json, reliability.png{}",
            report_directory.display(),
            if args.dry_run {
                String::new()
            } else {
                format!(
                    "; stored the calibration in {}/checkpoint.json",
                    path.display()
                )
            }
        );
        Ok(())
    }
}

/// The games of several `--games-out` files, which must have been played
/// alike with different seeds: the first file's header, and each file's
/// seed and games.
fn pool_records(files: &[PathBuf], game: &str) -> Result<(RecordsHeader, Vec<(u64, Vec<Played>)>)> {
    let (first, played) = read_records(&files[0], game)?;
    let mut pooled = vec![(first.seed, played)];
    for file in &files[1..] {
        let (header, games) = read_records(file, game)?;
        let seed = header.seed;
        let alike = RecordsHeader {
            seed: first.seed,
            ..header
        };
        if alike != first {
            bail!(
                "{} was not played like {} (model, level, layout or openings differ)",
                file.display(),
                files[0].display()
            );
        }
        if pooled.iter().any(|(s, _)| *s == seed) {
            bail!(
                "{} repeats seed {seed}: its games are already pooled",
                file.display()
            );
        }
        pooled.push((seed, games));
    }
    Ok((first, pooled))
}

/// "seed 1" or "seeds 1, 2" of pooled files.
fn seed_words(pooled: &[(u64, Vec<Played>)]) -> String {
    let seeds: Vec<String> = pooled.iter().map(|(seed, _)| seed.to_string()).collect();
    let plural = if seeds.len() > 1 { "s" } else { "" };
    format!("seed{plural} {}", seeds.join(", "))
}

/// Writes a `--games-out` file: the header, then a game per line.
fn write_records(path: &Path, header: &RecordsHeader, games: &[Played]) -> Result<()> {
    let mut text = serde_json::to_string(header)?;
    for game in games {
        text.push('\n');
        text.push_str(&serde_json::to_string(game)?);
    }
    text.push('\n');
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
fn play_games<G: CliGame, E: grandmaitre_engine::search::Evaluator<G> + Sync>(
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
    let played: Vec<Played> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .filter_map(|index| {
                let played = play(game, evaluator, level, args, index);
                progress.inc(1);
                played
            })
            .collect()
    });
    progress.finish_and_clear();
    Ok(played)
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
    let mut sides = Vec::new();
    while game.outcome(&state).is_none() {
        sides.push(u8::from(
            game.current_player(&state) != grandmaitre_engine::Player::First,
        ));
        let bar = advice::bar_search(game, &state, evaluator);
        let wdl = advice::for_first_player(bar.side, bar.wdl);
        predictions.push(wdl);
        let raw = Search::new(game.clone(), state.clone(), one.clone(), 0).run(evaluator);
        network.push(advice::for_first_player(raw.side, raw.wdl));
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
        sides,
        result,
    })
}

#[cfg(test)]
#[path = "calibrate_tests.rs"]
mod tests;
