//! Fitting a calibration on recorded games and measuring it on others:
//! temperature then curves, calibration error, Brier score and log-loss,
//! with 95 % intervals from a bootstrap over whole games.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::records::Played;
use super::{Curve, SideCurves};

/// Bins of the calibration error.
pub const BINS: usize = 15;
/// Games an outcome must have ended for its curves to be fitted.
pub const MIN_OUTCOME_GAMES: usize = 40;
/// Resamples of the bootstrap.
pub const BOOTSTRAP_SAMPLES: usize = 500;

/// Calibration error, Brier score and log-loss of a set of predictions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Expected calibration error of each outcome.
    pub ece: [f64; 3],
    /// Brier score.
    pub brier: f64,
    /// Log-loss.
    pub log_loss: f64,
}

impl Metrics {
    /// The metrics of `predictions` against `outcomes`.
    pub fn of(predictions: &[[f64; 3]], outcomes: &[usize]) -> Metrics {
        let mut ece = [0.0; 3];
        for (class, e) in ece.iter_mut().enumerate() {
            *e = super::expected_calibration_error(predictions, outcomes, class, BINS);
        }
        Metrics {
            ece,
            brier: super::brier(predictions, outcomes),
            log_loss: super::log_loss(predictions, outcomes, 1.0),
        }
    }

    /// The largest calibration error of the three outcomes.
    pub fn worst_ece(&self) -> f64 {
        self.ece.iter().copied().fold(0.0, f64::max)
    }

    /// The values reported, in [`METRIC_NAMES`] order.
    pub fn values(&self) -> [f64; 6] {
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
pub const STAGES: usize = 3;

/// The reported values of each stage, in [`METRIC_NAMES`] order.
pub type StageValues = [[f64; 6]; STAGES];

/// Names of [`Metrics::values`], with the outcomes named for the first and
/// second player.
pub const METRIC_NAMES: [&str; 6] = [
    "ECE, first player wins",
    "ECE, draw",
    "ECE, second player wins",
    "ECE, worst outcome",
    "Brier score",
    "log-loss",
];

/// A way of showing predictions: under a temperature, then maybe curves.
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    /// The temperature.
    pub temperature: f64,
    /// The curves after it, if any.
    pub curves: Option<&'a SideCurves>,
}

/// Predictions as they are.
pub const RAW: Stage<'static> = Stage {
    temperature: 1.0,
    curves: None,
};

/// Which predictions of a game are calibrated: the bar's or the network's.
pub type Pick = fn(&Played) -> &[[f32; 3]];

/// The bar's predictions.
pub fn bar_predictions(game: &Played) -> &[[f32; 3]] {
    &game.predictions
}

/// The network's own predictions.
pub fn network_predictions(game: &Played) -> &[[f32; 3]] {
    &game.network
}

/// Every position of `games`, shown as `stage` says, with its game's result.
pub fn flatten(games: &[&Played], stage: Stage, pick: Pick) -> (Vec<[f64; 3]>, Vec<usize>) {
    let mut predictions = Vec::new();
    let mut outcomes = Vec::new();
    for game in games {
        for (&p, &side) in pick(game).iter().zip(&game.sides) {
            let curves = stage.curves.map(|c| &c[usize::from(side)]);
            predictions.push(super::calibrate(
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
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The temperature.
    pub temperature: f64,
    /// The curves, for the first player to move and for the second.
    pub curves: SideCurves,
}

impl Fitted {
    /// One temperature for all positions, then curves for the positions
    /// where the first player is to move and for those where the second
    /// is; an outcome that ended fewer than [`MIN_OUTCOME_GAMES`] games gets
    /// none (its positions, however many, are too few independent facts).
    pub fn on(games: &[&Played], pick: Pick) -> Fitted {
        let (predictions, outcomes) = flatten(games, RAW, pick);
        let temperature = super::fit_temperature(&predictions, &outcomes);
        let fitted =
            [0, 1, 2].map(|k| games.iter().filter(|g| g.result == k).count() >= MIN_OUTCOME_GAMES);
        let sides: Vec<u8> = games.iter().flat_map(|g| g.sides.iter().copied()).collect();
        let curves = [0, 1].map(|side| {
            let (scaled, outcomes): (Vec<[f64; 3]>, Vec<usize>) = predictions
                .iter()
                .zip(&outcomes)
                .zip(&sides)
                .filter(|&(_, &s)| s == side)
                .map(|((&p, &k), _)| (super::scale(p, temperature), k))
                .unzip();
            super::fit_curves(&scaled, &outcomes, fitted)
        });
        Fitted {
            temperature,
            curves,
        }
    }

    /// Knots of each curve, as "first to move a/b/c, second to move d/e/f".
    pub fn knots(&self, first: &str, second: &str) -> String {
        let counts = |curves: &[Curve; 3]| {
            curves
                .iter()
                .map(|c| c.knots.len().to_string())
                .collect::<Vec<_>>()
                .join("/")
        };
        format!(
            "{first} to move {}, {second} to move {}",
            counts(&self.curves[0]),
            counts(&self.curves[1])
        )
    }

    /// Raw, temperature only, temperature and curves.
    pub fn stages(&self) -> [Stage<'_>; STAGES] {
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
    pub fn measure(&self, games: &[&Played], pick: Pick) -> [Metrics; STAGES] {
        self.stages().map(|stage| {
            let (p, o) = flatten(games, stage, pick);
            Metrics::of(&p, &o)
        })
    }
}

/// 95 % intervals of each metric at each stage, from a bootstrap over whole
/// games (positions of one game are correlated).
pub fn bootstrap(fitted: &Fitted, test: &[&Played], seed: u64) -> [[[f64; 2]; STAGES]; 6] {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Games whose bar always says `said` for the first player while the
    /// first player wins a fraction `truth` of them.
    fn games(said: f32, truth: f64, count: usize) -> Vec<Played> {
        (0..count)
            .map(|index| Played {
                predictions: vec![[said, 0.0, 1.0 - said]; 5],
                network: vec![[0.5, 0.0, 0.5]; 5],
                sides: vec![0, 1, 0, 1, 0],
                result: if (index as f64) < truth * count as f64 {
                    0
                } else {
                    2
                },
            })
            .collect()
    }

    #[test]
    fn an_overconfident_bar_is_softened_and_its_error_shrinks() {
        let played = games(0.95, 0.6, 200);
        let all: Vec<&Played> = played.iter().collect();
        let fitted = Fitted::on(&all, bar_predictions);
        assert!(fitted.temperature > 1.0, "{}", fitted.temperature);
        let [raw, _, after] = fitted.measure(&all, bar_predictions);
        // The raw bar is off by 0.35 on the first player's win.
        assert!((raw.ece[0] - 0.35).abs() < 1e-6, "{}", raw.ece[0]);
        assert!(after.worst_ece() < 0.02, "{}", after.worst_ece());
        let intervals = bootstrap(&fitted, &all, 1);
        // The raw error's interval holds the raw error.
        let [low, high] = intervals[0][0];
        assert!(low <= raw.ece[0] && raw.ece[0] <= high);
    }
}
