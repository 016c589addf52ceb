//! Bulltricker's rules as facts: the start's moves counted by hand, the
//! notation and its errors, and the generic conformance check.

use grandmaitre_engine::bulltricker::Bulltricker;
use grandmaitre_engine::conformance::check_random_games;
use grandmaitre_engine::{Game, Hints, Notation, Player};

fn moves(game: &Bulltricker, state: &<Bulltricker as Game>::State) -> Vec<String> {
    let mut actions = Vec::new();
    game.legal_actions(state, &mut actions);
    let mut names: Vec<String> = actions
        .iter()
        .map(|&a| game.format_action(state, a))
        .collect();
    names.sort();
    names
}

#[test]
fn the_start_has_the_50_moves_counted_by_hand() {
    let game = Bulltricker::default();
    let start = game.initial_state();
    let list = moves(&game, &start);
    // Each Queen steps diagonally onto H8 (one or two rectangles: 14);
    // each transversal Pawn one or two steps straight on (14); each Pawn
    // of allée 2 straight on and onto its free diagonals (8 + 14). The
    // King and the Queens' lines are shut in.
    let queens = list
        .iter()
        .filter(|m| {
            m.starts_with("A1") && m.ends_with(|c: char| c.is_ascii_digit()) && m.contains("-H8")
        })
        .count();
    let transversal = list.iter().filter(|m| m.starts_with("H7")).count();
    let second_row = list.iter().filter(|m| m.starts_with("A2")).count();
    assert_eq!((queens, transversal, second_row), (14, 14, 22));
    assert_eq!(list.len(), 50);
    assert!(list.contains(&"H7C4-H5C4".to_string()), "the two-step");
    assert_eq!(game.current_player(&start), Player::First);
    let text = game.render(&start);
    assert!(
        text.contains("A1   Q  .  Q  .  Q  .  Q  K  Q  .  Q  .  Q  .  Q"),
        "{text}"
    );
    assert!(text.contains("White to move"));
}

#[test]
fn positions_and_moves_read_back_and_bad_ones_get_one_line_errors() {
    let game = Bulltricker::default();
    let start = game.initial_state();
    let text = game.format_state(&start);
    assert_eq!(game.parse_state(&text).expect("reads back"), start);
    let good = "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0";
    assert!(game.parse_state(good).is_ok());
    for (bad, reason) in [
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13 w 0",
            "expected 15 rows",
        ),
        (
            "8/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
            "row H1 describes 8 cells",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/R13P/7/1K13/7 w 0",
            "unknown piece 'R'",
        ),
        (
            "7/15/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
            "Black has no King",
        ),
        (
            "7/k14/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
            "a King on A7V1",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/1P13/7/1K13/7 w 0",
            "a P on A2C1, a royal square",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 x 0",
            "side to move 'x'",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w -1",
            "plies '-1'",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 500",
            "more than the cap 400",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 4 seen=9",
            "not seen=N",
        ),
        (
            "7/1k13/7/1K13/7/15/7/15/7/15/7/P13P/7/15/7 w 0",
            "side by side",
        ),
        (
            "P6/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7 w 0",
            "White Pawn on the opposing back line",
        ),
        (
            "7/13k1/7/15/7/15/7/15/7/15/7/P13P/7/1K13/7",
            "expected 3 or 4 fields",
        ),
    ] {
        let error = game.parse_state(bad).expect_err(bad).to_string();
        assert!(error.contains(reason), "{bad}: {error}");
        assert_eq!(error.lines().count(), 1);
    }
    for (bad, reason) in [
        ("A2V1", "expected FROM-TO"),
        ("A2V1-A9V1", "'A9V1' names no cell"),
        ("A3V1-A4V1", "no White piece on A3V1"),
        ("A7V1-A6V1", "no White piece on A7V1"),
        ("A2V1-A4V1", "the piece on A2V1 cannot go to A4V1"),
    ] {
        let error = game.parse_action(&start, bad).expect_err(bad).to_string();
        assert!(error.contains(reason), "{bad}: {error}");
        assert_eq!(error.lines().count(), 1);
    }
    // Any case, either separator.
    let a = game.parse_action(&start, "h7c4-h5c4").expect("lower case");
    assert_eq!(game.parse_action(&start, "H7C4xH5C4").expect("x"), a);
    assert_eq!(game.format_action(&start, a), "H7C4-H5C4");
}

#[test]
fn a_line_capture_excludes_the_other_moves_and_is_written_with_x() {
    let game = Bulltricker::default();
    // White's Pawn on H4C3 faces a Black Pawn on H3C3 with H2C3 free
    // beyond: it must take.
    // With the Black Pawn beside the line, no capture: ordinary moves.
    let state = game
        .parse_state("7/13k1/7/15/4p2/15/2P4/15/7/15/7/P13P/7/1K13/7 w 0")
        .expect("position");
    assert!(moves(&game, &state).len() > 5);
    let state = game
        .parse_state("7/13k1/7/15/2p4/15/2P4/15/7/15/7/P13P/7/1K13/7 w 0")
        .expect("position");
    assert_eq!(moves(&game, &state), ["H4C3xH2C3"]);
    let error = game
        .parse_action(&state, "A2V1-A3V1")
        .expect_err("compulsory")
        .to_string();
    assert!(error.contains("a line capture is compulsory"), "{error}");
}

#[test]
fn parameters_round_trip_and_bad_ones_are_refused() {
    let game = Bulltricker::with_rules("plies=90 material=6 repetitions=2").expect("rules");
    assert_eq!(
        game.rules().to_string(),
        "plies=90 material=6 repetitions=2"
    );
    assert_eq!(
        Bulltricker::default().rules().to_string(),
        "plies=400 material=4 repetitions=3"
    );
    for (bad, reason) in [
        ("plies=0", "plies must be a whole number from 1"),
        (
            "colour=red",
            "unknown field 'colour=red': expected plies=N, material=M, repetitions=R, adjudicate=none|material",
        ),
        ("plies", "unknown field 'plies': expected plies=N"),
        ("repetitions=x", "repetitions must be"),
        (
            "adjudicate=race",
            "adjudicate must be none or material, not 'race'",
        ),
    ] {
        let error = Bulltricker::with_rules(bad).expect_err(bad).to_string();
        assert!(error.contains(reason), "{bad}: {error}");
    }
}

#[test]
fn with_material_adjudication_the_ply_cap_goes_to_the_side_with_more_material() {
    use grandmaitre_engine::Outcome;
    let first_move = |game: &Bulltricker, state: &<Bulltricker as Game>::State| {
        let mut actions = Vec::new();
        game.legal_actions(state, &mut actions);
        game.play(state, actions[0]).expect("legal")
    };
    // Black a Pawn short, White's move reaches the cap of 10 plies.
    let text = "7/q1q1q1qkq1q1q1q/pppppp1/p1p1p1p1p1p1p1p/7/15/7/15/7/15/7/P1P1P1P1P1P1P1P/PPPPPPP/Q1Q1Q1QKQ1Q1Q1Q/7 w 9";
    let game = Bulltricker::with_rules("plies=10 adjudicate=material").expect("rules");
    assert_eq!(
        game.rules().to_string(),
        "plies=10 material=4 repetitions=3 adjudicate=material"
    );
    let over = first_move(&game, &game.parse_state(text).expect("position"));
    assert_eq!(
        game.outcome(&over),
        Some(Outcome::Loss),
        "Black to move lost"
    );
    assert!(
        game.render(&over)
            .contains("result: White wins on material")
    );
    // Without the rule it is a draw, and so it is with level material.
    let plain = Bulltricker::with_rules("plies=10").expect("rules");
    let over = first_move(&plain, &plain.parse_state(text).expect("position"));
    assert_eq!(plain.outcome(&over), Some(Outcome::Draw));
    let level = Bulltricker::with_rules("plies=1 adjudicate=material").expect("rules");
    let over = first_move(&level, &level.initial_state());
    assert_eq!(level.outcome(&over), Some(Outcome::Draw));
}

#[test]
fn random_games_pass_the_conformance_check() {
    let game = Bulltricker::default();
    let report = check_random_games(&game, 10, 7);
    assert_eq!(report.games, 10);
    let game = Bulltricker::with_rules("plies=60 material=12 repetitions=2").expect("rules");
    check_random_games(&game, 10, 8);
}

#[test]
fn the_decisive_moves_are_exactly_the_mates_in_one() {
    use grandmaitre_engine::agent::Agent;
    use grandmaitre_engine::bulltricker::baselines::GreedyAgent;
    use grandmaitre_engine::{Forcing, Outcome};
    // Greedy players squeeze the Kings: their games meet mates in one.
    let game = Bulltricker::default();
    let mut actions = Vec::new();
    let mut forced = Vec::new();
    let (mut positions, mut with_mates) = (0, 0);
    for seed in 0..12 {
        let mut players = [GreedyAgent::new(seed), GreedyAgent::new(seed + 100)];
        let mut state = game.initial_state();
        while game.outcome(&state).is_none() {
            game.legal_actions(&state, &mut actions);
            let mates: Vec<_> = actions
                .iter()
                .copied()
                .filter(|&a| {
                    let next = game.play(&state, a).expect("legal");
                    game.outcome(&next) == Some(Outcome::Loss)
                })
                .collect();
            let forcing = game.forcing_moves(&state, &mut forced);
            let text = game.format_state(&state);
            if mates.is_empty() {
                assert_eq!(forcing, Forcing::Free, "{text}");
            } else {
                assert_eq!((forcing, &forced), (Forcing::Wins, &mates), "{text}");
                with_mates += 1;
            }
            positions += 1;
            let player = &mut players[game.current_player(&state).index()];
            let action = player.select(&game, &state);
            state = game.play(&state, action).expect("legal");
        }
    }
    println!("{with_mates} positions with a mate in one of {positions}");
    assert!(
        with_mates > 0 && positions > 500,
        "{with_mates} of {positions}"
    );
}

#[test]
fn an_opening_walk_is_a_live_middle_game_walked_from_the_start() {
    let game = Bulltricker::default();
    let start = game.initial_state();
    let pieces = start.pieces(Player::First).count_ones();
    assert_eq!(start.pieces(Player::Second).count_ones(), pieces);
    for plies in [1, 10, 30] {
        let mut unbalanced = 0;
        for seed in 0..30 {
            let Some(state) = game.opening_walk(plies, seed) else {
                continue;
            };
            assert_eq!(
                game.opening_walk(plies, seed).map(|s| s.key),
                Some(state.key),
                "seeded"
            );
            assert_eq!(game.outcome(&state), None, "the game goes on");
            assert_eq!(game.ply(&state), 2 * plies as usize);
            assert_eq!(game.current_player(&state), Player::First);
            // The position reads back as one the rules allow.
            let text = game.format_state(&state);
            let read = game.parse_state(&text).expect("a walk is a legal position");
            assert_eq!(game.format_state(&read), text);
            // Pieces are only lost (a promoted Pawn is worth more).
            let [white, black] = [Player::First, Player::Second].map(|p| state.material(p));
            for player in [Player::First, Player::Second] {
                assert!(state.pieces(player).count_ones() <= pieces);
            }
            unbalanced += usize::from(white != black);
        }
        if plies == 1 {
            assert_eq!(unbalanced, 0, "no capture in the first two plies");
        } else if plies == 30 {
            assert!(
                unbalanced >= 10,
                "random play loses material: {unbalanced} of 30"
            );
        }
    }
}

#[test]
fn an_ending_start_is_a_thinned_board_with_the_whole_cap_ahead() {
    let game = Bulltricker::default();
    let start = game.initial_state();
    let rectangles = |state: &<Bulltricker as Game>::State| {
        [Player::First, Player::Second].map(|p| state.pieces(p).count_ones())
    };
    let full = rectangles(&start);
    let (mut thinned, mut unbalanced, mut starts) = (0, 0, 0);
    for seed in 0..20 {
        let Some(state) = game.reverse_start(120, seed) else {
            continue;
        };
        starts += 1;
        let walked = game.opening_walk(120, seed).expect("the same walk");
        assert_eq!(state.key, walked.key, "the walk's pieces, seeded");
        assert_eq!(game.ply(&state), 0, "the ply count starts afresh");
        assert_eq!(state.earlier_occurrences(), 0, "so do the repetitions");
        assert_eq!(game.outcome(&state), None, "the game goes on");
        let text = game.format_state(&state);
        let read = game.parse_state(&text).expect("a legal position");
        assert_eq!(game.format_state(&read), text);
        let now = rectangles(&state);
        thinned += usize::from(now[0] + now[1] <= (full[0] + full[1]) / 2);
        unbalanced += usize::from(state.material(Player::First) != state.material(Player::Second));
    }
    assert!(
        starts >= 10,
        "most walks of 120 moves a side go on: {starts}"
    );
    assert!(
        thinned >= starts / 2,
        "most such walks leave half the pieces or fewer: {thinned} of {starts}"
    );
    assert!(
        unbalanced >= starts / 2,
        "and uneven material: {unbalanced} of {starts}"
    );
}

/// The uniform evaluator, remembering the positions it was asked about.
#[derive(Default)]
struct Recording(std::sync::Mutex<Vec<String>>);

impl grandmaitre_engine::search::Evaluator<Bulltricker> for Recording {
    fn evaluate(
        &self,
        requests: &[grandmaitre_engine::search::EvaluationRequest<'_, Bulltricker>],
        output: &mut grandmaitre_engine::search::Evaluations,
    ) {
        let mut seen = self.0.lock().expect("lock");
        for request in requests {
            seen.push(request.game.format_state(request.state));
        }
        grandmaitre_engine::search::UniformEvaluator.evaluate(requests, output);
    }
}

#[test]
fn a_compulsory_capture_that_is_the_only_move_costs_no_evaluation() {
    use grandmaitre_engine::search::{Search, SearchConfig, Tactics};
    let game = Bulltricker::default();
    // Black's Queen on H1C2 must take the Pawn on H2C2 along its line.
    let text = "1q5/q1q1q1qk2q1q1q/p1p1ppp/p1p1p1p1p1p1p1p/7/15/3p3/2p12/7/15/7/P1P1P1P1P1P1P1P/PPPPPPP/Q1Q1Q2K2Q1Q1Q/2Q1Q2 b 11";
    let state = game.parse_state(text).expect("position");
    assert_eq!(moves(&game, &state), ["H1C2xH8C2"]);
    for skip in [false, true] {
        let config = SearchConfig {
            simulations: 32,
            tactics: Tactics {
                skip_single_moves: skip,
                ..Tactics::default()
            },
            ..SearchConfig::default()
        };
        let evaluator = Recording::default();
        let mut search = Search::new(game.clone(), state.clone(), config, 1);
        let result = search.run(&evaluator);
        let asked = evaluator.0.lock().expect("lock").clone();
        // Without the skip, the first simulation evaluates the position
        // itself; with it, every simulation goes through the capture.
        assert_eq!(asked.iter().any(|p| p == text), !skip, "skip {skip}");
        assert_eq!(result.children.len(), 1);
        assert_eq!(result.children[0].visits, if skip { 32 } else { 31 });
        assert_eq!(result.policy_target.iter().sum::<f32>(), 1.0);
    }
}

/// The search's heuristic score of the position `text`, for its side to
/// move.
fn score(text: &str) -> f32 {
    let game = Bulltricker::default();
    let state = game.parse_state(text).expect("a position");
    game.heuristic_score(&state).expect("Bulltricker has one")
}

/// The search's heuristic: the anchor's material and Kings' freedom, and
/// two terms the anchor's shallow sight misses once a side is far ahead.
#[test]
fn the_search_s_heuristic_rewards_pawns_near_promotion_and_queens_near_the_opposing_king() {
    // Alike sides: nothing for either.
    let game = Bulltricker::default();
    assert!(score(&game.format_state(&game.initial_state())).abs() < 1e-4);
    // Four Queens against a lone King: twelve Pawns and the Kings'
    // freedom, a little for the Queens' nearness, and White's hold on the
    // lone King: 1.4 for the 14 rectangles out of its region (the four
    // Queens', and ten that touch only the squares beside White's King),
    // 0.5 for its one step from the centre, 0.9 for the Kings' three
    // steps apart, 1.55 for the Queens 7, 7, 5 and 6 cells away (14 − d
    // each, 0.05 a cell), 0.6 for the three squares within two steps it
    // cannot reach, those beside White's King.
    let far = score("7/15/7/15/7/15/7/Q14/7/7k6Q/7/15/7/9K5/2Q3Q w 0");
    let hold = 1.4 + 0.5 + 0.9 + 1.55 + 0.6;
    assert!((12.0..13.0).contains(&(far - hold)), "{far}");
    // One Queen brought from seven cells away to two, not yet beside the
    // King (its rectangles are as free as before, its squares as near):
    // both nearness terms.
    let near = score("7/15/7/15/7/15/7/6Q8/7/7k6Q/7/15/7/9K5/2Q3Q w 0");
    assert!(
        (near - far - 0.3 * 5.0 / 14.0 - 0.05 * 5.0).abs() < 1e-4,
        "{near} against {far}"
    );
    // A White Pawn three rows from its promotion against one at eleven:
    // 2 · (1 − d / 12)² each.
    let advanced = score("7/15/7/P14/7/15/7/Q14/7/7k6Q/7/15/7/9K5/2Q3Q w 0");
    let behind = score("7/15/7/15/7/15/7/Q14/7/7k6Q/7/P14/7/9K5/2Q3Q w 0");
    let worth = |rows: f32| 2.0 * (1.0 - rows / 12.0).powi(2);
    assert!((advanced - behind - (worth(3.0) - worth(11.0))).abs() < 1e-4);
    // The side to move's view: Black reads the same position the other
    // way round.
    let black = score("7/15/7/15/7/15/7/Q14/7/7k6Q/7/15/7/9K5/2Q3Q b 0");
    assert!((black + far).abs() < 1e-4, "{black} against {far}");
}

/// The search's heuristic walls in a lone King: 0.1 for each rectangle
/// its region loses and 0.2 for each square within two steps it cannot
/// reach, once its side has at most a Queen's material (the King's place
/// and the other King's, which count too, alike here).
#[test]
fn the_search_s_heuristic_counts_the_walls_round_a_lone_king() {
    // Black's King in its corner, two White Queens beside it in both
    // positions (the same material, freedom and nearness), two more on
    // White's King's rectangles. Walled in from the board, its region is
    // its square and its two edge rectangles: 110 rectangles taken, and
    // none of the twelve squares within two steps.
    let walled = score("7/1kQ12/Q6/15/7/15/7/15/7/15/7/15/7/13KQ/6Q w 0");
    // On the two edge rectangles, the Queens wall in nothing: every
    // square is in the region but the four beside White's King, and only
    // the eight rectangles that touch nothing else are out of it with the
    // two Queens: 10 rectangles taken. From its corner the King reaches
    // two squares in one step and three more in two: seven out of reach.
    let open = score("Q6/Qk13/7/15/7/15/7/15/7/15/7/15/7/13KQ/6Q w 0");
    let more = (110.0 - 10.0) * 0.1 + (12.0 - 7.0) * 0.2;
    assert!(
        (walled - open - more).abs() < 1e-4,
        "{walled} against {open}"
    );
    // With four Pawns Black is no lone King: the walls count for nothing.
    let walled = score("7/1kQ12/Q6/15/7/15/7/15/7/15/7/15/pppp3/13KQ/6Q w 0");
    let open = score("Q6/Qk13/7/15/7/15/7/15/7/15/7/15/pppp3/13KQ/6Q w 0");
    assert!((walled - open).abs() < 1e-4, "{walled} against {open}");
}

/// The won endings that measure a search's conversion
/// (`checkpoints/bulltricker/won-endings.txt`, played by `arena
/// --opening-file`): each line is legal from the start, leaves the game
/// going, and ends where one side has at least eight points and the other
/// at most three: the first eight lines won for White, the last seven for
/// Black.
#[test]
fn the_won_endings_are_legal_lines_that_end_a_side_far_ahead() {
    let game = Bulltricker::default();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../checkpoints/bulltricker/won-endings.txt"
    );
    let text = std::fs::read_to_string(path).expect("the won endings");
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default())
        .filter(|line| !line.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 15);
    for (index, line) in lines.iter().enumerate() {
        let mut state = game.initial_state();
        for word in line.split_whitespace() {
            let action = game.parse_action(&state, word).expect("a move");
            state = game.play(&state, action).expect("a legal move");
        }
        assert_eq!(game.outcome(&state), None, "line {}", index + 1);
        let ahead = if index < 8 {
            Player::First
        } else {
            Player::Second
        };
        assert!(state.material(ahead) >= 8, "line {}", index + 1);
        assert!(state.material(ahead.opponent()) <= 3, "line {}", index + 1);
    }
}
