//! Facts of the Heraldis rules, each shown on a position in notation.

use grandmaitre_engine::heraldis::{Heraldis, Layout, PASS};
use grandmaitre_engine::{Action, Game, Hints, Notation, Outcome, Player};

fn game() -> Heraldis {
    Heraldis::default()
}

fn moves(game: &Heraldis, position: &str) -> Vec<String> {
    let state = game.parse_state(position).expect("position");
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    actions
        .iter()
        .map(|&a| game.format_action(&state, a))
        .collect()
}

fn play(game: &Heraldis, position: &str, text: &str) -> String {
    let state = game.parse_state(position).expect("position");
    let action = game.parse_action(&state, text).expect("move");
    game.format_state(&game.play(&state, action).expect("legal"))
}

#[test]
fn the_first_oath_puts_lights_first_piece_on_an_alliance() {
    let game = game();
    let first = moves(&game, "5/5/5/5/5 l - 0");
    assert_eq!(first.len(), 15);
    // a5 is an Aigle House, c5 an Ours+Sanglier Alliance.
    assert!(!first.contains(&"a5".to_string()));
    assert!(first.contains(&"c5".to_string()));
    // From the second move on, Houses are open.
    assert_eq!(moves(&game, "5/5/2L2/5/5 d - 1").len(), 24);
}

#[test]
fn a_capture_needs_houses_of_both_alliance_symbols() {
    let game = game();
    // Light owns the Cerf House d4 (C) but no Ours House: c3 (OC) is safe.
    let without = moves(&game, "5/3L1/2D2/5/5 l - 2");
    assert!(!without.contains(&"xc3".to_string()));
    // With the Ours House c4 as well, Light may take c3.
    let with = moves(&game, "5/2LL1/2D2/5/D4 l - 4");
    assert!(with.contains(&"xc3".to_string()));
    assert_eq!(
        play(&game, "5/2LL1/2D2/5/D4 l - 4", "xc3"),
        "5/2LL1/2L2/5/D4 d c3 5"
    );
}

#[test]
fn pieces_on_houses_are_immune() {
    let game = game();
    // Light owns every symbol through a5 (A), b5 (S), c4 (O), d4 (C), a3 (L);
    // Dark's pieces on the Houses e3 (L) and c2 (O) cannot be taken, its
    // piece on the Alliance d3 (LC) can.
    let position = "LL3/2LL1/L2DD/2D2/5 l - 10";
    let listed = moves(&game, position);
    assert!(listed.contains(&"xd3".to_string()));
    assert!(!listed.contains(&"xe3".to_string()));
    assert!(!listed.contains(&"xc2".to_string()));
}

#[test]
fn the_truce_forbids_the_immediate_retake_for_one_turn_only() {
    let game = game();
    // Dark has just taken c3 from Light; Light owns O (c4) and C (d4).
    let position = "D4/2LL1/2D2/1DD2/5 l c3 8";
    assert!(!moves(&game, position).contains(&"xc3".to_string()));
    // One turn later (Light placed b1, Dark placed e1), the retake is open.
    let later = play(&game, &play(&game, position, "b1"), "e1");
    assert_eq!(later, "D4/2LL1/2D2/1DD2/1L2D l - 10");
    assert!(moves(&game, &later).contains(&"xc3".to_string()));
}

#[test]
fn four_in_a_row_wins_for_the_mover_in_every_direction() {
    let game = game();
    let cases = [
        ("5/5/5/5/LLL2 l - 6", "d1"),    // a rank
        ("5/L4/L4/L4/5 l - 6", "a5"),    // a file
        ("5/3L1/2L2/1L3/5 l - 6", "e5"), // a diagonal
        ("5/1L3/2L2/3L1/5 l - 6", "a5"), // the other diagonal
    ];
    for (position, winning) in cases {
        let after = play(&game, position, winning);
        let state = game.parse_state(&after).expect("position");
        assert_eq!(game.outcome(&state), Some(Outcome::Loss), "{after}");
        assert_eq!(game.outcome_for(&state, Player::First), Some(Outcome::Win));
        assert!(moves(&game, &after).is_empty());
    }
}

#[test]
fn a_full_board_without_a_line_is_a_draw() {
    let game = game();
    let position = "LLDDL/DDLLD/LLDDL/DDLLD/LLDD1 l - 24";
    let after = play(&game, position, "e1");
    let state = game.parse_state(&after).expect("position");
    assert_eq!(game.outcome(&state), Some(Outcome::Draw));
}

#[test]
fn an_empty_reserve_forces_a_pass() {
    let game = game();
    let position = "LDDLD/LLD1D/LL1LL/DDDLD/DDDLD d - 27";
    assert_eq!(moves(&game, position), ["pass"]);
    assert_eq!(
        play(&game, position, "pass"),
        "LDDLD/LLD1D/LL1LL/DDDLD/DDDLD l - 28"
    );
    let state = game.parse_state(position).expect("position");
    assert!(game.is_legal(&state, PASS));
    assert!(!game.is_legal(&state, Action(12)));
}

#[test]
fn the_game_is_drawn_at_the_ply_limit() {
    let game = Heraldis::with_ply_limit(Layout::default_layout(), 8);
    let state = game
        .parse_state("5/5/1LDLD/LDL2/5 d - 7")
        .expect("position");
    assert!(game.outcome(&state).is_none());
    let after = game.play(&state, Action(0)).expect("a1 is free");
    assert_eq!(game.outcome(&after), Some(Outcome::Draw));
}

#[test]
fn the_board_render_shows_symbols_pieces_truce_and_moves() {
    let game = game();
    let state = game
        .parse_state("LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14")
        .expect("position");
    let text = game.render(&state);
    assert!(
        text.contains("5 | A  L | S  D | OS L | CS D*| AC . |"),
        "{text}"
    );
    assert!(text.contains("reserves: Light 8, Dark 6"));
    assert!(text.contains("truce: d5"));
    assert!(text.contains("legal moves (14): a1 c1 e1 a2 d2 e2 b3 xc3 d3 a4 b4 c4 e4 e5"));
}

#[test]
fn the_final_owners_are_the_pieces_on_the_board() {
    // Light has completed a1-d1; Dark holds a2, b2 and c2.
    let game = game();
    let end = game
        .parse_state("5/5/5/DDD2/LLLL1 d - 7")
        .expect("position");
    // Dark, to move, has lost.
    assert_eq!(game.outcome(&end), Some(Outcome::Loss));
    let mut light = vec![9.0; 25];
    assert!(game.ownership(&end, Player::First, &mut light));
    let mut expected = vec![0.0; 25];
    expected[..4].fill(1.0);
    expected[5..8].fill(-1.0);
    assert_eq!(light, expected);
    let mut dark = vec![9.0; 25];
    assert!(game.ownership(&end, Player::Second, &mut dark));
    assert!(light.iter().zip(&dark).all(|(l, d)| *l == -d));
}
