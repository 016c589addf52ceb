//! The 12 symmetries of the hexagon change nothing in Havannah: legal moves,
//! results, winning structures and the encoding move with the board.

use grandmaitre_engine::havannah::{Havannah, Position};
use grandmaitre_engine::{Action, Game, Notation, Player, Symmetric, Symmetry};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A position reached by up to `plies` random moves (the swap taken in a
/// quarter of the games that allow it), on base 8 or a smaller board.
fn random_position(seed: u64, plies: usize) -> (Havannah, Position) {
    let mut rng = StdRng::seed_from_u64(seed);
    let base = [8, 8, 4, 5][(seed % 4) as usize];
    let game = Havannah::new(base, !seed.is_multiple_of(3));
    let mut state = game.initial_state();
    let mut actions = Vec::new();
    for _ in 0..plies {
        game.legal_actions(&state, &mut actions);
        if actions.is_empty() {
            break;
        }
        let swap = state
            .stones(Player::First)
            .iter()
            .next()
            .map(|bit| Action(game.board().action_of_bit(bit) as u16));
        let action = match swap {
            Some(swap) if game.is_legal(&state, swap) && rng.random_bool(0.25) => swap,
            _ => actions[rng.random_range(0..actions.len())],
        };
        state = game.play(&state, action).expect("legal");
    }
    (game, state)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_moves_results_and_structures_map_onto_each_other(
        seed in any::<u64>(),
        plies in 0usize..170,
    ) {
        let (game, state) = random_position(seed, plies);
        let mut actions = Vec::new();
        let mut mapped_actions = Vec::new();
        game.legal_actions(&state, &mut actions);
        for index in 0..12 {
            let symmetry = Symmetry(index);
            let mapped_game = game.transformed(symmetry);
            let mapped = game.transform_state(&state, symmetry);
            mapped_game.legal_actions(&mapped, &mut mapped_actions);
            let mut expected: Vec<_> =
                actions.iter().map(|&a| game.transform_action(a, symmetry)).collect();
            expected.sort();
            prop_assert_eq!(&mapped_actions, &expected, "symmetry {}", index);
            prop_assert_eq!(mapped_game.outcome(&mapped), game.outcome(&state));
            prop_assert_eq!(mapped.swapped(), state.swapped());
            for player in [Player::First, Player::Second] {
                prop_assert_eq!(
                    mapped_game.structures(&mapped, player),
                    game.structures(&state, player)
                );
            }
            // The mapped position is a position of the game: it reads back.
            let text = mapped_game.format_state(&mapped);
            prop_assert_eq!(mapped_game.parse_state(&text), Ok(mapped));
        }
    }

    #[test]
    fn playing_a_move_commutes_with_every_symmetry(seed in any::<u64>(), plies in 0usize..170) {
        let (game, state) = random_position(seed, plies);
        let mut actions = Vec::new();
        game.legal_actions(&state, &mut actions);
        for index in 0..12 {
            let symmetry = Symmetry(index);
            let mapped = game.transform_state(&state, symmetry);
            for &action in &actions {
                let played = game.play(&state, action).expect("legal");
                let mapped_action = game.transform_action(action, symmetry);
                let mapped_played = game.play(&mapped, mapped_action).expect("legal image");
                prop_assert_eq!(game.transform_state(&played, symmetry), mapped_played);
            }
        }
    }

    #[test]
    fn a_symmetry_composed_with_its_inverse_is_the_identity(
        seed in any::<u64>(),
        plies in 0usize..170,
    ) {
        let (game, state) = random_position(seed, plies);
        for index in 0..12 {
            let symmetry = Symmetry(index);
            let inverse = game.inverse_symmetry(symmetry);
            let back = game.transform_state(&game.transform_state(&state, symmetry), inverse);
            prop_assert_eq!(back, state);
            for action in 0..game.spec().action_count as u16 {
                let action = Action(action);
                prop_assert_eq!(
                    game.transform_action(game.transform_action(action, symmetry), inverse),
                    action
                );
            }
        }
    }
}

#[test]
fn the_twelve_symmetries_are_distinct_and_closed_under_inverse() {
    let game = Havannah::default();
    // b1 lies next to the corner a1: its 12 images are the 12 cells next to
    // a corner on an edge.
    let b1 = Action(1);
    let images: std::collections::BTreeSet<String> = (0..12)
        .map(|s| {
            let image = game.transform_action(b1, Symmetry(s));
            game.format_action(&game.initial_state(), image)
        })
        .collect();
    assert_eq!(images.len(), 12);
    // Around the corners a1, h1, o8, o15, h15, a8 in turn.
    let expected = [
        "b1", "a2", "g1", "i2", "n7", "o9", "o14", "n15", "i15", "g14", "b9", "a7",
    ];
    assert_eq!(images, expected.map(String::from).into_iter().collect());
    // The centre is fixed by all.
    for s in 0..12 {
        assert_eq!(game.transform_action(Action(112), Symmetry(s)), Action(112));
    }
    assert_eq!(game.inverse_symmetry(Symmetry(1)), Symmetry(5));
    assert_eq!(game.inverse_symmetry(Symmetry(7)), Symmetry(7));
}
