//! Choosing burn's backend at run time, and running the network through it.

use burn::tensor::{Device, Tensor, TensorData};
use std::fmt;
use std::str::FromStr;

use crate::inference::tensor_values;
use crate::network::{Network, NetworkConfig};

/// burn's CPU (and GPU) backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// burn's `flex`: pure Rust, gemm and rayon (the default).
    Flex,
    /// burn-ndarray (deprecated upstream, kept for users who know it).
    NdArray,
    /// libtorch through burn-tch (the `tch` feature).
    LibTorch,
}

impl FromStr for Backend {
    type Err = String;

    fn from_str(text: &str) -> Result<Backend, String> {
        match text {
            "flex" => Ok(Backend::Flex),
            "ndarray" => Ok(Backend::NdArray),
            "tch" | "libtorch" => Ok(Backend::LibTorch),
            other => Err(format!(
                "unknown backend '{other}': expected flex, ndarray or tch"
            )),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Flex => "flex",
            Backend::NdArray => "ndarray",
            Backend::LibTorch => "tch",
        })
    }
}

impl Backend {
    /// The backend's device; `cuda` asks libtorch for the first GPU.
    pub fn device(self, cuda: bool) -> Result<Device, String> {
        match (self, cuda) {
            (Backend::Flex, false) => Ok(Device::flex()),
            #[allow(deprecated)]
            (Backend::NdArray, false) => Ok(Device::ndarray()),
            #[cfg(feature = "tch")]
            #[allow(deprecated)]
            (Backend::LibTorch, false) => Ok(Device::libtorch()),
            // libtorch panics on first use of a CUDA device it cannot see.
            #[cfg(feature = "tch")]
            (Backend::LibTorch, true)
                if Device::enumerate(burn::tensor::DeviceType::LibTorch).is_empty() =>
            {
                Err("libtorch sees no CUDA device on this machine".to_string())
            }
            #[cfg(feature = "tch")]
            #[allow(deprecated)]
            (Backend::LibTorch, true) => Ok(Device::libtorch_cuda(0)),
            #[cfg(not(feature = "tch"))]
            (Backend::LibTorch, _) => {
                Err("the tch backend needs a build with --features tch".to_string())
            }
            (_, true) => Err(format!("the {self} backend has no CUDA device; use tch")),
        }
    }
}

/// Runs `network` through burn on `device` for a batch of plane-major
/// positions; returns policy logits (`batch × actions`) and win/draw/loss
/// logits (`batch × 3`).
pub fn burn_forward(
    network: &Network,
    config: &NetworkConfig,
    planes: &[f32],
    device: &Device,
) -> (Vec<f32>, Vec<f32>) {
    let outputs = burn_outputs(network, config, planes, device);
    (outputs.policy_logits, outputs.wdl_logits)
}

/// [`burn_outputs`]' logits, each batch-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Logits {
    /// Policy logits, `batch × actions`.
    pub policy_logits: Vec<f32>,
    /// Win/draw/loss logits, `batch × 3`.
    pub wdl_logits: Vec<f32>,
    /// The own-rules value head's logits, `batch × 3`, from a network
    /// with that head.
    pub rules_wdl_logits: Option<Vec<f32>>,
}

/// [`burn_forward`], with the own-rules value head's logits.
pub fn burn_outputs(
    network: &Network,
    config: &NetworkConfig,
    planes: &[f32],
    device: &Device,
) -> Logits {
    let per_position = config.input_planes * config.cells();
    let batch = planes.len() / per_position;
    let input = Tensor::<4>::from_data(
        TensorData::new(
            planes.to_vec(),
            [batch, config.input_planes, config.height, config.width],
        ),
        device,
    );
    let output = network.forward(input);
    Logits {
        policy_logits: tensor_values(&output.policy_logits),
        wdl_logits: tensor_values(&output.wdl_logits),
        rules_wdl_logits: output.rules_wdl_logits.as_ref().map(tensor_values),
    }
}
