//! Self-play for Grand Maître: many games at once feeding one batched
//! evaluator ([`driver`]), their records ([`record`]) written to checksummed
//! shards on disk ([`shard`]).

pub mod driver;
pub mod record;
pub mod shard;

pub use driver::{SelfPlayConfig, play_games, play_games_until};
pub use record::{GameRecord, PositionRecord};
