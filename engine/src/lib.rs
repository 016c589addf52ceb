//! Game rules and search for Grand Maître.
//!
//! This crate has no neural-network dependency: it builds and tests in
//! seconds. [`game`] defines the interface every game implements;
//! [`heraldis`] is the flagship game; [`conformance`] is the check every game
//! passes.

pub mod agent;
pub mod arena;
pub mod conformance;
pub mod files;
pub mod game;
pub mod havannah;
pub mod heraldis;
pub mod search;

pub use game::{Action, Game, GameSpec, IllegalAction, Outcome, ParseError, Player, Symmetry};
