//! The policy/value network: a residual convolutional tower with a policy head
//! (logits over the game's actions) and a win/draw/loss head (logits).
//!
//! ```text
//! planes ─ conv3×3 ─ BN ─ ReLU ─ [residual block] × blocks ─┬─ policy head
//!                                                             └─ value head
//! residual block: x + BN(conv3×3(ReLU(BN(conv3×3(x))))), then ReLU
//! policy head:    conv1×1 (policy_channels) ─ BN ─ ReLU ─ flatten ─ linear → actions
//! value head:     conv1×1 (value_channels) ─ BN ─ ReLU ─ flatten ─ linear
//!                 (value_hidden) ─ ReLU ─ linear → 3 (win, draw, loss)
//! ```
//!
//! The same code serves every game: the shapes come from its `GameSpec`.

use burn::config::Config;
use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use grandmaitre_engine::GameSpec;

/// Shape and size of a network.
#[derive(Config, Debug, PartialEq, Eq)]
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
    #[config(default = 32)]
    pub channels: usize,
    /// Residual blocks.
    #[config(default = 4)]
    pub blocks: usize,
    /// Channels of the policy head's 1×1 convolution.
    #[config(default = 4)]
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution.
    #[config(default = 2)]
    pub value_channels: usize,
    /// Hidden units of the value head.
    #[config(default = 64)]
    pub value_hidden: usize,
}

impl NetworkConfig {
    /// A network for a game, with the default tower size.
    pub fn for_game(spec: &GameSpec) -> NetworkConfig {
        let [planes, height, width] = spec.observation_shape;
        NetworkConfig::new(planes, height, width, spec.action_count)
    }

    /// Cells of the board.
    pub fn cells(&self) -> usize {
        self.height * self.width
    }

    /// Multiply-adds of one position through the network.
    pub fn multiply_adds(&self) -> usize {
        let cells = self.cells();
        let conv3 = |input: usize, output: usize| input * output * 9 * cells;
        conv3(self.input_planes, self.channels)
            + self.blocks * 2 * conv3(self.channels, self.channels)
            + self.channels * (self.policy_channels + self.value_channels) * cells
            + self.policy_channels * cells * self.actions
            + self.value_channels * cells * self.value_hidden
            + self.value_hidden * 3
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
            .checked_mul(self.blocks)?;
        [
            conv_bn(self.input_planes, self.channels, 3)?,
            tower,
            conv_bn(self.channels, self.policy_channels, 1)?,
            linear(self.policy_channels.checked_mul(cells)?, self.actions)?,
            conv_bn(self.channels, self.value_channels, 1)?,
            linear(self.value_channels.checked_mul(cells)?, self.value_hidden)?,
            linear(self.value_hidden, 3)?,
        ]
        .into_iter()
        .try_fold(0usize, usize::checked_add)
    }

    /// Builds a network with freshly initialised weights on `device`.
    pub fn init(&self, device: &Device) -> Network {
        let cells = self.cells();
        Network {
            stem: ConvBn::new(self.input_planes, self.channels, 3, device),
            blocks: (0..self.blocks)
                .map(|_| ResidualBlock {
                    first: ConvBn::new(self.channels, self.channels, 3, device),
                    second: ConvBn::new(self.channels, self.channels, 3, device),
                })
                .collect(),
            policy_conv: ConvBn::new(self.channels, self.policy_channels, 1, device),
            policy_linear: LinearConfig::new(self.policy_channels * cells, self.actions)
                .init(device),
            value_conv: ConvBn::new(self.channels, self.value_channels, 1, device),
            value_hidden: LinearConfig::new(self.value_channels * cells, self.value_hidden)
                .init(device),
            value_output: LinearConfig::new(self.value_hidden, 3).init(device),
        }
    }
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
}

impl ResidualBlock {
    /// # Shapes
    /// `[batch, channels, height, width]` → the same.
    pub fn forward(&self, input: Tensor<4>) -> Tensor<4> {
        let hidden = relu(self.first.forward(input.clone()));
        relu(self.second.forward(hidden) + input)
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
    /// Policy head output layer.
    pub policy_linear: Linear,
    /// Value head convolution.
    pub value_conv: ConvBn,
    /// Value head hidden layer.
    pub value_hidden: Linear,
    /// Value head output layer.
    pub value_output: Linear,
}

/// The two heads' outputs.
#[derive(Debug)]
pub struct NetworkOutput {
    /// Policy logits, `[batch, actions]`; illegal actions are masked where
    /// the logits are used.
    pub policy_logits: Tensor<2>,
    /// Win/draw/loss logits for the side to move, `[batch, 3]`.
    pub wdl_logits: Tensor<2>,
}

impl Network {
    /// # Shapes
    /// `[batch, planes, height, width]` → policy logits `[batch, actions]`
    /// and win/draw/loss logits `[batch, 3]`.
    pub fn forward(&self, planes: Tensor<4>) -> NetworkOutput {
        let mut x = relu(self.stem.forward(planes));
        for block in &self.blocks {
            x = block.forward(x);
        }
        let policy = relu(self.policy_conv.forward(x.clone())).flatten::<2>(1, 3);
        let value = relu(self.value_conv.forward(x)).flatten::<2>(1, 3);
        NetworkOutput {
            policy_logits: self.policy_linear.forward(policy),
            wdl_logits: self
                .value_output
                .forward(relu(self.value_hidden.forward(value))),
        }
    }
}
