use super::*;

/// Predictions that say `said` for the first outcome, which happens
/// with frequency `truth`: 1000 of them.
fn overconfident(said: f64, truth: f64) -> (Vec<[f64; 3]>, Vec<usize>) {
    let n = 1000;
    let hits = (truth * n as f64).round() as usize;
    let predictions = vec![[said, 0.0, 1.0 - said]; n];
    let outcomes = (0..n).map(|i| if i < hits { 0 } else { 2 }).collect();
    (predictions, outcomes)
}

#[test]
fn scaling_keeps_a_distribution_and_its_order() {
    let p = [0.7, 0.1, 0.2];
    for t in [0.3, 1.0, 4.0] {
        let q = scale(p, t);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(q[0] > q[2] && q[2] > q[1]);
    }
    let q = scale(p, 1.0);
    assert!(q.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-9));
}

#[test]
fn an_overconfident_bar_gets_a_temperature_above_one_that_removes_the_error() {
    // Says 95 % when the truth is 75 %.
    let (predictions, outcomes) = overconfident(0.95, 0.75);
    let before = expected_calibration_error(&predictions, &outcomes, 0, 15);
    assert!((before - 0.20).abs() < 1e-9, "{before}");
    let t = fit_temperature(&predictions, &outcomes);
    assert!(t > 1.0, "{t}");
    let scaled: Vec<_> = predictions.iter().map(|&p| scale(p, t)).collect();
    let after = expected_calibration_error(&scaled, &outcomes, 0, 15);
    assert!(after < 0.02, "{after}");
    assert!(log_loss(&predictions, &outcomes, t) < log_loss(&predictions, &outcomes, 1.0));
}

#[test]
fn a_timid_bar_gets_a_temperature_below_one() {
    // Says 60 % when the truth is 90 %.
    let (predictions, outcomes) = overconfident(0.6, 0.9);
    assert!(fit_temperature(&predictions, &outcomes) < 1.0);
}

/// 2000 predictions of the first outcome spread evenly over [0.3, 0.7]
/// whose truth is a step: 10 % below 0.5, 90 % from it (what a bar that
/// hedges around 50 % on decided positions looks like).
fn step(offset: usize) -> (Vec<[f64; 3]>, Vec<usize>) {
    (0..2000)
        .map(|i| {
            let x = 0.3 + 0.4 * (i as f64 + 0.5) / 2000.0;
            let hit = if x < 0.5 {
                (i + offset).is_multiple_of(10)
            } else {
                !(i + offset).is_multiple_of(10)
            };
            ([x, 0.0, 1.0 - x], if hit { 0 } else { 2 })
        })
        .unzip()
}

#[test]
fn a_temperature_cannot_fix_a_step_but_monotone_curves_do() {
    let (predictions, outcomes) = step(0);
    let t = fit_temperature(&predictions, &outcomes);
    let scaled: Vec<_> = predictions.iter().map(|&p| scale(p, t)).collect();
    let curves = fit_curves(&scaled, &outcomes, [true; 3]);
    assert!(curves.iter().all(Curve::is_valid));
    // Measured on other draws of the same truth.
    let (held_out, held_outcomes) = step(5);
    let with_t: Vec<_> = held_out.iter().map(|&p| scale(p, t)).collect();
    let with_curves: Vec<_> = held_out
        .iter()
        .map(|&p| calibrate(p, t, Some(&curves)))
        .collect();
    let ece_t = expected_calibration_error(&with_t, &held_outcomes, 0, 15);
    let ece_curves = expected_calibration_error(&with_curves, &held_outcomes, 0, 15);
    assert!(ece_t > 0.1, "{ece_t}");
    assert!(ece_curves < 0.02, "{ece_curves}");
    // The curve of the first outcome is the step, and stays monotone.
    let at_low = calibrate([0.4, 0.0, 0.6], t, Some(&curves))[0];
    let at_high = calibrate([0.6, 0.0, 0.4], t, Some(&curves))[0];
    assert!((at_low - 0.1).abs() < 0.03, "{at_low}");
    assert!((at_high - 0.9).abs() < 0.03, "{at_high}");
    for p in with_curves {
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

#[test]
fn a_curve_interpolates_between_knots_and_is_flat_beyond() {
    let curve = Curve {
        knots: vec![[0.2, 0.1], [0.6, 0.5], [0.8, 0.9]],
    };
    assert_eq!(curve.at(0.0), 0.1);
    assert!((curve.at(0.4) - 0.3).abs() < 1e-12);
    assert!((curve.at(0.7) - 0.7).abs() < 1e-12);
    assert_eq!(curve.at(1.0), 0.9);
    assert!(curve.is_valid());
    let decreasing = Curve {
        knots: vec![[0.2, 0.5], [0.6, 0.4]],
    };
    assert!(!decreasing.is_valid());
}

#[test]
fn pooling_leaves_no_decrease_and_no_small_block() {
    // Hits that go down then up: the violators are pooled.
    let xs: Vec<f64> = (0..300).map(|i| f64::from(i) / 300.0).collect();
    let hits: Vec<bool> = (0..300).map(|i| (i / 50) % 3 == 0 || i >= 250).collect();
    let curve = Curve::fit(&xs, &hits, 40);
    assert!(curve.is_valid());
    // Two knots per block, blocks of at least 40 points.
    assert!(curve.knots.len() <= 2 * (300 / 40));
}

#[test]
fn a_calibration_with_a_bad_temperature_or_curve_is_refused() {
    let good = Calibration {
        temperature: 0.7,
        network_temperature: 1.1,
        simulations: 64,
        fit_games: 10,
        test_games: 10,
        ece_before: 0.1,
        ece_after: 0.05,
        curves: None,
        network_curves: None,
        players: None,
    };
    assert_eq!(good.check(), Ok(()));
    let cold = Calibration {
        temperature: 0.0,
        ..good.clone()
    };
    assert!(cold.check().expect_err("cold").contains("temperature"));
    let bent = Calibration {
        curves: Some(std::array::from_fn(|_| {
            std::array::from_fn(|_| Curve {
                knots: vec![[0.5, 0.9], [0.6, 0.2]],
            })
        })),
        ..good
    };
    assert!(bent.check().expect_err("bent").contains("curves"));
}

#[test]
fn platt_scaling_undoes_a_known_distortion() {
    // Outcomes drawn from p, predictions that say σ(2·logit(p) − 0.5)
    // instead: the fit recovers a = 1/2 and b = 1/4.
    let mut predictions = Vec::new();
    let mut hits = Vec::new();
    for index in 0..2000 {
        let truth = (f64::from(index % 100) + 0.5) / 100.0;
        let said = sigmoid(2.0 * logit(truth) - 0.5);
        predictions.push(said);
        // A deterministic sample: hits in proportion `truth`.
        hits.push(f64::from(index / 100) + 0.5 < 20.0 * truth);
    }
    let platt = Platt::fit(&predictions, &hits);
    assert!((platt.a - 0.5).abs() < 0.05, "{platt:?}");
    assert!((platt.b - 0.25).abs() < 0.05, "{platt:?}");
    let curve = platt.curve();
    assert!(curve.is_valid());
    for x in [0.001, 0.1, 0.37, 0.5, 0.9, 0.999] {
        assert!((curve.at(x) - platt.at(x)).abs() < 1e-3, "{x}");
    }
}

#[test]
fn brier_score_of_certain_predictions() {
    let predictions = [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    assert_eq!(brier(&predictions, &[0, 2]), 1.0);
}

#[test]
fn the_noise_floor_is_the_error_a_calibrated_bar_shows_by_chance() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(7);
    // Games of one position each, whose first outcome happens with exactly
    // the probability said: a calibrated bar.
    let games = 400;
    let (mut measured, mut floor) = (0.0, 0.0);
    let trials = 200;
    for _ in 0..trials {
        let predictions: Vec<[f64; 3]> = (0..games)
            .map(|_| {
                let p = rng.random_range(0.0..1.0);
                [p, 0.0, 1.0 - p]
            })
            .collect();
        let outcomes: Vec<usize> = predictions
            .iter()
            .map(|p| if rng.random_bool(p[0]) { 0 } else { 2 })
            .collect();
        measured += expected_calibration_error(&predictions, &outcomes, 0, 15);
        let each: Vec<&[[f64; 3]]> = predictions.chunks(1).collect();
        floor += ece_noise_floor(&each, 0, 15);
    }
    let ratio = measured / floor;
    assert!((0.85..1.15).contains(&ratio), "{measured} against {floor}");
    // The same positions five times over in each game are still one game's
    // worth of evidence; five times the games is √5 less noise.
    let one = [[0.3, 0.0, 0.7]];
    let five = [[0.3, 0.0, 0.7]; 5];
    let few: Vec<&[[f64; 3]]> = vec![&one[..]; 100];
    let repeated: Vec<&[[f64; 3]]> = vec![&five[..]; 100];
    let many: Vec<&[[f64; 3]]> = vec![&one[..]; 500];
    let (few, repeated, many) = (
        ece_noise_floor(&few, 0, 15),
        ece_noise_floor(&repeated, 0, 15),
        ece_noise_floor(&many, 0, 15),
    );
    assert!((few - repeated).abs() < 1e-12);
    assert!((few / many - 5f64.sqrt()).abs() < 1e-9);
    assert!((few - (2.0 / std::f64::consts::PI * 0.21 / 100.0).sqrt()).abs() < 1e-12);
}
