//! The games a calibration is fitted on: the engine against itself at a
//! level, from random openings, with the bar recorded before every move.

use grandmaitre_engine::arena::opening_moves;
use grandmaitre_engine::levels::Level;
use grandmaitre_engine::search::{Evaluator, Search, SearchConfig};
use grandmaitre_engine::{Game, Outcome, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::records::Played;
use crate::bar::{bar_search, for_first_player};

/// How calibration games are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameSettings {
    /// The level of both sides after the opening (its search and move
    /// choice; its random moves are left out).
    pub level: Level,
    /// Random plies of each opening are drawn between 1 and this.
    pub opening_plies: u32,
    /// Seed of the openings.
    pub seed: u64,
}

/// Game `index`: a random opening, then the engine against itself, the
/// bar (uncalibrated) and the network's own win/draw/loss recorded before
/// every move. `None` if no opening could be drawn.
pub fn play<G: Game, E: Evaluator<G>>(
    game: &G,
    evaluator: &E,
    settings: &GameSettings,
    index: u32,
) -> Option<Played> {
    let mut rng = SmallRng::seed_from_u64(settings.seed ^ (u64::from(index) << 20) ^ 0x0CA1);
    let plies = rng.random_range(1..=settings.opening_plies.max(1));
    let opening = opening_moves(game, index, plies, settings.seed);
    if opening.is_empty() {
        return None;
    }
    let mut state = game.initial_state();
    for &action in &opening {
        game.apply_unchecked(&mut state, action);
    }
    let mut predictions = Vec::new();
    let mut network = Vec::new();
    let one = SearchConfig {
        simulations: 1,
        ..SearchConfig::default()
    };
    let setting = settings.level.setting();
    let mut search = Search::new(
        game.clone(),
        state.clone(),
        setting.config,
        u64::from(index),
    );
    let mut sides = Vec::new();
    while game.outcome(&state).is_none() {
        sides.push(u8::from(game.current_player(&state) != Player::First));
        let bar = bar_search(game, &state, evaluator);
        predictions.push(for_first_player(bar.side, bar.wdl));
        let raw = Search::new(game.clone(), state.clone(), one.clone(), 0).run(evaluator);
        network.push(for_first_player(raw.side, raw.wdl));
        search.run(evaluator);
        let action = search.choose_move(setting.choice);
        search.advance(action);
        game.apply_unchecked(&mut state, action);
    }
    let result = match game.outcome_for(&state, Player::First) {
        Some(Outcome::Win) => 0,
        Some(Outcome::Draw) => 1,
        _ => 2,
    };
    Some(Played {
        predictions,
        network,
        sides,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use grandmaitre_engine::heraldis::Heraldis;
    use grandmaitre_engine::search::UniformEvaluator;

    #[test]
    fn a_calibration_game_records_every_position_and_its_result() {
        let game = Heraldis::default();
        let settings = GameSettings {
            level: Level::get(7).expect("level"),
            opening_plies: 2,
            seed: 5,
        };
        let played = play(&game, &UniformEvaluator, &settings, 3).expect("an opening");
        let positions = played.predictions.len();
        assert!(positions > 0);
        assert_eq!(played.network.len(), positions);
        assert_eq!(played.sides.len(), positions);
        // The players alternate (a pass is a move too).
        assert!(played.sides.windows(2).all(|w| w[0] != w[1]));
        assert!(played.result <= 2);
        for p in played.predictions.iter().chain(&played.network) {
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{p:?}");
        }
    }
}
