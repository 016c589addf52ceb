//! The conformance check every game passes (after OpenSpiel's
//! `RandomSimTest`): random games played to the end, with the facts of the
//! [`Game`] contract checked at every position.
//!
//! Each game's tests call [`check_random_games`] in one line. A broken fact
//! panics with the position and what went wrong.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::game::{Action, Forcing, Game, Outcome, Playable, Player, Symmetry};
use crate::game::{Hints, Notation, Symmetric};

/// What the check saw, to show it did real work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConformanceReport {
    /// Games played to the end.
    pub games: usize,
    /// Positions checked.
    pub positions: usize,
    /// Games won by the first player, drawn, won by the second player.
    pub results: [usize; 3],
}

/// Plays `games` random games of `game` from its initial state (seeded by
/// `seed`) and checks at every position:
/// - legal actions sorted, unique, in range, and empty exactly when the game
///   is over; `is_legal` agrees with the list for every action id;
/// - `play` refuses an illegal action;
/// - no game is longer than `max_game_length`;
/// - outcomes are zero-sum between the two players;
/// - clones are equal and independent (a move made on a clone leaves the
///   original unchanged), and game parameter, position and move texts
///   round-trip;
/// - the encoding has the declared size and is finite;
/// - each symmetry maps the legal actions onto the transformed position's
///   legal actions, the encoding onto the transformed position's encoding
///   (every plane's cells moved by [`Symmetric::transform_cell`]), keeps the
///   result, and composed with its inverse is the identity;
/// - a finished game's ownership (if the game has one) is in [−1, 1],
///   opposite for the two players, and moves with the symmetries as planes
///   do;
/// - what [`Hints::forcing_moves`] claims holds: claimed wins are exactly the
///   moves that win at once, and where it claims blocks, every other move
///   lets the opponent win at once and a lone block does not.
pub fn check_random_games<G: Playable>(game: &G, games: usize, seed: u64) -> ConformanceReport {
    let spec = game.spec();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut report = ConformanceReport::default();
    let mut actions = Vec::new();
    let mut planes = vec![0.0f32; spec.observation_len()];
    let rules = game.rules().to_string();
    let rebuilt =
        G::with_rules(&rules).unwrap_or_else(|e| panic!("own rules '{rules}' do not parse: {e}"));
    assert_eq!(rebuilt.rules(), game.rules(), "rules round trip");
    assert_eq!(
        G::default().rules(),
        &G::Rules::default(),
        "the default game is the game of the default rules"
    );
    let symmetric_games: Vec<G> = (0..spec.symmetry_count)
        .map(|s| game.transformed(Symmetry(s as u8)))
        .collect();
    for _ in 0..games {
        let mut state = game.initial_state();
        let mut length = 0;
        loop {
            report.positions += 1;
            let text = game.format_state(&state);
            check_actions(game, &state, &mut actions, &text);
            check_texts(game, &state, &actions, &text);
            game.encode(&state, &mut planes);
            assert!(
                planes.iter().all(|v| v.is_finite()),
                "{text}: encoding has a non-finite value"
            );
            check_symmetries(game, &symmetric_games, &state, &actions, &planes, &text);
            check_forcing(game, &state, &actions, &text);
            assert_eq!(game.ply(&state), length, "{text}: ply count");

            if game.outcome(&state).is_some() {
                assert!(actions.is_empty(), "{text}: finished game has moves");
                check_ownership(game, &symmetric_games, &state, &text);
                let first = game.outcome_for(&state, Player::First);
                let second = game.outcome_for(&state, Player::Second);
                assert_eq!(
                    first.map(|o| o.flipped()),
                    second,
                    "{text}: outcomes are not zero-sum"
                );
                report.results[(1.0 - first.map_or(0.0, |o| o.value())) as usize] += 1;
                break;
            }
            assert!(!actions.is_empty(), "{text}: game goes on without moves");
            let action = actions[rng.random_range(0..actions.len())];
            state = game.play(&state, action).expect("a listed action is legal");
            length += 1;
            assert!(
                length <= spec.max_game_length,
                "game longer than {} plies",
                spec.max_game_length
            );
        }
        report.games += 1;
    }
    report
}

fn check_actions<G: Game>(game: &G, state: &G::State, actions: &mut Vec<Action>, text: &str) {
    let count = game.spec().action_count;
    game.legal_actions(state, actions);
    assert!(
        actions.windows(2).all(|w| w[0] < w[1]),
        "{text}: legal actions not sorted and unique: {actions:?}"
    );
    assert!(
        actions.iter().all(|a| a.index() < count),
        "{text}: action out of range"
    );
    for id in 0..count {
        let action = Action(id as u16);
        let listed = actions.binary_search(&action).is_ok();
        assert_eq!(
            game.is_legal(state, action),
            listed,
            "{text}: is_legal disagrees with the list for {action:?}"
        );
        if !listed {
            assert!(
                game.play(state, action).is_err(),
                "{text}: play accepted {action:?}"
            );
        }
    }
    assert_eq!(
        actions.is_empty(),
        game.outcome(state).is_some(),
        "{text}: no moves exactly when the game is over"
    );
}

fn check_texts<G: Notation>(game: &G, state: &G::State, actions: &[Action], text: &str) {
    // A clone is equal to the original and independent of it: a move made
    // on the clone leaves the original as it was.
    let mut copy = state.clone();
    assert_eq!(&copy, state, "{text}: clone differs");
    assert_eq!(
        game.format_state(&copy),
        text,
        "{text}: clone's text differs"
    );
    if let Some(&action) = actions.first() {
        game.apply_unchecked(&mut copy, action);
        assert_eq!(
            game.ply(&copy),
            game.ply(state) + 1,
            "{text}: a move on the clone does not advance its ply"
        );
        assert_eq!(
            game.format_state(state),
            text,
            "{text}: a move on a clone changed the original"
        );
    }
    let parsed = game
        .parse_state(text)
        .unwrap_or_else(|e| panic!("{text}: own text does not parse: {e}"));
    assert_eq!(&parsed, state, "{text}: text round trip");
    for &action in actions {
        let move_text = game.format_action(state, action);
        let parsed = game
            .parse_action(state, &move_text)
            .unwrap_or_else(|e| panic!("{text}: move '{move_text}' does not parse: {e}"));
        assert_eq!(
            parsed, action,
            "{text}: move text round trip for {move_text}"
        );
    }
}

fn check_symmetries<G: Symmetric>(
    game: &G,
    symmetric_games: &[G],
    state: &G::State,
    actions: &[Action],
    planes: &[f32],
    text: &str,
) {
    let [plane_count, height, width] = game.spec().observation_shape;
    let area = height * width;
    let mut mapped_planes = vec![0.0f32; planes.len()];
    let mut mapped_actions = Vec::new();
    for (index, symmetric_game) in symmetric_games.iter().enumerate() {
        let symmetry = Symmetry(index as u8);
        let inverse = game.inverse_symmetry(symmetry);
        let mapped = game.transform_state(state, symmetry);
        assert_eq!(
            &symmetric_game.transform_state(&mapped, inverse),
            state,
            "{text}: symmetry {index} then its inverse"
        );
        symmetric_game.legal_actions(&mapped, &mut mapped_actions);
        let expected: BTreeSet<Action> = actions
            .iter()
            .map(|&a| game.transform_action(a, symmetry))
            .collect();
        let found: BTreeSet<Action> = mapped_actions.iter().copied().collect();
        assert_eq!(
            found, expected,
            "{text}: legal actions under symmetry {index}"
        );
        for &action in actions {
            let there = game.transform_action(action, symmetry);
            assert_eq!(game.transform_action(there, inverse), action);
        }
        assert_eq!(
            symmetric_game.outcome(&mapped),
            game.outcome(state),
            "{text}: outcome under symmetry {index}"
        );
        symmetric_game.encode(&mapped, &mut mapped_planes);
        for cell in 0..area {
            let to = game.transform_cell(cell, symmetry);
            for plane in 0..plane_count {
                assert_eq!(
                    planes[plane * area + cell],
                    mapped_planes[plane * area + to],
                    "{text}: plane {plane}, cell {cell} under symmetry {index}"
                );
            }
        }
    }
}

/// The moves among `actions` that win at once in `state`.
fn winning_moves<G: Game>(game: &G, state: &G::State, actions: &[Action]) -> Vec<Action> {
    actions
        .iter()
        .copied()
        .filter(|&action| {
            let next = game.play(state, action).expect("a listed action is legal");
            game.outcome(&next) == Some(Outcome::Loss)
        })
        .collect()
}

/// Whether the side to move in `state` has a move that wins at once.
fn has_winning_move<G: Game>(game: &G, state: &G::State) -> bool {
    let mut actions = Vec::new();
    game.legal_actions(state, &mut actions);
    !winning_moves(game, state, &actions).is_empty()
}

fn check_forcing<G: Hints>(game: &G, state: &G::State, actions: &[Action], text: &str) {
    let mut forced = Vec::new();
    let forcing = game.forcing_moves(state, &mut forced);
    match forcing {
        Forcing::Free => {}
        Forcing::Wins => assert_eq!(
            forced,
            winning_moves(game, state, actions),
            "{text}: claimed wins are not the winning moves"
        ),
        Forcing::Blocks => {
            assert!(!forced.is_empty(), "{text}: blocks claimed, none listed");
            assert!(
                winning_moves(game, state, actions).is_empty(),
                "{text}: blocks claimed where a move wins"
            );
            for &action in actions {
                let next = game.play(state, action).expect("a listed action is legal");
                let saves = forced == [action];
                assert_eq!(
                    has_winning_move(game, &next),
                    !saves,
                    "{text}: blocks {forced:?} wrong about {action:?}"
                );
            }
        }
    }
}

fn check_ownership<G: Symmetric + Hints>(
    game: &G,
    symmetric_games: &[G],
    state: &G::State,
    text: &str,
) {
    let [_, height, width] = game.spec().observation_shape;
    let cells = height * width;
    let mut first = vec![0.0f32; cells];
    let mut second = vec![0.0f32; cells];
    if !game.ownership(state, Player::First, &mut first) {
        return;
    }
    assert!(
        game.ownership(state, Player::Second, &mut second),
        "{text}: ownership for one player only"
    );
    assert!(
        first.iter().all(|v| (-1.0..=1.0).contains(v)),
        "{text}: ownership outside [-1, 1]"
    );
    assert!(
        first.iter().zip(&second).all(|(a, b)| *a == -*b),
        "{text}: the players' ownerships are not opposite"
    );
    let mut seen = vec![0.0f32; cells];
    for (index, symmetric) in symmetric_games.iter().enumerate() {
        let symmetry = Symmetry(index as u8);
        let transformed = game.transform_state(state, symmetry);
        assert!(symmetric.ownership(&transformed, Player::First, &mut seen));
        for (cell, &owner) in first.iter().enumerate() {
            assert_eq!(
                seen[game.transform_cell(cell, symmetry)],
                owner,
                "{text}: ownership of cell {cell} under symmetry {index}"
            );
        }
    }
}
