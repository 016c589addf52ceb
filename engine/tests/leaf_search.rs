//! The search's leaf search (`Tactics::leaf_depth`): an alpha-beta
//! search on the game's heuristic from each new position of the tree,
//! which proves the positions where a side is mated within its depth and
//! mixes its score into the value backed up (`leaf_weight`); and the
//! score utility on those scores (`score_utility`), which ranks the moves
//! where the values cannot. On Bulltricker positions from games of the
//! alpha-beta anchors and of the search against them.

use grandmaitre_engine::alphabeta::{
    AlphaBeta, Evaluation, HEURISTIC_UNIT, HeuristicEvaluation, WIN,
};
use grandmaitre_engine::bulltricker::{Bulltricker, Position};
use grandmaitre_engine::search::{
    EvaluationRequest, Evaluations, Evaluator, MoveChoice, Search, SearchConfig, SearchResult,
    Tactics, UniformEvaluator,
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
/// move, else its heuristic score in Pawns.
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
        tactics: Tactics {
            leaf_depth,
            ..Tactics::default()
        },
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
            tactics: Tactics {
                leaf_depth: 2,
                ..Tactics::default()
            },
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
        let pawns = leaf_reading(&game, &state, 2).expect("no mate within two plies");
        let score = (pawns / game.heuristic_scale()).tanh();
        let config = SearchConfig {
            simulations: 1,
            tactics: Tactics {
                leaf_depth: 2,
                leaf_weight: weight,
                ..Tactics::default()
            },
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
        tactics: Tactics {
            leaf_depth: 2,
            root_leaf_depth,
            ..Tactics::default()
        },
        ..SearchConfig::default()
    };
    let (_, _, shallow) = run(MATE_IN_FIVE, config(0));
    assert_eq!(shallow.proof, None, "two plies from every position");
    let (_, _, deep) = run(MATE_IN_FIVE, config(4));
    assert_eq!(deep.proof, Some(Outcome::Win), "four from the root's moves");
    assert_eq!(visits_of_the_win(&deep), 1);
}

/// Sixty plies into a game of the search against `alphabeta:depth=3`:
/// White to move has 56 moves, whose readings three plies deep run from
/// a Pawn lost to five Pawns won.
const FIVE_PAWNS_TO_TAKE: &str = "7/7k2q1q1q/1qp4/p1p1q7p2/4ppp/p3p10/1p4p/10p4/4P2/6P8/7/P1P1P5P1P1P/1P3PP/Q1Q2K4Q1Q1Q/qQ1Q3 w 60";

/// Another from the same games, White to move with 56 moves.
const TWO_QUEENS_BESIDE_THE_KING: &str =
    "7/q3q4kQ3q/1pp4/p1p1p3p3p2/2p1p1p/12p2/6p/14q/3P3/15/4P2/2P1P5P1P1P/1PP3P/7K2Q1Q1Q/1Q4Q w 60";

fn with_score_utility(score_utility: f32) -> SearchConfig {
    SearchConfig {
        simulations: 400,
        tactics: Tactics {
            leaf_depth: 2,
            score_utility,
            ..Tactics::default()
        },
        ..SearchConfig::default()
    }
}

#[test]
fn where_no_value_tells_the_moves_apart_the_score_utility_plays_the_best_scored_one() {
    for text in [FIVE_PAWNS_TO_TAKE, TWO_QUEENS_BESIDE_THE_KING] {
        // The uniform evaluator values every position even, and the leaf
        // search's score weighs nothing in the values: only the utility
        // ranks the moves.
        let (mut search, _, result) = run(text, with_score_utility(1.0));
        let visited: Vec<_> = result.children.iter().filter(|c| c.visits > 0).collect();
        assert!(visited.len() > 1, "{text}: one move searched");
        let best = visited
            .iter()
            .map(|c| c.score.expect("a visited move is scored"))
            .fold(f32::NEG_INFINITY, f32::max);
        let action = search.choose_move(MoveChoice::LowerConfidenceBound);
        let played = result.children.iter().find(|c| c.action == action);
        let played = played.expect("a root move");
        assert_eq!(played.score, Some(best), "{text}");
        // Selection follows the utility too: the move played drew more
        // than twice the visits of any move scored lower.
        let lower = visited.iter().filter(|c| c.score < Some(best));
        let most_lower = lower.map(|c| c.visits).max().expect("a lower move");
        assert!(played.visits > 2 * most_lower, "{text}");
        // Without the utility no score is kept.
        let (_, _, plain) = run(text, with_score_utility(0.0));
        assert_eq!(plain.score, None);
        assert!(plain.children.iter().all(|c| c.score.is_none()));
    }
}

#[test]
fn the_scores_are_the_minimax_of_the_leaf_searches() {
    let (game, root) = position(FIVE_PAWNS_TO_TAKE);
    let (_, _, result) = run(FIVE_PAWNS_TO_TAKE, with_score_utility(0.3));
    let mut best = f32::NEG_INFINITY;
    let mut unread = false;
    for child in &result.children {
        let next = game.play(&root, child.action).expect("legal");
        match (child.visits, child.score) {
            (0, _) => unread = true,
            // A move read once: its own leaf search, from the opponent's
            // side.
            (1, Some(score)) if child.proof.is_none() => {
                let reading = leaf_reading(&game, &next, 2).expect("no mate");
                assert!((score + reading).abs() < 1e-3, "{score} against {reading}");
            }
            _ => {}
        }
        best = best.max(child.score.unwrap_or(f32::NEG_INFINITY));
    }
    // The root: the best of its moves, or its own reading while some move
    // is unread and none is better.
    let own = leaf_reading(&game, &root, 2).expect("no mate");
    let expected = if unread { best.max(own) } else { best };
    assert_eq!(result.score, Some(expected));
}

/// The negamax of `state` to `depth` plies over every move, without any
/// cut-off, on the scale of the leaf search: a finished game ±([`WIN`]
/// less the plies), the heuristic at the depth. Also counts the positions
/// it visits.
fn minimax(game: &Bulltricker, state: &Position, depth: u32, ply: i32, nodes: &mut u64) -> i32 {
    *nodes += 1;
    match game.outcome(state) {
        Some(Outcome::Win) => return WIN - ply,
        Some(Outcome::Loss) => return -WIN + ply,
        Some(Outcome::Draw) => return 0,
        None => {}
    }
    if depth == 0 {
        return HeuristicEvaluation.evaluate(game, state);
    }
    let mut moves = Vec::new();
    game.legal_actions(state, &mut moves);
    moves
        .into_iter()
        .map(|action| {
            let next = game.play(state, action).expect("legal");
            -minimax(game, &next, depth - 1, ply + 1, nodes)
        })
        .max()
        .expect("a live position has a move")
}

#[test]
fn the_leaf_search_s_cut_offs_and_move_order_keep_the_minimax_value() {
    // The killer moves reorder each position's moves after the cut-offs
    // below its siblings, and the cut-offs skip moves: neither may change
    // the value, from the positions of this file and a move later.
    for text in [
        MATE_IN_THREE,
        MATE_IN_FIVE,
        QUEEN_LOST,
        FIVE_PAWNS_TO_TAKE,
        TWO_QUEENS_BESIDE_THE_KING,
    ] {
        let (game, root) = position(text);
        let mut moves = Vec::new();
        game.legal_actions(&root, &mut moves);
        let first = game.play(&root, moves[0]).expect("legal");
        for state in [root, first] {
            let mut searcher = AlphaBeta::new(3, 0, HeuristicEvaluation);
            let mut nodes = 0;
            let value = minimax(&game, &state, 3, 0, &mut nodes);
            assert_eq!(searcher.value(&game, &state), value, "{text}");
            assert!(searcher.nodes < nodes, "{text}: no cut-off");
        }
    }
}
