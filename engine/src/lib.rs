//! Game rules and search for Grand Maître.
//!
//! This crate has no neural-network dependency: it builds and tests in
//! seconds. [`game`] defines the interface every game implements; the games
//! stand side by side in [`games`] (Heraldis, the flagship, and Havannah);
//! [`conformance`] is the check every game passes; [`levels`] are the
//! playing strengths every game is offered at.

pub mod agent;
pub mod alphabeta;
pub mod arena;
pub mod book;
pub mod conformance;
pub mod files;
pub mod game;
pub mod games;
pub mod guard;
pub mod levels;
pub mod parameters;
pub mod search;
pub mod seats;
pub mod solve;
pub mod wdl;

pub use games::{bulltricker, halma, havannah, heraldis};

pub use game::{
    Action, ActionLayout, Forcing, Game, GameSpec, Hints, History, IllegalAction, Notation,
    Outcome, ParseError, Playable, Player, Symmetric, Symmetry,
};
pub use wdl::{ForPlayers, ToMove, players_index};
