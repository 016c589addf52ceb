//! Playing the calibration games: their openings (never a copy of a
//! deterministic game already recorded) and the games on the calibration's
//! threads.

use std::collections::HashSet;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use grandmaitre_engine::book::Book;
use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::Evaluator;
use grandmaitre_model::bar::BAR_SIMULATIONS;
use grandmaitre_model::calibration::games::{
    GameSettings, OPENING_ATTEMPTS, OpeningKey, Pairing, distinct_openings, opening_key, play,
};
use grandmaitre_model::calibration::records::{Played, read_records};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::CalibrateSettings;
use crate::registry::Registered;

/// Plays `settings.games` games on the calibration's threads.
pub(super) fn play_games<G: grandmaitre_engine::Playable, E: Evaluator<G> + Sync>(
    game: &G,
    evaluator: &E,
    book: Option<&Book<G>>,
    pairing: &Pairing,
    settings: &CalibrateSettings,
    mut known: HashSet<OpeningKey>,
) -> Result<Vec<Played>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads.unwrap_or(0))
        .build()
        .context("starting the calibration's threads")?;
    let progress = ProgressBar::new(u64::from(settings.games));
    progress.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games  [{elapsed_precise} < {eta_precise}]",
        )
        .expect("valid template"),
    );
    progress.enable_steady_tick(Duration::from_millis(500));
    let game_settings = GameSettings {
        pairing: pairing.clone(),
        opening_plies: settings.opening_plies,
        seed: settings.seed,
    };
    let openings = distinct_openings(game, &game_settings, settings.games, &mut known);
    let left_out = openings.iter().filter(|o| o.is_none()).count();
    if left_out > 0 {
        eprintln!(
            "{left_out} of {} games left out: no new opening for their levels after {OPENING_ATTEMPTS} draws",
            settings.games
        );
    }
    let played: Vec<Played> = pool.install(|| {
        (0..settings.games)
            .into_par_iter()
            .filter_map(|index| {
                let opening = openings[index as usize].as_deref()?;
                let played = play(game, evaluator, book, &game_settings, index, opening);
                progress.inc(1);
                Some(played)
            })
            .collect()
    });
    progress.finish_and_clear();
    Ok(played)
}

/// The openings of the deterministic games of the `--distinct-from`
/// records (see [`distinct_openings`]): each file's games must be of this
/// game and these rules.
pub(super) fn known_openings<G: Registered>(
    game: &G,
    settings: &CalibrateSettings,
) -> Result<HashSet<OpeningKey>> {
    let mut known = HashSet::new();
    for path in &settings.distinct_from {
        let (header, games) = read_records(path, G::NAME, BAR_SIMULATIONS)
            .map_err(|e| anyhow::anyhow!("--distinct-from: {e}"))?;
        if header.layout != settings.rules {
            bail!(
                "--distinct-from {}: its games are of the rules {}, these of {}",
                path.display(),
                header.layout.as_deref().unwrap_or("by default"),
                settings.rules.as_deref().unwrap_or("by default"),
            );
        }
        for played in games {
            let Some(levels) = played.levels else {
                continue;
            };
            // Recorded games of levels that play their best were
            // deterministic whatever their pairing.
            let best = levels
                .iter()
                .all(|&n| Level::get(n).is_ok_and(|level| level.plays_its_best()));
            if !best || played.moves.is_empty() {
                continue;
            }
            let mut state = game.initial_state();
            for text in &played.opening {
                let bad = |e: &dyn std::fmt::Display| {
                    anyhow::anyhow!(
                        "--distinct-from {}: opening move '{text}': {e}",
                        path.display()
                    )
                };
                let action = game.parse_action(&state, text).map_err(|e| bad(&e))?;
                state = game.play(&state, action).map_err(|e| bad(&e))?;
            }
            known.insert(opening_key(game, &state, levels));
        }
    }
    Ok(known)
}
