//! Every game passes the generic conformance check: one line per game.

use grandmaitre_engine::conformance::check_random_games;
use grandmaitre_engine::heraldis::{Heraldis, Layout};
use rand::SeedableRng;
use rand::rngs::StdRng;

#[test]
fn heraldis_on_the_default_layout() {
    let report = check_random_games(&Heraldis::default(), 200, 1);
    assert_eq!(report.games, 200);
    // Random play finds both wins and draws.
    assert!(report.results[0] > 0 && report.results[2] > 0, "{report:?}");
}

#[test]
fn heraldis_on_random_layouts() {
    let mut rng = StdRng::seed_from_u64(2);
    for seed in 0..10 {
        check_random_games(&Heraldis::new(Layout::random(&mut rng)), 20, seed);
    }
}

#[test]
fn heraldis_with_a_short_ply_limit_ends_in_draws() {
    let game = Heraldis::with_ply_limit(Layout::default_layout(), 12);
    let report = check_random_games(&game, 100, 3);
    // Nobody can have four in a row before ply 6, and few games end by 12.
    assert!(report.results[1] > 50, "{report:?}");
}
