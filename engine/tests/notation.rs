//! Reading and writing positions and moves, and the one-line errors for bad
//! text.

use grandmaitre_engine::Game;
use grandmaitre_engine::heraldis::Heraldis;

fn position_error(text: &str) -> String {
    let error = Heraldis::default()
        .parse_state(text)
        .expect_err(text)
        .to_string();
    assert!(!error.contains('\n'), "{error}");
    error
}

#[test]
fn positions_round_trip() {
    let game = Heraldis::default();
    for text in [
        "5/5/5/5/5 l - 0",
        "LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14",
        "DD1L1/3D1/DL2L/1LLD1/3LD l d2 14",
        "LDDLD/LLD1D/LL1LL/DDDLD/DDDLD d - 27",
    ] {
        let state = game.parse_state(text).expect(text);
        assert_eq!(game.format_state(&state), text);
    }
}

#[test]
fn bad_positions_say_what_is_wrong() {
    let cases = [
        ("", "expected 4 fields"),
        ("5/5/5/5/5 l - 0 extra", "expected 4 fields"),
        ("5/5/5/5 l - 0", "expected 5 ranks"),
        ("5/5/5/5/X4 l - 0", "bad character 'X' in rank 1"),
        ("5/5/5/5/6 l - 0", "bad character '6' in rank 1"),
        ("5/5/5/5/4LL l - 2", "rank 1 has more than 5 cells"),
        ("5/5/5/5/4 l - 0", "rank 1 has 4 cells, expected 5"),
        ("5/5/5/5/5 w - 0", "bad side 'w'"),
        ("5/5/5/5/5 l z9 0", "bad truce 'z9'"),
        ("5/5/5/5/5 l - -1", "bad ply '-1'"),
        ("5/5/5/5/5 d - 0", "side 'd' cannot move at ply 0"),
        ("5/5/5/5/5 l - 152", "beyond the limit of 150 plies"),
        ("5/5/5/5/L4 d - 0", "side 'd' cannot move at ply 0"),
        (
            "5/5/5/5/L4 l - 0",
            "Light has 1 pieces after only 0 of its turns",
        ),
        (
            "LLLLL/LLLLL/LLLL1/5/5 l - 60",
            "Light has 14 pieces, at most 13 exist",
        ),
        (
            "5/5/5/5/LLLL1 d - 5",
            "Light has 4 pieces after only 3 of its turns",
        ),
        (
            "5/5/5/5/LLLL1 l - 8",
            "the side to move already has four in a row",
        ),
        (
            "5/5/5/5/L4 l a1 2",
            "does not hold a piece of the side that just captured",
        ),
        ("D4/5/5/5/L4 l a5 2", "truce cell a5 is a House"),
    ];
    for (text, expected) in cases {
        let error = position_error(text);
        assert!(
            error.contains(expected),
            "'{text}': expected '{expected}' in: {error}"
        );
        assert!(error.starts_with("invalid position '"), "{error}");
    }
}

#[test]
fn moves_read_bare_cells_captures_and_pass() {
    let game = Heraldis::default();
    let state = game
        .parse_state("LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14")
        .expect("position");
    let capture = game.parse_action(&state, "xc3").expect("xc3");
    assert_eq!(game.parse_action(&state, "c3"), Ok(capture));
    assert_eq!(game.format_action(&state, capture), "xc3");
    let placement = game.parse_action(&state, "a1").expect("a1");
    assert_eq!(game.format_action(&state, placement), "a1");
}

#[test]
fn bad_moves_say_what_is_wrong() {
    let game = Heraldis::default();
    let state = game
        .parse_state("LDLD1/3D1/L1D1D/1LL2/1D1D1 l d5 14")
        .expect("position");
    let cases = [
        ("", "expected a cell a1-e5"),
        ("f3", "expected a cell a1-e5"),
        ("xx", "expected a cell a1-e5"),
        ("C3", "expected a cell a1-e5"),
        ("xa1", "a capture needs an opponent piece on that cell"),
        ("xd5", "illegal move"),  // under Truce
        ("b5", "illegal move"),   // a Dark piece on a House
        ("a5", "illegal move"),   // Light's own piece
        ("pass", "illegal move"), // Light has pieces in reserve
    ];
    for (text, expected) in cases {
        let error = game.parse_action(&state, text).expect_err(text).to_string();
        assert!(error.contains(expected), "'{text}': {error}");
        assert!(error.starts_with("invalid move '"), "{error}");
    }
}

#[test]
fn game_parameters_round_trip_and_bad_ones_say_why() {
    let game = Heraldis::default();
    let text = game.parameters();
    assert_eq!(
        text,
        "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A | 150"
    );
    assert_eq!(
        Heraldis::with_parameters(&text).map(|g| g.parameters()),
        Ok(text.clone())
    );
    // The layout may be named as `--layout` names it.
    assert_eq!(
        Heraldis::with_parameters("default | 150").map(|g| g.parameters()),
        Ok(text)
    );
    let random = Heraldis::with_parameters("random:3 | 40").expect("a random layout");
    assert!(random.parameters().ends_with("| 40"));
    for (bad, expected) in [
        ("A S OS", "expected '<layout> | <ply limit>'"),
        ("A S | 150", "invalid layout"),
        (
            "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A | x",
            "the ply limit must be a whole number",
        ),
        (
            "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A | 0",
            "the ply limit must be positive",
        ),
    ] {
        let error = Heraldis::with_parameters(bad).expect_err(bad).to_string();
        assert!(error.contains(expected), "{bad}: {error}");
    }
}
