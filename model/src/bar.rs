//! The win-probability bar above the board: P(first player wins), P(draw),
//! P(second player wins) given the position and who plays each side
//! ([`Seats`]), from the network with a small search ([`BAR_SIMULATIONS`])
//! read by the checkpoint's bar for who plays
//! ([`crate::calibration::players`], fitted by `grandmaitre calibrate` on
//! games of many pairings of levels), and a flag where the result is
//! proven. Defined once here; `winprob`, the
//! engine protocol's `gm-winprob` and the headline of `advise` all show
//! this number. A search of another budget is never put through this
//! calibration: its value is shown raw, and labelled as the search's. The
//! bar's search leaves the moves-left utility off: it steers the choice of
//! a move, not the estimate of the result, and the exported module, which
//! has no moves-left head, gives the same bar.

use grandmaitre_engine::book::Book;
use grandmaitre_engine::search::{Evaluator, MovesLeftConfig, Search, SearchConfig, SearchResult};
use grandmaitre_engine::seats::Seats;
use grandmaitre_engine::{ForPlayers, Outcome, Playable, ToMove, players_index};

use crate::calibration::Calibration;
use crate::calibration::players::Reading;
use grandmaitre_engine::Hints;

/// Simulations of the bar's search.
pub const BAR_SIMULATIONS: u32 = 64;

/// What the bar shows at a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// P(first player wins), P(draw), P(second player wins), given the
    /// position and who plays.
    pub wdl: ForPlayers,
    /// The result, where the game is over or the book or the bar's search
    /// proves it: 0 the first player wins, 1 a draw, 2 the second wins
    /// (« gain forcé »). A proof is what perfect play gives; `wdl` is what
    /// the seated players make of it.
    pub proven: Option<usize>,
    /// Whether the bar reads who plays (the calibration has a bar for who
    /// plays); if not, `wdl` is the calibration of the games it was fitted
    /// on and proofs show as certain.
    pub seated: bool,
    /// Simulations the bar searched (0 where the game is over or the book
    /// proves the result).
    pub simulations: u32,
}

/// The bar at `state` for `seats`: P(first player wins), P(draw),
/// P(second player wins), from the network with the bar's search, read by
/// the calibration's bar for who plays when it has one (and it was fitted
/// for this search), else calibrated as the calibration says. A finished
/// game shows its result; a result `book` or the search proves is flagged
/// in [`Shown::proven`].
pub fn bar<G: Playable, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
    calibration: Option<&Calibration>,
    book: Option<&Book<G>>,
    seats: &Seats,
) -> Shown {
    let to_move = game.current_player(state);
    let index = |outcome: Outcome| players_index(outcome, to_move);
    let calibration = for_the_bar(calibration);
    let players = calibration.and_then(|c| c.players.as_ref());
    if let Some(outcome) = game.outcome(state) {
        // The game is over: its result, whoever played.
        return Shown {
            wdl: ToMove::exact(outcome).for_players(to_move),
            proven: Some(index(outcome)),
            seated: players.is_some(),
            simulations: 0,
        };
    }
    let from_book = book.and_then(|book| book.outcome(game, state));
    let searched = match from_book {
        Some(_) => None,
        None => Some(bar_search(game, state, evaluator)),
    };
    let proven = from_book
        .or(searched.as_ref().and_then(|s| s.proof))
        .map(index);
    let simulations = if searched.is_some() {
        BAR_SIMULATIONS
    } else {
        0
    };
    match (players, &searched) {
        (Some(players), _) => {
            let reading = Reading {
                wdl: ForPlayers(
                    searched
                        .as_ref()
                        .map_or([0.0; 3], |s| s.wdl.for_players(s.side).0)
                        .map(f64::from),
                ),
                proof: proven,
                to_move,
                ply: u32::try_from(game.ply(state)).unwrap_or(u32::MAX),
                kept: from_book.is_some() || game.guard_nodes() > 0,
            };
            Shown {
                wdl: ForPlayers(players.apply(&reading, seats).0.map(|p| p as f32)),
                proven,
                seated: true,
                simulations,
            }
        }
        (None, Some(result)) => Shown {
            wdl: shown_wdl(result, calibration),
            proven,
            seated: false,
            simulations,
        },
        (None, None) => Shown {
            wdl: ToMove::exact(from_book.expect("proven by the book")).for_players(to_move),
            proven,
            seated: false,
            simulations,
        },
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
        let shown = bar(
            &game,
            &state,
            &UniformEvaluator,
            None,
            None,
            &Seats::DEFAULT,
        );
        assert_eq!(shown.wdl, ForPlayers([1.0, 0.0, 0.0]));
        assert_eq!(shown.proven, Some(0));
        // Dark to move, Light's line already complete: seen from Light.
        let over = game
            .parse_state("5/5/5/LLLL1/DDD2 d - 7")
            .expect("position");
        let shown = bar(&game, &over, &UniformEvaluator, None, None, &Seats::DEFAULT);
        assert_eq!(shown.wdl, ForPlayers([1.0, 0.0, 0.0]));
        assert_eq!((shown.proven, shown.simulations), (Some(0), 0));
    }
}
