//! Calibration of displayed win/draw/loss probabilities by temperature
//! scaling (Guo et al. 2017): `p'ᵢ ∝ exp(ln pᵢ / T)`, one temperature `T`
//! fitted by log-likelihood on games the engine played against itself.
//! `T > 1` softens an overconfident bar, `T < 1` sharpens a timid one; the
//! order of the three outcomes never changes.

use serde::{Deserialize, Serialize};

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
}

impl Calibration {
    /// `wdl` calibrated.
    pub fn apply(&self, wdl: [f32; 3]) -> [f32; 3] {
        let scaled = scale(
            [f64::from(wdl[0]), f64::from(wdl[1]), f64::from(wdl[2])],
            self.temperature,
        );
        scaled.map(|p| p as f32)
    }
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
mod tests {
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

    #[test]
    fn brier_score_of_certain_predictions() {
        let predictions = [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
        assert_eq!(brier(&predictions, &[0, 2]), 1.0);
    }
}
