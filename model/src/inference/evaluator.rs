//! The folded network as the search's evaluator.

use grandmaitre_engine::search::{EvaluationRequest, Evaluations, Evaluator};
use grandmaitre_engine::{Game, ToMove};

use std::sync::Mutex;

use super::InferenceNetwork;
use super::kernels::{resize, softmax3};
use crate::network::{Network, NetworkConfig};

/// The folded network as the search's evaluator: positions are encoded by
/// their game, run as one batch, and the win/draw/loss logits turned into
/// probabilities (with the plies left, from a network that predicts them,
/// and the value under the game's own rules, from a network with that head).
#[derive(Debug)]
pub struct NetworkEvaluator {
    network: InferenceNetwork,
    /// Encoded planes, value logits and own-rules value logits of the last
    /// call, kept for the next.
    buffers: Mutex<(Vec<f32>, Vec<f32>, Vec<f32>)>,
}

impl NetworkEvaluator {
    /// An evaluator running `network`.
    pub fn new(network: InferenceNetwork) -> NetworkEvaluator {
        NetworkEvaluator {
            network,
            buffers: Mutex::new((Vec::new(), Vec::new(), Vec::new())),
        }
    }

    /// An evaluator running burn's `network` of shape `config`, folded
    /// for inference: the one way from a network to a search's evaluator.
    pub fn of(network: &Network, config: &NetworkConfig) -> NetworkEvaluator {
        NetworkEvaluator::new(InferenceNetwork::new(network, config))
    }

    /// The evaluator with its 3×3 convolutions run as Winograd's F(4×4,
    /// 3×3) or not ([`InferenceNetwork::with_winograd`]).
    pub fn with_winograd(self, winograd: bool) -> NetworkEvaluator {
        NetworkEvaluator::new(self.network.with_winograd(winograd))
    }

    /// The network.
    pub fn network(&self) -> &InferenceNetwork {
        &self.network
    }
}

impl<G: Game> Evaluator<G> for NetworkEvaluator {
    fn evaluate(&self, requests: &[EvaluationRequest<'_, G>], output: &mut Evaluations) {
        let config = self.network.config();
        let per_position = config.input_planes * config.cells();
        // The logits' buffer keeps its length from call to call: the
        // network writes every logit, so it need not be zeroed (50 625 a
        // position for Bulltricker).
        let mut logits = std::mem::take(&mut output.policy_logits);
        output.reset(config.actions);
        logits.resize(requests.len() * config.actions, 0.0);
        output.policy_logits = logits;
        // The buffers are reused between calls (taken out of the lock so that
        // concurrent callers each get their own).
        let (mut planes, mut wdl_logits, mut rules_logits) = self
            .buffers
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default();
        resize(&mut planes, requests.len() * per_position);
        resize(&mut wdl_logits, requests.len() * 3);
        let rules = self.network.has_rules_value();
        resize(
            &mut rules_logits,
            if rules { requests.len() * 3 } else { 0 },
        );
        if self.network.has_moves_left() {
            output.moves_left.resize(requests.len(), 0.0);
        }
        for (request, slot) in requests.iter().zip(planes.chunks_exact_mut(per_position)) {
            request.game.encode(request.state, slot);
        }
        self.network.forward_all(
            &planes,
            &mut output.policy_logits,
            &mut wdl_logits,
            &mut output.moves_left,
            &mut rules_logits,
        );
        let probabilities = |logits: &[f32]| ToMove(softmax3([logits[0], logits[1], logits[2]]));
        output
            .wdl
            .extend(wdl_logits.chunks_exact(3).map(probabilities));
        output
            .rules_wdl
            .extend(rules_logits.chunks_exact(3).map(probabilities));
        if let Ok(mut slot) = self.buffers.lock() {
            *slot = (planes, wdl_logits, rules_logits);
        }
    }
}
