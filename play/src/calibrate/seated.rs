//! The bar for who plays in `calibrate`: the recorded moves replayed,
//! the players' model fitted on the fitting games and measured on the
//! held-out ones, pairing by pairing and with a side hidden.

use std::fmt::Write as _;

use anyhow::Result;
use grandmaitre_engine::seats::{HUMAN_LEVELS, Seat};
use grandmaitre_model::calibration::moves;
use grandmaitre_model::calibration::players::{self, PlayersModel, Told};
use grandmaitre_model::calibration::records::Played;
use rayon::prelude::*;
use serde_json::json;

use super::CalibrateSettings;
use crate::registry::Registered;

/// Replays every record that has its moves ([`moves::replay`]), each
/// rules setting (a board size) under its own game and network: one
/// network may play several boards, set to each. The network is loaded
/// only where some record has moves.
pub(super) fn replay_records<'a, G: Registered>(
    game: &G,
    settings: &CalibrateSettings,
    games: impl Iterator<Item = &'a mut Played>,
) -> Result<()> {
    let mut by_rules: std::collections::BTreeMap<Option<String>, Vec<&mut Played>> =
        std::collections::BTreeMap::new();
    for played in games.filter(|g| !g.moves.is_empty()) {
        by_rules
            .entry(played.rules.clone())
            .or_default()
            .push(played);
    }
    for (rules, mut games) in by_rules {
        let rules_game = match &rules {
            Some(text) => G::with_rules(text)?,
            None => game.clone(),
        };
        let evaluator = settings.model.load(&rules_game)?.evaluator;
        games
            .par_iter_mut()
            .try_for_each(|played| moves::replay(&rules_game, played, &evaluator))
            .map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// Fits the bar for who plays on the fitting games whose levels were
/// recorded (several pairings needed), and how each level moves where the
/// games' moves were recorded and replayed; measures it on the held-out ones
/// (level 10 v 10, each pairing of at least [`MIN_PAIRING_GAMES`] games
/// with both colour orders pooled, the pairings never fitted together,
/// and with a side hidden: the bar told "human" for it, before and after
/// it reads the hidden player's moves) and appends the table to `table`;
/// the model and the rows measured, or `None` where the games pair too few
/// levels.
pub(super) fn seated_report(
    fit: &[&Played],
    test: &[&Played],
    seed: u64,
    table: &mut String,
) -> Option<(PlayersModel, Vec<serde_json::Value>)> {
    let (mut model, ridge) = players::fit(fit, &players::RIDGES)
        .ok()
        .filter(|(m, _)| m.pairings.len() >= 3)?;
    if fit.iter().any(|g| !g.seen.is_empty()) {
        let mut fitted = moves::fit(&moves::level_moves(fit));
        moves::fit_tempering(&mut fitted, &moves::players_moves(fit));
        model.moves = Some(fitted);
    }
    let unordered = |game: &Played| {
        let [a, b] = game.levels.unwrap_or([10, 10]);
        [a.max(b), a.min(b)]
    };
    let fitted = |game: &Played| {
        let [a, b] = game.levels.unwrap_or([10, 10]);
        model.pairings.contains(&[a, b])
    };
    // Each measured group of games, and who its games' bar is told played.
    let mut groups: Vec<(String, Vec<&Played>, Tells)> = Vec::new();
    let as_played = || -> Tells { Box::new(|game| (players::played_seats(game), Vec::new())) };
    groups.push((
        "every held-out game".to_string(),
        test.to_vec(),
        as_played(),
    ));
    let mut pairs: Vec<[u32; 2]> = test.iter().map(|g| unordered(g)).collect();
    pairs.sort_unstable_by(|a, b| b.cmp(a));
    pairs.dedup();
    for pair in pairs {
        let games: Vec<&Played> = test
            .iter()
            .copied()
            .filter(|g| unordered(g) == pair)
            .collect();
        if games.len() >= MIN_PAIRING_GAMES {
            let fitted_or_not = if games.iter().all(|g| fitted(g)) {
                "fitted"
            } else if games.iter().any(|g| fitted(g)) {
                "partly fitted"
            } else {
                "never fitted"
            };
            groups.push((
                format!("levels {} v {} ({fitted_or_not})", pair[0], pair[1]),
                games,
                as_played(),
            ));
        }
    }
    let never: Vec<&Played> = test.iter().copied().filter(|g| !fitted(g)).collect();
    if !never.is_empty() {
        groups.push((
            "pairings never fitted, together".to_string(),
            never,
            as_played(),
        ));
    }
    // A side hidden: told "human", before and after the bar reads the
    // hidden player's moves.
    let hide = |game: &Played, side: usize| {
        let mut seats = players::played_seats(game);
        seats.0[side] = Seat::Human;
        seats
    };
    let reads_moves = test.iter().any(|g| !g.seen.is_empty());
    for (side, name) in [(1, "second"), (0, "first")] {
        let games = uniformly_hidden(test, side);
        groups.push((
            format!("{name} player hidden (a level drawn uniformly from 1-9, told \"human\")"),
            games.clone(),
            Box::new(move |game| (hide(game, side), Vec::new())),
        ));
        if let (true, Some(moves)) = (reads_moves, &model.moves) {
            let mut hidden = [false; 2];
            hidden[side] = true;
            groups.push((
                format!("{name} player hidden, the bar reading their moves"),
                games,
                Box::new(move |game| {
                    let beliefs = moves::beliefs_along(moves, game, hidden);
                    (hide(game, side), beliefs)
                }),
            ));
        }
    }
    let _ = writeln!(
        table,
        "\n### The bar for who plays\n\nFitted on {} games of {} ordered pairings of levels; \
         the levels' ratings fitted on their results (Elo, level 10 at 0): {}.",
        model.games,
        model.pairings.len(),
        model
            .ratings
            .iter()
            .enumerate()
            .map(|(k, r)| format!("{} {r:.0}", k + 1))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        table,
        "\nThe second player's win's weights are offsets from the search's own log-odds, under a ridge towards it chosen by {}-fold cross-validation over the fitting games (log-loss per position: {}): λ = {}.",
        players::FOLDS,
        ridge
            .log_losses
            .iter()
            .map(|(ridge, loss)| format!("λ {ridge} {loss:.5}"))
            .collect::<Vec<_>>()
            .join(", "),
        ridge.chosen
    );
    if let Some(moves) = &model.moves {
        let _ = writeln!(
            table,
            "\nHow each level moves, through the network's priors (exponent β, slip, moves fitted): {}; each move's likelihood raised to the power {} in the belief.",
            (0..10)
                .map(|k| format!(
                    "{} β {:.2} slip {:.3} ({})",
                    k + 1,
                    moves.sharpness[k],
                    moves.slip[k],
                    moves.moves[k]
                ))
                .collect::<Vec<_>>()
                .join(", "),
            moves.tempering
        );
    }
    let _ = writeln!(
        table,
        "\n| held-out games, told who played | games | positions | worst-outcome ECE | by chance alone | Brier | log-loss |\n|---|---|---|---|---|---|---|"
    );
    let mut rows = Vec::new();
    for (name, games, seats) in groups {
        if games.is_empty() {
            continue;
        }
        let (metrics, intervals, floor) = players::measure(&model, &games, &*seats, seed);
        let [low, high] = intervals[3];
        let positions: usize = games.iter().map(|g| g.predictions.len()).sum();
        let _ = writeln!(
            table,
            "| {name} | {} | {positions} | {:.4} [{low:.4}, {high:.4}] | {floor:.4} | {:.4} | {:.4} |",
            games.len(),
            metrics.worst_ece(),
            metrics.brier,
            metrics.log_loss
        );
        rows.push(json!({
            "group": name,
            "games": games.len(),
            "positions": positions,
            "ece_worst": metrics.worst_ece(),
            "ece_worst_interval": [low, high],
            "ece_worst_by_chance": floor,
            "brier": metrics.brier,
            "log_loss": metrics.log_loss,
        }));
    }
    Some((model, rows))
}

/// Held-out games where the player of `side` (0 the first) is a level of
/// [`HUMAN_LEVELS`] drawn uniformly, as a hidden person's prior says: for
/// each level of the other side that met every one of them, the same
/// number of games against each (the first ones of each level), pooled.
fn uniformly_hidden<'a>(test: &[&'a Played], side: usize) -> Vec<&'a Played> {
    let mut chosen = Vec::new();
    for known in 1..=10 {
        let against: Vec<Vec<&Played>> = HUMAN_LEVELS
            .map(|hidden| {
                test.iter()
                    .copied()
                    .filter(|g| {
                        g.levels
                            .is_some_and(|l| l[side] == hidden && l[1 - side] == known)
                    })
                    .collect()
            })
            .collect();
        let fewest = against.iter().map(Vec::len).min().unwrap_or(0);
        if fewest >= 10 {
            chosen.extend(
                against
                    .iter()
                    .flat_map(|games| games[..fewest].iter().copied()),
            );
        }
    }
    chosen
}

/// Tells the bar of each recorded game of a measured group who played it.
type Tells<'a> = Box<dyn Fn(&Played) -> Told + 'a>;

/// Held-out games a pairing needs for its own row in the report.
const MIN_PAIRING_GAMES: usize = 100;
