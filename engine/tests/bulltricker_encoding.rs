//! Bulltricker's input planes of moves against the naive rules of the tests
//! (`support/bulltricker_naive.rs`, written from the rules alone): along
//! random games, the planes of the side to move's moves hold the pieces
//! that move, the cells they land on and the enemy pieces they take, as the
//! naive rules list them; the planes of the opponent's moves hold the same
//! of the position with the opponent to move.

#[path = "support/bulltricker_naive.rs"]
mod bulltricker_naive;

use std::collections::BTreeSet;

use bulltricker_naive::NaivePosition;
use grandmaitre_engine::bulltricker::{Bulltricker, GRID, PLANE_COUNT, PLANE_NAMES, board};
use grandmaitre_engine::{Game, Notation};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// The pieces that move, the cells they land on and the enemy pieces
/// taken, over the moves the naive rules list for the side to move of the
/// position `text`.
fn naive_moves(game: &Bulltricker, text: &str) -> [BTreeSet<usize>; 3] {
    let naive = NaivePosition::parse(text).expect("a naive position");
    // The engine reads the names and the pieces only.
    let state = game.parse_state(text).expect("a position");
    let enemy = state.side().opponent();
    let mut sets: [BTreeSet<usize>; 3] = Default::default();
    for name in naive.legal_moves() {
        let action = game.parse_action(&state, &name).expect("a legal move");
        sets[0].insert(action.index() / GRID);
        sets[1].insert(action.index() % GRID);
        let after = game
            .parse_state(&naive.play(&name).notation())
            .expect("the position after");
        sets[2].extend(board::rect_cells(
            state.pieces(enemy) & !after.pieces(enemy),
        ));
    }
    sets
}

/// The cells where plane `name` is 1 (it is 0 elsewhere).
fn plane(planes: &[f32], name: &str) -> BTreeSet<usize> {
    let index = PLANE_NAMES
        .iter()
        .position(|&n| n == name)
        .unwrap_or_else(|| panic!("no plane {name}"));
    let values = &planes[index * GRID..(index + 1) * GRID];
    assert!(values.iter().all(|&v| v == 0.0 || v == 1.0), "{name}");
    (0..GRID).filter(|&g| values[g] == 1.0).collect()
}

#[test]
fn the_planes_of_both_sides_moves_are_the_naive_rules_moves() {
    let game = Bulltricker::default();
    let mut rng = StdRng::seed_from_u64(17);
    let mut planes = vec![0.0; PLANE_COUNT * GRID];
    let (mut positions, mut threatened) = (0, 0);
    for _ in 0..12 {
        let mut state = game.initial_state();
        let plies = rng.random_range(20..120);
        while game.outcome(&state).is_none() && game.ply(&state) < plies {
            let text = game.format_state(&state);
            let text = text.split(" seen=").next().expect("a notation");
            let mut fields = text.split(' ');
            let (rows, side, count) = (
                fields.next().expect("rows"),
                fields.next().expect("side"),
                fields.next().expect("plies"),
            );
            let other = if side == "w" { "b" } else { "w" };
            let turned = format!("{rows} {other} {count}");
            game.encode(&state, &mut planes);
            let own = naive_moves(&game, text);
            let theirs = naive_moves(&game, &turned);
            let names = [
                "own pieces that can move (the capturing ones when a line capture is compulsory)",
                "cells own moves land on",
                "opponent pieces own moves take",
                "opponent pieces that could move were it to move (the capturing ones when a line capture would be compulsory)",
                "cells opponent moves would land on were it to move",
                "own pieces opponent moves would take were it to move",
            ];
            let expected = own.iter().chain(&theirs);
            for (name, cells) in names.iter().zip(expected) {
                assert_eq!(&plane(&planes, name), cells, "{name} in {text}");
            }
            positions += 1;
            threatened += usize::from(!theirs[2].is_empty());
            let mut actions = Vec::new();
            game.legal_actions(&state, &mut actions);
            let action = *actions.choose(&mut rng).expect("a move");
            state = game.play(&state, action).expect("legal");
        }
    }
    assert!(positions > 500, "{positions} positions");
    // Random play leaves pieces en prise: the opponent's captures were seen.
    assert!(threatened > positions / 10, "{threatened} of {positions}");
}
