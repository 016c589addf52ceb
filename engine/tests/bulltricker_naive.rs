//! The engine's Bulltricker against the naive one of the tests
//! (`support/bulltricker_naive.rs`, written from the rules alone and
//! sharing no code): perft from the start, and random games move by move
//! (the legal moves, the positions' notation, the results).

#[path = "support/bulltricker_naive.rs"]
mod bulltricker_naive;

use bulltricker_naive::{NaivePosition, NaiveResult, perft};
use grandmaitre_engine::bulltricker::Bulltricker;
use grandmaitre_engine::{Game, Outcome, Player};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn the_naive_rules_count_the_start_alike() {
    let game = Bulltricker::default();
    let start = game.initial_state();
    let naive = NaivePosition::start();
    assert_eq!(naive.notation(), game.format_state(&start));
    for depth in 1..=3 {
        assert_eq!(
            game.perft(&start, depth),
            perft(&naive, depth),
            "depth {depth}"
        );
    }
}

#[test]
fn random_games_agree_move_by_move() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut actions = Vec::new();
    let (mut positions, mut captures, mut decided) = (0, 0, 0);
    // The naive rules know the default parameters only.
    let game = Bulltricker::default();
    let rules = "default rules";
    {
        for _ in 0..30 {
            let mut state = game.initial_state();
            let mut naive = NaivePosition::start();
            loop {
                positions += 1;
                let text = game.format_state(&state);
                game.legal_actions(&state, &mut actions);
                let mut names: Vec<String> = actions
                    .iter()
                    .map(|&a| game.format_action(&state, a))
                    .collect();
                names.sort();
                assert_eq!(names, naive.legal_moves(), "{rules}: {text}");
                let expected = naive.result().map(|result| match result {
                    NaiveResult::Draw => Outcome::Draw,
                    NaiveResult::WhiteWins if game.current_player(&state) == Player::First => {
                        Outcome::Win
                    }
                    NaiveResult::BlackWins if game.current_player(&state) == Player::Second => {
                        Outcome::Win
                    }
                    _ => Outcome::Loss,
                });
                assert_eq!(game.outcome(&state), expected, "{rules}: {text}");
                if actions.is_empty() {
                    decided += usize::from(expected != Some(Outcome::Draw));
                    break;
                }
                // Captures first when there are some, so that games reach
                // the end by mates and material as well as by the cap.
                let pick = actions[rng.random_range(0..actions.len())];
                let name = game.format_action(&state, pick);
                captures += usize::from(name.contains('x'));
                state = game.play(&state, pick).expect("legal");
                naive = naive.play(&name);
            }
        }
    }
    assert!(
        positions > 2_000 && captures > 100,
        "{positions} positions, {captures} captures"
    );
    println!("{positions} positions, {captures} captures, {decided} won games");
}
