#!/usr/bin/env bash
# The ablation of issue 16 on a small Havannah board: one training run per
# arm for the same wall time on an otherwise idle machine, then each arm's
# last checkpoint against one fixed anchor.
#
#   [ARMS="..."] scripts/havannah/ablation.sh OUT [TIME] [GAMES] [SIMS] [ANCHOR]
#
# Arms (the first four each add one item to the one before; the others
# each add one item to `pooled`):
#   dense     dense heads, no decisive moves (the first Havannah model's method)
#   decisive  + decisive and anti-decisive moves (search and self-play)
#   pooled    + pooled heads and global pooling in the tower
#   ownership + the ownership head (weight 0.5)
#   gumbel    pooled + the Gumbel root, 64 simulations for policy targets, 16 others
#   forced    pooled + forced playouts (k = 2) and policy target pruning
#   surprise  pooled + policy targets drawn by surprise (half the weight)
#   shortterm pooled + half the value target from the short-term value (6 plies)
# ARMS chooses which arms run (default: all, in this order).
# Results: OUT/results.csv (arm, generations, games, score, Elo and its 95 %
# interval), OUT/<arm>/ the runs.
set -euo pipefail
out=${1:?usage: ablation.sh OUT [TIME] [GAMES] [SIMS] [ANCHOR]}
time=${2:-10m}
games=${3:-60}
sims=${4:-200}
anchor=${5:-rollout:sims=400}
rules="base=5 swap=1"
gm=${GRANDMAITRE:-grandmaitre}
mkdir -p "$out"

# heads decisive ownership gumbel full cheap forced surprise short_term
config() {
  cat <<TOML
[network]
channels = 32
blocks = 4
heads = "$1"
pooling_every = 2
ownership_weight = $3

[selfplay]
games_per_generation = 64
games_per_shard = 32
games_in_flight = 64
full_simulations = $5
cheap_simulations = $6
full_search_fraction = 0.25
temperature_plies = 8
dirichlet_weight = 0.25
layouts = "default"
decisive_moves = $2
gumbel = $4
forced_playouts = $7

[optimizer]
batch_size = 256
steps_per_generation = 24
learning_rate = 0.002
learning_rate_decay = 0.99
replay_positions = 60000
surprise_weight = $8
short_term_value = $9
short_term_horizon = 6.0

[evaluation]
every = 0
TOML
}

read -r -a arms <<< "${ARMS:-dense decisive pooled ownership gumbel forced surprise shortterm}"
declare -A settings=(
  [dense]="dense false 0.0 false 128 24 0.0 0.0 0.0"
  [decisive]="dense true 0.0 false 128 24 0.0 0.0 0.0"
  [pooled]="pooled true 0.0 false 128 24 0.0 0.0 0.0"
  [ownership]="pooled true 0.5 false 128 24 0.0 0.0 0.0"
  [gumbel]="pooled true 0.0 true 64 16 0.0 0.0 0.0"
  [forced]="pooled true 0.0 false 128 24 2.0 0.0 0.0"
  [surprise]="pooled true 0.0 false 128 24 0.0 0.5 0.0"
  [shortterm]="pooled true 0.0 false 128 24 0.0 0.0 0.5"
)
for arm in "${arms[@]}"; do
  if [ -e "$out/$arm/log.csv" ]; then continue; fi
  # shellcheck disable=SC2086
  config ${settings[$arm]} > "$out/$arm.toml"
  "$gm" train --game havannah --rules "$rules" --run "$out/$arm" \
    --config "$out/$arm.toml" --time "$time" > "$out/$arm.train.txt" 2>&1
done
echo "arm,generations,games,score,elo,elo_low,elo_high" > "$out/results.csv"
for arm in "${arms[@]}"; do
  last=$(ls -d "$out/$arm"/checkpoints/gen-* | sort | tail -1)
  decisive=1
  if [ "$arm" = dense ]; then decisive=0; fi
  if [ ! -s "$out/$arm.arena.json" ]; then
    "$gm" arena --game havannah --rules "$rules" \
      --a "mcts:model=$last,sims=$sims,decisive=$decisive" --b "$anchor" \
      --games "$games" --openings $((games / 2)) --json > "$out/$arm.arena.json"
  fi
  python3 - "$arm" "$last" "$out/$arm.arena.json" "$out/$arm/log.csv" >> "$out/results.csv" <<'PY'
import csv, json, sys
arm, last, arena, log = sys.argv[1:5]
result = json.load(open(arena))
rows = list(csv.DictReader(open(log)))
elo = ["" if result[k] is None else f"{result[k]:.0f}" for k in ("elo", "elo_low", "elo_high")]
print(f'{arm},{rows[-1]["generation"]},{rows[-1]["games"]},{result["score"]:.3f},{",".join(elo)}')
PY
done
cat "$out/results.csv"
