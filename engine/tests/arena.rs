//! Matches: openings, colours and totals.

use grandmaitre_engine::agent::{Agent, RandomAgent};
use grandmaitre_engine::arena::{MatchConfig, opening_moves, play_match};
use grandmaitre_engine::heraldis::Heraldis;
use grandmaitre_engine::heraldis::alphabeta::AlphaBetaAgent;
use grandmaitre_engine::{Game, Outcome};

#[test]
fn openings_are_reproducible_legal_and_unfinished() {
    let game = Heraldis::default();
    for opening in 0..20 {
        let moves = opening_moves(&game, opening, 4, 9);
        assert_eq!(moves, opening_moves(&game, opening, 4, 9));
        assert_eq!(moves.len(), 4);
        let mut state = game.initial_state();
        for action in moves {
            state = game.play(&state, action).expect("legal opening move");
        }
        assert!(game.outcome(&state).is_none());
    }
}

#[test]
fn each_opening_is_played_twice_with_colours_swapped() {
    let game = Heraldis::default();
    let config = MatchConfig {
        games: 12,
        openings: 6,
        opening_plies: 2,
        opening_lines: Vec::new(),
        seed: 3,
        sprt: None,
    };
    let (stats, records) = play_match(
        |_| game.clone(),
        |seed| Box::new(AlphaBetaAgent::heraldis(2, seed)) as Box<dyn Agent<Heraldis>>,
        |seed| Box::new(RandomAgent::new(seed)) as Box<dyn Agent<Heraldis>>,
        &config,
        |_, _| {},
    );
    assert_eq!(stats.games(), 12);
    assert_eq!(records.len(), 12);
    for pair in records.chunks(2) {
        assert_eq!(pair[0].opening, pair[1].opening);
        assert!(pair[0].a_first && !pair[1].a_first);
        assert_eq!(pair[0].moves[..2], pair[1].moves[..2]);
    }
    // Alpha-beta at depth 2 does not lose to random play.
    assert!(stats.wins >= 11, "{stats:?}");
    assert_eq!(stats.a_first.iter().sum::<u32>(), 6);
    // Each pair's half points, from the records, are what the SPRT reads.
    let mut pairs = [0u32; 5];
    for pair in records.chunks(2) {
        let half_points = |outcome: Outcome| match outcome {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        };
        pairs[half_points(pair[0].result_for_a) + half_points(pair[1].result_for_a)] += 1;
    }
    assert_eq!(stats.pairs, pairs);
    assert_eq!(stats.pair_count(), 6);
}

#[test]
fn given_opening_lines_are_played_in_turn_each_twice() {
    let game = Heraldis::default();
    let lines = vec![
        opening_moves(&game, 0, 3, 5),
        opening_moves(&game, 1, 1, 5),
        Vec::new(),
    ];
    let config = MatchConfig {
        games: 8,
        openings: 50,
        opening_plies: 4,
        opening_lines: lines.clone(),
        seed: 7,
        sprt: None,
    };
    let (_, records) = play_match(
        |_| game.clone(),
        |seed| Box::new(RandomAgent::new(seed)) as Box<dyn Agent<Heraldis>>,
        |seed| Box::new(RandomAgent::new(seed)) as Box<dyn Agent<Heraldis>>,
        &config,
        |_, _| {},
    );
    assert_eq!(records.len(), 8);
    for record in &records {
        // Lines 0, 1, 2, then 0 again; neither the number of random
        // openings nor their plies is used.
        let line = &lines[(record.index as usize / 2) % 3];
        assert_eq!(record.opening as usize, (record.index as usize / 2) % 3);
        assert_eq!(record.moves[..line.len()], line[..]);
        assert!(record.moves.len() > line.len());
    }
}
