//! The policy/value network: a residual convolutional tower with a policy head
//! (logits over the game's actions), a win/draw/loss head (logits) and, on
//! request, a moves-left head (the plies until the game ends, which lets the
//! search prefer the shorter of two wins; lc0's) and an ownership head (each
//! cell's final owner, a training target only).
//!
//! ```text
//! planes ─ conv3×3 ─ BN ─ ReLU ─ [residual block] × blocks ─┬─ policy head
//!                                                             ├─ value head ─ moves left
//!                                                             └─ ownership head
//! residual block: x + BN(conv3×3(h)), then ReLU, with h = ReLU(BN(conv3×3(x)))
//!                 (+ a per-channel bias from h's global pooling, in pooling
//!                 blocks)
//! ```
//!
//! Two kinds of heads:
//!
//! - **dense** (the first models' shape): policy conv1×1 (policy_channels) ─
//!   BN ─ ReLU ─ flatten ─ linear → actions; value conv1×1 (value_channels) ─
//!   BN ─ ReLU ─ flatten ─ linear (value_hidden) ─ ReLU ─ linear → 3. Tied
//!   to one board size.
//! - **pooled** (KataGo, Wu 2019; Polygames, Cazenave et al. 2020): policy
//!   conv1×1 ─ BN ─ ReLU ─ conv1×1 → one logit per cell (action `i < cells` is
//!   cell `i`, row-major), the actions that are not cells from a linear layer
//!   on the policy features' global pooling; value conv1×1 ─ BN ─ ReLU ─
//!   global pooling ─ linear ─ ReLU ─ linear → 3. No layer depends on the
//!   board's size: one network plays every board of its game.
//! - **pooled, over pairs of cells** (for games of moving pieces, whose
//!   actions are moves `from · cells + to`; lc0's attention policy): the
//!   policy features give each cell a query and a key (one 1×1 convolution
//!   of 2 × policy_channels), and the move from `i` to `j` has the logit
//!   q(i)·k(j) / √policy_channels; the other actions and the value as
//!   above. Its size does not grow with the square of the board.
//!
//! Global pooling over the board's cells gives three numbers per channel:
//! the mean, the mean scaled by (√cells − 10) / 10 (so that the network
//! knows the board's size), and the maximum (KataGo). When the game marks
//! its board in an input plane (`mask_plane`: grid cells off the board are
//! 0 there, as Havannah's hexagon in its square grid), pooling covers the
//! board only and the tower's activations are zeroed off the board after
//! every convolution, so that off-board cells act as the grid's edge.
//!
//! The same code serves every game: the shapes come from its `GameSpec`.

use burn::module::{Module, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use grandmaitre_engine::{ActionLayout, GameSpec};
use serde::{Deserialize, Serialize};

/// Shape and size of a network. Fields added after the first checkpoints
/// default to the first networks' shape when a description lacks them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkConfig {
    /// Input planes.
    pub input_planes: usize,
    /// Board height.
    pub height: usize,
    /// Board width.
    pub width: usize,
    /// Policy logits (the game's action count).
    pub actions: usize,
    /// Channels of the residual tower.
    pub channels: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Channels of the policy head's 1×1 convolution.
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution.
    pub value_channels: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
    /// Pooled heads, independent of the board's size, instead of dense ones.
    #[serde(default)]
    pub pooled_heads: bool,
    /// Every this many residual blocks, one adds a bias from global pooling
    /// (the last of each run of this many; 0: none).
    #[serde(default)]
    pub pooling_every: usize,
    /// The ownership head (a training target: each cell's final owner).
    #[serde(default)]
    pub ownership_head: bool,
    /// The input plane that marks the board's cells (see the module
    /// header), if the board does not fill its grid.
    #[serde(default)]
    pub mask_plane: Option<usize>,
    /// Pooled heads: the first cells² actions are moves between two cells,
    /// scored by a query and a key per cell (see the module header).
    #[serde(default)]
    pub cell_pairs: bool,
    /// The moves-left head: one linear output on the value head's hidden
    /// layer, the plies until the game ends in units of
    /// [`MOVES_LEFT_SCALE`].
    #[serde(default)]
    pub moves_left_head: bool,
    /// The own-rules value head: win/draw/loss logits under the game's own
    /// rules, from the value head's hidden layer, beside the main value
    /// that a training rule's adjudication may decide (see
    /// [`Network::rules_value`]).
    #[serde(default)]
    pub rules_value_head: bool,
}

/// Plies per unit of the moves-left head's output (targets of a few units
/// train well with a squared error).
pub const MOVES_LEFT_SCALE: f32 = 100.0;

/// `with_field(value)`: the configuration with one field changed.
macro_rules! setters {
    ($($field:ident: $type:ty => $setter:ident),* $(,)?) => {
        impl NetworkConfig {
            $(
                #[doc = concat!("The configuration with `", stringify!($field), "` set.")]
                pub fn $setter(mut self, $field: $type) -> NetworkConfig {
                    self.$field = $field;
                    self
                }
            )*
        }
    };
}

setters! {
    channels: usize => with_channels,
    blocks: usize => with_blocks,
    policy_channels: usize => with_policy_channels,
    value_channels: usize => with_value_channels,
    value_hidden: usize => with_value_hidden,
    pooled_heads: bool => with_pooled_heads,
    pooling_every: usize => with_pooling_every,
    ownership_head: bool => with_ownership_head,
    mask_plane: Option<usize> => with_mask_plane,
    cell_pairs: bool => with_cell_pairs,
    moves_left_head: bool => with_moves_left_head,
    rules_value_head: bool => with_rules_value_head,
}

impl NetworkConfig {
    /// A network of the default size (32 channels × 4 blocks, dense heads)
    /// for `input_planes` planes of `height × width` and `actions` actions.
    pub fn new(input_planes: usize, height: usize, width: usize, actions: usize) -> NetworkConfig {
        NetworkConfig {
            input_planes,
            height,
            width,
            actions,
            channels: 32,
            blocks: 4,
            policy_channels: 4,
            value_channels: 2,
            value_hidden: 64,
            pooled_heads: false,
            pooling_every: 0,
            ownership_head: false,
            mask_plane: None,
            cell_pairs: false,
            moves_left_head: false,
            rules_value_head: false,
        }
    }

    /// A network for a game, with the default tower size and dense heads.
    pub fn for_game(spec: &GameSpec) -> NetworkConfig {
        let [planes, height, width] = spec.observation_shape;
        NetworkConfig::new(planes, height, width, spec.action_count)
    }

    /// A network of pooled heads for a game (whose actions start with one
    /// per cell or one per pair of cells, as its `action_layout` says):
    /// pooling in every second block, the ownership head, the board's plane
    /// as the mask.
    pub fn pooled_for_game(spec: &GameSpec) -> NetworkConfig {
        NetworkConfig::for_game(spec)
            .with_pooled_heads(true)
            .with_cell_pairs(spec.action_layout == ActionLayout::CellPairs)
            .with_pooling_every(2)
            .with_ownership_head(true)
            .with_mask_plane(spec.board_plane)
            .with_policy_channels(16)
            .with_value_channels(16)
    }

    /// The same network on another board of its game (pooled heads only:
    /// dense heads are tied to their board).
    pub fn for_board(&self, spec: &GameSpec) -> Option<NetworkConfig> {
        let [planes, height, width] = spec.observation_shape;
        let fits = planes == self.input_planes
            && spec.board_plane == self.mask_plane
            && (spec.action_layout == ActionLayout::CellPairs) == self.cell_pairs
            && spec.action_count.checked_sub(spec.board_actions())
                == self.actions.checked_sub(self.board_actions());
        if self.pooled_heads && fits {
            Some(NetworkConfig {
                height,
                width,
                actions: spec.action_count,
                ..self.clone()
            })
        } else {
            None
        }
    }

    /// The kind of heads, as the benchmarks print it: `dense` or `pooled`.
    pub fn heads_name(&self) -> &'static str {
        if self.pooled_heads { "pooled" } else { "dense" }
    }

    /// Cells of the board.
    pub fn cells(&self) -> usize {
        self.height * self.width
    }

    /// Actions that the board's cells give (pooled heads): one per cell, or
    /// one per pair of cells.
    pub fn board_actions(&self) -> usize {
        if self.cell_pairs {
            self.cells() * self.cells()
        } else {
            self.cells()
        }
    }

    /// Actions that are not cells or pairs of cells (pooled heads).
    pub fn extra_actions(&self) -> usize {
        self.actions.saturating_sub(self.board_actions())
    }

    /// Whether block `index` adds a bias from global pooling.
    pub fn pools_in_block(&self, index: usize) -> bool {
        self.pooling_every > 0 && index % self.pooling_every == self.pooling_every - 1
    }

    /// Blocks that add a bias from global pooling.
    pub fn pooling_blocks(&self) -> usize {
        (0..self.blocks).filter(|&i| self.pools_in_block(i)).count()
    }

    /// Multiply-adds of one position through the network (ownership head
    /// excluded: search does not run it).
    pub fn multiply_adds(&self) -> usize {
        let cells = self.cells();
        let conv3 = |input: usize, output: usize| input * output * 9 * cells;
        let tower = conv3(self.input_planes, self.channels)
            + self.blocks * 2 * conv3(self.channels, self.channels)
            + self.pooling_blocks() * POOLED_STATISTICS * self.channels * self.channels;
        let head_convs = self.channels * (self.policy_channels + self.value_channels) * cells;
        let board_logits = if self.cell_pairs {
            // Queries and keys, then one dot product per pair.
            2 * self.policy_channels * self.policy_channels * cells
                + self.policy_channels * cells * cells
        } else {
            self.policy_channels * cells
        };
        let heads = if self.pooled_heads {
            board_logits
                + POOLED_STATISTICS * self.policy_channels * self.extra_actions()
                + POOLED_STATISTICS * self.value_channels * self.value_hidden
        } else {
            self.policy_channels * cells * self.actions
                + self.value_channels * cells * self.value_hidden
        };
        let value_outputs =
            3 + usize::from(self.moves_left_head) + 3 * usize::from(self.rules_value_head);
        tower + head_convs + heads + self.value_hidden * value_outputs
    }

    /// Numbers the network holds (weights, biases and normalisation
    /// statistics), or `None` when it does not fit in a `usize`.
    pub fn value_count(&self) -> Option<usize> {
        let cells = self.cells();
        // A convolution without bias, and its normalisation's scale, shift,
        // running mean and running variance.
        let conv_bn = |input: usize, output: usize, kernel: usize| {
            output
                .checked_mul(input)?
                .checked_mul(kernel * kernel)?
                .checked_add(output.checked_mul(4)?)
        };
        let linear = |input: usize, output: usize| input.checked_mul(output)?.checked_add(output);
        let tower = conv_bn(self.channels, self.channels, 3)?
            .checked_mul(2)?
            .checked_mul(self.blocks)?
            .checked_add(
                linear(POOLED_STATISTICS.checked_mul(self.channels)?, self.channels)?
                    .checked_mul(self.pooling_blocks())?,
            )?;
        let heads = if self.pooled_heads {
            let extra = match self.extra_actions() {
                0 => 0,
                extra => linear(POOLED_STATISTICS * self.policy_channels, extra)?,
            };
            let board_logits = if self.cell_pairs {
                linear(self.policy_channels, self.policy_channels.checked_mul(2)?)?
            } else {
                linear(self.policy_channels, 1)?
            };
            [
                board_logits,
                extra,
                linear(
                    POOLED_STATISTICS.checked_mul(self.value_channels)?,
                    self.value_hidden,
                )?,
            ]
        } else {
            [
                linear(self.policy_channels.checked_mul(cells)?, self.actions)?,
                0,
                linear(self.value_channels.checked_mul(cells)?, self.value_hidden)?,
            ]
        };
        let ownership = if self.ownership_head {
            linear(self.channels, 1)?
        } else {
            0
        };
        let moves_left = if self.moves_left_head {
            linear(self.value_hidden, 1)?
        } else {
            0
        };
        let rules_value = if self.rules_value_head {
            linear(self.value_hidden, 3)?
        } else {
            0
        };
        [
            conv_bn(self.input_planes, self.channels, 3)?,
            tower,
            conv_bn(self.channels, self.policy_channels, 1)?,
            conv_bn(self.channels, self.value_channels, 1)?,
            linear(self.value_hidden, 3)?,
            ownership,
            moves_left,
            rules_value,
        ]
        .into_iter()
        .chain(heads)
        .try_fold(0usize, usize::checked_add)
    }

    /// Builds a network with freshly initialised weights on `device`.
    pub fn init(&self, device: &Device) -> Network {
        let cells = self.cells();
        let pooled = self.pooled_heads;
        let conv1 =
            |input: usize, output: usize| Conv2dConfig::new([input, output], [1, 1]).init(device);
        let value_inputs = if pooled {
            POOLED_STATISTICS * self.value_channels
        } else {
            self.value_channels * cells
        };
        Network {
            stem: ConvBn::new(self.input_planes, self.channels, 3, device),
            blocks: (0..self.blocks)
                .map(|index| ResidualBlock {
                    first: ConvBn::new(self.channels, self.channels, 3, device),
                    second: ConvBn::new(self.channels, self.channels, 3, device),
                    pooling: self.pools_in_block(index).then(|| {
                        LinearConfig::new(POOLED_STATISTICS * self.channels, self.channels)
                            .init(device)
                    }),
                })
                .collect(),
            policy_conv: ConvBn::new(self.channels, self.policy_channels, 1, device),
            policy_linear: if !pooled {
                Some(LinearConfig::new(self.policy_channels * cells, self.actions).init(device))
            } else if self.extra_actions() > 0 {
                Some(
                    LinearConfig::new(
                        POOLED_STATISTICS * self.policy_channels,
                        self.extra_actions(),
                    )
                    .init(device),
                )
            } else {
                None
            },
            policy_cells: (pooled && !self.cell_pairs).then(|| conv1(self.policy_channels, 1)),
            policy_pairs: (pooled && self.cell_pairs)
                .then(|| conv1(self.policy_channels, 2 * self.policy_channels)),
            value_conv: ConvBn::new(self.channels, self.value_channels, 1, device),
            value_hidden: LinearConfig::new(value_inputs, self.value_hidden).init(device),
            value_output: LinearConfig::new(self.value_hidden, 3).init(device),
            ownership: self.ownership_head.then(|| conv1(self.channels, 1)),
            moves_left: self.moves_left_head.then(|| self.init_moves_left(device)),
            rules_value: self.rules_value_head.then(|| self.init_rules_value(device)),
            mask_plane: self.mask_plane,
        }
    }

    /// A freshly initialised moves-left head (also for a network trained
    /// without one, which gains it).
    pub fn init_moves_left(&self, device: &Device) -> Linear {
        LinearConfig::new(self.value_hidden, 1).init(device)
    }

    /// A freshly initialised own-rules value head (also for a network
    /// trained without one, which gains it).
    pub fn init_rules_value(&self, device: &Device) -> Linear {
        LinearConfig::new(self.value_hidden, 3).init(device)
    }
}

/// Numbers global pooling gives per channel: mean, scaled mean, maximum.
pub const POOLED_STATISTICS: usize = 3;

/// The scale of the second pooled statistic: (√cells − 10) / 10.
pub fn board_size_scale(cells: f32) -> f32 {
    (cells.sqrt() - 10.0) / 10.0
}

/// A convolution without bias followed by batch normalisation.
#[derive(Module, Debug)]
pub struct ConvBn {
    /// The convolution (same padding, no bias).
    pub conv: Conv2d,
    /// The normalisation.
    pub norm: BatchNorm,
}

impl ConvBn {
    fn new(input: usize, output: usize, kernel: usize, device: &Device) -> ConvBn {
        let pad = kernel / 2;
        ConvBn {
            conv: Conv2dConfig::new([input, output], [kernel, kernel])
                .with_padding(PaddingConfig2d::Explicit(pad, pad, pad, pad))
                .with_bias(false)
                .init(device),
            norm: BatchNormConfig::new(output).init(device),
        }
    }

    /// # Shapes
    /// `[batch, input, height, width]` → `[batch, output, height, width]`.
    pub fn forward(&self, input: Tensor<4>) -> Tensor<4> {
        self.norm.forward(self.conv.forward(input))
    }
}

/// Two 3×3 convolutions with a skip connection.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    /// The first convolution (followed by ReLU).
    pub first: ConvBn,
    /// The second convolution (added to the input, then ReLU).
    pub second: ConvBn,
    /// In pooling blocks: the per-channel bias added to the first
    /// convolution's output, from its global pooling.
    pub pooling: Option<Linear>,
}

impl ResidualBlock {
    /// # Shapes
    /// `[batch, channels, height, width]` → the same.
    pub fn forward(&self, input: Tensor<4>, board: &Board) -> Tensor<4> {
        let mut hidden = relu(self.first.forward(input.clone()));
        if let Some(pooling) = &self.pooling {
            let [batch, channels, _, _] = hidden.dims();
            let bias = pooling
                .forward(board.pool(hidden.clone()))
                .reshape([batch, channels, 1, 1]);
            hidden = relu(hidden + bias);
        }
        let hidden = board.mask(hidden);
        board.mask(relu(self.second.forward(hidden) + input))
    }
}

/// Where the board lies in the grid, for masking and pooling.
#[derive(Clone, Debug)]
pub struct Board {
    /// `[batch, 1, height, width]`: 1 on the board, 0 off it (`None`: the
    /// board fills the grid).
    mask: Option<Tensor<4>>,
    /// `[batch, 1]`: cells on the board.
    cells: Tensor<2>,
}

impl Board {
    /// The board of each position of `planes` (`[batch, planes, height,
    /// width]`), from its `mask_plane`.
    pub fn new(planes: &Tensor<4>, mask_plane: Option<usize>) -> Board {
        let [batch, _, height, width] = planes.dims();
        match mask_plane {
            Some(plane) => {
                let mask = planes.clone().narrow(1, plane, 1);
                let cells = mask.clone().sum_dim(2).sum_dim(3).reshape([batch, 1]);
                Board {
                    mask: Some(mask),
                    cells,
                }
            }
            None => Board {
                mask: None,
                cells: Tensor::<2>::full([batch, 1], (height * width) as f32, &planes.device()),
            },
        }
    }

    /// `x` with the cells off the board zeroed.
    pub fn mask(&self, x: Tensor<4>) -> Tensor<4> {
        match &self.mask {
            Some(mask) => x * mask.clone(),
            None => x,
        }
    }

    /// Global pooling of non-negative features over the board's cells:
    /// `[batch, channels, height, width]` → `[batch, 3 × channels]` (means,
    /// scaled means, maxima).
    pub fn pool(&self, x: Tensor<4>) -> Tensor<2> {
        let [batch, channels, _, _] = x.dims();
        let x = self.mask(x);
        let sums = x.clone().sum_dim(2).sum_dim(3).reshape([batch, channels]);
        let means = sums / self.cells.clone();
        let scale = (self.cells.clone().sqrt() - 10.0) / 10.0;
        let maxima = x.max_dim(2).max_dim(3).reshape([batch, channels]);
        Tensor::cat(vec![means.clone(), means * scale, maxima], 1)
    }
}

/// The network (see the module header).
#[derive(Module, Debug)]
pub struct Network {
    /// Input convolution.
    pub stem: ConvBn,
    /// The residual tower.
    pub blocks: Vec<ResidualBlock>,
    /// Policy head convolution.
    pub policy_conv: ConvBn,
    /// Policy head output layer: every action (dense heads), or the actions
    /// that are not cells (pooled heads; `None` when all actions are cells).
    pub policy_linear: Option<Linear>,
    /// Pooled heads: the policy logit of each cell.
    pub policy_cells: Option<Conv2d>,
    /// Pooled heads over pairs of cells: each cell's query (the first
    /// policy_channels outputs) and key (the others).
    pub policy_pairs: Option<Conv2d>,
    /// Value head convolution.
    pub value_conv: ConvBn,
    /// Value head hidden layer.
    pub value_hidden: Linear,
    /// Value head output layer.
    pub value_output: Linear,
    /// The ownership head: each cell's final owner, from the side to move's
    /// point of view (tanh: +1 own, −1 the opponent's).
    pub ownership: Option<Conv2d>,
    /// The moves-left head: plies until the game ends, in units of
    /// [`MOVES_LEFT_SCALE`], from the value head's hidden layer.
    pub moves_left: Option<Linear>,
    /// The own-rules value head: win/draw/loss logits under the game's own
    /// rules, from the value head's hidden layer. A network trained where a
    /// training rule adjudicates (Bulltricker's material at the ply cap)
    /// learns both values: the search plays by the main one, which reads
    /// the adjudication's sharper signal, and the bar reads this one, which
    /// says what the rules say (a cap is a draw).
    pub rules_value: Option<Linear>,
    /// The input plane that marks the board (not a weight).
    pub mask_plane: Option<usize>,
}

/// The logits of the moves between two cells, `[batch, cells²]` (row
/// `from`, column `to`), from each cell's query and key (`[batch, 2D,
/// height, width]`, queries first): q(from)·k(to) / √D.
fn pair_logits(queries_keys: Tensor<4>) -> Tensor<2> {
    let [batch, channels, height, width] = queries_keys.dims();
    let depth = channels / 2;
    let cells = height * width;
    let flat: Tensor<3> = queries_keys.reshape([batch, channels, cells]);
    let queries = flat.clone().narrow(1, 0, depth).swap_dims(1, 2);
    let keys = flat.narrow(1, depth, depth);
    (queries.matmul(keys) / (depth as f32).sqrt()).reshape([batch, cells * cells])
}

/// The heads' outputs.
#[derive(Debug)]
pub struct NetworkOutput {
    /// Policy logits, `[batch, actions]`; illegal actions are masked where
    /// the logits are used.
    pub policy_logits: Tensor<2>,
    /// Win/draw/loss logits for the side to move, `[batch, 3]`.
    pub wdl_logits: Tensor<2>,
    /// Predicted final owner of each cell in `[−1, 1]` (0 off the board),
    /// `[batch, cells]`, when the network has the ownership head.
    pub ownership: Option<Tensor<2>>,
    /// Plies until the game ends in units of [`MOVES_LEFT_SCALE`], `[batch,
    /// 1]`, when the network has the moves-left head.
    pub moves_left: Option<Tensor<2>>,
    /// Win/draw/loss logits under the game's own rules, `[batch, 3]`, when
    /// the network has the own-rules value head.
    pub rules_wdl_logits: Option<Tensor<2>>,
}

impl Network {
    /// The same network reading `planes` input planes: those it did not
    /// read come after its own, with zero weights, so that its outputs do
    /// not change (a game whose encoding gained planes, see
    /// `GameSpec::earlier_encodings`).
    ///
    /// # Panics
    ///
    /// Panics if `planes` is fewer than the network reads.
    pub fn with_input_planes(mut self, planes: usize) -> Network {
        let weight = self.stem.conv.weight.val();
        let [outputs, read, height, width] = weight.dims();
        assert!(planes >= read, "a network cannot read fewer planes");
        let zeros = Tensor::<4>::zeros([outputs, planes - read, height, width], &weight.device());
        self.stem.conv.weight = Param::from_tensor(Tensor::cat(vec![weight, zeros], 1));
        self
    }

    /// # Shapes
    /// `[batch, planes, height, width]` → policy logits `[batch, actions]`,
    /// win/draw/loss logits `[batch, 3]` and ownership `[batch, cells]`.
    pub fn forward(&self, planes: Tensor<4>) -> NetworkOutput {
        let board = Board::new(&planes, self.mask_plane);
        let mut x = board.mask(relu(self.stem.forward(planes)));
        for block in &self.blocks {
            x = block.forward(x, &board);
        }
        let ownership = self.ownership.as_ref().map(|head| {
            board
                .mask(head.forward(x.clone()).tanh())
                .flatten::<2>(1, 3)
        });
        let policy = relu(self.policy_conv.forward(x.clone()));
        let value = relu(self.value_conv.forward(x));
        let board_logits = match (&self.policy_cells, &self.policy_pairs) {
            (Some(cells), _) => Some(cells.forward(policy.clone()).flatten::<2>(1, 3)),
            (None, Some(pairs)) => Some(pair_logits(pairs.forward(policy.clone()))),
            (None, None) => None,
        };
        let (policy_logits, value) = match board_logits {
            None => {
                let linear = self.policy_linear.as_ref().expect("dense heads");
                (
                    linear.forward(policy.flatten::<2>(1, 3)),
                    value.flatten::<2>(1, 3),
                )
            }
            Some(mut logits) => {
                if let Some(linear) = &self.policy_linear {
                    let extra = linear.forward(board.pool(policy));
                    logits = Tensor::cat(vec![logits, extra], 1);
                }
                (logits, board.pool(value))
            }
        };
        let hidden = relu(self.value_hidden.forward(value));
        NetworkOutput {
            policy_logits,
            moves_left: self
                .moves_left
                .as_ref()
                .map(|head| head.forward(hidden.clone())),
            rules_wdl_logits: self
                .rules_value
                .as_ref()
                .map(|head| head.forward(hidden.clone())),
            wdl_logits: self.value_output.forward(hidden),
            ownership,
        }
    }
}
