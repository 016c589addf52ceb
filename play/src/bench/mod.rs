//! The benchmarks (`grandmaitre bench …`): each measures in one run and
//! writes its lines to the writer it is given.
//!
//! - [`nn`]: inference speed of the network, ours against burn's, next to
//!   the machine's GEMM speed, and MCTS with the network as evaluator;
//! - [`selfplay`]: self-play as training plays it, against the raw
//!   inference bound at its batch;
//! - [`train`]: training steps per second of burn's backends;
//! - [`bar`]: the bar's latency on one thread;
//! - [`tactics`]: the speed of the search's tactics on one thread.

pub mod bar;
pub mod nn;
pub mod selfplay;
pub mod tactics;
pub mod train;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Result, bail};
use burn::tensor::Device;
use grandmaitre_engine::Game;
use grandmaitre_engine::search::{EvaluationRequest, Evaluations, Evaluator};
use grandmaitre_model::{Checkpoint, Network, NetworkConfig};

/// The network a benchmark times: a checkpoint, or a fresh one of a shape.
#[derive(Clone, Debug, Default)]
pub struct NetworkShape {
    /// A checkpoint directory.
    pub model: Option<PathBuf>,
    /// Channels of a fresh network (default: the game's).
    pub channels: Option<usize>,
    /// Residual blocks of a fresh network (default: the game's).
    pub blocks: Option<usize>,
    /// Pooled heads (any board size) instead of dense ones.
    pub pooled: bool,
}

impl NetworkShape {
    /// The network and its shape for `game`'s board: a checkpoint, or a
    /// fresh one of a shape.
    pub fn network<G: Game>(&self, game: &G, device: &Device) -> Result<(Network, NetworkConfig)> {
        if let Some(path) = &self.model {
            if self.channels.is_some() || self.blocks.is_some() || self.pooled {
                bail!(
                    "--channels, --blocks and --pooled describe a fresh network: not with --model"
                );
            }
            let checkpoint = Checkpoint::load(path, game.spec(), device)?;
            return Ok((checkpoint.network, checkpoint.metadata.network));
        }
        let mut config = if self.pooled {
            NetworkConfig::pooled_for_game(game.spec())
        } else {
            NetworkConfig::for_game(game.spec())
        };
        if let Some(channels) = self.channels {
            config.channels = channels;
        }
        if let Some(blocks) = self.blocks {
            config.blocks = blocks;
        }
        if config.channels == 0 || config.blocks == 0 {
            bail!("--channels and --blocks must be positive");
        }
        Ok((config.init(device), config))
    }
}

/// Planes of positions from random games.
pub fn random_planes<G: Game>(game: &G, count: usize, per_position: usize) -> Vec<f32> {
    let mut planes = vec![0.0; count * per_position];
    let states = grandmaitre_engine::game::random_states(game, count, 20, 1);
    for (state, slot) in states.iter().zip(planes.chunks_exact_mut(per_position)) {
        game.encode(state, slot);
    }
    planes
}

/// Calls `run` (one batch of `batch` positions) for about `seconds`.
pub fn positions_per_second(batch: usize, seconds: f64, mut run: impl FnMut()) -> f64 {
    run(); // warm-up: buffers, caches
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < seconds || calls < 3 {
        run();
        calls += 1;
    }
    (calls * batch as u64) as f64 / start.elapsed().as_secs_f64()
}

/// GFLOP/s of a 1024³ single-precision GEMM on `threads` threads.
pub fn gemm_speed(threads: usize, seconds: f64) -> f64 {
    let n = 1024;
    let a = vec![1.0f32; n * n];
    let b = vec![0.5f32; n * n];
    let mut c = vec![0.0f32; n * n];
    let parallelism = if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    let multiply = |c: &mut [f32]| {
        #[allow(unsafe_code)]
        // SAFETY: three n×n row-major matrices held by slices of n² floats.
        unsafe {
            gemm::gemm(
                n,
                n,
                n,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                1,
                n as isize,
                b.as_ptr(),
                1,
                n as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                parallelism,
            );
        }
    };
    multiply(&mut c);
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < seconds || calls < 2 {
        multiply(&mut c);
        calls += 1;
    }
    calls as f64 * 2.0 * (n * n * n) as f64 / start.elapsed().as_secs_f64() / 1e9
}

/// An evaluator that counts its calls and the positions they carried.
#[derive(Debug)]
pub struct Counting<'a, E> {
    inner: &'a E,
    /// Calls so far.
    pub calls: AtomicU64,
    /// Positions evaluated so far.
    pub positions: AtomicU64,
}

impl<'a, E> Counting<'a, E> {
    /// Counts the calls to `inner`.
    pub fn new(inner: &'a E) -> Self {
        Counting {
            inner,
            calls: AtomicU64::new(0),
            positions: AtomicU64::new(0),
        }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counting<'_, E> {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.positions
            .fetch_add(requests.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(requests, output);
    }
}
