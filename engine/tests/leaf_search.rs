//! The search's leaf search (`SearchConfig::leaf_depth`): an alpha-beta
//! search on the game's heuristic from each new position of the tree,
//! which proves the positions where a side is mated within its depth and
//! mixes its score into the value backed up (`leaf_weight`). On
//! Bulltricker positions from a game of the alpha-beta anchors (depth 5
//! against depth 3), where White mates.

use grandmaitre_engine::alphabeta::{AlphaBeta, HEURISTIC_UNIT, HeuristicEvaluation};
use grandmaitre_engine::bulltricker::{Bulltricker, Position};
use grandmaitre_engine::search::{
    EvaluationRequest, Evaluations, Evaluator, MoveChoice, Search, SearchConfig, SearchResult,
    UniformEvaluator,
};
use grandmaitre_engine::{Forcing, Game, Hints, Notation, Outcome, ToMove};
use std::sync::Mutex;

/// White (five Queens, four Pawns) against a lone King: White mates in
/// three plies, and not in one (`solve` agrees).
const MATE_IN_THREE: &str = "7/15/2P4/15/7/2Q12/7/12P2/1P5/14Q/6Q/4Q2K4P2/7/12Qk1/7 w 0";

fn position(text: &str) -> (Bulltricker, Position) {
    let game = Bulltricker::default();
    let state = game.parse_state(text).expect("a position");
    (game, state)
}

/// Two plies earlier in the same game: White mates in five plies, and
/// not in three.
const MATE_IN_FIVE: &str = "7/15/2P4/15/7/2Q12/7/12P2/1P5/14Q/5Q1/4Q2K4Pk1/7/12Q2/7 w 0";

/// The leaf search's verdict on `state`: a proven result for the side to
/// move, else its score between −1 and 1.
fn leaf_reading(game: &Bulltricker, state: &Position, depth: u32) -> Result<f32, Outcome> {
    let mut searcher = AlphaBeta::new(depth, 0, HeuristicEvaluation);
    let score = searcher.value(game, state);
    match searcher.proven(score) {
        Some(outcome) => Err(outcome),
        None => Ok(score as f32 / HEURISTIC_UNIT),
    }
}

#[test]
fn the_position_is_a_mate_in_three_plies_and_not_in_one() {
    let (game, state) = position(MATE_IN_THREE);
    let mut moves = Vec::new();
    assert_eq!(game.forcing_moves(&state, &mut moves), Forcing::Free);
    assert!(
        leaf_reading(&game, &state, 2).is_ok(),
        "no mate within two plies"
    );
    assert_eq!(leaf_reading(&game, &state, 3), Err(Outcome::Win));
}

/// The uniform evaluator, recording every position it is asked about.
struct Recording(Mutex<Vec<Position>>);

impl Evaluator<Bulltricker> for Recording {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, Bulltricker>], output: &mut Evaluations) {
        self.0
            .lock()
            .unwrap()
            .extend(requests.iter().map(|r| r.state.clone()));
        UniformEvaluator.evaluate(requests, output);
    }
}

fn run(text: &str, config: SearchConfig) -> (Search<Bulltricker>, Vec<Position>, SearchResult) {
    let (game, state) = position(text);
    let mut search = Search::new(game, state, config, 3);
    let recording = Recording(Mutex::new(Vec::new()));
    let result = search.run(&recording);
    let asked = recording.0.into_inner().unwrap();
    (search, asked, result)
}

/// The visits of the root move proven to win.
fn visits_of_the_win(result: &SearchResult) -> u32 {
    let won = result
        .children
        .iter()
        .filter(|c| c.proof == Some(Outcome::Win));
    won.map(|c| c.visits).max().expect("a move proven to win")
}

#[test]
fn the_leaf_search_proves_a_mate_in_five_plies_that_the_search_alone_does_not() {
    let (game, state) = position(MATE_IN_FIVE);
    assert!(
        leaf_reading(&game, &state, 4).is_ok(),
        "no mate within four plies"
    );
    assert_eq!(leaf_reading(&game, &state, 5), Err(Outcome::Win));
    let config = |leaf_depth| SearchConfig {
        simulations: 1000,
        leaf_depth,
        ..SearchConfig::default()
    };
    let (_, _, alone) = run(MATE_IN_FIVE, config(0));
    assert_eq!(
        alone.proof, None,
        "1000 simulations without the leaf search"
    );
    let (mut search, _, result) = run(MATE_IN_FIVE, config(4));
    assert_eq!(result.proof, Some(Outcome::Win));
    assert!(
        result.visits < 400,
        "proven after {} simulations",
        result.visits
    );
    // Proven at its first visit: four plies from the child see every
    // defence mated.
    assert_eq!(visits_of_the_win(&result), 1);
    let action = search.choose_move(MoveChoice::LowerConfidenceBound);
    let next = game.play(search.state(), action).expect("legal");
    assert_eq!(leaf_reading(&game, &next, 4), Err(Outcome::Loss));
}

#[test]
fn positions_the_leaf_search_proves_never_reach_the_evaluator() {
    let (search, asked, _) = run(
        MATE_IN_THREE,
        SearchConfig {
            simulations: 300,
            leaf_depth: 2,
            ..SearchConfig::default()
        },
    );
    let game = search.game();
    assert!(asked.len() > 1, "the root and some children were evaluated");
    let (_, root) = position(MATE_IN_THREE);
    for state in asked.iter().filter(|s| **s != root) {
        let reading = leaf_reading(game, state, 2);
        assert!(
            reading.is_ok(),
            "an evaluated position is proven: {reading:?}"
        );
    }
}

#[test]
fn a_new_leaf_backs_up_the_mix_of_the_evaluator_and_the_leaf_search() {
    for (text, weight) in [(MATE_IN_THREE, 0.5), (MATE_IN_THREE, 1.0)]
        .into_iter()
        .chain([(QUEEN_LOST, 0.25), (QUEEN_LOST, 1.0)])
    {
        let (game, state) = position(text);
        let score = leaf_reading(&game, &state, 2).expect("no mate within two plies");
        let config = SearchConfig {
            simulations: 1,
            leaf_depth: 2,
            leaf_weight: weight,
            ..SearchConfig::default()
        };
        let mut search = Search::new(game.clone(), state.clone(), config, 1);
        let result = search.run(&UniformEvaluator);
        let read = [score.max(0.0), 1.0 - score.abs(), (-score).max(0.0)];
        let expected = ToMove::EVEN.0.map(|p| (1.0 - weight) * p);
        for k in 0..3 {
            let want = expected[k] + weight * read[k];
            assert!(
                (result.wdl.0[k] - want).abs() < 1e-5,
                "{text}, weight {weight}: {:?} against {want} at {k}",
                result.wdl
            );
        }
        // The static heuristic sees a Pawn won where the two plies see a
        // Queen lost for it.
        if text == QUEEN_LOST {
            let heuristic = game.heuristic(&state).expect("Bulltricker has one");
            assert!(heuristic > score + 0.1, "{heuristic} against {score}");
        }
    }
}

/// Eleven plies into a game of the anchors: Black must take a Pawn with
/// its Queen (a compulsory line capture), and White then takes the Queen.
const QUEEN_LOST: &str = "7/q1q1q1qk2q1q1q/ppp1ppp/p1p1p1p1p3p1p/7/10p4/7/15/3q3/15/7/P1P1P3P1P1P1P/PPPPPPP/Q1Q1QK4Q1Q1Q/2Q1Q2 b 11";

#[test]
fn a_deeper_search_from_the_root_s_moves_proves_what_the_leaves_depth_cannot() {
    let config = |root_leaf_depth| SearchConfig {
        simulations: 1000,
        leaf_depth: 2,
        root_leaf_depth,
        ..SearchConfig::default()
    };
    let (_, _, shallow) = run(MATE_IN_FIVE, config(0));
    assert_eq!(shallow.proof, None, "two plies from every position");
    let (_, _, deep) = run(MATE_IN_FIVE, config(4));
    assert_eq!(deep.proof, Some(Outcome::Win), "four from the root's moves");
    assert_eq!(visits_of_the_win(&deep), 1);
}
