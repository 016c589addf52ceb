//! The win-probability bar above the board: P(first player wins), P(draw),
//! P(second player wins), from the network with a small search
//! ([`BAR_SIMULATIONS`]), calibrated by the checkpoint's calibration when it
//! has one (`grandmaitre calibrate`). Defined once here; `winprob`, the
//! engine protocol's `gm-winprob` and the headline of `advise` all show
//! this number. A search of another budget is never put through this
//! calibration: its value is shown raw, and labelled as the search's. The
//! bar's search leaves the moves-left utility off: it steers the choice of
//! a move, not the estimate of the result, and the exported module, which
//! has no moves-left head, gives the same bar.

use grandmaitre_engine::book::Book;
use grandmaitre_engine::search::{Evaluator, MovesLeftConfig, Search, SearchConfig, SearchResult};
use grandmaitre_engine::{ForPlayers, Playable, ToMove};

use crate::calibration::Calibration;
use grandmaitre_engine::Hints;

/// Simulations of the bar's search.
pub const BAR_SIMULATIONS: u32 = 64;

/// The bar: P(first player wins), P(draw), P(second player wins), from the
/// network with the bar's search, calibrated when a calibration is given
/// (and fitted for this search). A finished game shows its result, and so
/// does a position `book` proves.
pub fn bar<G: Playable, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
    calibration: Option<&Calibration>,
    book: Option<&Book<G>>,
) -> ForPlayers {
    let known = game
        .outcome(state)
        .or_else(|| book.and_then(|book| book.outcome(game, state)));
    match known {
        Some(outcome) => ToMove::exact(outcome).for_players(game.current_player(state)),
        None => shown_wdl(
            &bar_search(game, state, evaluator),
            for_the_bar(calibration),
        ),
    }
}

/// `calibration` if it was fitted for the bar's search, else none: a
/// calibration never applies to a search of another budget.
pub fn for_the_bar(calibration: Option<&Calibration>) -> Option<&Calibration> {
    calibration.filter(|c| c.simulations == BAR_SIMULATIONS)
}

/// The bar's search, uncalibrated (what `calibrate` fits).
pub fn bar_search<G: Hints, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
) -> SearchResult {
    let config = SearchConfig {
        simulations: BAR_SIMULATIONS,
        moves_left: MovesLeftConfig::off(),
        ..SearchConfig::default()
    };
    Search::new(game.clone(), state.clone(), config, 0).run(evaluator)
}

/// The win/draw/loss of a search for the players: a proven result
/// exactly, else the search's mean, calibrated when a calibration is given.
pub fn shown_wdl(result: &SearchResult, calibration: Option<&Calibration>) -> ForPlayers {
    let wdl = match result.proof {
        Some(outcome) => ToMove::exact(outcome),
        None => result.wdl,
    }
    .for_players(result.side);
    match (result.proof, calibration) {
        (None, Some(calibration)) => calibration.apply(wdl, result.side),
        _ => wdl,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grandmaitre_engine::Notation;
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_engine::search::UniformEvaluator;

    #[test]
    fn the_bar_of_a_won_position_is_certain_and_seen_from_the_first_player() {
        let game = Heraldis::default();
        // Light to move wins at d2 (a2 b2 c2 d2), whatever Dark threatens.
        let state = game.parse_state("5/5/5/LLL2/DDD2 l - 6").expect("position");
        assert_eq!(
            bar(&game, &state, &UniformEvaluator, None, None),
            ForPlayers([1.0, 0.0, 0.0])
        );
        // Dark to move, Light's line already complete: seen from Light.
        let over = game
            .parse_state("5/5/5/LLLL1/DDD2 d - 7")
            .expect("position");
        assert_eq!(
            bar(&game, &over, &UniformEvaluator, None, None),
            ForPlayers([1.0, 0.0, 0.0])
        );
    }
}
