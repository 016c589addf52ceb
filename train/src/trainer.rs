//! One optimiser step on a batch: policy cross-entropy plus win/draw/loss
//! cross-entropy, plus (with the ownership head) the weighted mean squared
//! error of each cell's predicted final owner, plus (with the moves-left
//! head) the weighted mean squared error of the plies left in units of
//! `MOVES_LEFT_SCALE`, plus (with the own-rules value head) its
//! win/draw/loss cross-entropy against the game's result under its own
//! rules; AdamW (decoupled weight decay), on burn's autodiff.

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use grandmaitre_model::{MOVES_LEFT_SCALE, Network, NetworkConfig};

use crate::samples::Batch;

/// Losses of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Losses {
    /// Policy cross-entropy, averaged over samples with a policy target.
    pub policy: f32,
    /// Win/draw/loss cross-entropy, averaged over the batch.
    pub value: f32,
    /// Ownership squared error per cell, averaged over the cells of the
    /// samples with a target (0 without the head).
    pub ownership: f32,
    /// Moves-left squared error in units of `MOVES_LEFT_SCALE` plies,
    /// averaged over the batch (0 without the head).
    pub moves_left: f32,
    /// The own-rules value head's win/draw/loss cross-entropy, averaged
    /// over the batch (0 without the head).
    pub rules_value: f32,
}

/// A network being trained and its optimiser.
pub struct Trainer {
    /// Always `Some` between steps (taken while the optimiser updates it).
    network: Option<Network>,
    config: NetworkConfig,
    optimizer: ModuleOptimizer,
    device: Device,
    /// Optimiser steps taken so far (including those of earlier runs).
    pub steps: u64,
    /// Weight of the ownership loss in the total.
    pub ownership_weight: f32,
    /// Weight of the moves-left loss in the total.
    pub moves_left_weight: f32,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("config", &self.config)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl Trainer {
    /// Trains `network` (moved to `device`, which gets autodiff) with AdamW
    /// and `weight_decay`.
    pub fn new(
        network: Network,
        config: NetworkConfig,
        device: &Device,
        weight_decay: f32,
        steps: u64,
    ) -> Trainer {
        let device = device.clone().autodiff();
        Trainer {
            network: Some(network.to_device(&device).train()),
            config,
            optimizer: AdamWConfig::new().with_weight_decay(weight_decay).init(),
            device,
            steps,
            ownership_weight: 0.0,
            moves_left_weight: 0.0,
        }
    }

    /// The trainer with the moves-left loss weighted by `weight`.
    pub fn with_moves_left_weight(mut self, weight: f32) -> Trainer {
        self.moves_left_weight = weight;
        self
    }

    /// The trainer with the ownership loss weighted by `weight`.
    pub fn with_ownership_weight(mut self, weight: f32) -> Trainer {
        self.ownership_weight = weight;
        self
    }

    /// The network as it stands, for inference and checkpoints.
    pub fn network(&self) -> Network {
        self.training_network().valid()
    }

    fn training_network(&self) -> &Network {
        self.network
            .as_ref()
            .expect("the network is back after each step")
    }

    /// The network's shape.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// The losses of `batch` for the network as it stands, computed as a
    /// step computes them (batch statistics in batch norm) but without a
    /// step. Like a step, it moves batch norm's running statistics toward
    /// the batch's.
    pub fn losses(&self, batch: &Batch) -> Losses {
        let terms = losses(self.training_network(), batch, &self.device);
        Losses {
            policy: scalar(terms.policy),
            value: scalar(terms.value),
            ownership: terms.ownership.map_or(0.0, scalar),
            moves_left: terms.moves_left.map_or(0.0, scalar),
            rules_value: terms.rules_value.map_or(0.0, scalar),
        }
    }

    /// One step on `batch` at learning rate `learning_rate`.
    pub fn step(&mut self, batch: &Batch, learning_rate: f64) -> Losses {
        let terms = losses(self.training_network(), batch, &self.device);
        let result = Losses {
            policy: scalar(terms.policy.clone()),
            value: scalar(terms.value.clone()),
            ownership: terms.ownership.clone().map_or(0.0, scalar),
            moves_left: terms.moves_left.clone().map_or(0.0, scalar),
            rules_value: terms.rules_value.clone().map_or(0.0, scalar),
        };
        let mut total = terms.policy + terms.value;
        if let Some(ownership) = terms.ownership {
            total = total + ownership * self.ownership_weight;
        }
        if let Some(moves_left) = terms.moves_left {
            total = total + moves_left * self.moves_left_weight;
        }
        if let Some(rules_value) = terms.rules_value {
            total = total + rules_value;
        }
        let gradients = total.backward();
        let network = self
            .network
            .take()
            .expect("the network is back after each step");
        let gradients = GradientsParams::from_grads(gradients, &network);
        self.network = Some(self.optimizer.step(learning_rate, network, gradients));
        self.steps += 1;
        result
    }
}

fn scalar(tensor: Tensor<1>) -> f32 {
    grandmaitre_model::inference::tensor_values(&tensor)[0]
}

/// The loss terms of one batch.
struct Terms {
    policy: Tensor<1>,
    value: Tensor<1>,
    ownership: Option<Tensor<1>>,
    moves_left: Option<Tensor<1>>,
    rules_value: Option<Tensor<1>>,
}

/// Policy, value, ownership and moves-left losses of `batch` through `network` on
/// `device`.
fn losses(network: &Network, batch: &Batch, device: &Device) -> Terms {
    let size = batch.size;
    let [planes, height, width, actions] = batch.shape;
    let planes = Tensor::<4>::from_data(
        TensorData::new(batch.planes.clone(), [size, planes, height, width]),
        device,
    );
    let policy_target = Tensor::<2>::from_data(
        TensorData::new(batch.policy.clone(), [size, actions]),
        device,
    );
    let weight =
        Tensor::<1>::from_data(TensorData::new(batch.policy_weight.clone(), [size]), device);
    let outcome = Tensor::<2>::from_data(TensorData::new(batch.outcome.clone(), [size, 3]), device);
    let output = network.forward(planes);
    let policy_terms = -(log_softmax(output.policy_logits, 1) * policy_target)
        .sum_dim(1)
        .reshape([size]);
    let targets = batch.policy_weight.iter().sum::<f32>().max(1.0);
    let policy = (policy_terms * weight).sum() / targets;
    let value = -(log_softmax(output.wdl_logits, 1) * outcome).sum() / size as f32;
    let cells_with_targets: f32 = batch.ownership_cells.iter().sum();
    let ownership = match output.ownership {
        Some(predicted) if !batch.ownership.is_empty() && cells_with_targets > 0.0 => {
            let cells = height * width;
            let target = Tensor::<2>::from_data(
                TensorData::new(batch.ownership.clone(), [size, cells]),
                device,
            );
            let has_target: Vec<f32> = batch
                .ownership_cells
                .iter()
                .map(|&c| f32::from(u8::from(c > 0.0)))
                .collect();
            let rows = Tensor::<2>::from_data(TensorData::new(has_target, [size, 1]), device);
            // Off the board both the prediction and the target are 0.
            let error = (predicted - target).powf_scalar(2.0) * rows;
            Some(error.sum() / cells_with_targets)
        }
        _ => None,
    };
    let moves_left = match output.moves_left {
        Some(predicted) if batch.moves_left.len() == size => {
            let target: Vec<f32> = batch
                .moves_left
                .iter()
                .map(|plies| plies / MOVES_LEFT_SCALE)
                .collect();
            let target = Tensor::<2>::from_data(TensorData::new(target, [size, 1]), device);
            Some((predicted - target).powf_scalar(2.0).sum() / size as f32)
        }
        _ => None,
    };
    let rules_value = match output.rules_wdl_logits {
        Some(logits) if batch.rules_outcome.len() == size * 3 => {
            let target = Tensor::<2>::from_data(
                TensorData::new(batch.rules_outcome.clone(), [size, 3]),
                device,
            );
            Some(-(log_softmax(logits, 1) * target).sum() / size as f32)
        }
        _ => None,
    };
    Terms {
        policy,
        value,
        ownership,
        moves_left,
        rules_value,
    }
}
