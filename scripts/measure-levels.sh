#!/usr/bin/env bash
# Measures the playing levels of a checkpoint: each level against the level
# below it, GAMES games (colours swapped on every opening), and prints the
# Markdown table of docs/levels.md.
#
#   scripts/measure-levels.sh [MODEL_DIR] [GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-checkpoints/heraldis}
games=${2:-100}
cargo build --release --quiet
bin=target/release/grandmaitre
echo "| level | against level | games | W-D-L | score | Elo (95 %) |"
echo "|---|---|---|---|---|---|"
for level in 2 3 4 5 6 7 8 9 10; do
    below=$((level - 1))
    json=$("$bin" arena --a "mcts:model=$model,level=$level" --b "mcts:model=$model,level=$below" \
        --games "$games" --openings $((games / 2)) --seed "$level" --json)
    python3 - "$level" "$below" "$json" <<'PY'
import json, sys
level, below, report = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
elo = lambda x: "±∞" if x is None else f"{x:+.0f}"
print(f"| {level} | {below} | {report['games']} | {report['wins']}-{report['draws']}-{report['losses']} "
      f"| {100 * report['score']:.1f} % | {elo(report['elo'])} [{elo(report['elo_low'])}, {elo(report['elo_high'])}] |")
PY
done
