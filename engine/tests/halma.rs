//! Halma's rules as facts: the start's moves counted by hand, jumps, the
//! yard rule, the win, the draw limit, the notation and its errors, the
//! reflection, the yard rule decided in advance, and the generic
//! conformance check on both sizes.

use std::collections::BTreeSet;

use grandmaitre_engine::conformance::check_random_games;
use grandmaitre_engine::halma::{self, Halma};
use grandmaitre_engine::search::{Search, SearchConfig, UniformEvaluator};
use grandmaitre_engine::{Forcing, Game, Hints, Notation, Outcome, Player, Symmetric, Symmetry};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn play(game: &Halma, moves: &str) -> <Halma as Game>::State {
    let mut state = game.initial_state();
    for text in moves.split_whitespace() {
        let action = game
            .parse_action(&state, text)
            .unwrap_or_else(|e| panic!("{e}"));
        state = game.play(&state, action).expect("legal");
    }
    state
}

fn moves(game: &Halma, state: &<Halma as Game>::State) -> BTreeSet<String> {
    let mut actions = Vec::new();
    game.legal_actions(state, &mut actions);
    actions
        .iter()
        .map(|&a| game.format_action(state, a))
        .collect()
}

#[test]
fn the_start_has_the_24_moves_counted_by_hand() {
    let game = Halma::default();
    let start = game.initial_state();
    assert_eq!(
        game.format_state(&start),
        "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 0 0"
    );
    // The front row steps forward; the pieces behind jump over it, and
    // a3, b2, c1 also step into the holes diagonally.
    let expected: BTreeSet<String> = [
        "a4-a5", "a4-b4", "a4-b5", "b3-b4", "b3-c4", "b3-c3", "c2-c3", "c2-d3", "c2-d2", "d1-d2",
        "d1-e2", "d1-e1", "a3-b4", "a3-a5", "a3-c3", "b2-c3", "b2-b4", "b2-d2", "a2-c4", "c1-d2",
        "c1-c3", "c1-e1", "b1-d3", "a1-c3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(moves(&game, &start), expected);
    // 10 × 10: 15 pieces a side, 32 moves.
    let game = Halma::of_size(10);
    assert_eq!(game.perft(&game.initial_state(), 1), 32);
}

#[test]
fn a_jump_path_is_read_by_its_ends_and_written_as_them() {
    let game = Halma::default();
    let state = game
        .parse_state("8/2B2B2/3B4/1BB1B1B1/WB1B1B2/WW6/WWW5/WWWW4 w 12 12")
        .expect("position");
    // a4 over b5 to c6, over d6 to e6, over f7 to g8: one move a4-g8.
    let full = game.parse_action(&state, "a4-c6-e6-g8").expect("a path");
    let ends = game.parse_action(&state, "a4-g8").expect("the ends");
    assert_eq!(full, ends);
    assert_eq!(game.format_action(&state, full), "a4-g8");
    for (text, reason) in [
        ("a4-a4", "cannot reach a4"),
        ("a5-a6", "no White piece on a5"),
        ("a4-h8", "cannot reach h8"),
        ("a4", "expected two cells a1 to h8"),
        ("a4-i9", "expected two cells a1 to h8"),
        ("pass", "a pass is legal only without a move"),
    ] {
        let error = game.parse_action(&state, text).expect_err(text).to_string();
        assert!(error.contains(reason), "{text}: {error}");
        assert_eq!(error.lines().count(), 1);
    }
}

#[test]
fn past_the_yard_limit_a_piece_at_home_loses_and_all_pieces_in_the_opposite_yard_win() {
    // With a limit of 1, White's second move is past it: nine pieces are
    // still at home, whatever it plays.
    let game = Halma::with_rules("size=8 limit=1").expect("rules");
    let state = play(&game, "d1-e2 e8-d7");
    assert_eq!(game.outcome(&state), None);
    let after = play(&game, "d1-e2 e8-d7 e2-f3");
    assert_eq!(
        game.outcome(&after),
        Some(Outcome::Win),
        "Black to move wins"
    );
    // With compare=ge the rule binds from move 1: White's first move loses.
    let game = Halma::with_rules("size=8 limit=1 compare=ge").expect("rules");
    let after = play(&game, "d1-e2");
    assert_eq!(game.current_player(&after), Player::Second);
    assert_eq!(game.outcome(&after), Some(Outcome::Win));
    // White's last piece enters Black's yard: White wins.
    let game = Halma::default();
    let state = game
        .parse_state("4WWWW/5WWW/6WW/8/4B2W/BB6/BBB5/BBBB4 w 40 40")
        .expect("position");
    let action = game.parse_action(&state, "h4-h5").expect("move");
    let after = game.play(&state, action).expect("legal");
    assert_eq!(
        game.outcome(&after),
        Some(Outcome::Loss),
        "Black to move lost"
    );
    assert!(game.render(&after).contains("result: White wins"));
}

#[test]
fn the_draw_limit_ends_the_game_after_the_second_players_move() {
    let game = Halma::with_rules("size=8 draw=2").expect("rules");
    let state = play(&game, "d1-e2 e8-d7 e2-f3");
    assert_eq!(game.outcome(&state), None, "Black has one move left");
    let state = play(&game, "d1-e2 e8-d7 e2-f3 d7-c6");
    assert_eq!(game.outcome(&state), Some(Outcome::Draw));
    assert_eq!(game.perft(&state, 1), 0);
}

#[test]
fn with_race_adjudication_the_draw_limit_goes_to_the_side_nearer_its_goal() {
    let game = Halma::with_rules("size=8 draw=2 adjudicate=race").expect("rules");
    // Each side brought one piece four files plus ranks nearer: level.
    let level = play(&game, "d1-e2 e8-d7 e2-f3 d7-c6");
    assert_eq!(game.outcome(&level), Some(Outcome::Draw));
    // Black's piece stops one short (d6 is 3 + 5 from a1, f3 is 2 + 5 from
    // h8): White, to move, has won.
    let ahead = play(&game, "d1-e2 e8-d7 e2-f3 d7-d6");
    assert_eq!(game.outcome(&ahead), Some(Outcome::Win));
    assert!(game.render(&ahead).contains("result: White wins"));
    // Before the limit nothing changes, and without the rule it is a draw.
    assert_eq!(game.outcome(&play(&game, "d1-e2 e8-d7 e2-f3")), None);
    let plain = Halma::with_rules("size=8 draw=2").expect("rules");
    assert_eq!(
        plain.outcome(&play(&plain, "d1-e2 e8-d7 e2-f3 d7-d6")),
        Some(Outcome::Draw)
    );
}

#[test]
fn positions_round_trip_and_bad_ones_get_one_line_errors() {
    let game = Halma::default();
    for text in [
        "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 0 0",
        "8/2B2B2/3B4/1BB1B1B1/WB1B1B2/WW6/WWW5/WWWW4 b 13 12 passed",
    ] {
        let state = game.parse_state(text).expect(text);
        assert_eq!(game.format_state(&state), text);
    }
    let cases = [
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 0",
            "expected 4 or 5 fields",
        ),
        ("4BBBB/5BBB/6BB/7B/W7/WW6/WWW5 w 0 0", "expected 8 ranks"),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW5 w 0 0",
            "rank 1 has 9 cells",
        ),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWX4 w 0 0",
            "unexpected 'X'",
        ),
        (
            "4BBBB/5BBB/6BB/8/W7/WW6/WWW5/WWWW4 w 0 0",
            "Black has 9 pieces, expected 10",
        ),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 x 0 0",
            "side to move must be w or b",
        ),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 0 0 later",
            "the fifth field",
        ),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 201 0",
            "more than the draw limit",
        ),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 31 30",
            "would have lost at its move 31",
        ),
        (
            "4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w x 0",
            "White's moves must be a whole number",
        ),
    ];
    for (text, reason) in cases {
        let error = game.parse_state(text).expect_err(text).to_string();
        assert!(error.contains(reason), "{text}: {error}");
        assert_eq!(error.lines().count(), 1);
    }
    // Black's 31st move left its pieces at home: a finished game, White won.
    let over = game
        .parse_state("4BBBB/5BBB/6BB/7B/W7/WW6/WWW5/WWWW4 w 31 31")
        .expect("a finished game");
    assert_eq!(game.outcome(&over), Some(Outcome::Win));
}

#[test]
fn parameters_round_trip_and_bad_ones_are_refused() {
    for text in [
        "size=8 limit=30 compare=gt corner=a1 draw=200",
        "size=10 limit=50 compare=ge corner=h1 draw=300",
        "size=8 limit=30 compare=gt corner=a1 draw=40 adjudicate=race",
    ] {
        let game = Halma::with_rules(text).expect(text);
        assert_eq!(game.rules().to_string(), text);
    }
    assert_eq!(Halma::with_rules("size=10").expect("size").yard_limit(), 50);
    for (text, reason) in [
        ("size=9", "size must be 8 or 10, not '9'"),
        ("limit=0", "limit must be a whole number from 1 to 1000"),
        ("compare=eq", "compare must be gt or ge, not 'eq'"),
        ("corner=e5", "corner must be a1, h1 or j1, not 'e5'"),
        (
            "adjudicate=material",
            "adjudicate must be none or race, not 'material'",
        ),
        (
            "base=8",
            "unknown field 'base=8': expected size=8|10, limit=L, compare=gt|ge, corner=a1|h1, draw=M, adjudicate=none|race",
        ),
    ] {
        let error = Halma::with_rules(text).expect_err(text).to_string();
        assert!(error.contains(reason), "{text}: {error}");
    }
}

#[test]
fn the_reflection_keeps_the_yards_and_maps_moves_onto_moves() {
    let game = Halma::default();
    let state = game
        .parse_state("4BB2/5BB1/6BB/WW2B3/1W2B1B1/1W1B4/WWW5/WW2W3 w 7 7")
        .expect("position");
    let mirror = game.transform_state(&state, Symmetry(1));
    // a4 and b4 (White) go to d1 and d2.
    assert!(game.format_state(&mirror).ends_with(" w 7 7"));
    let ours = moves(&game, &mirror);
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    let mapped: BTreeSet<String> = actions
        .iter()
        .map(|&a| game.format_action(&mirror, game.transform_action(a, Symmetry(1))))
        .collect();
    assert_eq!(ours, mapped);
    assert_eq!(game.transform_state(&mirror, Symmetry(1)), state);
}

/// The value of `name`'s plane (one of `halma::PLANE_NAMES`) at `cell`.
fn plane(game: &Halma, state: &<Halma as Game>::State, name: &str, cell: &str) -> f32 {
    let shape = game.spec().observation_shape;
    let cells = shape[1] * shape[2];
    let mut planes = vec![f32::NAN; shape[0] * cells];
    game.encode(state, &mut planes);
    let index = halma::PLANE_NAMES
        .iter()
        .position(|n| n.starts_with(name))
        .unwrap_or_else(|| panic!("no plane {name}"));
    let cell = game.board().parse_cell(cell).expect("cell");
    planes[index * cells + cell]
}

#[test]
fn the_race_planes_measure_each_side_from_its_goal_corner() {
    for size in [8, 10] {
        let game = Halma::of_size(size);
        let start = game.initial_state();
        let last = game.board().cell_name(game.board().cell_count() - 1);
        // White (to move) goes to the far corner, Black to a1.
        for (name, a1, far) in [
            ("each cell's files plus ranks to the own goal", 1.0, 0.0),
            ("each cell's files plus ranks to the opponent's", 0.0, 1.0),
        ] {
            assert_eq!(plane(&game, &start, name, "a1"), a1);
            assert_eq!(plane(&game, &start, name, &last), far);
        }
        // Every yard full, every race whole.
        for name in [
            "constant: own pieces' files",
            "constant: opponent pieces' files",
            "constant: own pieces in the own yard",
            "constant: opponent pieces in its own yard",
        ] {
            assert_eq!(plane(&game, &start, name, "a1"), 1.0, "{name}");
        }
    }
    // After White's a4-a5 Black is to move: its own planes are Black's,
    // its goal corner is a1, White's race is one step shorter of its 120
    // files plus ranks to h8 (a1 at 14, two pieces at 13, three at 12,
    // four at 11), and a White piece left its yard.
    let game = Halma::default();
    let state = play(&game, "a4-a5");
    assert_eq!(
        plane(
            &game,
            &state,
            "each cell's files plus ranks to the own goal",
            "a1"
        ),
        0.0
    );
    assert_eq!(
        plane(&game, &state, "constant: own pieces' files", "h8"),
        1.0
    );
    assert_eq!(
        plane(&game, &state, "constant: opponent pieces' files", "h8"),
        119.0 / 120.0
    );
    assert_eq!(
        plane(
            &game,
            &state,
            "constant: opponent pieces in its own yard",
            "h8"
        ),
        0.9
    );
    assert_eq!(
        plane(&game, &state, "constant: own pieces in the own yard", "h8"),
        1.0
    );
    // The reflection keeps each yard and corner: the planes move with it.
    let mirror = game.transform_state(&state, Symmetry(1));
    assert_eq!(
        plane(&game, &mirror, "constant: opponent pieces' files", "c4"),
        119.0 / 120.0
    );
}

#[test]
fn random_games_pass_the_conformance_check_on_both_sizes() {
    for (rules, games) in [
        ("size=8", 60),
        ("size=10", 20),
        ("size=8 corner=h1 limit=10", 60),
    ] {
        let game = Halma::with_rules(rules).expect("rules");
        let report = check_random_games(&game, games, 5);
        assert_eq!(report.games, games, "{rules}");
    }
}

#[test]
fn a_reverse_start_is_a_live_position_walked_back_from_the_end() {
    for size in [8, 10] {
        let game = Halma::of_size(size);
        let board = game.board();
        for plies in [1, 5, 40, 200] {
            for seed in 0..20 {
                let state = game
                    .reverse_start(plies, seed)
                    .expect("Halma has reverse starts");
                assert_eq!(game.reverse_start(plies, seed), Some(state), "seeded");
                assert_eq!(game.outcome(&state), None, "the game goes on");
                assert_eq!(game.current_player(&state), Player::First);
                assert_eq!(state.moves, [0, 0], "counted afresh");
                let text = game.format_state(&state);
                assert_eq!(game.parse_state(&text).expect("reads back"), state);
                for (side, goal) in [
                    (Player::First, Player::Second),
                    (Player::Second, Player::First),
                ] {
                    let pieces = state.pieces(side);
                    assert_eq!(pieces.count_ones(), board.pieces_per_side(), "{text}");
                    assert_ne!(pieces, board.yard(goal), "not done yet: {text}");
                }
                assert_eq!(
                    state.pieces(Player::First) & state.pieces(Player::Second),
                    0
                );
                if plies == 1 {
                    // One move of each side back: White's own move back is
                    // a move forward that wins at once.
                    let mut actions = Vec::new();
                    game.legal_actions(&state, &mut actions);
                    let wins: Vec<_> = actions
                        .iter()
                        .copied()
                        .filter(|&action| {
                            let next = game.play(&state, action).expect("legal");
                            game.outcome_for(&next, Player::First) == Some(Outcome::Win)
                        })
                        .collect();
                    assert!(!wins.is_empty(), "{text}");
                    // And the rules list exactly those without playing
                    // every move (the decisive moves).
                    let mut forced = Vec::new();
                    assert_eq!(game.forcing_moves(&state, &mut forced), Forcing::Wins);
                    assert_eq!(forced, wins, "{text}");
                }
            }
        }
    }
}

#[test]
fn an_opening_walk_is_a_live_position_walked_from_the_start_with_its_counts() {
    for size in [8, 10] {
        let game = Halma::of_size(size);
        let board = game.board();
        let start = game.initial_state();
        let limit = game.yard_limit();
        for plies in [1, 10, 100] {
            let (mut white_ahead, mut black_ahead, mut fewest) = (0, 0, u32::MAX);
            let mut white_to_move = 0;
            for seed in 0..40 {
                let state = game
                    .opening_walk(plies, seed)
                    .expect("Halma has opening walks");
                assert_eq!(game.opening_walk(plies, seed), Some(state), "seeded");
                assert_ne!(state, start);
                assert_eq!(game.outcome(&state), None, "the game goes on");
                // White to move after as many moves each, or Black after
                // one more of White's.
                let [white, black] = state.moves;
                match game.current_player(&state) {
                    Player::First => {
                        assert_eq!(white, black);
                        assert_eq!(white, (plies as u16).min(limit - 1), "the true counts");
                        white_to_move += 1;
                    }
                    Player::Second => {
                        assert_eq!(white, black + 1);
                        assert_eq!(black, (plies as u16).min(limit - 2), "the true counts");
                    }
                }
                let text = game.format_state(&state);
                assert_eq!(game.parse_state(&text).expect("reads back"), state);
                let at_home = [Player::First, Player::Second].map(|side| {
                    assert_eq!(state.pieces(side).count_ones(), board.pieces_per_side());
                    (state.pieces(side) & board.yard(side)).count_ones()
                });
                white_ahead += usize::from(at_home[0] < at_home[1]);
                black_ahead += usize::from(at_home[1] < at_home[0]);
                fewest = fewest.min(at_home[0]).min(at_home[1]);
                if plies == 1 {
                    // One move each (two for White before Black's turn): as
                    // many pieces of each side have moved at most.
                    for side in [Player::First, Player::Second] {
                        let moved = state.pieces(side) & !start.pieces(side);
                        let made = u32::from(state.moves[side.index()]);
                        assert!((1..=made).contains(&moved.count_ones()), "{text}");
                    }
                }
            }
            assert!((10..=30).contains(&white_to_move), "{white_to_move} of 40");
            if plies == 100 {
                // Either side may be the one behind, and a purposeful side
                // empties its yard within the limit.
                assert!(
                    white_ahead > 5 && black_ahead > 5,
                    "{white_ahead} {black_ahead}"
                );
                assert_eq!(fewest, 0);
            }
        }
    }
}

#[test]
fn the_yard_rule_is_decided_once_a_yard_holds_more_pieces_than_moves_left() {
    // White keeps a1 b1 a2 at home; Black's yard is empty in the first
    // board, holds g8 h8 h7 in the second. The limit is 30: the rule binds
    // from move 31, so with n moves made a side has 31 − n moves left.
    let empty_black_yard = "8/8/BBBBB3/BBBBB3/8/8/W3WWW1/WW2WWWW";
    let three_at_home = "6BB/7B/BBBBB3/BB6/8/8/W3WWW1/WW2WWWW";
    let gt = Halma::default();
    let ge = Halma::with_rules("size=8 compare=ge").expect("rules");
    for (game, board, rest, decided) in [
        // Three pieces, three moves left: not decided.
        (&gt, empty_black_yard, "w 28 28", None),
        // Two moves left: White cannot empty its yard in time.
        (&gt, empty_black_yard, "w 29 28", Some(Outcome::Loss)),
        // The same seen by Black to move: Black wins.
        (&gt, empty_black_yard, "b 29 28", Some(Outcome::Win)),
        // With `ge` the rule binds at move 30: two moves left at 28.
        (&ge, empty_black_yard, "w 28 28", Some(Outcome::Loss)),
        // Black is short of moves and White, not short, binds later.
        (&gt, three_at_home, "w 20 29", Some(Outcome::Win)),
        // Both short: White's binding move comes first.
        (&gt, three_at_home, "w 29 29", Some(Outcome::Loss)),
        // Black short and binding before White's move 31.
        (&gt, three_at_home, "w 28 29", Some(Outcome::Win)),
        // White short; Black, three moves at home and 21 moves left, binds
        // later.
        (&gt, three_at_home, "w 29 10", Some(Outcome::Loss)),
        // Black short, but White may lose first at its own move 31 (ply 5
        // from now, Black's binding move at ply 6): not decided.
        (&gt, three_at_home, "w 28 28", None),
    ] {
        let text = format!("{board} {rest}");
        let state = game.parse_state(&text).expect("position");
        assert_eq!(game.outcome(&state), None, "{text}: live");
        assert_eq!(game.decided(&state), decided, "{text}");
    }
}

#[test]
fn a_decided_yard_rule_holds_in_random_games_without_passes() {
    // Random games in which a side never plays a move that loses at once
    // while it has another (so never back into its own yard past its
    // limit by choice): every decision, once made, is the game's result,
    // unless the game ends with a side that had only losing moves against
    // the decision (the rule's escape, with passes: none is met here,
    // checked). Both sizes, both readings of the limit.
    for rules in ["size=8", "size=8 compare=ge", "size=10", "size=8 limit=12"] {
        let game = Halma::with_rules(rules).expect("rules");
        let mut rng = SmallRng::seed_from_u64(11);
        let (mut held, mut escaped) = (0, 0);
        let mut actions = Vec::new();
        for _ in 0..40 {
            let mut state = game.initial_state();
            let mut claims = Vec::new();
            let mut forced = false;
            while game.outcome(&state).is_none() {
                if let Some(outcome) = game.decided(&state) {
                    claims.push((game.current_player(&state), outcome));
                }
                game.legal_actions(&state, &mut actions);
                let safe: Vec<_> = actions
                    .iter()
                    .copied()
                    .filter(|&action| {
                        let after = game.play(&state, action).expect("legal");
                        game.outcome(&after) != Some(Outcome::Win)
                    })
                    .collect();
                forced = safe.is_empty();
                let choices = if forced { &actions } else { &safe };
                let action = choices[rng.random_range(0..choices.len())];
                assert_ne!(game.format_action(&state, action), "pass", "{rules}");
                state = game.play(&state, action).expect("legal");
            }
            let result = game.outcome(&state).expect("over");
            for (player, outcome) in claims {
                let actual = if game.current_player(&state) == player {
                    result
                } else {
                    result.flipped()
                };
                if actual == outcome {
                    held += 1;
                } else {
                    assert!(forced, "{rules}: {}", game.format_state(&state));
                    escaped += 1;
                }
            }
        }
        assert!(
            held > 100 && escaped * 20 < held,
            "{rules}: {held} held, {escaped} escaped"
        );
    }
}

#[test]
fn the_search_proves_a_position_whose_every_move_leaves_the_yard_too_full() {
    // White has three pieces deep at home (a1 b1 a2) and three moves left:
    // none of them can leave the yard in one move, so every move leaves
    // more pieces than moves and is decided; the search proves the loss.
    let game = Halma::default();
    let state = game
        .parse_state("8/8/BBBBB3/BBBBB3/8/8/W3WWW1/WW2WWWW w 28 28")
        .expect("position");
    assert_eq!(game.decided(&state), None);
    let config = SearchConfig {
        simulations: 400,
        ..SearchConfig::default()
    };
    let mut search = Search::new(game.clone(), state, config, 3);
    let result = search.run(&UniformEvaluator);
    assert_eq!(result.proof, Some(Outcome::Loss));
    assert!(search.node_count() < 400, "proven before the budget");
    // Without the rule's decision, the same search proves nothing.
    let config = SearchConfig {
        simulations: 400,
        decisive_moves: false,
        ..SearchConfig::default()
    };
    let mut search = Search::new(game, state, config, 3);
    assert_eq!(search.run(&UniformEvaluator).proof, None);
}
