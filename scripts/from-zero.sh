#!/usr/bin/env bash
# Heraldis from zero, reproducibly: one training run of CONFIG (default: the
# default settings) with the run's seed set to SEED, for TIME on an
# otherwise idle machine and without in-loop ratings (they would take the
# run's time), then the checkpoints nearest to each of MARKS minutes against
# `rollout:sims=10000` (800 simulations, GAMES games, half of them openings
# played with both colours): the run's strength curve.
#
#   scripts/from-zero.sh OUT SEED [TIME] [CONFIG] [GAMES] [MARKS]
#
# Results: OUT/curve.csv (minutes, generation, score, Elo and its 95 %
# interval), OUT/run/ the run, OUT/gen-N.arena.json the matches.
#
# With WORKERS=N (N > 0) the run lives in an S3 bucket on a local server
# (scripts/s3-server.sh) and `train --workers` trains on the games of N
# `selfplay` processes (one thread each), all for TIME; the run's log and
# checkpoints are then copied to OUT/run and rated the same way.
set -euo pipefail
out=${1:?usage: from-zero.sh OUT SEED [TIME] [CONFIG] [GAMES] [MARKS]}
seed=${2:?usage: from-zero.sh OUT SEED [TIME] [CONFIG] [GAMES] [MARKS]}
time=${3:-20m}
config=${4:-}
games=${5:-200}
marks=${6:-"5 10 15 20"}
gm=${GRANDMAITRE:-grandmaitre}
workers=${WORKERS:-0}
mkdir -p "$out"

if [ ! -e "$out/run/log.csv" ]; then
  # The settings with the seed and without in-loop ratings.
  python3 - "${config:-/dev/null}" "$seed" > "$out/config.toml" <<'PY'
import sys
source, seed = sys.argv[1], sys.argv[2]
lines = open(source).read().splitlines()
out, section, rated = [f"seed = {seed}"], None, False
for line in lines:
    text = line.strip()
    if text.startswith("["):
        section = text
    if section is None and text.startswith("seed"):
        continue
    if section == "[evaluation]" and text.startswith("every"):
        continue
    out.append(line)
    if text == "[evaluation]":
        rated = True
        out.append("every = 0")
if not rated:
    out += ["", "[evaluation]", "every = 0"]
print("\n".join(out))
PY
  if [ "$workers" -eq 0 ]; then
    "$gm" train --run "$out/run" --config "$out/config.toml" --time "$time" \
      > "$out/train.txt" 2>&1
  else
    . "$(dirname "$0")/s3-server.sh"
    start_s3_server grandmaitre-runs
    url=s3://grandmaitre-runs/from-zero
    "$gm" train --run "$url" --config "$out/config.toml" --workers --time "$time" \
      > "$out/train.txt" 2>&1 &
    trainer=$!
    # The workers join once the trainer has created the run.
    until "$S3_VENV/bin/python" -c 'import boto3, os, sys
boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT"]).head_object(
    Bucket="grandmaitre-runs", Key="from-zero/config.toml")' 2>/dev/null; do
      kill -0 "$trainer" || { cat "$out/train.txt" >&2; exit 1; }
      sleep 0.5
    done
    pids=()
    for i in $(seq "$workers"); do
      RAYON_NUM_THREADS=1 "$gm" selfplay --run "$url" --time "$time" \
        > "$out/worker-$i.txt" 2>&1 &
      pids+=($!)
    done
    wait "$trainer"
    wait "${pids[@]}"
    # The log, the settings and the checkpoints, to rate them as a local run.
    "$S3_VENV/bin/python" - "$AWS_ENDPOINT" grandmaitre-runs from-zero/ "$out/run" <<'PY'
import os, sys, boto3
endpoint, bucket, prefix, target = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint)
shards = 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
    for item in page.get("Contents", []):
        key = item["Key"][len(prefix):]
        if key.startswith("shards/"):
            shards += 1
            continue
        path = os.path.join(target, key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        s3.download_file(bucket, item["Key"], path)
print(f"{shards} shards in the bucket", file=sys.stderr)
PY
  fi
fi

echo "minutes,generation,score,elo,elo_low,elo_high" > "$out/curve.csv"
for mark in $marks; do
  generation=$(python3 - "$out/run/log.csv" "$mark" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
limit = float(sys.argv[2]) * 60
elapsed, best = 0.0, None
for row in rows:
    elapsed += float(row["selfplay_seconds"]) + float(row["training_seconds"])
    if elapsed <= limit:
        best = int(row["generation"])
print(best or "")
PY
)
  [ -n "$generation" ] || continue
  checkpoint=$(printf '%s/run/checkpoints/gen-%04d' "$out" "$generation")
  if [ ! -s "$out/gen-$generation.arena.json" ]; then
    "$gm" arena --a "mcts:model=$checkpoint,sims=800" --b rollout:sims=10000 \
      --games "$games" --openings $((games / 2)) --json > "$out/gen-$generation.arena.json"
  fi
  python3 - "$mark" "$generation" "$out/gen-$generation.arena.json" >> "$out/curve.csv" <<'PY'
import json, sys
mark, generation, arena = sys.argv[1:4]
result = json.load(open(arena))
elo = ["" if result[k] is None else f"{result[k]:.0f}" for k in ("elo", "elo_low", "elo_high")]
print(f'{mark},{generation},{result["score"]:.3f},{",".join(elo)}')
PY
done
cat "$out/curve.csv"
