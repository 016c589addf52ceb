//! Fitting a calibration on recorded games and measuring it on others:
//! temperature then curves, calibration error, Brier score and log-loss,
//! with 95 % intervals from a bootstrap over whole games.

use grandmaitre_engine::{ForPlayers, Player};
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
/// Isotonic blocks are chosen over a smooth map only when their
/// validation log-loss is lower by more than this fraction.
pub const SMOOTH_MARGIN: f64 = 0.01;

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

/// The shape of the curves after the temperature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurveKind {
    /// None: the temperature alone.
    None,
    /// Isotonic regression per outcome, for each side to move apart (flat
    /// blocks).
    Isotonic,
    /// Platt scaling per outcome from the side to move's point of view
    /// (one smooth map for both sides: no swing from one ply to the next).
    Platt,
    /// The same with one offset per side to move (a smooth map that can
    /// undo a bias of the network for or against the side to move).
    PlattBySide,
}

impl CurveKind {
    /// Every kind, in the order they are tried.
    pub const ALL: [CurveKind; 4] = [
        CurveKind::None,
        CurveKind::Isotonic,
        CurveKind::Platt,
        CurveKind::PlattBySide,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            CurveKind::None => "temperature only",
            CurveKind::Isotonic => "isotonic blocks per side",
            CurveKind::Platt => "Platt per outcome, side to move's view",
            CurveKind::PlattBySide => "Platt per outcome, side to move's view, offset per side",
        }
    }
}

/// A temperature and curves fitted on some games.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The temperature.
    pub temperature: f64,
    /// The curves, for the first player to move and for the second.
    pub curves: SideCurves,
    /// Their shape.
    pub kind: CurveKind,
    /// Log-loss of each kind (in [`CurveKind::ALL`] order) on the
    /// validation games the kind was chosen on.
    pub validation: [f64; 4],
}

/// Whether an outcome ended enough games for its curves to be fitted.
fn fitted_outcomes(games: &[&Played]) -> [bool; 3] {
    [0, 1, 2].map(|k| games.iter().filter(|g| g.result == k).count() >= MIN_OUTCOME_GAMES)
}

/// Curves of `kind` on `predictions` (first player's view, under the
/// temperature) with their outcomes and sides to move.
fn fit_kind(
    kind: CurveKind,
    predictions: &[[f64; 3]],
    outcomes: &[usize],
    sides: &[u8],
    fitted: [bool; 3],
) -> SideCurves {
    let identity = || std::array::from_fn(|_| Curve::identity());
    match kind {
        CurveKind::None => [identity(), identity()],
        CurveKind::Isotonic => [0, 1].map(|side| {
            let (scaled, outcomes): (Vec<[f64; 3]>, Vec<usize>) = predictions
                .iter()
                .zip(outcomes)
                .zip(sides)
                .filter(|&(_, &s)| s == side)
                .map(|((&p, &k), _)| (p, k))
                .unzip();
            super::fit_curves(&scaled, &outcomes, fitted)
        }),
        CurveKind::Platt | CurveKind::PlattBySide => {
            // The side to move's view: win, draw, loss of the mover.
            let mover = |p: [f64; 3], side: u8| {
                let side = if side == 0 {
                    Player::First
                } else {
                    Player::Second
                };
                ForPlayers(p).to_move(side).0
            };
            // Per outcome of the mover: the maps with the first player to
            // move and with the second.
            let platt: [[Curve; 2]; 3] = std::array::from_fn(|j| {
                // Outcome j of the mover is the first player's j, or 2 − j.
                let first = |side: u8| if side == 0 { j } else { 2 - j };
                let identity = || [Curve::identity(), Curve::identity()];
                if !fitted[j] && !fitted[2 - j] {
                    return identity();
                }
                let xs: Vec<f64> = predictions
                    .iter()
                    .zip(sides)
                    .map(|(&p, &s)| mover(p, s)[j])
                    .collect();
                let hits: Vec<bool> = outcomes
                    .iter()
                    .zip(sides)
                    .map(|(&k, &s)| k == first(s))
                    .collect();
                if hits.iter().filter(|&&h| h).count() < MIN_OUTCOME_GAMES {
                    return identity();
                }
                if kind == CurveKind::Platt {
                    let curve = super::Platt::fit(&xs, &hits).curve();
                    [curve.clone(), curve]
                } else {
                    let first_to_move: Vec<bool> = sides.iter().map(|&s| s == 0).collect();
                    super::Platt::fit_by_side(&xs, &first_to_move, &hits).map(|p| p.curve())
                }
            });
            let [[win0, win1], [draw0, draw1], [loss0, loss1]] = platt;
            [[win0, draw0, loss0], [loss1, draw1, win1]]
        }
    }
}

impl Fitted {
    /// One temperature for all positions, then the curves whose kind has
    /// the least log-loss on a quarter of `games` held back for the choice
    /// (every fourth game; a smooth kind unless isotonic blocks beat it by
    /// more than [`SMOOTH_MARGIN`]), refitted on all of them. An outcome that ended
    /// fewer than [`MIN_OUTCOME_GAMES`] games gets no curve (its
    /// positions, however many, are too few independent facts).
    pub fn on(games: &[&Played], pick: Pick) -> Fitted {
        let every = |keep: fn(usize) -> bool| -> Vec<&Played> {
            games
                .iter()
                .enumerate()
                .filter(|&(index, _)| keep(index))
                .map(|(_, game)| *game)
                .collect()
        };
        let choose = every(|index| index % 4 != 3);
        let validate = every(|index| index % 4 == 3);
        let validation = CurveKind::ALL.map(|kind| {
            let fitted = Fitted::with(&choose, pick, kind);
            let (p, o) = flatten(&validate, fitted.stages()[2], pick);
            super::log_loss(&p, &o, 1.0)
        });
        // A smooth map (the temperature alone or Platt) unless the blocks
        // beat the best of them by more than SMOOTH_MARGIN: the blocks make
        // the bar jump from ply to ply, a cost log-loss does not see.
        let smooth = [0, 2, 3]
            .into_iter()
            .min_by(|&a, &b| validation[a].total_cmp(&validation[b]))
            .unwrap_or(0);
        let best = if validation[1] < validation[smooth] * (1.0 - SMOOTH_MARGIN) {
            1
        } else {
            smooth
        };
        Fitted {
            validation,
            ..Fitted::with(games, pick, CurveKind::ALL[best])
        }
    }

    /// The temperature and curves of `kind` fitted on `games`.
    pub fn with(games: &[&Played], pick: Pick, kind: CurveKind) -> Fitted {
        let (predictions, outcomes) = flatten(games, RAW, pick);
        let temperature = super::fit_temperature(&predictions, &outcomes);
        let sides: Vec<u8> = games.iter().flat_map(|g| g.sides.iter().copied()).collect();
        let scaled: Vec<[f64; 3]> = predictions
            .iter()
            .map(|&p| super::scale(p, temperature))
            .collect();
        let curves = fit_kind(kind, &scaled, &outcomes, &sides, fitted_outcomes(games));
        Fitted {
            temperature,
            curves,
            kind,
            validation: [f64::NAN; 4],
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

/// How steady the bar is along games: what moves it from one ply to the
/// next beyond the game itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Steadiness {
    /// Mean |change| of P(first player wins) from one position to the next.
    pub mean_change: f64,
    /// Mean signed difference between the bar where the first player is to
    /// move and the mean of its two neighbours (where the second is): a
    /// swing with the side to move, not information, when far from 0.
    pub parity: f64,
    /// Standard error of `parity`.
    pub parity_error: f64,
    /// Distinct values of P(first player wins), to 4 decimals.
    pub distinct: usize,
    /// Positions looked at.
    pub positions: usize,
}

/// The steadiness of the bar of `games` shown as `stage` says.
pub fn steadiness(games: &[&Played], stage: Stage, pick: Pick) -> Steadiness {
    let mut changes = Vec::new();
    let mut swings = Vec::new();
    let mut values = std::collections::HashSet::new();
    let mut positions = 0;
    for game in games {
        let (shown, _) = flatten(&[game], stage, pick);
        let first: Vec<f64> = shown.iter().map(|p| p[0]).collect();
        positions += first.len();
        values.extend(first.iter().map(|p| (p * 1e4).round() as i64));
        changes.extend(first.windows(2).map(|w| (w[1] - w[0]).abs()));
        for index in 1..first.len().saturating_sub(1) {
            if game.sides[index] == 0 {
                swings.push(first[index] - (first[index - 1] + first[index + 1]) / 2.0);
            }
        }
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let parity = mean(&swings);
    let variance = swings.iter().map(|x| (x - parity).powi(2)).sum::<f64>()
        / swings.len().saturating_sub(1).max(1) as f64;
    Steadiness {
        mean_change: mean(&changes),
        parity,
        parity_error: (variance / swings.len().max(1) as f64).sqrt(),
        distinct: values.len(),
        positions,
    }
}

/// The calibration to store: the bar's fit (for a search of
/// `simulations`) and the network's, with the games that fitted and
/// measured it and the bar's worst-outcome error before and after on the
/// measuring games.
pub fn calibration(
    bar: &Fitted,
    network: &Fitted,
    simulations: u32,
    games: [usize; 2],
    ece: [f64; 2],
    players: Option<super::players::PlayersModel>,
) -> super::Calibration {
    super::Calibration {
        temperature: bar.temperature,
        network_temperature: network.temperature,
        simulations,
        fit_games: games[0] as u32,
        test_games: games[1] as u32,
        ece_before: ece[0],
        ece_after: ece[1],
        curves: Some(bar.curves.clone()),
        network_curves: Some(network.curves.clone()),
        players,
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
        std::array::from_fn(|stage| interval(samples.iter().map(|s| s[stage][metric]).collect()))
    })
}

/// The central 95 % of bootstrap `values`: their 2.5th and 97.5th
/// percentiles.
pub fn interval(mut values: Vec<f64>) -> [f64; 2] {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    [at(0.025), at(0.975)]
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
                ..Played::default()
            })
            .collect()
    }

    #[test]
    fn a_bar_that_swings_with_the_side_to_move_shows_a_parity_swing() {
        // The bar says 0.6 with the first player to move and 0.4 with the
        // second, in a game whose value never changes.
        let game = Played {
            predictions: (0..10)
                .map(|i| {
                    if i % 2 == 0 {
                        [0.6, 0.0, 0.4]
                    } else {
                        [0.4, 0.0, 0.6]
                    }
                })
                .collect(),
            network: vec![[0.5, 0.0, 0.5]; 10],
            sides: (0..10).map(|i| (i % 2) as u8).collect(),
            result: 0,
            ..Played::default()
        };
        let measured = steadiness(&[&game], RAW, bar_predictions);
        assert!((measured.mean_change - 0.2).abs() < 1e-6, "{measured:?}");
        assert!((measured.parity - 0.2).abs() < 1e-6, "{measured:?}");
        assert_eq!((measured.distinct, measured.positions), (2, 10));
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
