//! The engine's Bulltricker against the naive one of the tests
//! (`support/bulltricker_naive.rs`, written from the rules alone and
//! sharing no code): the perft fixtures (`fixtures/bulltricker.perft`: the
//! start and a position for each rule), and random games move by move (the
//! legal moves, the positions' notation, the results).

#[path = "support/bulltricker_naive.rs"]
mod bulltricker_naive;

use bulltricker_naive::{NaivePosition, NaiveResult, perft};
use grandmaitre_engine::bulltricker::Bulltricker;
use grandmaitre_engine::{Game, Notation, Outcome, Player};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn the_naive_rules_count_the_fixtures_alike() {
    let game = Bulltricker::default();
    let naive_start = NaivePosition::start();
    assert_eq!(
        naive_start.notation(),
        game.format_state(&game.initial_state())
    );
    let fixtures = include_str!("fixtures/bulltricker.perft");
    let mut checked = 0;
    for line in fixtures.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (text, counts) = line.split_once('|').expect("position | counts");
        let state = game.parse_state(text.trim()).expect("position");
        let naive = NaivePosition::parse(text.trim()).expect("naive position");
        for (depth, count) in counts.split_whitespace().enumerate() {
            let depth = depth as u32 + 1;
            let count: u64 = count.parse().expect("count");
            assert_eq!(game.perft(&state, depth), count, "{text} depth {depth}");
            assert_eq!(perft(&naive, depth), count, "naive: {text} depth {depth}");
            checked += 1;
        }
    }
    assert_eq!(checked, 4 + 22 * 3);
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
                // A random legal move: line captures being compulsory,
                // random games also end by material and by mates.
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
