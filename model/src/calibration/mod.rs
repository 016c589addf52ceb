//! Calibration of displayed win/draw/loss probabilities, fitted on games
//! the engine played against itself, in two stages:
//!
//! 1. temperature scaling (Guo et al. 2017): `p'ᵢ ∝ exp(ln pᵢ / T)`, one
//!    temperature `T` fitted by log-likelihood. `T > 1` softens an
//!    overconfident bar, `T < 1` sharpens a timid one; the order of the
//!    three outcomes never changes;
//! 2. optionally, one monotone [`Curve`] per outcome (isotonic regression,
//!    Zadrozny & Elkan 2002) on the first player's scaled probabilities,
//!    one set where the first player is to move and one where the second
//!    is, then renormalised: it straightens a reliability diagram whose
//!    shape a single temperature cannot (a bar that says 50 % for
//!    positions one side nearly always wins).

use std::collections::BTreeMap;
use std::str::FromStr;

use grandmaitre_engine::{ForPlayers, Player};
use serde::{Deserialize, Serialize};

pub mod games;
pub mod measure;
pub mod moves;
pub mod players;
pub mod records;

/// Probabilities are kept at least this far from 0 before taking logs, so
/// that a proven result stays (almost) certain and logs stay finite.
pub const PROBABILITY_FLOOR: f64 = 1e-6;

/// A fitted calibration, stored in `checkpoint.json`; `ece_*` are the
/// bar's worst-outcome expected calibration errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The temperature `T` of the bar (the network with a small search).
    pub temperature: f64,
    /// The temperature of the network's own win/draw/loss, without search
    /// (what an embedding that runs only the network shows).
    pub network_temperature: f64,
    /// Simulations of the search whose win/draw/loss was calibrated (the
    /// bar's setting).
    pub simulations: u32,
    /// Games whose positions fitted `T`.
    pub fit_games: u32,
    /// Held-out games it was measured on.
    pub test_games: u32,
    /// Expected calibration error on the held-out games, before.
    pub ece_before: f64,
    /// The same, after.
    pub ece_after: f64,
    /// Monotone maps of P(first player wins), P(draw), P(second player
    /// wins) after the bar's temperature, for positions where the first
    /// player is to move, then for those where the second is (absent:
    /// temperature only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curves: Option<SideCurves>,
    /// The same after the network's temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_curves: Option<SideCurves>,
    /// The bar for who plays ([`players`]), where the calibration games
    /// paired levels; the bar of a seated position reads it instead of
    /// the temperature and curves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<players::PlayersModel>,
}

/// A checkpoint's calibrations: the one that serves every rules setting
/// without its own (fitted on the game's default rules, or on several
/// settings pooled), and those fitted apart on one other setting, by the
/// setting's rules as their text (`Game::Rules`' `Display`). One network can play
/// several boards whose raw bars want different temperatures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calibrations {
    /// The calibration of every setting without its own.
    pub general: Option<Calibration>,
    /// The settings' own calibrations.
    pub by_rules: BTreeMap<String, Calibration>,
}

impl Calibrations {
    /// The calibration of the rules `rules` (a game's rules type, which
    /// reads the stored settings' text): its own if it has one, else the
    /// general one.
    pub fn for_rules<R: FromStr + PartialEq>(&self, rules: &R) -> Option<&Calibration> {
        self.by_rules
            .iter()
            .find(|(text, _)| text.parse::<R>().is_ok_and(|own| own == *rules))
            .map(|(_, calibration)| calibration)
            .or(self.general.as_ref())
    }

    /// Why one of the calibrations cannot be used, if one cannot.
    pub fn check(&self) -> Result<(), String> {
        if let Some(general) = &self.general {
            general.check()?;
        }
        for (rules, calibration) in &self.by_rules {
            calibration.check().map_err(|why| {
                format!(
                    "{why} (the calibration of rules '{}')",
                    grandmaitre_engine::game::OneLine(rules)
                )
            })?;
        }
        Ok(())
    }
}

/// A calibration's curves: `[first player to move, second player to move]`,
/// each with a curve per outcome.
pub type SideCurves = [[Curve; 3]; 2];

/// The curves of `curves` for positions where `to_move` is to move.
pub fn for_side(curves: &SideCurves, to_move: Player) -> &[Curve; 3] {
    match to_move {
        Player::First => &curves[0],
        Player::Second => &curves[1],
    }
}

impl Calibration {
    /// The bar's `wdl` at a position where `to_move` is to move,
    /// calibrated.
    pub fn apply(&self, wdl: ForPlayers, to_move: Player) -> ForPlayers {
        let curves = self.curves.as_ref().map(|c| for_side(c, to_move));
        ForPlayers(calibrate(widen(wdl.0), self.temperature, curves).map(|p| p as f32))
    }

    /// The network's own `wdl` (no search) calibrated.
    pub fn apply_network(&self, wdl: ForPlayers, to_move: Player) -> ForPlayers {
        let curves = self.network_curves.as_ref().map(|c| for_side(c, to_move));
        ForPlayers(calibrate(widen(wdl.0), self.network_temperature, curves).map(|p| p as f32))
    }

    /// Why the calibration cannot be used, if it cannot: temperatures
    /// must be positive and finite, curves well formed.
    pub fn check(&self) -> Result<(), String> {
        for (name, t) in [
            ("temperature", self.temperature),
            ("network_temperature", self.network_temperature),
        ] {
            if !(t.is_finite() && t > 0.0) {
                return Err(format!("calibration {name} {t} is not a positive number"));
            }
        }
        for (name, curves) in [
            ("curves", &self.curves),
            ("network_curves", &self.network_curves),
        ] {
            if let Some(curves) = curves
                && !curves.iter().flatten().all(Curve::is_valid)
            {
                return Err(format!(
                    "calibration {name} are not non-decreasing knots in [0, 1]"
                ));
            }
        }
        if let Some(players) = &self.players {
            players.check()?;
        }
        Ok(())
    }
}

fn widen(wdl: [f32; 3]) -> [f64; 3] {
    wdl.map(f64::from)
}

/// `p` (first player's perspective) under `temperature`, then `curves`.
pub fn calibrate(p: [f64; 3], temperature: f64, curves: Option<&[Curve; 3]>) -> [f64; 3] {
    let scaled = scale(p, temperature);
    match curves {
        Some(curves) => apply_curves(scaled, curves),
        None => scaled,
    }
}

/// Each outcome's probability through its curve, renormalised (unchanged
/// if the curves give all three nothing).
pub fn apply_curves(p: [f64; 3], curves: &[Curve; 3]) -> [f64; 3] {
    let mapped = [curves[0].at(p[0]), curves[1].at(p[1]), curves[2].at(p[2])];
    let sum: f64 = mapped.iter().sum();
    if sum > 0.0 {
        mapped.map(|q| q / sum)
    } else {
        p
    }
}

/// How close a fitted curve comes to 0 and 1: a block of positions that all
/// went one way says "almost never" rather than "never" of the others.
pub const CURVE_MARGIN: f64 = 0.005;

/// A non-decreasing map of [0, 1] into [0, 1]: linear between its knots,
/// flat beyond the first and the last; without knots, the identity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// `[x, y]` pairs, both non-decreasing.
    pub knots: Vec<[f64; 2]>,
}

impl Curve {
    /// The curve that changes nothing (no knots).
    pub fn identity() -> Curve {
        Curve { knots: Vec::new() }
    }

    /// The curve at `x` (`x` itself for the identity).
    pub fn at(&self, x: f64) -> f64 {
        let knots = &self.knots;
        let Some(first) = knots.first() else {
            return x;
        };
        if x <= first[0] {
            return first[1];
        }
        let last = knots[knots.len() - 1];
        if x >= last[0] {
            return last[1];
        }
        // Knots sorted by x: a[0] <= x < b[0], so the span is positive.
        let right = knots.partition_point(|k| k[0] <= x);
        let (a, b) = (knots[right - 1], knots[right]);
        a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])
    }

    /// Whether the knots are well formed: finite, in [0, 1], non-decreasing.
    pub fn is_valid(&self) -> bool {
        self.knots
            .iter()
            .all(|k| k.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)))
            && self
                .knots
                .windows(2)
                .all(|w| w[0][0] <= w[1][0] && w[0][1] <= w[1][1])
    }

    /// Isotonic regression of `hits` on `predictions` (pool adjacent
    /// violators), with blocks of at least `min_block` points (smaller ones
    /// merge with a neighbour): each block is flat at its hit rate from its
    /// lowest prediction to its highest (two knots), and the curve is
    /// linear across the gaps between blocks.
    pub fn fit(predictions: &[f64], hits: &[bool], min_block: usize) -> Curve {
        let mut points: Vec<(f64, bool)> = predictions
            .iter()
            .copied()
            .zip(hits.iter().copied())
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut blocks: Vec<Block> = Vec::new();
        let mut index = 0;
        while index < points.len() {
            // Equal predictions share one block.
            let x = points[index].0;
            let mut block = Block {
                count: 0.0,
                hits: 0.0,
                low: x,
                high: x,
            };
            while index < points.len() && points[index].0 == x {
                block.count += 1.0;
                block.hits += f64::from(u8::from(points[index].1));
                index += 1;
            }
            blocks.push(block);
            pool_violators(&mut blocks);
        }
        let min_block = min_block.max(1) as f64;
        while blocks.len() > 1 {
            let Some(small) = (0..blocks.len())
                .filter(|&i| blocks[i].count < min_block)
                .min_by(|&a, &b| blocks[a].count.total_cmp(&blocks[b].count))
            else {
                break;
            };
            // Merge with the neighbour whose hit rate is closer.
            let rate = blocks[small].rate();
            let neighbour = match (small.checked_sub(1), blocks.get(small + 1)) {
                (Some(left), Some(right)) => {
                    if (blocks[left].rate() - rate).abs() <= (right.rate() - rate).abs() {
                        left
                    } else {
                        small + 1
                    }
                }
                (Some(left), None) => left,
                _ => small + 1,
            };
            let (keep, gone) = (small.min(neighbour), small.max(neighbour));
            let merged = blocks.remove(gone);
            blocks[keep].absorb(&merged);
        }
        let mut knots = Vec::with_capacity(2 * blocks.len());
        for block in &blocks {
            let y = block.rate().clamp(CURVE_MARGIN, 1.0 - CURVE_MARGIN);
            knots.push([block.low, y]);
            if block.high > block.low {
                knots.push([block.high, y]);
            }
        }
        Curve { knots }
    }
}

/// Consecutive points (by prediction) of an isotonic fit.
#[derive(Clone, Copy, Debug)]
struct Block {
    count: f64,
    hits: f64,
    /// The lowest and highest predictions in the block.
    low: f64,
    high: f64,
}

impl Block {
    fn rate(&self) -> f64 {
        self.hits / self.count
    }

    /// Takes in the neighbouring block `other`.
    fn absorb(&mut self, other: &Block) {
        self.count += other.count;
        self.hits += other.hits;
        self.low = self.low.min(other.low);
        self.high = self.high.max(other.high);
    }
}

/// Merges the last block into its predecessors while their hit rates
/// decrease (merging keeps rates between the merged ones, so the blocks
/// stay sorted by prediction and become non-decreasing in rate).
fn pool_violators(blocks: &mut Vec<Block>) {
    while blocks.len() > 1 {
        let last = blocks[blocks.len() - 1];
        let previous = blocks[blocks.len() - 2];
        if previous.hits * last.count <= last.hits * previous.count {
            break;
        }
        blocks.pop();
        blocks.last_mut().expect("two blocks").absorb(&last);
    }
}

/// Platt scaling of one probability: `σ(a · logit(p) + b)`, a smooth,
/// increasing map (`a ≥ 0`) fitted by logistic regression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Platt {
    /// Slope on the logit.
    pub a: f64,
    /// Offset.
    pub b: f64,
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(PROBABILITY_FLOOR, 1.0 - PROBABILITY_FLOOR);
    (p / (1.0 - p)).ln()
}

pub(crate) fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Logistic regression of `hits` on `features` (rows of `K` values) by
/// Newton's method, with a light ridge towards `prior` so that separable
/// data stays finite; `bounds` clamps each coefficient.
fn logistic<const K: usize>(
    features: &[[f64; K]],
    hits: &[bool],
    prior: [f64; K],
    bounds: [(f64, f64); K],
) -> [f64; K] {
    let ridge = 1e-3;
    let mut w = prior;
    for _ in 0..50 {
        let mut gradient = [0.0; K];
        let mut hessian = [[0.0; K]; K];
        for k in 0..K {
            gradient[k] = ridge * (w[k] - prior[k]);
            hessian[k][k] = ridge;
        }
        for (x, &hit) in features.iter().zip(hits) {
            let q = sigmoid((0..K).map(|k| w[k] * x[k]).sum());
            let error = q - f64::from(u8::from(hit));
            let weight = (q * (1.0 - q)).max(1e-12);
            for i in 0..K {
                gradient[i] += error * x[i];
                for j in 0..K {
                    hessian[i][j] += weight * x[i] * x[j];
                }
            }
        }
        let Some(step) = solve(hessian, gradient) else {
            break;
        };
        for k in 0..K {
            w[k] = (w[k] - step[k]).clamp(bounds[k].0, bounds[k].1);
        }
        if step.iter().map(|s| s.abs()).sum::<f64>() < 1e-10 {
            break;
        }
    }
    w
}

/// `x` with `m x = v` (Gaussian elimination with partial pivoting), or
/// `None` for a singular `m`.
pub(crate) fn solve<const K: usize>(mut m: [[f64; K]; K], mut v: [f64; K]) -> Option<[f64; K]> {
    for column in 0..K {
        let pivot =
            (column..K).max_by(|&a, &b| m[a][column].abs().total_cmp(&m[b][column].abs()))?;
        if m[pivot][column].abs() < 1e-18 {
            return None;
        }
        m.swap(column, pivot);
        v.swap(column, pivot);
        let pivot_row = m[column];
        for row in column + 1..K {
            let factor = m[row][column] / pivot_row[column];
            for (entry, &above) in m[row].iter_mut().zip(&pivot_row).skip(column) {
                *entry -= factor * above;
            }
            v[row] -= factor * v[column];
        }
    }
    let mut x = [0.0; K];
    for row in (0..K).rev() {
        let rest: f64 = (row + 1..K).map(|k| m[row][k] * x[k]).sum();
        x[row] = (v[row] - rest) / m[row][row];
    }
    Some(x)
}

impl Platt {
    /// The map at `p`.
    pub fn at(&self, p: f64) -> f64 {
        sigmoid(self.a * logit(p) + self.b)
    }

    /// Logistic regression of `hits` on the logits of `predictions` (the
    /// slope kept in [0, 20]: an increasing map).
    pub fn fit(predictions: &[f64], hits: &[bool]) -> Platt {
        let features: Vec<[f64; 2]> = predictions.iter().map(|&p| [logit(p), 1.0]).collect();
        let [a, b] = logistic(&features, hits, [1.0, 0.0], [(0.0, 20.0), (-20.0, 20.0)]);
        Platt { a, b }
    }

    /// One slope for both sides and an offset for each: `hits` on the
    /// logits of `predictions` (the side to move's view) with `first[i]`
    /// telling whether the first player is to move; the maps for the first
    /// player to move and for the second.
    pub fn fit_by_side(predictions: &[f64], first: &[bool], hits: &[bool]) -> [Platt; 2] {
        let features: Vec<[f64; 3]> = predictions
            .iter()
            .zip(first)
            .map(|(&p, &f)| [logit(p), 1.0, if f { 1.0 } else { -1.0 }])
            .collect();
        let [a, b, c] = logistic(
            &features,
            hits,
            [1.0, 0.0, 0.0],
            [(0.0, 20.0), (-20.0, 20.0), (-5.0, 5.0)],
        );
        [Platt { a, b: b + c }, Platt { a, b: b - c }]
    }

    /// The map as a curve of knots (what `checkpoint.json` and the export
    /// store): 0 and 1 and 199 points between, evenly spaced in logit
    /// from −9.9 to 9.9, where a linear interpolation stays within 10⁻³
    /// of the map.
    pub fn curve(&self) -> Curve {
        let mut knots = vec![[0.0, self.at(0.0)]];
        for step in -99..=99 {
            let x = sigmoid(f64::from(step) / 10.0);
            knots.push([x, self.at(x)]);
        }
        knots.push([1.0, self.at(1.0)]);
        // Rounding may break monotonicity by an ulp at the flat ends.
        for index in 1..knots.len() {
            knots[index][1] = knots[index][1].max(knots[index - 1][1]).clamp(0.0, 1.0);
        }
        knots[0][1] = knots[0][1].clamp(0.0, 1.0);
        Curve { knots }
    }
}

/// The three curves of a calibration, fitted on (first player's)
/// `predictions` already under their temperature and their `outcomes`;
/// blocks hold at least a 40th of the points (and 20). An outcome not in
/// `fitted`, or that happened at fewer positions than a block holds, keeps
/// its probability: an identity curve.
pub fn fit_curves(predictions: &[[f64; 3]], outcomes: &[usize], fitted: [bool; 3]) -> [Curve; 3] {
    let min_block = (predictions.len() / 40).max(20);
    std::array::from_fn(|class| {
        let hits: Vec<bool> = outcomes.iter().map(|&k| k == class).collect();
        if !fitted[class] || hits.iter().filter(|&&hit| hit).count() < min_block {
            return Curve::identity();
        }
        let xs: Vec<f64> = predictions.iter().map(|p| p[class]).collect();
        Curve::fit(&xs, &hits, min_block)
    })
}

/// `p` under temperature `temperature`.
pub fn scale(p: [f64; 3], temperature: f64) -> [f64; 3] {
    let logits = p.map(|x| x.max(PROBABILITY_FLOOR).ln() / temperature);
    let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp = logits.map(|l| (l - top).exp());
    let sum: f64 = exp.iter().sum();
    exp.map(|e| e / sum)
}

/// Mean negative log-likelihood of `outcomes` (class indices) under
/// `predictions` scaled by `temperature`.
pub fn log_loss(predictions: &[[f64; 3]], outcomes: &[usize], temperature: f64) -> f64 {
    let total: f64 = predictions
        .iter()
        .zip(outcomes)
        .map(|(&p, &k)| -scale(p, temperature)[k].max(PROBABILITY_FLOOR).ln())
        .sum();
    total / predictions.len().max(1) as f64
}

/// The temperature with the least log-loss, by golden-section search on
/// `ln T` over [1/20, 20] (the log-loss of temperature scaling is
/// unimodal in `T` for a fixed set of predictions).
pub fn fit_temperature(predictions: &[[f64; 3]], outcomes: &[usize]) -> f64 {
    let loss = |log_t: f64| log_loss(predictions, outcomes, log_t.exp());
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = ((0.05f64).ln(), 20f64.ln());
    let mut a = high - ratio * (high - low);
    let mut b = low + ratio * (high - low);
    let (mut fa, mut fb) = (loss(a), loss(b));
    for _ in 0..80 {
        if fa < fb {
            high = b;
            b = a;
            fb = fa;
            a = high - ratio * (high - low);
            fa = loss(a);
        } else {
            low = a;
            a = b;
            fa = fb;
            b = low + ratio * (high - low);
            fb = loss(b);
        }
    }
    ((low + high) / 2.0).exp()
}

/// Expected calibration error of outcome `class`: the predictions of that
/// outcome in `bins` equal-width bins, the gap between each bin's mean
/// prediction and the outcome's frequency in it, weighted by the bin's
/// share of the positions.
pub fn expected_calibration_error(
    predictions: &[[f64; 3]],
    outcomes: &[usize],
    class: usize,
    bins: usize,
) -> f64 {
    reliability(predictions, outcomes, class, bins)
        .iter()
        .map(|bin| bin.count as f64 * (bin.mean_prediction - bin.frequency).abs())
        .sum::<f64>()
        / predictions.len().max(1) as f64
}

/// One bin of a reliability diagram.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReliabilityBin {
    /// Positions in the bin.
    pub count: usize,
    /// Their mean predicted probability.
    pub mean_prediction: f64,
    /// How often the outcome happened.
    pub frequency: f64,
}

/// The reliability diagram of outcome `class` in `bins` equal-width bins
/// (empty bins have a count of 0).
pub fn reliability(
    predictions: &[[f64; 3]],
    outcomes: &[usize],
    class: usize,
    bins: usize,
) -> Vec<ReliabilityBin> {
    let mut sums = vec![(0usize, 0f64, 0f64); bins];
    for (p, &k) in predictions.iter().zip(outcomes) {
        let x = p[class].clamp(0.0, 1.0);
        let bin = ((x * bins as f64) as usize).min(bins - 1);
        sums[bin].0 += 1;
        sums[bin].1 += x;
        sums[bin].2 += f64::from(u8::from(k == class));
    }
    sums.into_iter()
        .map(|(count, p, hits)| ReliabilityBin {
            count,
            mean_prediction: if count > 0 { p / count as f64 } else { 0.0 },
            frequency: if count > 0 { hits / count as f64 } else { 0.0 },
        })
        .collect()
}

/// The calibration error of outcome `class` that a calibrated bar would
/// show by chance alone on these games (each game's predictions), roughly:
/// per bin, the binomial error of its observed frequency with each game
/// that reaches the bin counted once (a game's positions share its
/// outcome), √(2/π · p(1 − p) / games), weighed by the bin's positions as
/// [`expected_calibration_error`] weighs them. A measured error near it
/// cannot be told from a calibrated bar on so few games.
pub fn ece_noise_floor(games: &[&[[f64; 3]]], class: usize, bins: usize) -> f64 {
    // Per bin: positions, their summed prediction, games reaching it.
    let mut sums = vec![(0usize, 0f64, 0usize); bins];
    let mut reached = vec![false; bins];
    for predictions in games {
        reached.fill(false);
        for p in *predictions {
            let x = p[class].clamp(0.0, 1.0);
            let bin = ((x * bins as f64) as usize).min(bins - 1);
            sums[bin].0 += 1;
            sums[bin].1 += x;
            if !reached[bin] {
                reached[bin] = true;
                sums[bin].2 += 1;
            }
        }
    }
    let positions: usize = sums.iter().map(|s| s.0).sum();
    sums.iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|&(count, total, games)| {
            let p = total / count as f64;
            count as f64 * (2.0 / std::f64::consts::PI * p * (1.0 - p) / games as f64).sqrt()
        })
        .sum::<f64>()
        / positions.max(1) as f64
}

/// Mean Brier score: the squared distance between the prediction and the
/// one-hot outcome, summed over the three outcomes.
pub fn brier(predictions: &[[f64; 3]], outcomes: &[usize]) -> f64 {
    let total: f64 = predictions
        .iter()
        .zip(outcomes)
        .map(|(p, &k)| {
            (0..3)
                .map(|i| (p[i] - f64::from(u8::from(i == k))).powi(2))
                .sum::<f64>()
        })
        .sum();
    total / predictions.len().max(1) as f64
}

#[cfg(test)]
mod tests;
