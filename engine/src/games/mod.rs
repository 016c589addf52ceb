//! The games, side by side: each folder is one game's rules, notation,
//! encoding and symmetries behind the [`Game`](crate::Game) trait.
//!
//! A new game is a folder here, one line below, and one entry in the
//! program's game registry (`play/src/registry.rs`),
//! which names it, says where its shipped model is and which players rate it.

pub mod bulltricker;
pub mod halma;
pub mod havannah;
pub mod heraldis;
