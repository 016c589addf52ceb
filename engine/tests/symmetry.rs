//! The 8 symmetries of the square, applied to layout and position together,
//! change nothing in the game.

use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::{Game, Notation, Symmetric, Symmetry};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A position reached by `plies` random moves on a layout drawn from `seed`.
fn random_position(seed: u64, plies: usize) -> (Heraldis, <Heraldis as Game>::State) {
    let mut rng = StdRng::seed_from_u64(seed);
    let layout = if seed.is_multiple_of(4) {
        Layout::default_layout()
    } else {
        Layout::random(&mut rng)
    };
    let game = Heraldis::new(layout);
    let mut state = game.initial_state();
    let mut actions = Vec::new();
    for _ in 0..plies {
        game.legal_actions(&state, &mut actions);
        if actions.is_empty() {
            break;
        }
        let action = actions[rng.random_range(0..actions.len())];
        state = game.play(&state, action).expect("legal");
    }
    (game, state)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn perft_is_the_same_under_every_symmetry(seed in any::<u64>(), plies in 0usize..40) {
        let (game, state) = random_position(seed, plies);
        let expected = game.perft(&state, 3);
        for index in 0..8 {
            let symmetry = Symmetry(index);
            let mapped_game = game.transformed(symmetry);
            let mapped = game.transform_state(&state, symmetry);
            prop_assert_eq!(mapped_game.perft(&mapped, 3), expected, "symmetry {}", index);
        }
    }

    #[test]
    fn legal_moves_map_onto_legal_moves(seed in any::<u64>(), plies in 0usize..60) {
        let (game, state) = random_position(seed, plies);
        let mut actions = Vec::new();
        let mut mapped_actions = Vec::new();
        game.legal_actions(&state, &mut actions);
        for index in 0..8 {
            let symmetry = Symmetry(index);
            let mapped_game = game.transformed(symmetry);
            let mapped = game.transform_state(&state, symmetry);
            mapped_game.legal_actions(&mapped, &mut mapped_actions);
            let mut expected: Vec<_> = actions
                .iter()
                .map(|&a| game.transform_action(a, symmetry))
                .collect();
            expected.sort();
            prop_assert_eq!(&mapped_actions, &expected);
            // Moves keep their notation's kind (placement, capture, pass).
            for &action in &actions {
                let text = game.format_action(&state, action);
                let mapped_text =
                    mapped_game.format_action(&mapped, game.transform_action(action, symmetry));
                prop_assert_eq!(text.starts_with('x'), mapped_text.starts_with('x'));
            }
        }
    }

    #[test]
    fn a_symmetry_composed_with_its_inverse_is_the_identity(
        seed in any::<u64>(),
        plies in 0usize..60,
    ) {
        let (game, state) = random_position(seed, plies);
        for index in 0..8 {
            let symmetry = Symmetry(index);
            let inverse = game.inverse_symmetry(symmetry);
            let mapped_game = game.transformed(symmetry);
            let restored = mapped_game.transformed(inverse);
            prop_assert_eq!(restored.layout(), game.layout());
            let back = mapped_game.transform_state(&game.transform_state(&state, symmetry), inverse);
            prop_assert_eq!(back, state);
            for action in 0..26u16 {
                let action = grandmaitre_engine::Action(action);
                prop_assert_eq!(
                    game.transform_action(game.transform_action(action, symmetry), inverse),
                    action
                );
            }
        }
    }
}
