//! The own-rules value: where a training rule adjudicates what the game's
//! rules call a draw (Bulltricker's material at the ply cap), the network
//! learns both results, and the main target may weigh the adjudication
//! down.

use grandmaitre_engine::bulltricker::Bulltricker;
use grandmaitre_engine::search::{EvaluationRequest, Evaluations, Evaluator, UniformEvaluator};
use grandmaitre_engine::{Game, Notation, Outcome};
use grandmaitre_model::{NetworkConfig, NetworkEvaluator};
use grandmaitre_selfplay::{GameRecord, SelfPlayConfig, play_games};
use grandmaitre_train::samples::{ReplayWindow, Targets, make_batch};
use grandmaitre_train::trainer::Trainer;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Bulltricker with a short cap adjudicated by material.
fn adjudicating() -> Bulltricker {
    Bulltricker::with_rules("plies=40 adjudicate=material").expect("rules")
}

/// Quick self-play games under [`adjudicating`] rules.
fn records(count: usize) -> Vec<GameRecord> {
    let config = SelfPlayConfig {
        games_in_flight: 4,
        full_simulations: 8,
        cheap_simulations: 2,
        full_search_fraction: 0.5,
        ..SelfPlayConfig::default()
    };
    let mut records = Vec::new();
    play_games(
        &config,
        count,
        |_| adjudicating(),
        &UniformEvaluator,
        5,
        |record| records.push(record),
    );
    records
}

/// Whether `record` ended with a winner by material: at the cap, where the
/// game's own rules draw, or at a repetition (which its final position
/// alone does not show, so that the own rules read it as going on); not
/// by a mate, which both rules see.
fn won_on_material(record: &GameRecord) -> bool {
    let text = record.final_state.as_deref().expect("kept");
    let game = adjudicating();
    let end = game.parse_state(text).expect("final position");
    let own = game.under_own_rules();
    let own_result = own.outcome(&own.parse_state(text).expect("final position"));
    matches!(game.outcome(&end), Some(Outcome::Win | Outcome::Loss))
        && matches!(own_result, None | Some(Outcome::Draw))
}

/// Whether `record` ran to the cap.
fn at_the_cap(record: &GameRecord) -> bool {
    record.plies == u32::from(adjudicating().ply_cap())
}

#[test]
fn the_game_under_its_own_rules_drops_the_adjudication() {
    let game = adjudicating();
    let own = game.under_own_rules();
    assert!(game.adjudicates_material());
    assert!(!own.adjudicates_material());
    assert_eq!(own.ply_cap(), game.ply_cap());
    // Rules without a training rule are their own.
    let plain = Bulltricker::default();
    assert_eq!(plain.under_own_rules().rules(), plain.rules());
}

#[test]
fn a_game_won_on_material_teaches_the_own_rules_head_a_draw() {
    let records = records(8);
    let adjudicated: Vec<&GameRecord> = records.iter().filter(|r| won_on_material(r)).collect();
    assert!(
        adjudicated.iter().any(|record| at_the_cap(record)),
        "some of eight games end at the cap with a material lead"
    );
    for weight in [1.0, 0.5, 0.0] {
        let targets = Targets {
            adjudication_weight: weight,
            ..Targets::default()
        };
        let window: ReplayWindow<Bulltricker> =
            ReplayWindow::from_records(&records, false, &targets).expect("window");
        let mut samples = window.samples.iter();
        for record in &records {
            let by_material = won_on_material(record);
            for position in &record.positions {
                let sample = samples.next().expect("one sample a position");
                let result = match position.outcome {
                    1 => [1.0, 0.0, 0.0],
                    0 => [0.0, 1.0, 0.0],
                    _ => [0.0, 0.0, 1.0],
                };
                if by_material {
                    assert_eq!(sample.rules_value, [0.0, 1.0, 0.0]);
                    let expected = [weight * result[0], 1.0 - weight, weight * result[2]];
                    assert_eq!(sample.value, expected, "weight {weight}");
                } else {
                    // Mates, and draws the rules call draws, are what they are.
                    assert_eq!(sample.rules_value, result);
                    assert_eq!(sample.value, result);
                }
            }
        }
    }
}

/// The mean draw probability `evaluator`'s main value and own-rules value
/// give `states`.
fn mean_draws(
    evaluator: &NetworkEvaluator,
    game: &Bulltricker,
    states: &[<Bulltricker as Game>::State],
) -> (f32, f32) {
    let requests: Vec<EvaluationRequest<'_, Bulltricker>> = states
        .iter()
        .map(|state| EvaluationRequest { game, state })
        .collect();
    let mut output = Evaluations::default();
    evaluator.evaluate(&requests, &mut output);
    assert_eq!(output.rules_wdl.len(), states.len(), "both values given");
    let mean = |values: &[grandmaitre_engine::ToMove]| {
        values.iter().map(|wdl| wdl.0[1]).sum::<f32>() / values.len() as f32
    };
    (mean(&output.wdl), mean(&output.rules_wdl))
}

#[test]
fn the_two_value_heads_learn_the_two_results() {
    let records: Vec<GameRecord> = records(8).into_iter().filter(won_on_material).collect();
    let window: ReplayWindow<Bulltricker> =
        ReplayWindow::from_records(&records, false, &Targets::default()).expect("window");
    let indices: Vec<usize> = (0..window.samples.len().min(48)).collect();
    let batch =
        make_batch(&window, &indices, false, &mut SmallRng::seed_from_u64(1)).expect("batch");
    let game = adjudicating();
    let config = NetworkConfig::pooled_for_game(game.spec())
        .with_channels(8)
        .with_blocks(1)
        .with_rules_value_head(true);
    let device = burn::tensor::Device::flex();
    let mut trainer = Trainer::new(config.init(&device), config.clone(), &device, 1e-4, 0);
    let first = trainer.step(&batch, 3e-3);
    assert!(first.rules_value > 0.0);
    let mut last = first;
    for _ in 0..60 {
        last = trainer.step(&batch, 3e-3);
    }
    assert!(
        last.rules_value < 0.5 * first.rules_value,
        "{first:?} → {last:?}"
    );
    // Every game of the batch was won on material: the main value learns
    // wins and losses, the own-rules value draws.
    let states: Vec<_> = indices
        .iter()
        .map(|&i| game.parse_state(&window.samples[i].state).expect("state"))
        .collect();
    let evaluator = NetworkEvaluator::of(&trainer.network(), &config);
    let (main, rules) = mean_draws(&evaluator, &game, &states);
    assert!(
        rules > 0.7 && main < 0.3,
        "draws: main value {main}, own-rules value {rules}"
    );
}
