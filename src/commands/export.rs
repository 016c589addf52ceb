//! `grandmaitre export`: the model for embedding ([`grandmaitre_play::export`]).

use anyhow::Result;
use grandmaitre_play::export::{self, Written};
use grandmaitre_play::players::ModelChoice;
use grandmaitre_play::registry::{self, GameTask, Registered};

use crate::cli::ExportArgs;

/// Writes the export directory and says what it wrote.
pub fn run(args: ExportArgs) -> Result<()> {
    registry::dispatch(
        &args.game.clone(),
        args.rules.clone().as_deref(),
        Export { args },
    )
}

struct Export {
    args: ExportArgs,
}

impl GameTask for Export {
    fn run<G: Registered>(self, game: G) -> Result<()> {
        let checkpoint = ModelChoice::from_arg(self.args.model.as_deref()).checkpoint(&game)?;
        let written = export::export(&game, &checkpoint, &self.args.out)?;
        println!("{}", summary(&self.args.out, &written));
        Ok(())
    }
}

/// The line that says what was written.
fn summary(out: &std::path::Path, written: &Written) -> String {
    let extras: String = written
        .extras
        .iter()
        .map(|(name, positions)| match positions {
            Some(positions) => format!(", {name} ({positions} positions)"),
            None => format!(", {name}"),
        })
        .collect();
    format!(
        "wrote {}: model.onnx ({} bytes), weights.safetensors ({} bytes), model.json ({} test vectors, {} searches){extras}",
        out.display(),
        written.onnx_bytes,
        written.safetensors_bytes,
        written.test_vectors,
        written.searches,
    )
}
