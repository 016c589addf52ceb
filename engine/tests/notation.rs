//! Reading and writing positions and moves, and the one-line errors for bad
//! text.

use grandmaitre_engine::heraldis::{Heraldis, HeraldisRules, Layout};
use grandmaitre_engine::{Game, Notation};

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
fn the_rules_read_in_one_syntax_and_the_earlier_spellings_still_read() {
    let game = Heraldis::default();
    let text = game.rules().to_string();
    assert_eq!(text, "layout=default limit=150");
    assert_eq!(text.parse::<HeraldisRules>(), Ok(HeraldisRules::default()));
    // A layout other than the default is written cell by cell and reads
    // back to the same rules.
    let random = Heraldis::with_rules("layout=random:3 limit=40").expect("a random layout");
    let written = random.rules().to_string();
    assert!(
        written.starts_with("layout=") && written.ends_with(" limit=40"),
        "{written}"
    );
    assert_eq!(written.split('/').count(), 5, "{written}");
    assert_eq!(
        written.parse::<HeraldisRules>().as_ref(),
        Ok(random.rules())
    );
    // Either field may be left out; the empty text is the default rules.
    assert_eq!("".parse(), Ok(HeraldisRules::default()));
    assert_eq!(
        "limit=40"
            .parse::<HeraldisRules>()
            .map(|rules| rules.layout),
        Ok(Layout::default_layout())
    );
    // The earlier spellings: a layout alone, or `<layout> | <ply limit>`.
    let full = "A S OS CS AC / LS LA O C OA / L LC OC LC L / OA C O LA LS / AC CS OS S A";
    for earlier in ["default", full, &format!("{full} | 150"), "default | 150"] {
        assert_eq!(earlier.parse(), Ok(HeraldisRules::default()), "{earlier}");
    }
    assert_eq!(
        "random:3 | 40".parse::<HeraldisRules>().as_ref(),
        Ok(random.rules())
    );
    for (bad, expected) in [
        ("A S OS", "invalid layout"),
        ("A S | 150", "invalid layout"),
        (
            &format!("{full} | x"),
            "the ply limit must be a whole number",
        ),
        (
            &format!("{full} | 0"),
            "the ply limit must be a whole number from 1",
        ),
        ("limit=0", "limit must be a whole number from 1"),
        ("layout=A,S", "layout: expected 5 ranks"),
        ("size=8", "unknown field 'size=8'"),
    ] {
        let error = Heraldis::with_rules(bad).expect_err(bad).to_string();
        assert!(error.contains(expected), "{bad}: {error}");
    }
}
