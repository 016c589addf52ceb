#!/usr/bin/env bash
# Side-by-side inference speed: our CPU path (grandmaitre bench nn) and
# onnxruntime's native CPU runtime (onnxruntime-node) on the same network,
# exported to ONNX, in one run. Not part of the test suite.
#
#   scripts/bench-onnxruntime.sh [--model DIR | --channels C --blocks B] [--seconds S] [--threads T]
#
# Without --model it times a fresh network of the given shape (default: the
# shape of ../shared/notes/dependencies.md, 64 channels × 6 blocks). Both
# runtimes get the same number of threads (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."

model=""
channels=64
blocks=6
seconds=2
threads=$(nproc)
while [ $# -gt 0 ]; do
    case "$1" in
        --model) model="$2"; shift 2 ;;
        --channels) channels="$2"; shift 2 ;;
        --blocks) blocks="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
bin=target/release/grandmaitre
if [ -z "$model" ]; then
    model="$work/model"
    "$bin" bench nn --channels "$channels" --blocks "$blocks" --batches 1 --seconds 0.1 --burn none --save "$model" >/dev/null
fi
"$bin" export --model "$model" --out "$work/export" >/dev/null

node_dir=scripts/.node
if [ ! -d "$node_dir/node_modules/onnxruntime-node" ]; then
    mkdir -p "$node_dir"
    # The package's install script downloads a GPU provider from outside the
    # registry; the CPU runtime ships in the package itself.
    (cd "$node_dir" && npm install --silent --no-save --ignore-scripts onnxruntime-node@1.30.0 >/dev/null)
fi
shape=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["input"]["shape"]; print(s[1], s[2], s[3])' "$work/export/model.json")
echo "== ours (grandmaitre bench nn) $threads threads"
"$bin" bench nn --model "$model" --seconds "$seconds" --burn none --threads "$threads"
echo "== onnxruntime-node $threads threads"
cp scripts/ort-bench.mjs "$node_dir/"
node "$node_dir/ort-bench.mjs" "$work/export/model.onnx" $shape 1,8,64,256 "$seconds" "$threads"
