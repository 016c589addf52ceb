//! Havannah: the conformance check, win puzzles, the swap rule, notation and
//! bad input. (Symmetries: `havannah_symmetry.rs`; a naive reference
//! implementation: `havannah_naive.rs`; OpenSpiel: `scripts/havannah/`.)

use grandmaitre_engine::conformance::check_random_games;
use grandmaitre_engine::game::random_states;
use grandmaitre_engine::havannah::{Havannah, Position, Status, Structures};
use grandmaitre_engine::{Action, Forcing, Game, Hints, Notation, Outcome, Player};

/// Plays the moves named in `moves` from the start.
fn play(game: &Havannah, moves: &str) -> Position {
    let mut state = game.initial_state();
    for name in moves.split_whitespace() {
        let action = game
            .parse_action(&state, name)
            .unwrap_or_else(|e| panic!("{e}"));
        state = game.play(&state, action).expect("parsed moves are legal");
    }
    state
}

/// The structures of the player who moved last.
fn last_mover_structures(game: &Havannah, state: &Position) -> Structures {
    game.structures(state, state.side_to_move().opponent())
}

/// Plays `moves`, checks that the game goes on before the last one and that
/// the last one wins, and returns what the winner formed.
fn winning_structures(game: &Havannah, moves: &str) -> Structures {
    let (before, _) = moves.rsplit_once(' ').expect("two moves or more");
    let state = play(game, before);
    assert_eq!(
        game.outcome(&state),
        None,
        "already over before the last move"
    );
    let state = play(game, moves);
    assert_eq!(
        game.outcome(&state),
        Some(Outcome::Loss),
        "the last move wins"
    );
    let winner = state.side_to_move().opponent();
    assert_eq!(state.winner(), Some(winner));
    assert_eq!(game.outcome_for(&state, winner), Some(Outcome::Win));
    last_mover_structures(game, &state)
}

const RING: Structures = Structures {
    bridge: false,
    fork: false,
    ring: true,
};

#[test]
fn random_games_pass_the_conformance_check_on_base_8() {
    for swap in [true, false] {
        let report = check_random_games(&Havannah::new(8, swap), 30, 1);
        assert_eq!(report.games, 30);
        assert!(report.results[0] > 0 && report.results[2] > 0, "{report:?}");
    }
}

#[test]
fn random_games_pass_the_conformance_check_on_other_bases() {
    for base in [2, 3, 4, 5, 10] {
        let report = check_random_games(&Havannah::new(base, base % 2 == 0), 20, base as u64);
        assert_eq!(report.games, 20);
    }
}

#[test]
fn the_spec_matches_openspiel() {
    let game = Havannah::default();
    let spec = game.spec();
    assert_eq!(spec.name, "havannah");
    assert_eq!(spec.action_count, 225);
    assert_eq!(spec.observation_shape, [7, 15, 15]);
    assert_eq!(spec.encoding_version, 1);
    assert_eq!(spec.symmetry_count, 12);
    // 169 cells, and one more ply for the swap.
    assert_eq!(spec.max_game_length, 170);
    assert_eq!(Havannah::new(8, false).spec().max_game_length, 169);
    assert_eq!(Havannah::new(10, false).spec().action_count, 361);
}

#[test]
fn a_ring_around_an_empty_cell_wins() {
    let game = Havannah::new(8, false);
    // White surrounds h8; Black plays along the a file (one edge, no win).
    let ring = "g7 a2 h7 a3 i8 a4 i9 a5 h9 a6 g8";
    assert_eq!(winning_structures(&game, ring), RING);
}

#[test]
fn a_ring_around_an_opponent_stone_wins() {
    let game = Havannah::new(8, false);
    let ring = "g7 h8 h7 a2 i8 a3 i9 a4 h9 a5 g8";
    assert_eq!(winning_structures(&game, ring), RING);
}

#[test]
fn a_ring_around_an_own_stone_wins() {
    // The six neighbours of White's h8 (OpenSpiel counts this too).
    let game = Havannah::new(8, false);
    let flower = "h8 a2 g7 a3 h7 a4 i8 a5 i9 a6 h9 a7 g8";
    assert_eq!(winning_structures(&game, flower), RING);
}

#[test]
fn a_ring_may_use_edge_and_corner_cells() {
    // a1 b1 c2 c3 b3 a2 around b2: one corner, two edges, a ring.
    let game = Havannah::new(8, false);
    let ring = "a1 h8 b1 h9 c2 h10 c3 h11 b3 h12 a2";
    assert_eq!(winning_structures(&game, ring), RING);
}

#[test]
fn a_bridge_joins_two_corners() {
    let game = Havannah::new(8, false);
    // a1 and h1 are corners; Black plays down the middle of the h file.
    let bridge = "a1 h8 b1 h9 c1 h10 d1 h11 e1 h12 f1 h13 g1 h14 h1";
    let formed = winning_structures(&game, bridge);
    assert_eq!(
        formed,
        Structures {
            bridge: true,
            fork: false,
            ring: false
        }
    );
}

#[test]
fn a_fork_touches_three_edges() {
    // Base 4: c1 is on the edge y = 0, a2 on x = 0, e2 on x − y = 3.
    let game = Havannah::new(4, false);
    let fork = "c1 d4 c2 e4 b2 e5 a2 d5 d2 c4 e2";
    let formed = winning_structures(&game, fork);
    assert_eq!(
        formed,
        Structures {
            bridge: false,
            fork: true,
            ring: false
        }
    );
    let state = play(&game, fork);
    let expected = r"
        a b c d
     1 . . W . e
    2 W W W W W f
   3 . . . . . . g
  4 . . B B B . .
   5 . . B B . .
    6 . . . . .
     7 . . . .
position: 2W1/WWWWW/6/2BBB2/2BB2/5/4 b
to move: Black (b), ply 11
swap: off
game over: White wins (fork)
";
    assert_eq!(game.render(&state), expected[1..]);
}

#[test]
fn near_misses_do_not_win() {
    let game = Havannah::new(8, false);
    for (what, moves) in [
        (
            "five of the six cells around h8",
            "g7 a2 h7 a3 i8 a4 i9 a5 h9",
        ),
        ("the sixth is Black's", "g7 g8 h7 a3 i8 a4 i9 a5 h9"),
        ("three stones in a triangle", "g7 a2 h7 a3 h8"),
        // a4 is on the boundary: stones on its four neighbours enclose nothing.
        ("the neighbours of an edge cell", "a3 h8 b4 h9 b5 h10 a5"),
        // Two edges and the corner between them: a corner is on no edge.
        ("two edges and a corner", "b1 h8 a1 h9 a2"),
        ("one corner and an edge", "a1 h8 b1 h9 c1 h10 d1"),
    ] {
        let state = play(&game, moves);
        assert_eq!(game.outcome(&state), None, "{what}");
        assert_eq!(
            last_mover_structures(&game, &state),
            Structures::default(),
            "{what}"
        );
    }
    // Black's stone on g8 breaks White's ring for good.
    let state = play(&game, "g7 g8 h7 a3 i8 a4 i9 a5 h9");
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    assert_eq!(actions.len(), 160);
}

#[test]
fn a_full_board_without_a_winner_is_a_draw() {
    // Base 3, 19 cells: found by random play and checked against OpenSpiel.
    let game = Havannah::new(3, false);
    let state = game
        .parse_state("BWB/BWWW/WBWWB/BWBB/WBW b")
        .expect("position");
    assert_eq!(state.status(), Status::Drawn);
    assert_eq!(game.outcome(&state), Some(Outcome::Draw));
    assert_eq!(state.ply(), 19);
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    assert!(actions.is_empty());
    // One cell short of full, the game goes on; filling it draws.
    let before = game
        .parse_state("BWB/BWWW/WBWWB/BWBB/WB1 w")
        .expect("position");
    assert_eq!(game.outcome(&before), None);
    let last = game.parse_action(&before, "e5").expect("e5");
    assert_eq!(game.play(&before, last), Ok(state));
}

#[test]
fn the_swap_takes_over_whites_first_stone() {
    let game = Havannah::default();
    let first = play(&game, "h8");
    let mut actions = Vec::new();
    game.legal_actions(&first, &mut actions);
    // 168 empty cells and White's stone.
    assert_eq!(actions.len(), 169);
    let h8 = game.parse_action(&first, "h8").expect("h8");
    assert_eq!(h8, Action(7 + 7 * 15));
    assert_eq!(game.parse_action(&first, "swap"), Ok(h8));
    assert_eq!(game.format_action(&first, h8), "h8");
    let swapped = game.play(&first, h8).expect("the swap is legal");
    assert!(swapped.swapped());
    assert_eq!(swapped.ply(), 2);
    assert_eq!(swapped.side_to_move(), Player::First);
    assert_eq!(swapped.stones(Player::First).count(), 0);
    assert_eq!(swapped.stones(Player::Second).count(), 1);
    assert_eq!(
        game.format_state(&swapped),
        "8/9/10/11/12/13/14/7B7/14/13/12/11/10/9/8 w"
    );
    // White moves on an empty cell; no second swap.
    game.legal_actions(&swapped, &mut actions);
    assert_eq!(actions.len(), 168);
    assert!(!game.is_legal(&swapped, h8));
    let later = play(&game, "h8 h8 a1");
    assert!(game.parse_action(&later, "swap").is_err());
    assert!(!game.is_legal(&later, Action(0)));
    assert_eq!(later.side_to_move(), Player::Second);
    // The swapped position reads back.
    let text = game.format_state(&later);
    assert_eq!(game.parse_state(&text), Ok(later));
}

#[test]
fn without_the_swap_rule_the_first_stone_stays() {
    let game = Havannah::new(8, false);
    let first = play(&game, "h8");
    let h8 = Action(7 + 7 * 15);
    assert!(!game.is_legal(&first, h8));
    assert!(game.play(&first, h8).is_err());
    let error = game.parse_action(&first, "swap").expect_err("no swap");
    assert_eq!(
        error.to_string(),
        "invalid move 'swap': no swap is possible now"
    );
    // A position only the swap can reach is refused.
    let swapped = "8/9/10/11/12/13/14/7B7/14/13/12/11/10/9/8 w";
    let error = game.parse_state(swapped).expect_err("no swap rule");
    assert!(error.to_string().contains("need the swap rule"), "{error}");
    assert!(Havannah::default().parse_state(swapped).is_ok());
}

#[test]
fn moves_are_named_as_in_openspiel() {
    let game = Havannah::default();
    let start = game.initial_state();
    for (name, id) in [("a1", 0), ("h1", 7), ("h8", 112), ("o15", 224), ("o8", 119)] {
        let action = game.parse_action(&start, name).expect(name);
        assert_eq!(action, Action(id), "{name}");
        assert_eq!(game.format_action(&start, action), name);
    }
    let mut actions = Vec::new();
    game.legal_actions(&start, &mut actions);
    assert_eq!(actions.len(), 169);
    assert_eq!(&actions[..9], &[0, 1, 2, 3, 4, 5, 6, 7, 15].map(Action));
    // Two plies: 169 × 168 placements and the swap after each first move.
    assert_eq!(game.perft(&start, 2), 169 * 169);
}

#[test]
fn positions_round_trip() {
    let game = Havannah::default();
    let start = "8/9/10/11/12/13/14/15/14/13/12/11/10/9/8 w";
    assert_eq!(game.format_state(&game.initial_state()), start);
    assert_eq!(game.parse_state(start), Ok(game.initial_state()));
    let state = play(&game, "h8 a1 o15 b2 h9");
    let text = game.format_state(&state);
    assert_eq!(text, "B7/1B7/10/11/12/13/14/7W7/6W7/13/12/11/10/9/7W b");
    assert_eq!(game.parse_state(&text), Ok(state));
}

fn position_error(game: &Havannah, text: &str) -> String {
    let error = game.parse_state(text).expect_err(text).to_string();
    assert!(!error.contains('\n'), "{error}");
    assert!(error.starts_with("invalid position '"), "{error}");
    error
}

#[test]
fn bad_positions_say_what_is_wrong() {
    let game = Havannah::new(3, true);
    for (text, expected) in [
        ("", "expected 2 fields '<rows> <side>', found 0"),
        ("3/4/5/4/3 w x", "expected 2 fields"),
        ("3/4/5/4 w", "expected 5 rows separated by '/', found 4"),
        ("3/4/5/4/3 x", "bad side 'x': expected 'w' or 'b'"),
        ("3/4/5/4/2X w", "bad character 'X' in row 5"),
        ("3/4/5/4/2WW w", "row 5 has more than 3 cells"),
        ("3/4/6/4/3 w", "row 3 has more than 5 cells"),
        ("3/4/4/4/3 w", "row 3 has 4 cells, expected 5"),
        (
            "3/4/5/4/3 b",
            "0 White and 0 Black stones cannot have Black to move",
        ),
        (
            "WW1/4/5/4/3 b",
            "2 White and 0 Black stones cannot have Black to move",
        ),
        (
            "W2/4/5/4/3 w",
            "1 White and 0 Black stones cannot have White to move",
        ),
        ("WWW/4/5/4/BBB b", "Black to move has already won (bridge)"),
        ("WWW/4/5/4/BBB w", "White to move has already won (bridge)"),
    ] {
        let error = position_error(&game, text);
        assert!(
            error.contains(expected),
            "'{text}': expected '{expected}' in: {error}"
        );
    }
    // White's bridge with Black to move is a finished game, not an error.
    let won = game.parse_state("WWW/4/5/4/BB1 b").expect("finished game");
    assert_eq!(won.winner(), Some(Player::First));
    assert_eq!(
        game.parse_state("WWW/4/5/4/B2 w").map_err(|e| e.to_string()),
        Err("invalid position 'WWW/4/5/4/B2 w': 3 White and 1 Black stones cannot have White to move".into())
    );
}

#[test]
fn bad_moves_say_what_is_wrong() {
    let game = Havannah::default();
    let state = play(&game, "h8 a1 o15");
    for (text, expected) in [
        ("", "expected a cell of the board, a1 to o15, or swap"),
        ("h", "expected a cell of the board"),
        ("H8", "expected a cell of the board"),
        ("h08", "expected a cell of the board"),
        ("h0", "expected a cell of the board"),
        ("a9", "expected a cell of the board"), // off the hexagon
        ("p1", "expected a cell of the board"),
        ("h16", "expected a cell of the board"),
        ("a1", "the cell is taken"),
        ("h8", "the cell is taken"),
        ("swap", "no swap is possible now"),
    ] {
        let error = game.parse_action(&state, text).expect_err(text).to_string();
        assert!(error.contains(expected), "'{text}': {error}");
        assert!(error.starts_with("invalid move '"), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
    let over = play(&Havannah::new(8, false), "g7 a2 h7 a3 i8 a4 i9 a5 h9 a6 g8");
    let error = Havannah::new(8, false)
        .parse_action(&over, "b8")
        .expect_err("game over");
    assert_eq!(error.to_string(), "invalid move 'b8': the game is over");
}

#[test]
fn game_parameters_round_trip_and_bad_ones_say_why() {
    let game = Havannah::default();
    assert_eq!(game.rules().to_string(), "base=8 swap=1");
    assert_eq!(Havannah::new(6, false).rules().to_string(), "base=6 swap=0");
    for (text, parameters) in [
        ("base=8 swap=1", "base=8 swap=1"),
        ("swap=0 base=10", "base=10 swap=0"),
        ("base=4", "base=4 swap=1"),
        ("", "base=8 swap=1"),
    ] {
        let game = Havannah::with_rules(text).expect(text);
        assert_eq!(game.rules().to_string(), parameters);
    }
    for (bad, expected) in [
        (
            "base=1",
            "base must be a whole number from 2 to 10, not '1'",
        ),
        (
            "base=11",
            "base must be a whole number from 2 to 10, not '11'",
        ),
        ("base=x", "base must be a whole number from 2 to 10"),
        ("swap=yes", "swap must be 0 or 1, not 'yes'"),
        (
            "size=8",
            "unknown field 'size=8': expected base=<n>, swap=0|1",
        ),
        ("base8", "unknown field 'base8'"),
    ] {
        let error = Havannah::with_rules(bad).expect_err(bad).to_string();
        assert!(error.contains(expected), "{bad}: {error}");
        assert!(error.starts_with("invalid game parameters '"), "{error}");
    }
}

#[test]
fn the_render_shows_the_board_and_the_swap() {
    let game = Havannah::new(3, true);
    let state = play(&game, "c3");
    let expected = r"
       a b c
    1 . . . d
   2 . . . . e
  3 . . W . .
   4 . . . .
    5 . . .
position: 3/4/2W2/4/3 b
to move: Black (b), ply 1
swap: available: play c3 to take over White's stone
legal moves: 19
";
    assert_eq!(game.render(&state), expected[1..]);
}

/// The moves that win at once for the side to move, found by playing each.
fn brute_force_wins(game: &Havannah, state: &Position) -> Vec<Action> {
    let mut actions = Vec::new();
    game.legal_actions(state, &mut actions);
    actions
        .into_iter()
        .filter(|&action| {
            game.outcome(&game.play(state, action).expect("legal")) == Some(Outcome::Loss)
        })
        .collect()
}

#[test]
fn forcing_moves_name_the_win_in_one_and_the_cell_to_block() {
    let game = Havannah::new(8, false);
    // White's a1…g1 needs h1 for a bridge between the corners a1 and h1.
    let threat = "a1 h8 b1 h9 c1 h10 d1 h11 e1 h12 f1 h13 g1";
    let h1 = game
        .parse_action(&game.initial_state(), "h1")
        .expect("a cell");
    let mut moves = Vec::new();
    // Black to move: White threatens h1.
    let state = play(&game, threat);
    assert_eq!(game.forcing_moves(&state, &mut moves), Forcing::Blocks);
    assert_eq!(moves, [h1]);
    // Black plays elsewhere: White wins on h1.
    let state = play(&game, &format!("{threat} h14"));
    assert_eq!(game.forcing_moves(&state, &mut moves), Forcing::Wins);
    assert_eq!(moves, [h1]);
    // Black blocks: nothing is forced any more.
    let state = play(&game, &format!("{threat} h1"));
    assert_eq!(game.forcing_moves(&state, &mut moves), Forcing::Free);
    assert!(moves.is_empty());
}

#[test]
fn forcing_moves_miss_no_win_and_no_threat_in_random_positions() {
    for (base, seed) in [(4, 1), (5, 2), (8, 3)] {
        let game = Havannah::new(base, true);
        let cells = game.board().cell_count();
        let mut moves = Vec::new();
        let mut claimed = [0usize; 3];
        for state in random_states(&game, 300, cells, seed) {
            if game.outcome(&state).is_some() {
                continue;
            }
            let forcing = game.forcing_moves(&state, &mut moves);
            let wins = brute_force_wins(&game, &state);
            match forcing {
                Forcing::Wins => {
                    claimed[0] += 1;
                    assert_eq!(moves, wins);
                }
                Forcing::Blocks => {
                    claimed[1] += 1;
                    assert!(wins.is_empty());
                }
                Forcing::Free => {
                    claimed[2] += 1;
                    assert!(
                        wins.is_empty(),
                        "{}: a win was missed",
                        game.format_state(&state)
                    );
                    // Were the opponent threatening a cell, one of two
                    // different moves would leave it open.
                    let mut actions = Vec::new();
                    game.legal_actions(&state, &mut actions);
                    for &action in actions.iter().take(2) {
                        let next = game.play(&state, action).expect("legal");
                        assert!(
                            brute_force_wins(&game, &next).is_empty(),
                            "{}: a threat was missed",
                            game.format_state(&state)
                        );
                    }
                }
            }
        }
        assert!(claimed.iter().all(|&n| n > 0), "base {base}: {claimed:?}");
    }
}
