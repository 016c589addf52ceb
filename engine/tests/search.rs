//! Search puzzles on Heraldis positions written in notation: the search finds
//! the win, the block and the winning capture, and the solver proves short
//! forced wins; on Havannah, the decisive and anti-decisive moves; on Halma,
//! the moves-left utility in a won position.

use grandmaitre_engine::game::random_states;
use grandmaitre_engine::halma::Halma;
use grandmaitre_engine::havannah::Havannah;
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_engine::search::{
    GumbelConfig, MoveChoice, RolloutEvaluator, RootSelection, Search, SearchConfig, Tactics,
    UniformEvaluator,
};
use grandmaitre_engine::{Forcing, Game, Hints, Notation, Outcome, Player, ToMove};

fn search(position: &str, config: SearchConfig) -> (Heraldis, Search<Heraldis>) {
    let game = Heraldis::default();
    let state = game.parse_state(position).expect("position");
    (game.clone(), Search::new(game, state, config, 7))
}

fn config(simulations: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        ..SearchConfig::default()
    }
}

fn best_move(position: &str, simulations: u32) -> (String, Option<Outcome>) {
    let (game, mut search) = search(position, config(simulations));
    let result = search.run(&RolloutEvaluator::default());
    let action = search.choose_move(MoveChoice::Visits { temperature: 0.0 });
    (game.format_action(search.state(), action), result.proof)
}

#[test]
fn finds_the_win_in_one() {
    // Light: a1 b1 c1 on rank 1; d1 completes the line.
    let position = "5/5/5/DDD2/LLL2 l - 6";
    let game = Heraldis::default();
    let state = game.parse_state(position).expect("position");
    assert!(
        game.render(&state)
            .contains("1 | AC L | CS L | OS L | S  . | A  . |")
    );
    assert_eq!(
        best_move(position, 100),
        ("d1".to_string(), Some(Outcome::Win))
    );
}

#[test]
fn blocks_the_opponents_line() {
    // Dark threatens d2 (a2 b2 c2 are Dark); Light has no win of its own.
    let position = "5/5/L4/DDD2/L1L2 l - 6";
    let (name, proof) = best_move(position, 3000);
    assert_eq!(name, "d2");
    assert_ne!(proof, Some(Outcome::Loss));
}

#[test]
fn finds_the_capture_that_wins() {
    // Light owns the Houses c4 (Ours) and d4 (Cerf) and has b3, d3 and e3
    // on rank 3; Dark holds c3 (Ours+Cerf). Taking c3 completes b3-c3-d3-e3.
    let position = "5/2LL1/1LDLL/D1D2/DD3 l - 10";
    let game = Heraldis::default();
    let state = game.parse_state(position).expect("position");
    let mut actions = Vec::new();
    game.legal_actions(&state, &mut actions);
    let names: Vec<String> = actions
        .iter()
        .map(|&a| game.format_action(&state, a))
        .collect();
    assert!(names.contains(&"xc3".to_string()), "{names:?}");
    assert_eq!(
        best_move(position, 200),
        ("xc3".to_string(), Some(Outcome::Win))
    );
}

#[test]
fn the_solver_proves_a_double_threat() {
    // Light b2 c2 on rank 2 with a2, d2 and e2 empty: b2-c2 plus d2 makes two
    // threats (a2 and e2) that Dark cannot both stop. c4 wins too: Dark must
    // block c1-c4 on c3, an Ours+Cerf Alliance that Light (Ours House c2,
    // Cerf House b2) then captures.
    let position = "D4/1D3/5/1LL2/D1L2 l - 6";
    let (_, mut search) = search(position, config(20_000));
    let result = search.run(&UniformEvaluator);
    assert_eq!(result.proof, Some(Outcome::Win), "{:?}", result.children);
    let game = search.game().clone();
    let action = search.choose_move(MoveChoice::Visits { temperature: 0.0 });
    let name = game.format_action(search.state(), action);
    assert!(["d2", "c4"].contains(&name.as_str()), "{name}");
    let winning: Vec<String> = result
        .children
        .iter()
        .filter(|c| c.proof == Some(Outcome::Win))
        .map(|c| game.format_action(search.state(), c.action))
        .collect();
    assert!(winning.contains(&name), "{winning:?}");
}

#[test]
fn a_proven_root_stops_the_search_early() {
    let (_, mut search) = search("5/5/5/DDD2/LLL2 l - 6", config(100_000));
    let result = search.run(&UniformEvaluator);
    assert_eq!(result.proof, Some(Outcome::Win));
    assert!(result.visits < 1000, "{} visits", result.visits);
}

#[test]
fn with_the_uniform_evaluator_and_a_seed_the_search_is_deterministic() {
    let run = || {
        let (_, mut search) = search("5/5/2L2/5/5 d - 1", config(3000));
        let result = search.run(&UniformEvaluator);
        (
            result,
            search.choose_move(MoveChoice::Visits { temperature: 1.0 }),
        )
    };
    assert_eq!(run(), run());
}

#[test]
fn the_gumbel_root_finds_the_win_with_few_simulations() {
    // 19 legal moves, all of them candidates, 40 simulations.
    let mut settings = config(40);
    settings.root = RootSelection::Gumbel(GumbelConfig {
        candidates: 32,
        ..GumbelConfig::default()
    });
    let (game, mut search) = search("5/5/5/DDD2/LLL2 l - 6", settings);
    let result = search.run(&UniformEvaluator);
    let action = search.choose_move(MoveChoice::Visits { temperature: 0.0 });
    assert_eq!(game.format_action(search.state(), action), "d1");
    let target_sum: f32 = result.policy_target.iter().sum();
    assert!((target_sum - 1.0).abs() < 1e-4);
    // The improved policy puts the most weight on the winning move.
    let best = result
        .policy_target
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i);
    assert_eq!(best, Some(action.index()));
}

#[test]
fn visit_counts_add_up_and_the_policy_target_is_a_distribution() {
    let (_, mut search) = search("5/5/5/5/5 l - 0", config(2000));
    let result = search.run(&RolloutEvaluator::default());
    assert_eq!(result.visits, 2000);
    let child_visits: u32 = result.children.iter().map(|c| c.visits).sum();
    // The root's first visit is its own evaluation.
    assert_eq!(child_visits, 1999);
    assert_eq!(result.children.len(), 15);
    let total: f32 = result.policy_target.iter().sum();
    assert!((total - 1.0).abs() < 1e-4);
}

#[test]
fn tree_reuse_keeps_the_subtree_of_the_move_played() {
    let (game, mut search) = search("5/5/5/5/5 l - 0", config(3000));
    search.run(&UniformEvaluator);
    let action = search.choose_move(MoveChoice::Visits { temperature: 0.0 });
    let kept = search.result().children[0].visits;
    search.advance(action);
    let result = search.result();
    assert_eq!(result.visits, kept);
    assert_eq!(
        search.state(),
        &game.play(&game.initial_state(), action).expect("legal")
    );
}

mod alphabeta {
    use grandmaitre_engine::Notation;
    use grandmaitre_engine::agent::Agent;
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_engine::heraldis::alphabeta::AlphaBetaAgent;

    fn choice(position: &str, depth: u32) -> String {
        let game = Heraldis::default();
        let state = game.parse_state(position).expect("position");
        let action = AlphaBetaAgent::heraldis(depth, 1).select(&game, &state);
        game.format_action(&state, action)
    }

    #[test]
    fn alphabeta_finds_the_win_in_one_and_the_winning_capture() {
        assert_eq!(choice("5/5/5/DDD2/LLL2 l - 6", 1), "d1");
        assert_eq!(choice("5/2LL1/1LDLL/D1D2/DD3 l - 10", 2), "xc3");
    }

    #[test]
    fn alphabeta_blocks_at_depth_two() {
        assert_eq!(choice("5/5/L4/DDD2/L1L2 l - 6", 2), "d2");
    }

    #[test]
    fn alphabeta_plays_the_double_threat_at_depth_three() {
        // d2 (threats a2 and e2) or c4 (then xc3 after Dark blocks c3).
        let name = choice("D4/1D3/5/1LL2/D1L2 l - 6", 3);
        assert!(["d2", "c4"].contains(&name.as_str()), "{name}");
    }
}

/// A policy that prefers one cell above all others, with an even value.
struct Prefers(u16);

impl grandmaitre_engine::search::Evaluator<Heraldis> for Prefers {
    fn evaluate(
        &self,
        requests: &[grandmaitre_engine::search::EvaluationRequest<'_, Heraldis>],
        output: &mut grandmaitre_engine::search::Evaluations,
    ) {
        let count = Heraldis::default().spec().action_count;
        output.reset(count);
        for _ in requests {
            let start = output.policy_logits.len();
            output.policy_logits.resize(start + count, 0.0);
            output.policy_logits[start + usize::from(self.0)] = 5.0;
            output.wdl.push(ToMove::EVEN);
        }
    }
}

#[test]
fn one_simulation_plays_the_move_the_policy_prefers() {
    // One simulation expands the root and visits no move: the choice is
    // the prior's, whichever way moves are chosen. Cells d2 (8) and c3
    // (12) are legal Alliance cells of the first move, neither the first
    // nor the last in action order.
    let game = Heraldis::default();
    for (cell, name) in [(8, "d2"), (12, "c3")] {
        for choice in [
            MoveChoice::LowerConfidenceBound,
            MoveChoice::Visits { temperature: 0.0 },
        ] {
            let mut search = Search::new(game.clone(), game.initial_state(), config(1), 3);
            search.run(&Prefers(cell));
            let action = search.choose_move(choice);
            assert_eq!(
                game.format_action(search.state(), action),
                name,
                "{choice:?}"
            );
        }
    }
}

/// A Havannah search from the moves `moves` of base 8 without swap.
fn havannah_search(moves: &str, config: SearchConfig) -> Search<Havannah> {
    let game = Havannah::new(8, false);
    let mut state = game.initial_state();
    for name in moves.split_whitespace() {
        let action = game.parse_action(&state, name).expect("a move");
        state = game.play(&state, action).expect("legal");
    }
    Search::new(game, state, config, 11)
}

/// White's a1…g1 needs h1 for a bridge between the corners a1 and h1.
const BRIDGE_THREAT: &str = "a1 h8 b1 h9 c1 h10 d1 h11 e1 h12 f1 h13 g1";

#[test]
fn decisive_moves_win_at_once_and_prove_it() {
    let mut search = havannah_search(&format!("{BRIDGE_THREAT} h14"), config(800));
    let result = search.run(&UniformEvaluator);
    // The only move searched is the win: the root's evaluation and one
    // visit of the win prove the root.
    assert_eq!(result.proof, Some(Outcome::Win));
    assert_eq!(result.children.len(), 1);
    assert_eq!(result.visits, 2);
    let action = search.choose_move(MoveChoice::LowerConfidenceBound);
    assert_eq!(search.game().format_action(search.state(), action), "h1");
}

#[test]
fn anti_decisive_moves_block_the_threat_with_one_simulation() {
    let mut search = havannah_search(BRIDGE_THREAT, config(1));
    let result = search.run(&UniformEvaluator);
    assert_eq!(result.children.len(), 1);
    let action = search.choose_move(MoveChoice::LowerConfidenceBound);
    assert_eq!(search.game().format_action(search.state(), action), "h1");
    // Without them, every one of the 156 empty cells is a candidate and
    // each other one loses at once.
    let without = SearchConfig {
        decisive_moves: false,
        ..config(1)
    };
    let result = havannah_search(BRIDGE_THREAT, without).run(&UniformEvaluator);
    assert_eq!(result.children.len(), 169 - 13);
}

#[test]
fn two_threats_of_the_opponent_are_proven_lost_after_one_visit_of_each_block() {
    let game = Havannah::new(5, false);
    let mut moves = Vec::new();
    let mut checked = 0;
    for state in random_states(&game, 400, 61, 5) {
        if game.forcing_moves(&state, &mut moves) != Forcing::Blocks || moves.len() < 2 {
            continue;
        }
        // Each block leads to a position the opponent wins at once, proven
        // when it is created: no evaluation is needed past the root's, and
        // one visit of each block proves the root lost.
        let mut search = Search::new(game.clone(), state, config(100), 3);
        let result = search.run(&UniformEvaluator);
        assert_eq!(result.proof, Some(Outcome::Loss));
        assert_eq!(result.children.len(), moves.len());
        assert_eq!(result.visits as usize, 1 + moves.len());
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} positions with two threats");
}

/// A search of the opening of Heraldis with root noise and the rollout
/// evaluator, one leaf at a time, with forced playouts `k`.
fn noisy_opening(k: f32) -> (Search<Heraldis>, grandmaitre_engine::search::SearchResult) {
    let settings = SearchConfig {
        dirichlet_weight: 0.25,
        leaves_per_batch: 1,
        forced_playouts: k,
        ..config(400)
    };
    let (_, mut search) = search("5/5/5/5/5 l - 0", settings);
    let result = search.run(&RolloutEvaluator::default());
    (search, result)
}

#[test]
fn forced_playouts_give_every_root_move_its_square_root_share() {
    let (_, result) = noisy_opening(2.0);
    let total = result.visits as f32;
    for child in &result.children {
        let forced = (2.0 * child.prior * total).sqrt();
        assert!(
            child.visits as f32 + 1.0 >= forced,
            "{} visits for a floor of {forced:.1}",
            child.visits
        );
    }
    // Without them PUCT leaves some move below that floor.
    let (_, plain) = noisy_opening(0.0);
    assert!(
        plain
            .children
            .iter()
            .any(|c| (c.visits as f32 + 1.0) < (2.0 * c.prior * total).sqrt())
    );
}

#[test]
fn a_move_drawn_by_visits_under_forced_playouts_follows_the_pruned_target() {
    let (mut search, result) = noisy_opening(2.0);
    let visits: u32 = result.children.iter().map(|c| c.visits).sum();
    let draws = 4000;
    let mut counts = std::collections::HashMap::new();
    for _ in 0..draws {
        let action = search.choose_move(MoveChoice::Visits { temperature: 1.0 });
        *counts.entry(action).or_insert(0u32) += 1;
    }
    let mut widest = 0.0f32;
    for child in &result.children {
        let target = result.policy_target[child.action.index()];
        let share = child.visits as f32 / visits as f32;
        let drawn = counts.get(&child.action).copied().unwrap_or(0) as f32 / draws as f32;
        // Within five standard deviations of the pruned target's share.
        let deviation = (target * (1.0 - target) / draws as f32).sqrt();
        assert!(
            (drawn - target).abs() <= 5.0 * deviation + 1e-3,
            "{:?}: drawn {drawn:.3}, target {target:.3}, visit share {share:.3}",
            child.action
        );
        widest = widest.max((share - target).abs() / deviation.max(1e-3));
    }
    // The draw tells the two apart: some move's visit share lies far
    // outside the draw's noise around its pruned target.
    assert!(widest > 8.0, "{widest}");
}

#[test]
fn policy_target_pruning_takes_back_forced_visits_from_all_but_the_best_move() {
    let (_, result) = noisy_opening(2.0);
    let total: f32 = result.policy_target.iter().sum();
    assert!((total - 1.0).abs() < 1e-4);
    let visits: u32 = result.children.iter().map(|c| c.visits).sum();
    let share = |c: &grandmaitre_engine::search::ChildReport| c.visits as f32 / visits as f32;
    // Children come most visited first: the best move keeps its visits and
    // the others give some back, so the best move's target grows and every
    // other move's shrinks against it: the target is sharper.
    let best = &result.children[0];
    let target =
        |c: &grandmaitre_engine::search::ChildReport| result.policy_target[c.action.index()];
    assert!(target(best) > share(best));
    for child in &result.children[1..] {
        assert!(target(child) / target(best) <= share(child) / share(best) + 1e-6);
    }
    let entropy = |p: &mut dyn Iterator<Item = f32>| -> f32 {
        p.filter(|&x| x > 0.0).map(|x| -x * x.ln()).sum()
    };
    let pruned = entropy(&mut result.policy_target.iter().copied());
    let shares = entropy(&mut result.children.iter().map(share));
    assert!(pruned < shares, "{pruned} against {shares}");
}

/// An oracle for a Halma position White has won: the value says so, the
/// policy is uniform, and the plies left (when `moves_left`) are twice
/// White's race, the files plus ranks its pieces still have to go.
struct WhiteWins {
    moves_left: bool,
}

impl grandmaitre_engine::search::Evaluator<Halma> for WhiteWins {
    fn evaluate(
        &self,
        requests: &[grandmaitre_engine::search::EvaluationRequest<'_, Halma>],
        output: &mut grandmaitre_engine::search::Evaluations,
    ) {
        let count = requests.first().map_or(0, |r| r.game.spec().action_count);
        output.reset(count);
        output.policy_logits.resize(requests.len() * count, 0.0);
        for request in requests {
            let white = Player::First;
            output.wdl.push(if request.state.side == white {
                ToMove([1.0, 0.0, 0.0])
            } else {
                ToMove([0.0, 0.0, 1.0])
            });
            if self.moves_left {
                let race = request
                    .game
                    .board()
                    .race(white, request.state.pieces(white));
                output.moves_left.push(2.0 * race as f32);
            }
        }
    }
}

#[test]
fn in_a_won_position_the_moves_left_utility_plays_the_fastest_progress() {
    // White has nine pieces home and one on e5; e8 is free. Every move
    // keeps the win, so the value alone cannot tell them apart.
    let game = Halma::of_size(8);
    let start = game
        .parse_state("BB3WWW/BBB2WWW/BBB3WW/BB2W2W/8/8/8/8 w 40 40")
        .expect("position");
    let race = |state: &<Halma as Game>::State| {
        game.board()
            .race(Player::First, state.pieces(Player::First))
    };
    let mut actions = Vec::new();
    game.legal_actions(&start, &mut actions);
    let after = |action| race(&game.play(&start, action).expect("legal"));
    let fastest = actions.iter().map(|&a| after(a)).min().expect("moves");
    assert!(fastest + 2 <= race(&start), "a jump gains more than a step");
    for choice in [
        MoveChoice::LowerConfidenceBound,
        MoveChoice::Visits { temperature: 0.0 },
    ] {
        let mut search = Search::new(game.clone(), start, config(800), 5);
        let result = search.run(&WhiteWins { moves_left: true });
        let root_plies = result.moves_left.expect("predicted");
        assert!(root_plies > 0.0);
        assert!(
            result
                .children
                .iter()
                .filter(|c| c.visits > 0)
                .all(|c| c.moves_left.is_some())
        );
        let action = search.choose_move(choice);
        assert_eq!(
            after(action),
            fastest,
            "{choice:?}: {} gains {} of {}",
            game.format_action(&start, action),
            race(&start) - after(action),
            race(&start) - fastest
        );
    }
    // Without the plies left the search reports none.
    let mut search = Search::new(game.clone(), start, config(200), 5);
    let result = search.run(&WhiteWins { moves_left: false });
    assert!(result.moves_left.is_none());
    assert!(result.children.iter().all(|c| c.moves_left.is_none()));
}

/// A trap on the first move of Heraldis, written as an evaluator: Light's
/// c3 looks best (policy and value) unless Dark answers e5, a reply the
/// policy all but ignores and that leaves Light lost; a1 is a sound, lesser
/// move. Values are Light's: after c3 and e5 −0.9, after c3 +0.5, after a1
/// +0.2.
struct Trap;

impl Trap {
    fn light_value(position: &str) -> f32 {
        let board = position.split(' ').next().expect("board");
        // Ranks 5 to 1, files a to e; a digit is that many empty cells.
        let mut cells = Vec::new();
        for rank in board.split('/') {
            let mut row = Vec::new();
            for c in rank.chars() {
                match c.to_digit(10) {
                    Some(n) => row.extend(std::iter::repeat_n('.', n as usize)),
                    None => row.push(c),
                }
            }
            cells.push(row);
        }
        let at = |file: usize, rank: usize| cells[5 - rank][file];
        match (at(2, 3), at(4, 5), at(0, 1)) {
            ('L', 'D', _) => -0.9,
            ('L', _, _) => 0.5,
            (_, _, 'L') => 0.2,
            _ => 0.0,
        }
    }
}

impl grandmaitre_engine::search::Evaluator<Heraldis> for Trap {
    fn evaluate(
        &self,
        requests: &[grandmaitre_engine::search::EvaluationRequest<'_, Heraldis>],
        output: &mut grandmaitre_engine::search::Evaluations,
    ) {
        let game = Heraldis::default();
        let count = game.spec().action_count;
        output.reset(count);
        for request in requests {
            let start = output.policy_logits.len();
            output.policy_logits.resize(start + count, 0.0);
            let light = game.current_player(request.state) == Player::First;
            let value = Trap::light_value(&game.format_state(request.state));
            if light {
                output.policy_logits[start + 12] = 3.0; // c3
                output.policy_logits[start] = 1.0; // a1
            } else {
                output.policy_logits[start + 24] = -1.0; // e5
            }
            let mover = if light { value } else { -value };
            output.wdl.push(ToMove([
                mover.max(0.0),
                1.0 - mover.abs(),
                (-mover).max(0.0),
            ]));
        }
    }
}

#[test]
fn implicit_minimax_backups_see_through_a_trap_that_averages_hide() {
    // Dark's e5 is found after some 270 simulations of c3 (every other
    // reply first). Averaging keeps c3 the most visited move; with the
    // minimax of the evaluator's values the root leaves it at once: for
    // a1, then for e5 (which takes Dark's refutation away and keeps c3
    // for later: in this game, the best move).
    let game = Heraldis::default();
    for simulations in [1000, 2000] {
        for weight in [0.0, 0.3, 0.5] {
            let config = SearchConfig {
                simulations,
                tactics: Tactics {
                    minimax_weight: weight,
                    ..Tactics::default()
                },
                ..SearchConfig::default()
            };
            let mut search = Search::new(game.clone(), game.initial_state(), config, 5);
            search.run(&Trap);
            let action = search.choose_move(MoveChoice::Visits { temperature: 0.0 });
            let name = game.format_action(search.state(), action);
            if weight == 0.0 {
                assert_eq!(name, "c3", "averages alone, {simulations} simulations");
            } else {
                assert_ne!(
                    name, "c3",
                    "minimax weight {weight}, {simulations} simulations"
                );
            }
        }
    }
}
