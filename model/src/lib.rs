//! The Grand Maître's policy/value network on burn: the model, its fast CPU
//! inference path for search, checkpoints, and the calibrated
//! win-probability bar.

pub mod backend;
pub mod bar;
pub mod calibration;
pub mod checkpoint;
pub mod inference;
pub mod network;
pub mod onnx;

pub use backend::{Backend, Logits, burn_forward, burn_outputs};
pub use calibration::{Calibration, Calibrations};
pub use checkpoint::{Checkpoint, CheckpointError, CheckpointMetadata, Provenance};
pub use inference::{FoldedWeights, InferenceNetwork, NetworkEvaluator};
pub use network::{MOVES_LEFT_SCALE, Network, NetworkConfig, NetworkOutput};
