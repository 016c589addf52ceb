#!/usr/bin/env bash
# Checks the libtorch backend (the `tch` feature) on this machine's CPU; not
# part of the default tests, as it needs PyTorch (scripts/setup-libtorch.sh,
# about 6.7 GB).
#
#   scripts/test-tch.sh [VENV_DIR]
#
# 1. sets up PyTorch 2.9.0 in VENV_DIR (default .venv-libtorch);
# 2. builds grandmaitre with --features tch into target/tch (the default
#    build in target/release is left alone);
# 3. a seconds-long `grandmaitre train --backend tch` run with a tiny config
#    in a temporary directory; the default build (target/release/grandmaitre,
#    when it is there) then plays with the checkpoint it wrote;
# 4. cargo test -p grandmaitre-train --features tch --test tch: the same loss
#    on ndarray and libtorch for the same weights and batch, and a libtorch
#    run's checkpoints loading on flex.
#
# Set CUDA=1 to train on the first GPU in step 3 instead.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
say() { echo "test-tch: $*" >&2; }

environment="$(scripts/setup-libtorch.sh "$@")"
eval "$environment"
export CARGO_TARGET_DIR="$root/target/tch"

say "building with --features tch into $CARGO_TARGET_DIR"
cargo build --release --features tch --bin grandmaitre
binary="$CARGO_TARGET_DIR/release/grandmaitre"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/tiny.toml" <<'EOF'
[network]
channels = 8
blocks = 1
[selfplay]
games_per_generation = 8
games_per_shard = 4
games_in_flight = 4
full_simulations = 24
cheap_simulations = 8
[optimizer]
batch_size = 32
steps_per_generation = 4
[evaluation]
every = 1
games = 2
simulations = 8
anchors = ["random"]
EOF
device=cpu
[[ "${CUDA:-0}" == 1 ]] && device=cuda
say "training two generations on libtorch ($device)"
"$binary" train --run "$work/run" --config "$work/tiny.toml" --generations 2 \
    --backend tch --device "$device" | tee "$work/train.log"
grep -q "generation 2: 16 games on disk" "$work/train.log"
checkpoint="$work/run/checkpoints/gen-0002"
[[ -f "$checkpoint/weights.bpk" ]] || { say "no checkpoint at $checkpoint"; exit 1; }

default_binary="$root/target/release/grandmaitre"
if [[ -x "$default_binary" ]]; then
    say "the default build plays with the libtorch checkpoint"
    "$default_binary" arena --a "mcts:model=$checkpoint,sims=8" --b random --games 2 --json \
        | tee "$work/arena.json"
    grep -q '"games":2' "$work/arena.json" || grep -q '"games": 2' "$work/arena.json"
else
    say "no default build at $default_binary: skipped loading the checkpoint there"
    "$binary" arena --a "mcts:model=$checkpoint,sims=8" --b random --games 2
fi

say "cargo test -p grandmaitre-train --features tch --test tch"
cargo test --release -p grandmaitre-train --features tch --test tch

say "all libtorch checks passed"
