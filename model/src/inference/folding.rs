//! Folding: burn's network read into plain weights, batch normalisation
//! folded into the convolutions before it (the weights the fast path and
//! the ONNX export share).

use burn::module::Param;
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::Tensor;

use crate::network::{ConvBn, Network};

/// A convolution with its batch normalisation folded in, weights in burn's
/// (and ONNX's) order `[output][input][ky][kx]`.
#[derive(Clone, Debug)]
pub struct ConvWeights {
    /// Input channels.
    pub input: usize,
    /// Output channels.
    pub output: usize,
    /// Kernel size (1 or 3).
    pub kernel: usize,
    /// `[output][input][ky][kx]`.
    pub weights: Vec<f32>,
    /// One per output channel.
    pub bias: Vec<f32>,
}

/// A dense layer, weights `[input][output]` (burn's order), inputs in burn's
/// channel-major flattening.
#[derive(Clone, Debug)]
pub struct DenseWeights {
    /// Inputs.
    pub input: usize,
    /// Outputs.
    pub output: usize,
    /// `[input][output]`.
    pub weights: Vec<f32>,
    /// One per output.
    pub bias: Vec<f32>,
}

/// One residual block's weights.
#[derive(Clone, Debug)]
pub struct BlockWeights {
    /// The first convolution.
    pub first: ConvWeights,
    /// The second convolution.
    pub second: ConvWeights,
    /// The bias from global pooling, in pooling blocks.
    pub pooling: Option<DenseWeights>,
}

/// Every weight of a network, batch normalisation folded: what inference
/// and export read (the ownership head, a training target only, is left
/// out).
#[derive(Clone, Debug)]
pub struct FoldedWeights {
    /// Input convolution.
    pub stem: ConvWeights,
    /// The residual blocks.
    pub blocks: Vec<BlockWeights>,
    /// Policy head convolution.
    pub policy_conv: ConvWeights,
    /// Policy head output layer (dense heads), or the layer of the actions
    /// that are not cells (pooled heads, if any).
    pub policy_linear: Option<DenseWeights>,
    /// Pooled heads: the 1×1 convolution giving each cell's logit.
    pub policy_cells: Option<ConvWeights>,
    /// Pooled heads over pairs of cells: the 1×1 convolution giving each
    /// cell's query and key.
    pub policy_pairs: Option<ConvWeights>,
    /// Value head convolution.
    pub value_conv: ConvWeights,
    /// Value head hidden layer.
    pub value_hidden: DenseWeights,
    /// Value head output layer.
    pub value_output: DenseWeights,
    /// The moves-left head, if the network has one.
    pub moves_left: Option<DenseWeights>,
    /// The own-rules value head, if the network has one.
    pub rules_value: Option<DenseWeights>,
}

impl FoldedWeights {
    /// Reads and folds the weights of `network`.
    pub fn new(network: &Network) -> FoldedWeights {
        FoldedWeights {
            stem: ConvWeights::fold(&network.stem),
            blocks: network
                .blocks
                .iter()
                .map(|b| BlockWeights {
                    first: ConvWeights::fold(&b.first),
                    second: ConvWeights::fold(&b.second),
                    pooling: b.pooling.as_ref().map(DenseWeights::from_linear),
                })
                .collect(),
            policy_conv: ConvWeights::fold(&network.policy_conv),
            policy_linear: network
                .policy_linear
                .as_ref()
                .map(DenseWeights::from_linear),
            policy_cells: network.policy_cells.as_ref().map(ConvWeights::from_conv),
            policy_pairs: network.policy_pairs.as_ref().map(ConvWeights::from_conv),
            value_conv: ConvWeights::fold(&network.value_conv),
            value_hidden: DenseWeights::from_linear(&network.value_hidden),
            value_output: DenseWeights::from_linear(&network.value_output),
            moves_left: network.moves_left.as_ref().map(DenseWeights::from_linear),
            rules_value: network.rules_value.as_ref().map(DenseWeights::from_linear),
        }
    }
}

/// The values of a float tensor, in row-major order.
pub fn tensor_values<const D: usize>(tensor: &Tensor<D>) -> Vec<f32> {
    tensor
        .to_data()
        .convert::<f32>()
        .as_slice::<f32>()
        .expect("float tensor")
        .to_vec()
}

fn param_values<const D: usize>(param: &Param<Tensor<D>>) -> Vec<f32> {
    tensor_values(&param.val())
}

impl ConvWeights {
    /// Folds `norm` into `conv`: w' = w·γ/√(σ²+ε), b' = β − μ·γ/√(σ²+ε).
    fn fold(layer: &ConvBn) -> ConvWeights {
        let [output, input, kernel, _] = layer.conv.weight.dims();
        let mut weights = param_values(&layer.conv.weight);
        let scale = batch_norm_scale(&layer.norm);
        let mean = tensor_values(&layer.norm.running_mean.value());
        let beta = param_values(&layer.norm.beta);
        let per_output = input * kernel * kernel;
        for (o, row) in weights.chunks_exact_mut(per_output).enumerate() {
            for w in row {
                *w *= scale[o];
            }
        }
        let bias = (0..output).map(|o| beta[o] - mean[o] * scale[o]).collect();
        ConvWeights {
            input,
            output,
            kernel,
            weights,
            bias,
        }
    }
}

impl ConvWeights {
    /// A convolution with its own bias (no normalisation).
    fn from_conv(conv: &Conv2d) -> ConvWeights {
        let [output, input, kernel, _] = conv.weight.dims();
        ConvWeights {
            input,
            output,
            kernel,
            weights: param_values(&conv.weight),
            bias: conv
                .bias
                .as_ref()
                .map_or_else(|| vec![0.0; output], param_values),
        }
    }
}

fn batch_norm_scale(norm: &BatchNorm) -> Vec<f32> {
    let gamma = param_values(&norm.gamma);
    let variance = tensor_values(&norm.running_var.value());
    gamma
        .iter()
        .zip(&variance)
        .map(|(g, v)| g / (v + norm.epsilon as f32).sqrt())
        .collect()
}

impl DenseWeights {
    fn from_linear(linear: &Linear) -> DenseWeights {
        let [input, output] = linear.weight.dims();
        let weights = param_values(&linear.weight);
        let bias = linear
            .bias
            .as_ref()
            .map_or_else(|| vec![0.0; output], param_values);
        DenseWeights {
            input,
            output,
            weights,
            bias,
        }
    }
}
