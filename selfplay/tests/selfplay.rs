//! Self-play records and shards.

use grandmaitre_engine::halma::Halma;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use grandmaitre_engine::search::UniformEvaluator;
use grandmaitre_engine::{Game, Notation, Outcome, Player};
use grandmaitre_selfplay::{GameRecord, SelfPlayConfig, play_games, shard};
use rand::SeedableRng;
use rand::rngs::StdRng;

fn tiny() -> SelfPlayConfig {
    SelfPlayConfig {
        games_in_flight: 4,
        full_simulations: 24,
        cheap_simulations: 6,
        ..SelfPlayConfig::default()
    }
}

fn games(count: usize, config: &SelfPlayConfig) -> Vec<GameRecord> {
    let mut records = Vec::new();
    play_games(
        config,
        count,
        |seed| Heraldis::new(Layout::random(&mut StdRng::seed_from_u64(seed))),
        &UniformEvaluator,
        5,
        |game| records.push(game),
    );
    records
}

#[test]
fn every_game_is_recorded_with_real_results_and_proper_targets() {
    let records = games(10, &tiny());
    assert_eq!(records.len(), 10);
    let mut targets = 0;
    let mut surprised = 0;
    for record in &records {
        let game = Heraldis::with_rules(&record.parameters).expect("parameters");
        assert_eq!(record.positions.len() as u32, record.plies);
        let last = record.positions.last().expect("a move");
        let end_state = game.parse_state(&last.state).expect("state");
        for (index, position) in record.positions.iter().enumerate() {
            let state = game.parse_state(&position.state).expect("state");
            assert_eq!(game.ply(&state), index);
            // Results alternate in sign between the two sides.
            if let Some(next) = record.positions.get(index + 1) {
                assert_eq!(position.outcome, -next.outcome);
            }
            if !position.policy.is_empty() {
                targets += 1;
                let total: f32 = position.policy.iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-4);
                let mut legal = Vec::new();
                game.legal_actions(&state, &mut legal);
                assert_eq!(position.policy.len(), legal.len());
                // A KL divergence: finite and never negative.
                assert!(position.surprise.is_finite() && position.surprise >= 0.0);
                surprised += usize::from(position.surprise > 0.0);
            } else {
                assert_eq!(position.surprise, 0.0);
            }
            let wdl: f32 = position.search_wdl.iter().sum();
            assert!((wdl - 1.0).abs() < 1e-3);
        }
        // The last mover won, or the game was drawn.
        assert!(last.outcome >= 0, "{end_state:?}");
        assert_eq!(
            record.policy_targets(),
            record
                .positions
                .iter()
                .filter(|p| !p.policy.is_empty())
                .count()
        );
    }
    assert!(targets > 0);
    // The search moved the uniform priors at most targets.
    assert!(surprised * 2 > targets, "{surprised} of {targets}");
    // Varied layouts were played.
    let first = &records[0].parameters;
    assert!(records.iter().any(|r| &r.parameters != first));
}

/// The numbers of moves with a positive policy target, at the positions
/// that have a target and more than `legal` legal moves.
fn targeted_moves(records: &[GameRecord], legal: usize) -> Vec<usize> {
    records
        .iter()
        .flat_map(|record| &record.positions)
        .filter(|position| position.policy.len() > legal)
        .map(|position| position.policy.iter().filter(|(_, p)| *p > 0.0).count())
        .collect()
}

#[test]
fn the_gumbel_root_targets_every_move_where_puct_targets_the_visited_ones() {
    // Four simulations a move, every move a full search, a dozen or more
    // legal moves for most of the game.
    let few = SelfPlayConfig {
        full_simulations: 4,
        full_search_fraction: 1.0,
        ..tiny()
    };
    // PUCT's target is the visit shares: the root's visits are this move's
    // 4 simulations and at most 3 kept from the previous move's search.
    let puct = targeted_moves(&games(3, &few), 8);
    assert!(puct.len() > 5, "{puct:?}");
    assert!(puct.iter().all(|&moves| moves <= 7), "{puct:?}");
    // The Gumbel root's target is the completed-Q improved policy, a softmax
    // over every legal move, visited or not.
    let gumbel = SelfPlayConfig {
        gumbel: true,
        ..few.clone()
    };
    let records = games(3, &gumbel);
    assert_eq!(records.len(), 3);
    let wide = targeted_moves(&records, 8);
    assert!(wide.len() > 5, "{wide:?}");
    assert!(wide.iter().all(|&moves| moves > 8), "{wide:?}");
}

#[test]
fn shards_round_trip_and_refuse_damage() {
    let directory = tempfile::tempdir().expect("temp dir");
    let records = games(3, &tiny());
    let path = shard::write(directory.path(), &records).expect("written");
    assert_eq!(shard::read(&path).expect("read"), records);
    assert_eq!(
        shard::list(directory.path()).expect("list"),
        std::slice::from_ref(&path)
    );

    let bytes = std::fs::read(&path).expect("bytes");
    std::fs::write(&path, &bytes[..bytes.len() - 3]).expect("truncate");
    let error = shard::read(&path).expect_err("truncated").to_string();
    assert!(error.contains("truncated"), "{error}");
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(&path, &flipped).expect("corrupt");
    let error = shard::read(&path).expect_err("corrupt").to_string();
    assert!(error.contains("CRC-32"), "{error}");
    std::fs::write(&path, b"hello").expect("garbage");
    assert!(
        shard::read(&path)
            .expect_err("garbage")
            .to_string()
            .contains("not a shard")
    );
}

#[test]
fn several_writers_on_one_directory_lose_nothing() {
    let directory = tempfile::tempdir().expect("temp dir");
    let records = games(2, &tiny());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..5 {
                    shard::write(directory.path(), &records).expect("written");
                }
            });
        }
    });
    let shards = shard::list(directory.path()).expect("list");
    assert_eq!(shards.len(), 20);
    for path in shards {
        assert_eq!(shard::read(&path).expect("whole shard"), records);
    }
}

#[test]
fn reverse_starts_begin_near_the_end_and_their_results_are_real() {
    let game = Halma::of_size(8);
    // Six games with the reverse starts and opening walks of `reverse` and
    // `opening` (their shares), walks of 1 to 3 moves.
    let play = |reverse: f64, opening: f64| {
        let config = SelfPlayConfig {
            reverse_start_fraction: reverse,
            reverse_start_plies: 3,
            opening_walk_fraction: opening,
            opening_walk_plies: 3,
            ..tiny()
        };
        let mut records = Vec::new();
        play_games(
            &config,
            6,
            |_| game.clone(),
            &UniformEvaluator,
            9,
            |record| records.push(record),
        );
        records
    };
    for record in play(1.0, 0.0) {
        // Walked back from the end: not the start, and no side done.
        let first = game.parse_state(&record.positions[0].state).expect("state");
        assert_ne!(first, game.initial_state());
        assert_eq!(game.outcome(&first), None);
        // Every value target is the game's real result from there.
        let end = game
            .parse_state(record.final_state.as_deref().expect("final state"))
            .expect("state");
        for position in &record.positions {
            let state = game.parse_state(&position.state).expect("state");
            let expected = match game.outcome_for(&end, game.current_player(&state)) {
                Some(Outcome::Win) => 1,
                Some(Outcome::Loss) => -1,
                _ => 0,
            };
            assert_eq!(position.outcome, expected);
        }
    }
    for record in play(0.0, 0.0) {
        assert_eq!(
            record.positions[0].state,
            game.format_state(&game.initial_state())
        );
    }
    // Opening walks: begun after moves from the start, with their counts
    // (White one move ahead when Black is to move).
    let records = play(0.0, 1.0);
    for record in records {
        let first = game.parse_state(&record.positions[0].state).expect("state");
        assert_ne!(first, game.initial_state());
        let [white, black] = first.moves;
        let ahead = u16::from(game.current_player(&first) == Player::Second);
        assert!(white == black + ahead && white < game.yard_limit());
    }
}
