#!/usr/bin/env bash
# Measures a Heraldis checkpoint against the anchors, as its report states:
# 800 simulations against alpha-beta depth 4 and rollout-MCTS with 100× the
# simulations on the default layout, and against alpha-beta depth 4 on five
# random layouts the model was not trained on (seeds outside self-play's).
#
#   scripts/evaluate-model.sh [MODEL_DIR] [GAMES] [LAYOUT_GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-checkpoints/heraldis}
games=${2:-200}
layout_games=${3:-100}
cargo build --release --quiet
bin=target/release/grandmaitre
player="mcts:model=$model,sims=800"
run() {
    echo "\$ grandmaitre arena $*"
    "$bin" arena "$@"
    echo
}
run --a "$player" --b alphabeta:depth=4 --games "$games" --openings $((games / 2))
run --a "$player" --b rollout:sims=80000 --games "$games" --openings $((games / 2))
for seed in 9001 9002 9003 9004 9005; do
    run --a "$player" --b alphabeta:depth=4 --games "$layout_games" --openings $((layout_games / 2)) --layout "random:$seed"
done
