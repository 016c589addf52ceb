//! Elo differences with confidence intervals, and the sequential probability
//! ratio test, from a match's wins, draws and losses.

/// The score (wins + draws / 2) / games, in [0, 1].
pub fn score(wins: u32, draws: u32, losses: u32) -> f64 {
    let games = f64::from(wins + draws + losses);
    if games == 0.0 {
        return 0.5;
    }
    (f64::from(wins) + 0.5 * f64::from(draws)) / games
}

/// The Elo difference that gives an expected score of `score`:
/// −400 · log₁₀(1/score − 1), infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a player `elo` points stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Variance of one game's score (1, ½ or 0) around the mean.
fn score_variance(wins: u32, draws: u32, losses: u32) -> f64 {
    let games = f64::from(wins + draws + losses);
    if games == 0.0 {
        return 0.0;
    }
    let mean = score(wins, draws, losses);
    (f64::from(wins) * (1.0 - mean).powi(2)
        + f64::from(draws) * (0.5 - mean).powi(2)
        + f64::from(losses) * mean.powi(2))
        / games
}

/// An Elo difference with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The point estimate.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
}

/// The Elo difference of a match, with a 95 % interval on the mean score
/// mapped through the Elo curve. The interval is Wilson's score interval
/// with the per-game variance observed (wins, draws and losses), so that a
/// clean sweep still has a finite lower end.
pub fn elo_estimate(wins: u32, draws: u32, losses: u32) -> EloEstimate {
    let games = f64::from(wins + draws + losses);
    let mean = score(wins, draws, losses);
    if games == 0.0 {
        return EloEstimate {
            elo: 0.0,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        };
    }
    let z = 1.959_964f64;
    let z2n = z * z / games;
    let centre = (mean + z2n / 2.0) / (1.0 + z2n);
    let half = z / (1.0 + z2n)
        * (score_variance(wins, draws, losses) / games + z2n / (4.0 * games)).sqrt();
    // A bound within rounding of 0 or 1 is the infinite Elo it stands for.
    let bound = |score: f64| elo_from_score(((score * 1e9).round() / 1e9).clamp(0.0, 1.0));
    EloEstimate {
        elo: elo_from_score(mean),
        low: bound(centre - half),
        high: bound(centre + half),
    }
}

/// A sequential probability ratio test of H0: Elo = elo0 against
/// H1: Elo = elo1, with error rates α = β = 0.05.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// The log-likelihood ratio crossed the upper bound: H1 (elo1) holds.
    AcceptH1,
    /// It crossed the lower bound: H0 (elo0) holds.
    AcceptH0,
    /// More games are needed.
    Continue,
}

impl Sprt {
    /// Lower and upper bounds of the log-likelihood ratio: ln(β / (1 − α))
    /// and ln((1 − β) / α).
    pub fn bounds(&self) -> (f64, f64) {
        let (alpha, beta) = (0.05f64, 0.05f64);
        ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
    }

    /// The generalised log-likelihood ratio of the match under the normal
    /// approximation: n · (s₁ − s₀) · (2s − s₀ − s₁) / (2σ²), with s the
    /// mean score, σ² the per-game variance and s₀, s₁ the expected scores
    /// at elo0 and elo1.
    pub fn log_likelihood_ratio(&self, wins: u32, draws: u32, losses: u32) -> f64 {
        let games = f64::from(wins + draws + losses);
        let variance = score_variance(wins, draws, losses);
        if games == 0.0 || variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        let mean = score(wins, draws, losses);
        games * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    /// The verdict after these results.
    pub fn verdict(&self, wins: u32, draws: u32, losses: u32) -> SprtVerdict {
        let llr = self.log_likelihood_ratio(wins, draws, losses);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_score_is_zero_elo_and_76_percent_is_about_200() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.76) - 200.0).abs() < 1.0);
        assert!((score_from_elo(elo_from_score(0.3)) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn the_interval_holds_the_estimate_and_narrows_with_games() {
        let few = elo_estimate(6, 2, 2);
        let many = elo_estimate(600, 200, 200);
        assert!((few.elo - many.elo).abs() < 1e-9);
        assert!(few.low < few.elo && few.elo < few.high);
        assert!(many.high - many.low < (few.high - few.low) / 5.0);
    }

    #[test]
    fn a_clean_sweep_has_an_infinite_estimate_but_a_finite_lower_bound() {
        let sweep = elo_estimate(20, 0, 0);
        assert_eq!(sweep.elo, f64::INFINITY);
        // Wilson: the score is at least 20 / (20 + z²) ≈ 0.839, about +287 Elo.
        assert!((sweep.low - 287.0).abs() < 2.0, "{}", sweep.low);
        assert_eq!(sweep.high, f64::INFINITY);
        let longer = elo_estimate(200, 0, 0);
        assert!(longer.low > sweep.low + 300.0);
    }

    #[test]
    fn sprt_accepts_the_hypothesis_the_results_support() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
        };
        assert_eq!(sprt.verdict(300, 100, 100), SprtVerdict::AcceptH1);
        assert_eq!(sprt.verdict(150, 100, 250), SprtVerdict::AcceptH0);
        assert_eq!(sprt.verdict(6, 2, 5), SprtVerdict::Continue);
    }
}
