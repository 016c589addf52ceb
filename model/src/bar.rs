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
use crate::calibration::moves::{self, Belief};
use crate::calibration::players::{self, PlayersModel, Reading};
use grandmaitre_engine::Hints;
use grandmaitre_engine::seats::Seat;
use grandmaitre_engine::{Action, History};

/// Simulations of the bar's search.
pub const BAR_SIMULATIONS: u32 = 64;

/// What the bar shows at a position.
#[derive(Clone, Debug, PartialEq)]
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
    /// The belief over the levels of each human seat (the first player's,
    /// the second's) after their moves in the history, where the bar reads
    /// moves; `None` for a level's seat.
    pub beliefs: [Option<Belief>; 2],
}

/// The bar at `state` for `seats`: P(first player wins), P(draw),
/// P(second player wins), from the network with the bar's search, read by
/// the calibration's bar for who plays when it has one (and it was fitted
/// for this search), else calibrated as the calibration says. A human seat
/// is read through a belief over the levels they play like, updated by
/// their moves in `history` (the positions that led to `state`, each with
/// the move played there; empty where the game's past is not known). A
/// finished game shows its result; a result `book` or the search proves is
/// flagged in [`Shown::proven`].
pub fn bar<G: Playable, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
    calibration: Option<&Calibration>,
    book: Option<&Book<G>>,
    seats: &Seats,
    history: &History<G>,
) -> Shown {
    let to_move = game.current_player(state);
    let index = |outcome: Outcome| players_index(outcome, to_move);
    let calibration = for_the_bar(calibration);
    let players = calibration.and_then(|c| c.players.as_ref());
    let beliefs = match players {
        Some(players) => beliefs(game, players, seats, history, evaluator),
        None => [None, None],
    };
    if let Some(outcome) = game.outcome(state) {
        // The game is over: its result, whoever played.
        return Shown {
            wdl: ToMove::exact(outcome).for_players(to_move),
            proven: Some(index(outcome)),
            seated: players.is_some(),
            simulations: 0,
            beliefs,
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
                wins_now: players::wins_now(game, state),
            };
            Shown {
                wdl: ForPlayers(
                    players
                        .apply_believed(&reading, seats, &beliefs)
                        .0
                        .map(|p| p as f32),
                ),
                proven,
                seated: true,
                simulations,
                beliefs,
            }
        }
        (None, Some(result)) => Shown {
            wdl: shown_wdl(result, calibration),
            proven,
            seated: false,
            simulations,
            beliefs,
        },
        (None, None) => Shown {
            wdl: ToMove::exact(from_book.expect("proven by the book")).for_players(to_move),
            proven,
            seated: false,
            simulations,
            beliefs,
        },
    }
}

/// The belief over the levels of each human seat of `seats` after their
/// moves in `history`, where `players` reads moves (the network's priors
/// at every position they moved from, in one batch).
fn beliefs<G: Playable, E: Evaluator<G>>(
    game: &G,
    players: &PlayersModel,
    seats: &Seats,
    history: &History<G>,
    evaluator: &E,
) -> [Option<Belief>; 2] {
    let Some(model) = &players.moves else {
        return [None, None];
    };
    let human = seats.0.map(|seat| seat == Seat::Human);
    let theirs: Vec<(&G::State, Action)> = history
        .iter()
        .filter(|(state, _)| human[game.current_player(state).index()])
        .map(|(state, action)| (state, *action))
        .collect();
    let seen = moves::seen(game, &theirs, evaluator);
    std::array::from_fn(|side| {
        human[side].then(|| {
            model.belief(
                theirs
                    .iter()
                    .zip(&seen)
                    .filter(|((state, _), _)| game.current_player(state).index() == side)
                    .filter_map(|(_, seen)| seen.as_ref()),
            )
        })
    })
}

/// `calibration` if it was fitted for the bar's search, else none: a
/// calibration never applies to a search of another budget.
pub fn for_the_bar(calibration: Option<&Calibration>) -> Option<&Calibration> {
    calibration.filter(|c| c.simulations == BAR_SIMULATIONS)
}

/// The bar's search, uncalibrated (what `calibrate` fits). It backs up the
/// network's value under the game's own rules where the network has that
/// head ([`SearchConfig::rules_value`]).
pub fn bar_search<G: Hints, E: Evaluator<G>>(
    game: &G,
    state: &G::State,
    evaluator: &E,
) -> SearchResult {
    let config = SearchConfig {
        simulations: BAR_SIMULATIONS,
        moves_left: MovesLeftConfig::off(),
        rules_value: true,
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
    use grandmaitre_engine::Game;
    use grandmaitre_engine::Notation;
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_engine::search::UniformEvaluator;

    #[test]
    fn the_bar_of_a_won_position_is_certain_and_seen_from_the_first_player() {
        let game = Heraldis::default();
        // Light to move wins at d2 (a2 b2 c2 d2), whatever Dark threatens.
        let state = game.parse_state("5/5/5/LLL2/DDD2 l - 6").expect("position");
        let plain = |state| {
            bar(
                &game,
                state,
                &UniformEvaluator,
                None,
                None,
                &Seats::DEFAULT,
                &[],
            )
        };
        let shown = plain(&state);
        assert_eq!(shown.wdl, ForPlayers([1.0, 0.0, 0.0]));
        assert_eq!(shown.proven, Some(0));
        // Dark to move, Light's line already complete: seen from Light.
        let over = game
            .parse_state("5/5/5/LLLL1/DDD2 d - 7")
            .expect("position");
        let shown = plain(&over);
        assert_eq!(shown.wdl, ForPlayers([1.0, 0.0, 0.0]));
        assert_eq!((shown.proven, shown.simulations), (Some(0), 0));
    }

    #[test]
    fn the_share_of_winning_moves_is_read_where_the_mover_can_win_at_once() {
        let game = Heraldis::default();
        // Light to move wins at d2 only (a2 b2 c2 d2).
        let state = game.parse_state("5/5/5/LLL2/DDD2 l - 6").expect("position");
        let mut legal = Vec::new();
        game.legal_actions(&state, &mut legal);
        assert_eq!(
            players::wins_now(&game, &state),
            Some(1.0 / legal.len() as f64)
        );
        assert_eq!(players::wins_now(&game, &game.initial_state()), None);
    }

    /// A network whose policy prefers low action numbers.
    struct Leaning;

    impl Evaluator<Heraldis> for Leaning {
        fn evaluate(
            &self,
            requests: &[grandmaitre_engine::search::EvaluationRequest<'_, Heraldis>],
            output: &mut grandmaitre_engine::search::Evaluations,
        ) {
            let count = requests.first().map_or(0, |r| r.game.spec().action_count);
            output.reset(count);
            for _ in requests {
                output
                    .policy_logits
                    .extend((0..count).map(|a| -0.4 * a as f32));
                output.wdl.push(ToMove::EVEN);
            }
        }
    }

    #[test]
    fn a_person_who_plays_the_networks_favourites_is_believed_stronger() {
        use crate::calibration::moves::MoveModel;
        let game = Heraldis::default();
        // Levels from loose to sharp followers of the network.
        let players = PlayersModel {
            features_version: crate::calibration::players::FEATURES_VERSION,
            ratings: [0.0; 10],
            ply_scale: 20.0,
            weights: [
                vec![0.0; crate::calibration::players::FEATURES.len()],
                vec![0.0; crate::calibration::players::FEATURES.len()],
            ],
            pairings: Vec::new(),
            games: 0,
            moves: Some(MoveModel {
                sharpness: (1..=10).map(f64::from).collect(),
                slip: vec![0.02; 10],
                moves: vec![100; 10],
                tempering: 1.0,
            }),
            search_ridge: None,
        };
        // Light always plays its favourite move, Dark its least liked.
        let mut state = game.initial_state();
        let mut history = Vec::new();
        let mut legal = Vec::new();
        while history.len() < 6 && game.outcome(&state).is_none() {
            legal.clear();
            game.legal_actions(&state, &mut legal);
            let action = if game.current_player(&state) == grandmaitre_engine::Player::First {
                legal[0]
            } else {
                legal[legal.len() - 1]
            };
            let next = game.play(&state, action).expect("legal");
            history.push((std::mem::replace(&mut state, next), action));
        }
        let human = Seats([Seat::Human, Seat::Human]);
        let [light, dark] = beliefs(&game, &players, &human, &history, &Leaning)
            .map(|belief| belief.expect("a human seat").mean());
        assert!(light > 6.0 && dark < 3.0, "light {light}, dark {dark}");
        // A level's seat has no belief; a person who has not moved is
        // believed every level alike.
        let seats = Seats([Seat::Level(4), Seat::Human]);
        let [four, dark_again] = beliefs(&game, &players, &seats, &history, &Leaning);
        assert!(four.is_none());
        assert_eq!(dark_again.map(|b| b.mean()), Some(dark));
        let unmoved = beliefs(&game, &players, &seats, &[], &Leaning)[1].clone();
        assert_eq!(unmoved, Some(Belief::uniform()));
    }
}
