//! What a training run needs of play: the games of its self-play, its
//! settings for a new run, and the ratings of its checkpoints against the
//! anchors (matches of players), drawn as a strength chart.

use std::path::Path;

use anyhow::{Result, bail};
use grandmaitre_engine::arena::{MatchConfig, play_match};
use grandmaitre_train::config::{EvaluationSettings, Layouts};
use grandmaitre_train::run::Rating;
use grandmaitre_train::{Run, TrainingConfig};

use crate::players::{ModelChoice, PlayerSpec, SearchTuning};
use crate::registry::Registered;

/// The rules of self-play game `seed` under the run's layout choice (games
/// without random boards always play on their one board).
pub fn game_for<G: Registered>(base: &G, layouts: Layouts, seed: u64) -> G {
    match layouts {
        Layouts::Default => base.clone(),
        Layouts::Mixed if seed.is_multiple_of(2) => base.clone(),
        Layouts::Random | Layouts::Mixed => base.random_board(seed).unwrap_or_else(|| base.clone()),
    }
}

/// Refuses to go on with a run under other rules than its own.
pub fn check_run_rules<G: Registered>(run: &Run, game: &G) -> Result<()> {
    let own = match &run.config.rules {
        Some(rules) => rules.parse::<G::Rules>()?,
        None => G::Rules::default(),
    };
    if own != *game.rules() {
        bail!(
            "the run plays the rules '{own}', not '{}': resume it without --rules, or use a new run",
            game.rules()
        );
    }
    Ok(())
}

/// A new run's settings: the game's own anchors unless the settings name
/// some, and the rules of `game` unless they are the default ones.
pub fn for_new_run<G: Registered>(mut config: TrainingConfig, game: &G) -> TrainingConfig {
    if config.evaluation.anchors.is_none() {
        config.evaluation.anchors = Some(G::ANCHORS.iter().map(|a| a.to_string()).collect());
    }
    config.rules = (*game.rules() != G::Rules::default()).then(|| game.rules().to_string());
    config
}

/// Draws `strength.png` from the run's `evaluation.csv`: the Elo
/// difference against each fixed anchor over the generations, with 95 %
/// intervals (clipped to ±600 where a match was all wins or losses). In the
/// run's directory, or beside its cached checkpoints for a run in an object
/// store.
pub fn plot_strength(run: &Run) -> Result<()> {
    let rows = run.ratings()?;
    let mut series: Vec<crate::plot::Series> = Vec::new();
    for row in rows {
        // Earlier checkpoints of the run are opponents too; only the fixed
        // anchors give a curve on one scale.
        if PlayerSpec::parse(&row.opponent).is_err() || row.elo.is_nan() {
            continue;
        }
        let clip = |x: f64| {
            if x.is_nan() {
                x
            } else {
                x.clamp(-600.0, 600.0)
            }
        };
        let point = (
            f64::from(row.generation),
            clip(row.elo),
            clip(row.elo_low),
            clip(row.elo_high),
        );
        let name = format!("against {}", row.opponent);
        match series.iter_mut().find(|s| s.name == name) {
            Some(line) => line.points.push(point),
            None => series.push(crate::plot::Series {
                name,
                points: vec![point],
            }),
        }
    }
    crate::plot::line_chart(
        &run.local_directory().join("strength.png"),
        &format!("{}: strength against the anchors", run.location()),
        "generation",
        "Elo difference (95 % interval)",
        (-600.0, 600.0),
        &series,
    )
}

/// Matches of the checkpoint against the anchors and the previously rated
/// checkpoint.
pub fn rate<G: Registered>(
    game: &G,
    settings: &EvaluationSettings,
    anchors: &[String],
    generation: u32,
    checkpoint: &Path,
    previous: Option<&Path>,
) -> Result<Vec<Rating>> {
    // The network's own search, without the game's tactics: the ratings
    // follow the network, comparable from run to run (and a Bulltricker
    // rating with them would cost hours).
    let model = |path: &Path| PlayerSpec::Model {
        model: ModelChoice::Directory(path.to_path_buf()),
        simulations: settings.simulations,
        tuning: SearchTuning {
            without_tactics: true,
            ..SearchTuning::default()
        },
        book: false,
        solver: false,
        opening: 0,
    };
    let mut opponents: Vec<(String, PlayerSpec)> = anchors
        .iter()
        .map(|spec| Ok((spec.clone(), PlayerSpec::parse(spec)?)))
        .collect::<Result<_>>()?;
    if let Some(previous) = previous {
        opponents.push((previous.display().to_string(), model(previous)));
    }
    let player = model(checkpoint).prepare(game)?;
    let mut ratings = Vec::new();
    for (name, spec) in opponents {
        let opponent = spec.prepare(game)?;
        let config = MatchConfig {
            games: settings.games,
            openings: settings.games.div_ceil(2),
            opening_plies: 1,
            opening_lines: Vec::new(),
            seed: u64::from(generation),
            sprt: None,
        };
        let (stats, _) = play_match(
            |_| game.clone(),
            |seed| player.build(game, seed).expect("prepared"),
            |seed| opponent.build(game, seed).expect("prepared"),
            &config,
            |_, _| {},
        );
        let elo = stats.elo();
        ratings.push(Rating {
            opponent: name,
            games: stats.games(),
            score: stats.score(),
            elo: [elo.elo, elo.low, elo.high],
        });
    }
    Ok(ratings)
}
