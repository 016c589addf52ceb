//! The bar for who plays: recovering conversions, a person as the levels
//! they may play like, the known rules and a refused model.

use super::*;
use grandmaitre_engine::seats::HUMAN_LEVELS;

/// Games of `levels` whose bar says 70 % for the first player at every
/// position (no proof), which the first player wins at `rate`: 400 of
/// them, 6 positions each.
fn games(levels: [u32; 2], rate: f64) -> Vec<Played> {
    (0..400)
        .map(|index| Played {
            predictions: vec![[0.7, 0.0, 0.3]; 6],
            network: vec![[0.5, 0.0, 0.5]; 6],
            sides: vec![0, 1, 0, 1, 0, 1],
            result: if (index as f64) < rate * 400.0 { 0 } else { 2 },
            levels: Some(levels),
            proofs: vec![None; 6],
            first_ply: Some(2),
            ..Played::default()
        })
        .collect()
}

fn reading() -> Reading {
    Reading {
        wdl: ForPlayers([0.7, 0.0, 0.3]),
        proof: None,
        to_move: Player::First,
        ply: 4,
        kept: false,
        wins_now: None,
    }
}

/// How four pairings convert the bar's 70 %: level 10 against itself
/// into 90 %, level 2 against itself into 55 %, level 10 against
/// level 2 into 97 %, level 2 against level 10 into 20 %.
const CONVERSIONS: [([u32; 2], f64); 4] = [
    ([10, 10], 0.9),
    ([2, 2], 0.55),
    ([10, 2], 0.97),
    ([2, 10], 0.2),
];

/// The model fitted on the games of [`CONVERSIONS`].
fn fitted_on_conversions() -> PlayersModel {
    let played: Vec<Played> = CONVERSIONS
        .iter()
        .flat_map(|&(levels, rate)| games(levels, rate))
        .collect();
    let all: Vec<&Played> = played.iter().collect();
    fit(&all, &RIDGES).expect("a fit").0
}

#[test]
fn one_reading_of_the_position_is_converted_as_the_pairing_converts_it() {
    let model = fitted_on_conversions();
    model.check().expect("a usable model");
    for (levels, truth) in CONVERSIONS {
        let said = model.apply(&reading(), &Seats(levels.map(Seat::Level))).0[0];
        assert!(
            (said - truth).abs() < 0.03,
            "{levels:?}: {said} for {truth}"
        );
    }
    // The ratings tell the strong level from the gentle one.
    assert!(
        model.rating(2) < model.rating(10) - 300.0,
        "{:?}",
        model.ratings
    );
}

#[test]
fn a_human_is_the_mean_over_the_levels_a_person_may_play_like() {
    let model = fitted_on_conversions();
    let human = model.apply(&reading(), &Seats([Seat::Level(10), Seat::Human]));
    let mut mean = [0.0; 3];
    for level in HUMAN_LEVELS {
        let p = model.at_levels(&reading(), [10, level]);
        for (m, q) in mean.iter_mut().zip(p) {
            *m += q / HUMAN_LEVELS.count() as f64;
        }
    }
    for (said, m) in human.0.iter().zip(mean) {
        assert!((said - m).abs() < 1e-12);
    }
    assert!((human.0.iter().sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn a_win_in_one_is_taken_unless_a_random_move_comes_instead() {
    let model = fitted_on_conversions();
    // The first player to move, a quarter of its moves win at once.
    let now = Reading {
        wins_now: Some(0.25),
        ..reading()
    };
    for level in [1, 2, 5, 9] {
        let random = Level::get(level).expect("level").noise;
        let taken = (1.0 - random) + random * 0.25;
        let p = model.at_levels(&now, [level, 10]);
        let rest = model.at_levels(&reading(), [level, 10]);
        assert!(
            (p[0] - (taken + (1.0 - taken) * rest[0])).abs() < 1e-12,
            "level {level}"
        );
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    // A level without random moves always takes it.
    assert_eq!(model.at_levels(&now, [6, 1]), [1.0, 0.0, 0.0]);
}

#[test]
fn a_human_believed_to_play_like_one_level_is_read_as_that_level() {
    let model = fitted_on_conversions();
    let seats = Seats([Seat::Human, Seat::Level(10)]);
    let sure = Belief {
        levels: HUMAN_LEVELS
            .map(|l| (l, f64::from(u8::from(l == 3))))
            .collect(),
        moves: 4,
    };
    let believed = model.apply_believed(&reading(), &seats, &[Some(sure), None]);
    let level = model.at_levels(&reading(), [3, 10]);
    for (said, q) in believed.0.iter().zip(level) {
        assert!((said - q).abs() < 1e-12);
    }
    // Half level 2, half level 8: the mean of their two bars.
    let split = Belief {
        levels: HUMAN_LEVELS
            .map(|l| (l, if l == 2 || l == 8 { 0.5 } else { 0.0 }))
            .collect(),
        moves: 4,
    };
    let believed = model.apply_believed(&reading(), &seats, &[Some(split), None]);
    let [two, eight] = [2, 8].map(|l| model.at_levels(&reading(), [l, 10]));
    for k in 0..3 {
        assert!((believed.0[k] - (two[k] + eight[k]) / 2.0).abs() < 1e-12);
    }
    // No belief is the prior: every level alike.
    assert_eq!(
        model.apply_believed(&reading(), &seats, &[None, None]),
        model.apply(&reading(), &seats)
    );
}

#[test]
fn a_proven_win_is_converted_by_strength_not_certain() {
    // Positions proven won for the first player: level 10 converts
    // every one, level 1 (against level 1) half of them.
    let proven = |levels: [u32; 2], rate: f64| -> Vec<Played> {
        games(levels, rate)
            .into_iter()
            .map(|mut game| {
                game.predictions = vec![[1.0, 0.0, 0.0]; 6];
                game.proofs = vec![Some(0); 6];
                game
            })
            .collect()
    };
    let mut played = proven([10, 10], 1.0);
    played.extend(proven([1, 1], 0.5));
    played.extend(games([10, 1], 0.99));
    played.extend(games([1, 10], 0.01));
    let all: Vec<&Played> = played.iter().collect();
    let model = fit(&all, &RIDGES).expect("a fit").0;
    let at = |levels: [u32; 2]| {
        let reading = Reading {
            wdl: ForPlayers([1.0, 0.0, 0.0]),
            proof: Some(0),
            ..reading()
        };
        model.apply(&reading, &Seats(levels.map(Seat::Level))).0[0]
    };
    assert!(at([10, 10]) > 0.98, "{}", at([10, 10]));
    assert!((at([1, 1]) - 0.5).abs() < 0.06, "{}", at([1, 1]));
    // Where the book proves it, a level that plays its best plays the
    // book's moves: certain; level 1 still throws it away at times.
    let booked = Reading {
        wdl: ForPlayers([1.0, 0.0, 0.0]),
        proof: Some(0),
        kept: true,
        wins_now: None,
        ..reading()
    };
    assert_eq!(model.at_levels(&booked, [7, 1]), [1.0, 0.0, 0.0]);
    assert!(model.at_levels(&booked, [1, 7])[0] < 1.0);
}

#[test]
fn a_stored_model_of_other_features_is_refused() {
    let played = games([10, 2], 0.9);
    let mut more = games([2, 10], 0.3);
    more.extend(played);
    let all: Vec<&Played> = more.iter().collect();
    let mut model = fit(&all, &RIDGES).expect("a fit").0;
    model.features_version += 1;
    assert!(model.check().is_err());
}

#[test]
fn weights_of_nothing_split_the_decisive_results_as_the_search_does() {
    let mut model = fitted_on_conversions();
    model.weights = [vec![0.0; FEATURES.len()], vec![0.0; FEATURES.len()]];
    model.search_ridge = Some(0.0);
    let p = model.at_levels(&reading(), [4, 9]);
    assert!((p[2] / p[0] - 0.3 / 0.7).abs() < 1e-12, "{p:?}");
    // The draw's logit is the weights' alone: 0, as the first player's.
    assert!((p[1] - p[0]).abs() < 1e-12, "{p:?}");
    // Where the result is proven the search has no say.
    let proven = Reading {
        proof: Some(0),
        ..reading()
    };
    let even = model.at_levels(&proven, [4, 9]);
    assert!(
        even.iter().all(|&q| (q - 1.0 / 3.0).abs() < 1e-12),
        "{even:?}"
    );
    // Without the search's log-odds the same weights say nothing.
    model.search_ridge = None;
    let even = model.at_levels(&reading(), [4, 9]);
    assert!(
        even.iter().all(|&q| (q - 1.0 / 3.0).abs() < 1e-12),
        "{even:?}"
    );
}

/// Games of `levels` whose results follow the bar's reading exactly: the
/// bar of each game one of five, the first player winning each game with
/// that probability (drawn with `seed`).
fn games_as_the_search_reads(levels: [u32; 2], count: usize, seed: u64) -> Vec<Played> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|index| {
            let p = [0.15, 0.3, 0.5, 0.7, 0.85][index % 5];
            Played {
                predictions: vec![[p as f32, 0.0, 1.0 - p as f32]; 6],
                network: vec![[0.5, 0.0, 0.5]; 6],
                sides: vec![0, 1, 0, 1, 0, 1],
                result: if rng.random::<f64>() < p { 0 } else { 2 },
                levels: Some(levels),
                proofs: vec![None; 6],
                first_ply: Some(2),
                ..Played::default()
            }
        })
        .collect()
}

#[test]
fn where_the_search_reads_the_games_right_the_fit_keeps_its_reading() {
    // Level 10 against itself converts as the search reads; two lopsided
    // pairings show what the ratings say.
    let mut played = games_as_the_search_reads([10, 10], 1000, 7);
    played.extend(games([10, 2], 0.97));
    played.extend(games([2, 10], 0.2));
    let all: Vec<&Played> = played.iter().collect();
    let (model, choice) = fit(&all, &RIDGES).expect("a fit");
    assert_eq!(choice.log_losses.len(), RIDGES.len());
    let least = choice
        .log_losses
        .iter()
        .map(|&(_, loss)| loss)
        .fold(f64::INFINITY, f64::min);
    assert!(choice.log_losses.contains(&(choice.chosen, least)));
    assert_eq!(model.search_ridge, Some(choice.chosen));
    for p in [0.15, 0.3, 0.5, 0.7, 0.85] {
        let at = Reading {
            wdl: ForPlayers([p, 0.0, 1.0 - p]),
            ..reading()
        };
        let said = model.at_levels(&at, [10, 10])[0];
        assert!((said - p).abs() < 0.05, "{p}: {said}");
    }
    // The pairings' conversions still come through the ratings.
    assert!(model.at_levels(&reading(), [10, 2])[0] > 0.9);
    assert!(model.at_levels(&reading(), [2, 10])[0] < 0.35);
}

#[test]
fn the_search_s_log_odds_are_the_log_odds_weight_shifted_by_one() {
    // The second player's logit adds ln P(second) − ln P(first), minus the
    // `log_odds` feature: a model with it is the model without it whose
    // weight of `log_odds` in that logit is one less.
    let fitted = fitted_on_conversions();
    let log_odds = FEATURES
        .iter()
        .position(|&f| f == "log_odds")
        .expect("a feature");
    let mut shifted = fitted.clone();
    shifted.search_ridge = Some(100.0);
    shifted.weights[1][log_odds] += 1.0;
    let mut plain = fitted;
    plain.search_ridge = None;
    for wdl in [[0.7, 0.0, 0.3], [0.2, 0.1, 0.7], [0.99995, 0.0, 0.00005]] {
        for proof in [None, Some(0), Some(1)] {
            let at = Reading {
                wdl: ForPlayers(wdl),
                proof,
                ..reading()
            };
            for levels in [[10, 10], [3, 8], [1, 10]] {
                let [a, b] = [&plain, &shifted].map(|m| m.at_levels(&at, levels));
                for (p, q) in a.iter().zip(b) {
                    assert!(
                        (p - q).abs() < 1e-12,
                        "{wdl:?} {proof:?} {levels:?}: {a:?} {b:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_heavy_ridge_leaves_the_search_its_split_where_the_games_cannot_tell() {
    // Level 10 against itself converts the search's 70 % into 90 % in
    // these games. The lightest ridge learns it; the heaviest keeps the
    // search's split of the decisive results, the pairings' terms aside.
    let played: Vec<Played> = CONVERSIONS
        .iter()
        .flat_map(|&(levels, rate)| games(levels, rate))
        .collect();
    let all: Vec<&Played> = played.iter().collect();
    let [light, heavy] = [0.0, 1e6].map(|ridge| fit(&all, &[ridge]).expect("a fit").0);
    assert_eq!(heavy.search_ridge, Some(1e6));
    let [free, kept] = [&light, &heavy].map(|m| m.at_levels(&reading(), [10, 10]));
    assert!((free[0] - 0.9).abs() < 0.02, "{free:?}");
    assert!((kept[0] - 0.7).abs() < 0.02, "{kept:?}");
    assert!((kept[2] / kept[0] - 0.3 / 0.7).abs() < 0.01, "{kept:?}");
}
