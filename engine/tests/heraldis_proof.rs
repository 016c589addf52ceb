//! The independent check of the shipped proof that Light wins Heraldis on
//! the default layout (`checkpoints/heraldis/solution/default.proof`,
//! written by `grandmaitre solve --out`): every node of the solution tree
//! replayed with the naive rules of the tests, which share no code with
//! the engine. At Light's positions the book's move must be legal, at
//! Dark's every legal move is followed, and every line must end in a Light
//! win under the real rules (the 150-ply limit): the tree is closed and
//! winning.

mod support;

use std::collections::{HashMap, HashSet};

use support::naive::{DEFAULT_LAYOUT, NaiveGame, Piece, notation};

/// Checks the proof `text` from the start: returns the positions visited
/// (Light's, Dark's, finished).
fn check(text: &str) -> [usize; 3] {
    let (header, lines): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| l.starts_with('#'));
    assert!(header[0].contains(DEFAULT_LAYOUT), "{}", header[0]);
    assert!(
        header.contains(&"# root: 5/5/5/5/5 l - 0"),
        "the claim: {header:?}"
    );
    assert!(header.contains(&"# winner: light"), "the claim: {header:?}");
    let book: HashMap<&str, &str> = lines
        .into_iter()
        .map(|line| line.split_once('\t').expect("POSITION<TAB>MOVE"))
        .collect();
    let game = NaiveGame::new(&DEFAULT_LAYOUT.replace(" / ", "/"));
    assert_eq!(game.ply_limit, 150, "the real rules");
    let start = game.parse("5/5/5/5/5 l - 0");
    let mut seen = HashSet::new();
    let mut counts = [0; 3];
    let mut stack = vec![start];
    while let Some(state) = stack.pop() {
        let name = notation(&state);
        if !seen.insert(name.clone()) {
            continue;
        }
        if game.is_over(&state) {
            assert_eq!(
                game.winner(&state),
                Some(Piece::Light),
                "{name}: not a Light win"
            );
            counts[2] += 1;
            continue;
        }
        let moves = game.moves(&state);
        if state.to_move == Piece::Light {
            let wanted = book
                .get(name.as_str())
                .unwrap_or_else(|| panic!("{name}: Light's position is not in the proof"));
            let action = moves
                .iter()
                .copied()
                .find(|&m| game.move_name(&state, m) == *wanted)
                .unwrap_or_else(|| panic!("{name}: {wanted} is not legal"));
            stack.push(game.play(&state, action));
            counts[0] += 1;
        } else {
            stack.extend(moves.into_iter().map(|m| game.play(&state, m)));
            counts[1] += 1;
        }
    }
    counts
}

#[test]
fn the_shipped_proof_that_light_wins_the_default_layout_checks() {
    let text = include_str!("../../checkpoints/heraldis/solution/default.proof");
    let [light, dark, ends] = check(text);
    // Every Light position of the book is met, and only those.
    assert_eq!(light, text.lines().filter(|l| !l.starts_with('#')).count());
    assert!(dark > 0 && ends > 0, "{light} {dark} {ends}");
}

#[test]
fn a_proof_with_a_hole_or_an_illegal_move_fails_the_check() {
    let text = include_str!("../../checkpoints/heraldis/solution/default.proof");
    // Without the line of one of Light's positions.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(5);
    let holed = lines.join("\n");
    assert!(std::panic::catch_unwind(|| check(&holed)).is_err());
    // With the start's move changed to one that is not legal (e1 is a
    // House: no stone there on the first move).
    let (first, rest) = text
        .split_once("5/5/5/5/5 l - 0\t")
        .expect("the start's line");
    let (_, after) = rest.split_once('\n').expect("its move");
    let wrong = format!("{first}5/5/5/5/5 l - 0\te1\n{after}");
    let error = std::panic::catch_unwind(|| check(&wrong)).expect_err("refused");
    let message = error.downcast_ref::<String>().expect("a message");
    assert!(message.contains("e1 is not legal"), "{message}");
}
