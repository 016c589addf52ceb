//! The bar's calibration (`grandmaitre calibrate`): fitted on engine games
//! and measured on held-out ones.
//!
//! The engine plays from random openings (0 to `--opening-plies` random
//! plies; only the positions after them count: the bar predicts play, not
//! dice), either one level against itself (`--pairing self`, level 10 or
//! `--level`, without random moves) or pairs of levels as the app's
//! players meet them (`--pairing mixed`: 10 v 5, 7 v 3, …, random moves
//! included). At every position the bar's search (network +
//! [`BAR_SIMULATIONS`]) gives the uncalibrated P(first player wins),
//! P(draw), P(second player wins); the game's result is the label. Games
//! are split in two halves by a seeded shuffle: one fits the temperature
//! by log-likelihood, then curves per outcome whose kind (none, isotonic
//! blocks per side to move, or Platt scaling from the side to move's view)
//! is chosen by log-loss on a quarter of the fitting games; the other half
//! measures expected calibration error (15 bins, per outcome), Brier score
//! and log-loss raw, after the temperature, and after both, with 95 %
//! intervals from a bootstrap over whole games (positions of one game are
//! correlated), for all held-out games and for each population (self-play,
//! mixed levels, each rules parameters when records of several boards are
//! pooled: one model, one calibration), and how steady the bar is from ply
//! to ply. The network's own win/draw/loss (no search, what an embedding
//! that runs only the network shows) gets its own fit. The fitting, the
//! metrics, the records and the games are the model crate's
//! (`grandmaitre_model::calibration`); this module plays, reports and
//! stores.
//!
//! `--games-out` keeps the games' records, each game as it ends (in a
//! partial file that an interrupted run resumes from); `--games-in`
//! refits on them without playing.
//!
//! Where the fit is stored: games of one rules setting other than the
//! game's default (`--rules size=10`) fit that setting's own calibration,
//! reported in the checkpoint's `rules-…` subdirectory named by the
//! parameters that differ from the default; games of the default rules,
//! or of several settings pooled, fit the calibration of every setting
//! without its own (and the pooled settings lose theirs). One network
//! that plays two boards can so have a bar calibrated on each.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use grandmaitre_engine::levels::Level;
use grandmaitre_model::bar::BAR_SIMULATIONS;
use grandmaitre_model::calibration::games::Pairing;
use grandmaitre_model::calibration::measure::{
    self, BINS, BOOTSTRAP_SAMPLES, Fitted, Metrics, bar_predictions, bootstrap, flatten,
    network_predictions, steadiness,
};
use grandmaitre_model::calibration::records::{
    Played, RECORDS_FORMAT, RecordsHeader, distinct_games, pool_records, records_text,
};
use grandmaitre_model::calibration::{self, Calibration};
use grandmaitre_model::checkpoint::{read_metadata, write_metadata};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use serde_json::json;

use crate::players::ModelChoice;
use crate::plot::{ReliabilityPanel, reliability_diagram};
use crate::registry::{self, Registered};
use crate::write_atomically;

mod played;
mod seated;

use played::{known_openings, partial_path, play_games};
use seated::{replay_records, seated_report};

/// Bins of fewer positions are left out of the reliability diagram (their
/// frequency is noise; the calibration error still counts them).
const MIN_PLOTTED_POSITIONS: usize = 20;

/// What `calibrate` is asked: where the games come from, where the report
/// goes, whether the fit is stored.
#[derive(Clone, Debug)]
pub struct CalibrateSettings {
    /// The network that plays and whose bar is fitted.
    pub model: ModelChoice,
    /// Games to play (half fit, half measure).
    pub games: u32,
    /// The level of `self` pairings.
    pub level: u32,
    /// Random plies before the recorded positions: 0 to this many.
    pub opening_plies: u32,
    /// `self` (one level against itself) or `mixed` (pairs of levels).
    pub pairing: String,
    /// Seed of the openings, the split and the bootstrap.
    pub seed: u64,
    /// Threads that play (default: one per core).
    pub threads: Option<usize>,
    /// The report's directory (default: the checkpoint's).
    pub report: Option<PathBuf>,
    /// Measure only: store nothing in the checkpoint.
    pub dry_run: bool,
    /// Where to keep the played games' records (each game goes to the
    /// partial file beside it as it ends, and a run with the same settings
    /// resumes from it: [`partial_path`]).
    pub games_out: Option<PathBuf>,
    /// Records to refit on instead of playing.
    pub games_in: Vec<PathBuf>,
    /// Records that only measure.
    pub held_out: Vec<PathBuf>,
    /// Records whose deterministic games (both levels playing their best)
    /// are not played again (see [`distinct_openings`]).
    pub distinct_from: Vec<PathBuf>,
    /// The rules the games are played under, as given.
    pub rules: Option<String>,
}

/// What a calibration found and where it wrote it.
#[derive(Clone, Debug)]
pub struct CalibrationReport {
    /// The summary lines (model, games, fit, steadiness, the network alone).
    pub summary: String,
    /// The tables of measures, Markdown.
    pub table: String,
    /// Where `calibration.md`, `calibration.json` and the diagrams are.
    pub directory: PathBuf,
    /// Where the fit was stored, in words, if it was.
    pub stored: Option<String>,
}

/// Plays or reads the games, fits the calibration, measures it, writes the
/// report and, unless a dry run, stores the fit in the checkpoint.
pub fn calibrate<G: Registered>(
    game: &G,
    settings: &CalibrateSettings,
) -> Result<CalibrationReport> {
    if settings.games < 4 {
        bail!("--games must be at least 4 (half fit, half measure)");
    }
    if settings.model == ModelChoice::Shipped && !(settings.dry_run && settings.report.is_some()) {
        bail!(
            "the shipped model is inside the program: pass --model DIR to fit and store a calibration, or --dry-run --report DIR to measure it"
        );
    }
    let model_name = match &settings.model {
        ModelChoice::Directory(path) => path.display().to_string(),
        _ => format!("the shipped {} model", G::NAME),
    };
    let [first, second] = registry::player_names(game);
    let (header, played, held_out, seeds) = if settings.games_in.is_empty() {
        // Only playing needs the network; a refit reads the games.
        let level = Level::get(settings.level).map_err(anyhow::Error::msg)?;
        let pairing = Pairing::parse(&settings.pairing, level).map_err(anyhow::Error::msg)?;
        let known = known_openings(game, settings)?;
        let header = RecordsHeader {
            format: RECORDS_FORMAT.to_string(),
            game: G::NAME.to_string(),
            layout: settings.rules.clone(),
            model: model_name.clone(),
            level: pairing.top_level(),
            pairing: Some(settings.pairing.clone()),
            advice_simulations: level.simulations,
            bar_simulations: BAR_SIMULATIONS,
            opening_plies: settings.opening_plies,
            seed: settings.seed,
        };
        let loaded = settings.model.load(game)?;
        let mut played = play_games(
            game,
            &loaded.evaluator,
            loaded.book.as_deref(),
            &pairing,
            settings,
            &header,
            known,
        )?;
        for game in &mut played {
            game.rules.clone_from(&settings.rules);
        }
        if let Some(out) = &settings.games_out {
            write_records(out, &header, &played)?;
            // The finished file holds every game: the partial one served.
            let part = partial_path(out);
            std::fs::remove_file(&part).with_context(|| format!("removing {}", part.display()))?;
        }
        let seeds = format!("seed {}", header.seed);
        (header, played, Vec::new(), seeds)
    } else {
        let files: Vec<PathBuf> = settings
            .games_in
            .iter()
            .chain(&settings.held_out)
            .cloned()
            .collect();
        let (header, mut per_file) =
            pool_records(&files, G::NAME, BAR_SIMULATIONS).map_err(anyhow::Error::msg)?;
        let held_entries = per_file.split_off(settings.games_in.len());
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

    // Repeated games out before the split: a copy of a fitting game is no
    // held-out game.
    let (mut played, mut held_out, duplicates) = distinct_games(played, held_out);
    // What the recorded moves tell, replayed: wins at once, and the moves
    // as the network saw them.
    replay_records(game, settings, played.iter_mut().chain(held_out.iter_mut()))?;
    if played.len() + held_out.len() < 4 {
        bail!("fewer than 4 distinct games: nothing to fit and measure");
    }
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
    let [raw_stage, _, full_stage] = bar.stages();
    let steady = [raw_stage, full_stage].map(|stage| steadiness(&test, stage, bar_predictions));

    // Games of one rules setting other than the default fit that
    // setting's own calibration; otherwise the fit serves every
    // setting without its own.
    let default_rules = G::Rules::default();
    let rules_seen = rules_settings::<G>(fit.iter().chain(&test).copied())?;
    let own = match &rules_seen[..] {
        [only] if *only != default_rules => Some(only.clone()),
        _ => None,
    };
    let report_directory = match (&settings.report, &settings.model) {
        (Some(report), _) => report.clone(),
        (None, ModelChoice::Directory(path)) => match &own {
            Some(own) => path.join(rules_directory(&default_rules, own)),
            None => path.clone(),
        },
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
    let positions = |games: &[&Played]| games.iter().map(|g| g.predictions.len()).sum::<usize>();
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
    let mut pairs: Vec<[u32; 2]> = fit
        .iter()
        .chain(&test)
        .map(|game| game.levels.unwrap_or([header.level; 2]))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let pairings = match &pairs[..] {
        [[a, b]] if a == b => vec![format!("level {a} against itself")],
        _ if pairs.len() > 12 => vec![format!("{} pairings of levels", pairs.len())],
        _ => vec![Pairing::Pairs(pairs.clone()).words()],
    };
    let players = pairings.join(" and ");
    let first_ply = if header.pairing.is_some() { 0 } else { 1 };
    let _ = writeln!(
        table,
        "\n| population (held-out games) | games | positions | worst-outcome ECE before | after | Brier before → after | log-loss before → after |"
    );
    let _ = writeln!(table, "|---|---|---|---|---|---|---|");
    let mut populations: Vec<String> = test.iter().map(|g| g.population()).collect();
    populations.sort_unstable();
    populations.dedup();
    let mut population_json = Vec::new();
    for population in populations {
        let games: Vec<&Played> = test
            .iter()
            .copied()
            .filter(|g| g.population() == population)
            .collect();
        let [raw, _, fitted] = bar.measure(&games, bar_predictions);
        let interval = bootstrap(&bar, &games, header.seed);
        let [[low0, high0], _, [low2, high2]] = interval[3];
        let _ = writeln!(
            table,
            "| {population} | {} | {} | {:.4} [{low0:.4}, {high0:.4}] | {:.4} [{low2:.4}, {high2:.4}] | {:.4} → {:.4} | {:.4} → {:.4} |",
            games.len(),
            positions(&games),
            raw.worst_ece(),
            fitted.worst_ece(),
            raw.brier,
            fitted.brier,
            raw.log_loss,
            fitted.log_loss
        );
        population_json.push(json!({
            "population": population,
            "games": games.len(),
            "positions": positions(&games),
            "ece_worst_before": raw.worst_ece(),
            "ece_worst_after": fitted.worst_ece(),
            "brier_before": raw.brier,
            "brier_after": fitted.brier,
            "log_loss_before": raw.log_loss,
            "log_loss_after": fitted.log_loss,
        }));
    }
    let seated = seated_report(&fit, &test, header.seed, &mut table);
    let summary = format!(
        "model {}\n{} distinct games ({duplicates} repeated games dropped; {} positions fit the calibration, {} held-out games with {} positions measure it), \
             {players}, bar {} simulations, openings of {first_ply}–{} random plies (positions after them only), {}\n\
             temperature T = {:.4}, then {} (chosen on a quarter of the fitting games by log-loss, \
             a smooth map unless blocks are better by over 1 %: \
             temperature only {:.4}, isotonic {:.4}, Platt {:.4}, Platt by side {:.4}); knots per outcome {}\n\
             steadiness on the held-out games, raw → calibrated: mean |change| per ply {:.4} → {:.4}, \
             parity swing {:+.4} ± {:.4} → {:+.4} ± {:.4}, distinct values {} → {} of {} positions\n\
             network alone (no search): T = {:.4}, worst-outcome ECE {:.4} → {:.4} (T) → {:.4} (T and curves), \
             log-loss {:.4} → {:.4} → {:.4}\n",
        model_name,
        fit.len() + test.len(),
        positions(&fit),
        test.len(),
        positions(&test),
        BAR_SIMULATIONS,
        header.opening_plies,
        seeds,
        bar.temperature,
        bar.kind.name(),
        bar.validation[0],
        bar.validation[1],
        bar.validation[2],
        bar.validation[3],
        bar.knots(first, second),
        steady[0].mean_change,
        steady[1].mean_change,
        steady[0].parity,
        steady[0].parity_error,
        steady[1].parity,
        steady[1].parity_error,
        steady[0].distinct,
        steady[1].distinct,
        steady[1].positions,
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
             resamples of the held-out games; by chance alone: the worst-outcome ECE a \
             calibrated bar would show on the same games, roughly (per bin, the binomial error \
             of its frequency with each game that reaches it counted once). Reliability diagrams: `reliability.png`, and per \
             side to move `reliability-by-side.png` (bins of fewer than {MIN_PLOTTED_POSITIONS} \
             positions left out). Parity swing: the bar where {first} is to move less the mean \
             of its two neighbours.\n",
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
        "repeated_games_dropped": duplicates,
        "fit_games": fit.len(),
        "test_games": test.len(),
        "fit_positions": positions(&fit),
        "test_positions": positions(&test),
        "level": header.level,
        "advice_simulations": header.advice_simulations,
        "bar_simulations": BAR_SIMULATIONS,
        "pairing": header.pairing,
        "temperature": bar.temperature,
        "curve_kind": bar.kind.name(),
        "validation_log_loss": bar.validation,
        "curves": bar.curves,
        "steadiness": steady.map(|s| json!({
            "mean_change": s.mean_change,
            "parity": s.parity,
            "parity_error": s.parity_error,
            "distinct": s.distinct,
            "positions": s.positions,
        })),
        "network_temperature": network.temperature,
        "network_curves": network.curves,
        "before": metrics_json(&stages[0]),
        "temperature_only": metrics_json(&stages[1]),
        "after": metrics_json(&stages[2]),
        "network_before": metrics_json(&network_stages[0]),
        "network_temperature_only": metrics_json(&network_stages[1]),
        "network_after": metrics_json(&network_stages[2]),
        "populations": population_json,
        "players": seated.as_ref().map(|(model, rows)| json!({
            "ratings": model.ratings,
            "weights": model.weights,
            "fit_games": model.games,
            "pairings_fitted": model.pairings.len(),
            "moves": model.moves,
            "measured": rows,
        })),
        "intervals": metric_names.iter().zip(&intervals).map(|(name, [b, t, a])| {
            json!({"measure": name, "before": b, "temperature_only": t, "after": a})
        }).collect::<Vec<_>>(),
    });
    write_atomically(
        &report_directory.join("calibration.json"),
        format!("{report:#}\n").as_bytes(),
    )?;
    let (test_before, test_outcomes) = flatten(&test, raw_stage, bar_predictions);
    let (test_after, _) = flatten(&test, full_stage, bar_predictions);
    let bins =
        |predictions: &[[f64; 3]], class: usize| plotted_bins(predictions, &test_outcomes, class);
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
            "Bar calibration on held-out games (T = {:.3}, then {})",
            bar.temperature,
            bar.kind.name()
        ),
        &panels,
    )?;
    // The same, with the positions of each side to move apart.
    let mut side_panels = Vec::new();
    for (side, mover) in [first, second].iter().enumerate() {
        let apart: Vec<usize> = test
            .iter()
            .flat_map(|g| g.sides.iter())
            .enumerate()
            .filter(|&(_, &s)| usize::from(s) == side)
            .map(|(index, _)| index)
            .collect();
        let pick = |all: &[[f64; 3]]| apart.iter().map(|&i| all[i]).collect::<Vec<_>>();
        let outcomes: Vec<usize> = apart.iter().map(|&i| test_outcomes[i]).collect();
        let (before, after) = (pick(&test_before), pick(&test_after));
        for (class, name) in registry::outcome_names(game).iter().enumerate() {
            let bins = |predictions: &[[f64; 3]]| plotted_bins(predictions, &outcomes, class);
            side_panels.push(ReliabilityPanel {
                title: format!("{name}, {mover} to move"),
                before: bins(&before),
                after: bins(&after),
            });
        }
    }
    reliability_diagram(
        &report_directory.join("reliability-by-side.png"),
        "Bar calibration on held-out games, by side to move",
        &side_panels,
    )?;
    if let (false, ModelChoice::Directory(path)) = (settings.dry_run, &settings.model) {
        let stored = measure::calibration(
            &bar,
            &network,
            BAR_SIMULATIONS,
            [fit.len(), test.len()],
            [before.worst_ece(), after.worst_ece()],
            seated.map(|(model, _)| model),
        );
        store::<G>(path, stored, own.as_ref(), &rules_seen)?;
    }
    let stored = match (settings.dry_run, &settings.model, &own) {
        (false, ModelChoice::Directory(path), Some(own)) => Some(format!(
            "the calibration of the rules '{}' in {}/checkpoint.json",
            differing(&default_rules.to_string(), &own.to_string()).join(" "),
            path.display()
        )),
        (false, ModelChoice::Directory(path), None) => Some(format!(
            "the calibration in {}/checkpoint.json (for every rules setting without its own)",
            path.display()
        )),
        _ => None,
    };
    Ok(CalibrationReport {
        summary,
        table,
        directory: report_directory,
        stored,
    })
}

/// "seed 1" or "seeds 1, 2 (size=10)" of pooled files: each file's seed,
/// and its rules parameters if not the default ones.
fn seed_words(pooled: &[(u64, Vec<Played>)]) -> String {
    let seeds: Vec<String> = pooled
        .iter()
        .map(
            |(seed, games)| match games.first().and_then(|g| g.rules.as_ref()) {
                Some(rules) => format!("{seed} ({rules})"),
                None => seed.to_string(),
            },
        )
        .collect();
    let plural = if seeds.len() > 1 { "s" } else { "" };
    format!("seed{plural} {}", seeds.join(", "))
}

/// The reliability bins of outcome `class` that a diagram shows (mean
/// prediction, frequency, positions): those of enough positions.
fn plotted_bins(
    predictions: &[[f64; 3]],
    outcomes: &[usize],
    class: usize,
) -> Vec<(f64, f64, usize)> {
    calibration::reliability(predictions, outcomes, class, BINS)
        .into_iter()
        .filter(|b| b.count >= MIN_PLOTTED_POSITIONS)
        .map(|b| (b.mean_prediction, b.frequency, b.count))
        .collect()
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

/// The rules settings the games were played under, each once.
fn rules_settings<'a, G: Registered>(
    games: impl Iterator<Item = &'a Played>,
) -> Result<Vec<G::Rules>> {
    // Each distinct text is read once: a file holds thousands of games of
    // a few settings.
    let texts: BTreeSet<Option<&String>> = games.map(|game| game.rules.as_ref()).collect();
    let mut settings: Vec<G::Rules> = Vec::new();
    for text in texts {
        let rules = match text {
            Some(text) => text.parse::<G::Rules>()?,
            None => G::Rules::default(),
        };
        if !settings.contains(&rules) {
            settings.push(rules);
        }
    }
    Ok(settings)
}

/// The words of the parameters `own` that the default rules do not have
/// ("size=10").
fn differing<'a>(default: &str, own: &'a str) -> Vec<&'a str> {
    let default: BTreeSet<&str> = default.split_whitespace().collect();
    own.split_whitespace()
        .filter(|word| !default.contains(word))
        .collect()
}

/// The report's directory inside the checkpoint for a calibration of the
/// rules `own`: `rules-` and the words that differ (`rules-size-10-limit-50`).
fn rules_directory<R: std::fmt::Display>(default: &R, own: &R) -> String {
    let (default, own) = (default.to_string(), own.to_string());
    let words: Vec<String> = differing(&default, &own)
        .iter()
        .map(|word| {
            word.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        })
        .collect();
    format!("rules-{}", words.join("-"))
}

/// Stores `calibration` in the checkpoint at `path`: as the rules `own`'s
/// calibration, or else as the one for every setting without its own, in
/// which case the settings it was fitted on lose their own (which would
/// hide it).
fn store<G: Registered>(
    path: &Path,
    calibration: Calibration,
    own: Option<&G::Rules>,
    settings: &[G::Rules],
) -> Result<()> {
    let mut metadata = read_metadata(path)?;
    // A stored setting is known by its rules, whatever its text's spelling.
    let stored_rules = |text: &String| text.parse::<G::Rules>().ok();
    match own {
        Some(rules) => {
            metadata
                .rules_calibrations
                .retain(|text, _| stored_rules(text).as_ref() != Some(rules));
            metadata
                .rules_calibrations
                .insert(rules.to_string(), calibration);
        }
        None => {
            metadata.calibration = Some(calibration);
            metadata.rules_calibrations.retain(|text, _| {
                !stored_rules(text).is_some_and(|rules| settings.contains(&rules))
            });
        }
    }
    write_metadata(path, &metadata)?;
    Ok(())
}
