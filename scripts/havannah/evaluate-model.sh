#!/usr/bin/env bash
# Measures a Havannah checkpoint (base 8, swap on) at 800 simulations
# against a ladder of rollout-MCTS anchors (our search: the algorithm of
# OpenSpiel's MCTSBot, ~100× faster, and at least as strong at equal
# simulations), then, if the OpenSpiel environment exists, against
# OpenSpiel's MCTSBot itself at OPENSPIEL_SIMS simulations.
#
#   scripts/havannah/evaluate-model.sh [MODEL_DIR] [GAMES] [OPENSPIEL_SIMS] [OPENSPIEL_GAMES]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
model=${1:-checkpoints/havannah}
games=${2:-20}
openspiel_sims=${3:-1000}
openspiel_games=${4:-4}
cargo build --release --quiet
bin=target/release/grandmaitre
player="mcts:model=$model,sims=800"
run() {
    echo "\$ grandmaitre arena --game havannah $*"
    "$bin" arena --game havannah "$@"
    echo
}
for anchor in random rollout:sims=100 rollout:sims=1000 rollout:sims=10000; do
    run --a "$player" --b "$anchor" --games "$games" --openings $((games / 2))
done
if "$here/.venv/bin/python" -c "import pyspiel" 2>/dev/null; then
    run --a "$player" --b "openspiel:sims=$openspiel_sims" --games "$openspiel_games" --openings $((openspiel_games / 2))
else
    echo "no OpenSpiel environment: run scripts/havannah/crosscheck.sh to create it" >&2
fi
