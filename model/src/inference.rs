//! Fast CPU inference for search: the network with batch normalisation
//! folded into the convolutions, activations kept channel-last, each 3×3
//! convolution Winograd's F(4×4, 3×3) on boards from 6 × 6 up ([`winograd`]:
//! 36 GEMMs over the batch's tiles, 2 to 4 times fewer multiply-adds) and
//! an im2col copy (nine contiguous runs per cell) and one GEMM on smaller
//! ones (the `gemm` crate), residuals and ReLU fused into one pass. Batches are
//! split across rayon's threads, each with its own scratch buffers that are
//! kept between calls: after the first call of a given size nothing is
//! allocated.

mod evaluator;
mod folding;
mod kernels;
mod winograd;

use std::sync::Mutex;

use rayon::prelude::*;

use crate::network::{MOVES_LEFT_SCALE, Network, NetworkConfig};

pub use evaluator::NetworkEvaluator;
pub use folding::{BlockWeights, ConvWeights, DenseWeights, FoldedWeights, tensor_values};
pub use kernels::softmax3;
use kernels::{apply_mask, conv1, dense, matmul_bias, pair_products, pool, relu_in_place, resize};

/// Positions per thread below which a batch is not split.
const MIN_POSITIONS_PER_THREAD: usize = 4;
/// Positions run through the network together by one thread, at most (the
/// im2col buffer of 32 positions of a 15 × 15 board fits the cache).
const MAX_POSITIONS_PER_TILE: usize = 32;
/// Board tiles of Winograd's convolutions run together by one thread, at
/// most (their transformed inputs and products stay in the cache: 128
/// tiles × 36 points × 32 channels × 4 bytes is 0.6 MB each).
const MAX_WINOGRAD_TILES: usize = 128;

/// A convolution as the GEMM's right-hand matrix `[tap][input][output]`.
#[derive(Clone, Debug)]
struct FoldedConv {
    input: usize,
    output: usize,
    kernel: usize,
    weights: Vec<f32>,
    bias: Vec<f32>,
    /// A 3×3 convolution's weights as Winograd's 36 matrices
    /// `[point][input][output]` (empty for a 1×1 one).
    winograd: Vec<f32>,
}

impl FoldedConv {
    fn new(conv: &ConvWeights) -> FoldedConv {
        let (input, output) = (conv.input, conv.output);
        let taps = conv.kernel * conv.kernel;
        let mut weights = vec![0.0; taps * input * output];
        for o in 0..output {
            for i in 0..input {
                for tap in 0..taps {
                    weights[(tap * input + i) * output + o] =
                        conv.weights[(o * input + i) * taps + tap];
                }
            }
        }
        let winograd = if conv.kernel == 3 {
            winograd::transform_weights(&weights, input, output)
        } else {
            Vec::new()
        };
        FoldedConv {
            input,
            output,
            kernel: conv.kernel,
            weights,
            bias: conv.bias.clone(),
            winograd,
        }
    }
}

/// A dense layer for channel-last inputs, weights `[input][output]`.
#[derive(Clone, Debug)]
struct Dense {
    input: usize,
    output: usize,
    weights: Vec<f32>,
    bias: Vec<f32>,
}

impl Dense {
    /// Keeps burn's input order (`channel × cells + cell`) when `channels`
    /// is 0; otherwise reorders the inputs to channel-last
    /// (`cell × channels + channel`).
    fn new(layer: &DenseWeights, channels: usize, cells: usize) -> Dense {
        let mut weights = layer.weights.clone();
        if channels > 0 {
            let output = layer.output;
            for channel in 0..channels {
                for cell in 0..cells {
                    let from = (channel * cells + cell) * output;
                    let to = (cell * channels + channel) * output;
                    weights[to..to + output].copy_from_slice(&layer.weights[from..from + output]);
                }
            }
        }
        Dense {
            input: layer.input,
            output: layer.output,
            weights,
            bias: layer.bias.clone(),
        }
    }
}

/// Scratch buffers of one thread.
#[derive(Debug, Default)]
struct Workspace {
    columns: Vec<f32>,
    first: Vec<f32>,
    second: Vec<f32>,
    hidden: Vec<f32>,
    policy_features: Vec<f32>,
    value_features: Vec<f32>,
    value_hidden: Vec<f32>,
    /// Per cell of the tile: 1 on the board, 0 off it (with a mask plane).
    mask: Vec<f32>,
    /// Per position: its board's cells.
    board_cells: Vec<f32>,
    /// Global pooling of the tile, `batch × 3 × channels`.
    pooled: Vec<f32>,
    /// A bias per position and channel, from global pooling.
    channel_bias: Vec<f32>,
    /// Logits of the actions that are not cells.
    extra_logits: Vec<f32>,
    /// The Winograd convolutions' buffers.
    winograd: winograd::Scratch,
}

/// `buffer` in `parts` chunks of `size`, or `parts` empty ones when it is
/// empty (an output not wanted).
fn tiles_of(buffer: &mut [f32], size: usize, parts: usize) -> Vec<&mut [f32]> {
    if buffer.is_empty() {
        (0..parts).map(|_| <&mut [f32]>::default()).collect()
    } else {
        buffer.chunks_mut(size).collect()
    }
}

/// One tile's inputs and outputs (the optional outputs empty when not
/// wanted).
struct TileOutputs<'a> {
    planes: &'a [f32],
    policy: &'a mut [f32],
    wdl: &'a mut [f32],
    moves_left: &'a mut [f32],
    rules_wdl: &'a mut [f32],
}

/// The network folded for fast batched CPU inference.
#[derive(Debug)]
pub struct InferenceNetwork {
    config: NetworkConfig,
    stem: FoldedConv,
    blocks: Vec<(FoldedConv, FoldedConv, Option<Dense>)>,
    policy_conv: FoldedConv,
    policy_linear: Option<Dense>,
    policy_cells: Option<FoldedConv>,
    policy_pairs: Option<FoldedConv>,
    value_conv: FoldedConv,
    value_hidden: Dense,
    value_output: Dense,
    moves_left: Option<Dense>,
    rules_value: Option<Dense>,
    /// For each cell, its 9 neighbours (tap order ky, kx) or `usize::MAX`
    /// outside the board.
    neighbours: Vec<[usize; 9]>,
    /// Whether 3×3 convolutions run as Winograd's F(4×4, 3×3).
    winograd: bool,
    workspaces: Mutex<Vec<Workspace>>,
    /// Threads a batch may be split across (0: rayon's pool).
    threads: usize,
}

impl InferenceNetwork {
    /// Folds a trained network (its batch-norm running statistics) for
    /// inference.
    pub fn new(network: &Network, config: &NetworkConfig) -> InferenceNetwork {
        InferenceNetwork::from_weights(&FoldedWeights::new(network), config)
    }

    /// The inference network of folded weights.
    pub fn from_weights(weights: &FoldedWeights, config: &NetworkConfig) -> InferenceNetwork {
        let cells = config.cells();
        let (height, width) = (config.height as isize, config.width as isize);
        let neighbours = (0..cells)
            .map(|cell| {
                let (y, x) = (
                    (cell / config.width) as isize,
                    (cell % config.width) as isize,
                );
                let mut taps = [usize::MAX; 9];
                for (tap, slot) in taps.iter_mut().enumerate() {
                    let (dy, dx) = (tap as isize / 3 - 1, tap as isize % 3 - 1);
                    let (ny, nx) = (y + dy, x + dx);
                    if (0..height).contains(&ny) && (0..width).contains(&nx) {
                        *slot = (ny * width + nx) as usize;
                    }
                }
                taps
            })
            .collect();
        InferenceNetwork {
            config: config.clone(),
            stem: FoldedConv::new(&weights.stem),
            blocks: weights
                .blocks
                .iter()
                .map(|block| {
                    (
                        FoldedConv::new(&block.first),
                        FoldedConv::new(&block.second),
                        block.pooling.as_ref().map(|layer| Dense::new(layer, 0, 1)),
                    )
                })
                .collect(),
            policy_conv: FoldedConv::new(&weights.policy_conv),
            policy_linear: weights.policy_linear.as_ref().map(|layer| {
                let channels = if config.pooled_heads {
                    0
                } else {
                    config.policy_channels
                };
                Dense::new(layer, channels, cells)
            }),
            policy_cells: weights.policy_cells.as_ref().map(FoldedConv::new),
            policy_pairs: weights.policy_pairs.as_ref().map(FoldedConv::new),
            value_conv: FoldedConv::new(&weights.value_conv),
            value_hidden: Dense::new(
                &weights.value_hidden,
                if config.pooled_heads {
                    0
                } else {
                    config.value_channels
                },
                cells,
            ),
            value_output: Dense::new(&weights.value_output, 0, 1),
            moves_left: weights
                .moves_left
                .as_ref()
                .map(|layer| Dense::new(layer, 0, 1)),
            rules_value: weights
                .rules_value
                .as_ref()
                .map(|layer| Dense::new(layer, 0, 1)),
            neighbours,
            winograd: winograd::worth_it(config.height, config.width),
            workspaces: Mutex::new(Vec::new()),
            threads: 0,
        }
    }

    /// Limits the threads one batch is split across (1: the calling thread
    /// only).
    pub fn with_threads(mut self, threads: usize) -> InferenceNetwork {
        self.threads = threads;
        self
    }

    /// Runs the 3×3 convolutions as Winograd's F(4×4, 3×3) (`true`, the
    /// default on boards from 6 × 6 up) or as one im2col GEMM (`false`, the
    /// default below): the same outputs up to f32 rounding.
    pub fn with_winograd(mut self, winograd: bool) -> InferenceNetwork {
        self.winograd = winograd;
        self
    }

    /// Whether the 3×3 convolutions run as Winograd's F(4×4, 3×3).
    pub fn uses_winograd(&self) -> bool {
        self.winograd
    }

    /// Positions one thread runs together.
    fn positions_per_tile(&self) -> usize {
        if self.winograd {
            let (rows, columns) = winograd::tiles(self.config.height, self.config.width);
            (MAX_WINOGRAD_TILES / (rows * columns).max(1)).clamp(1, MAX_POSITIONS_PER_TILE)
        } else {
            MAX_POSITIONS_PER_TILE
        }
    }

    /// The network's shape.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// Whether the network has the own-rules value head.
    pub fn has_rules_value(&self) -> bool {
        self.rules_value.is_some()
    }

    /// Whether the network predicts the plies left (its moves-left head).
    pub fn has_moves_left(&self) -> bool {
        self.moves_left.is_some()
    }

    /// Runs a batch: `planes` holds `batch` positions, each plane-major
    /// (`[planes][height][width]`, as `Game::encode` writes them).
    ///
    /// # Shapes
    /// `planes`: `batch × planes × cells` → `policy_logits`:
    /// `batch × actions` (logits), `wdl_logits`: `batch × 3` (logits),
    /// `moves_left`: `batch` (plies until the game ends), or empty when they
    /// are not wanted (they must be, of a network without the head).
    pub fn forward(
        &self,
        planes: &[f32],
        policy_logits: &mut [f32],
        wdl_logits: &mut [f32],
        moves_left: &mut [f32],
    ) {
        self.forward_all(planes, policy_logits, wdl_logits, moves_left, &mut []);
    }

    /// [`forward`](InferenceNetwork::forward), and the own-rules value
    /// head's logits into `rules_wdl_logits` (`batch × 3`, or empty when
    /// they are not wanted; they must be, of a network without the head).
    pub fn forward_all(
        &self,
        planes: &[f32],
        policy_logits: &mut [f32],
        wdl_logits: &mut [f32],
        moves_left: &mut [f32],
        rules_wdl_logits: &mut [f32],
    ) {
        let config = &self.config;
        let per_position = config.input_planes * config.cells();
        let batch = planes.len() / per_position;
        assert_eq!(
            planes.len(),
            batch * per_position,
            "planes of whole positions"
        );
        assert_eq!(policy_logits.len(), batch * config.actions, "policy buffer");
        assert_eq!(wdl_logits.len(), batch * 3, "value buffer");
        assert!(
            moves_left.is_empty() || (moves_left.len() == batch && self.has_moves_left()),
            "moves-left buffer"
        );
        assert!(
            rules_wdl_logits.is_empty()
                || (rules_wdl_logits.len() == batch * 3 && self.has_rules_value()),
            "own-rules value buffer"
        );
        let threads = if self.threads == 0 {
            rayon::current_num_threads()
        } else {
            self.threads
        };
        // Tiles of at most positions_per_tile positions keep the im2col
        // buffer in cache; tiles go to the threads in turn.
        let tiles = batch
            .div_ceil(self.positions_per_tile())
            .max((batch / MIN_POSITIONS_PER_THREAD).clamp(1, threads));
        let tile = batch.div_ceil(tiles).max(1);
        // Each tile's outputs; the optional ones empty when not wanted.
        let parts = batch.div_ceil(tile);
        let outputs: Vec<TileOutputs<'_>> = planes
            .chunks(tile * per_position)
            .zip(policy_logits.chunks_mut(tile * config.actions))
            .zip(wdl_logits.chunks_mut(tile * 3))
            .zip(tiles_of(moves_left, tile, parts))
            .zip(tiles_of(rules_wdl_logits, tile * 3, parts))
            .map(
                |((((planes, policy), wdl), moves_left), rules_wdl)| TileOutputs {
                    planes,
                    policy,
                    wdl,
                    moves_left,
                    rules_wdl,
                },
            )
            .collect();
        if tiles == 1 || threads == 1 {
            let mut workspace = self.take_workspace();
            for tile in outputs {
                self.forward_chunk(&mut workspace, tile);
            }
            self.return_workspace(workspace);
        } else {
            outputs.into_par_iter().for_each(|tile| {
                let mut workspace = self.take_workspace();
                self.forward_chunk(&mut workspace, tile);
                self.return_workspace(workspace);
            });
        }
    }

    fn take_workspace(&self) -> Workspace {
        self.workspaces
            .lock()
            .map(|mut pool| pool.pop().unwrap_or_default())
            .unwrap_or_default()
    }

    fn return_workspace(&self, workspace: Workspace) {
        if let Ok(mut pool) = self.workspaces.lock() {
            pool.push(workspace);
        }
    }

    fn forward_chunk(&self, ws: &mut Workspace, outputs: TileOutputs<'_>) {
        let TileOutputs {
            planes,
            policy,
            wdl,
            moves_left,
            rules_wdl,
        } = outputs;
        let config = &self.config;
        let cells = config.cells();
        let batch = wdl.len() / 3;
        let rows = batch * cells;
        let channels = config.channels;
        // Input planes to channel-last.
        resize(&mut ws.hidden, rows * config.input_planes);
        for b in 0..batch {
            let position =
                &planes[b * config.input_planes * cells..(b + 1) * config.input_planes * cells];
            for plane in 0..config.input_planes {
                for cell in 0..cells {
                    ws.hidden[(b * cells + cell) * config.input_planes + plane] =
                        position[plane * cells + cell];
                }
            }
        }
        // The board of each position.
        if let Some(plane) = config.mask_plane {
            resize(&mut ws.mask, rows);
            resize(&mut ws.board_cells, batch);
            for b in 0..batch {
                let rows = b * cells..(b + 1) * cells;
                let mut count = 0.0;
                for (row, slot) in rows.clone().zip(&mut ws.mask[rows]) {
                    *slot = ws.hidden[row * config.input_planes + plane];
                    count += *slot;
                }
                ws.board_cells[b] = count;
            }
        } else {
            ws.mask.clear();
            ws.board_cells.clear();
            ws.board_cells.resize(batch, cells as f32);
        }
        resize(&mut ws.first, rows * channels);
        resize(&mut ws.second, rows * channels);
        self.conv3(
            &self.stem,
            &ws.hidden,
            &mut ws.columns,
            &mut ws.winograd,
            &mut ws.first,
            batch,
        );
        relu_in_place(&mut ws.first);
        apply_mask(&mut ws.first, &ws.mask, channels);
        for (first, second, pooling) in &self.blocks {
            self.conv3(
                first,
                &ws.first,
                &mut ws.columns,
                &mut ws.winograd,
                &mut ws.second,
                batch,
            );
            relu_in_place(&mut ws.second);
            if let Some(pooling) = pooling {
                pool(
                    &ws.second,
                    &ws.mask,
                    &ws.board_cells,
                    channels,
                    &mut ws.pooled,
                );
                resize(&mut ws.channel_bias, batch * channels);
                dense(pooling, &ws.pooled, &mut ws.channel_bias, batch);
                for (b, position) in ws.second.chunks_exact_mut(cells * channels).enumerate() {
                    let bias = &ws.channel_bias[b * channels..(b + 1) * channels];
                    for row in position.chunks_exact_mut(channels) {
                        for (value, bias) in row.iter_mut().zip(bias) {
                            *value = (*value + bias).max(0.0);
                        }
                    }
                }
            }
            apply_mask(&mut ws.second, &ws.mask, channels);
            resize(&mut ws.hidden, rows * channels);
            self.conv3(
                second,
                &ws.second,
                &mut ws.columns,
                &mut ws.winograd,
                &mut ws.hidden,
                batch,
            );
            for (out, skip) in ws.hidden.iter_mut().zip(&ws.first) {
                *out = (*out + skip).max(0.0);
            }
            apply_mask(&mut ws.hidden, &ws.mask, channels);
            std::mem::swap(&mut ws.first, &mut ws.hidden);
        }
        // Heads.
        let policy_channels = self.policy_conv.output;
        resize(&mut ws.policy_features, rows * policy_channels);
        conv1(&self.policy_conv, &ws.first, &mut ws.policy_features, rows);
        relu_in_place(&mut ws.policy_features);
        let value_channels = self.value_conv.output;
        resize(&mut ws.value_features, rows * value_channels);
        conv1(&self.value_conv, &ws.first, &mut ws.value_features, rows);
        relu_in_place(&mut ws.value_features);
        resize(&mut ws.value_hidden, batch * self.value_hidden.output);
        match (&self.policy_cells, &self.policy_pairs) {
            (None, None) => {
                let linear = self.policy_linear.as_ref().expect("dense heads");
                dense(linear, &ws.policy_features, policy, batch);
                dense(
                    &self.value_hidden,
                    &ws.value_features,
                    &mut ws.value_hidden,
                    batch,
                );
            }
            (cell_conv, pair_conv) => {
                let actions = config.actions;
                let board_actions = config.board_actions();
                if let Some(cell_conv) = cell_conv {
                    // One logit per cell, written into each position's row.
                    resize(&mut ws.columns, rows);
                    conv1(cell_conv, &ws.policy_features, &mut ws.columns, rows);
                    for (b, logits) in policy.chunks_exact_mut(actions).enumerate() {
                        logits[..cells].copy_from_slice(&ws.columns[b * cells..(b + 1) * cells]);
                    }
                } else if let Some(pair_conv) = pair_conv {
                    // A query and a key per cell, then each position's
                    // queries times its keys.
                    let width = pair_conv.output;
                    resize(&mut ws.columns, rows * width);
                    conv1(pair_conv, &ws.policy_features, &mut ws.columns, rows);
                    for (b, logits) in policy.chunks_exact_mut(actions).enumerate() {
                        let queries_keys = &ws.columns[b * cells * width..(b + 1) * cells * width];
                        pair_products(queries_keys, cells, &mut logits[..board_actions]);
                    }
                }
                if let Some(linear) = &self.policy_linear {
                    pool(
                        &ws.policy_features,
                        &ws.mask,
                        &ws.board_cells,
                        policy_channels,
                        &mut ws.pooled,
                    );
                    resize(&mut ws.extra_logits, batch * linear.output);
                    dense(linear, &ws.pooled, &mut ws.extra_logits, batch);
                    for (logits, extra) in policy
                        .chunks_exact_mut(actions)
                        .zip(ws.extra_logits.chunks_exact(linear.output))
                    {
                        logits[board_actions..].copy_from_slice(extra);
                    }
                }
                pool(
                    &ws.value_features,
                    &ws.mask,
                    &ws.board_cells,
                    value_channels,
                    &mut ws.pooled,
                );
                dense(&self.value_hidden, &ws.pooled, &mut ws.value_hidden, batch);
            }
        }
        relu_in_place(&mut ws.value_hidden);
        dense(&self.value_output, &ws.value_hidden, wdl, batch);
        if let (Some(head), false) = (&self.moves_left, moves_left.is_empty()) {
            dense(head, &ws.value_hidden, moves_left, batch);
            for plies in moves_left.iter_mut() {
                *plies = plies.max(0.0) * MOVES_LEFT_SCALE;
            }
        }
        if let (Some(head), false) = (&self.rules_value, rules_wdl.is_empty()) {
            dense(head, &ws.value_hidden, rules_wdl, batch);
        }
    }

    /// A 3×3 convolution of channel-last `input` into `output`.
    fn conv3(
        &self,
        conv: &FoldedConv,
        input: &[f32],
        columns: &mut Vec<f32>,
        scratch: &mut winograd::Scratch,
        output: &mut [f32],
        batch: usize,
    ) {
        debug_assert_eq!(conv.kernel, 3);
        if self.winograd {
            winograd::conv3(
                &conv.winograd,
                &conv.bias,
                input,
                output,
                (batch, self.config.height, self.config.width),
                (conv.input, conv.output),
                scratch,
            );
            return;
        }
        let cells = self.config.cells();
        let (cin, width) = (conv.input, 9 * conv.input);
        resize(columns, batch * cells * width);
        for b in 0..batch {
            let base = b * cells;
            for (cell, taps) in self.neighbours.iter().enumerate() {
                let row = &mut columns[(base + cell) * width..(base + cell + 1) * width];
                for (tap, &neighbour) in taps.iter().enumerate() {
                    let slot = &mut row[tap * cin..(tap + 1) * cin];
                    if neighbour == usize::MAX {
                        slot.fill(0.0);
                    } else {
                        let from = (base + neighbour) * cin;
                        slot.copy_from_slice(&input[from..from + cin]);
                    }
                }
            }
        }
        matmul_bias(
            columns,
            &conv.weights,
            &conv.bias,
            output,
            batch * cells,
            width,
            conv.output,
        );
    }
}
