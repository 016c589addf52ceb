#!/usr/bin/env bash
# Rollout-MCTS speed on Havannah (base 8, swap on), in one run: our search
# (`grandmaitre gtp --model rollouts`, one thread) and OpenSpiel's C++
# MCTSBot (the arena's `openspiel` anchor), the same number of simulations from
# the same positions (the empty board and a middle-game position).
#
#   scripts/havannah/mcts-speed.sh [SIMULATIONS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
sims=${1:-5000}
python="$here/.venv/bin/python"
if ! "$python" -c "import pyspiel" 2>/dev/null; then
    echo "run scripts/havannah/crosscheck.sh first (it creates the OpenSpiel environment)" >&2
    exit 1
fi
cargo build --release --quiet
bin=target/release/grandmaitre
# 20 moves of a fixed random game, as OpenSpiel action ids.
middle="$("$python" - <<'PY'
import numpy as np, pyspiel
game = pyspiel.load_game("havannah(board_size=8,swap=True)")
state, rng = game.new_initial_state(), np.random.RandomState(3)
moves = []
for _ in range(20):
    action = int(rng.choice(state.legal_actions()))
    moves.append(action)
    state.apply_action(action)
print(" ".join(map(str, moves)))
PY
)"
for label in "empty board" "after 20 moves"; do
    moves=""
    [ "$label" = "after 20 moves" ] && moves="$middle"
    ours=$("$python" - "$bin" "$sims" "$moves" <<'PY'
import subprocess, sys, time, pyspiel
binary, sims, moves = sys.argv[1], int(sys.argv[2]), [int(m) for m in sys.argv[3].split()]
game = pyspiel.load_game("havannah(board_size=8,swap=True)")
state = game.new_initial_state()
lines = []
for move in moves:
    colour = "white" if state.current_player() == 0 else "black"
    lines.append(f"play {colour} {state.action_to_string(state.current_player(), move)}")
    state.apply_action(move)
colour = "white" if state.current_player() == 0 else "black"
process = subprocess.Popen([binary, "gtp", "--game", "havannah", "--model", "rollouts", "--sims", str(sims)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def ask(line):
    process.stdin.write(line + "\n"); process.stdin.flush()
    answer = process.stdout.readline(); process.stdout.readline()
    return answer.strip()
for line in lines:
    assert ask(line).startswith("="), line
start = time.perf_counter()
answer = ask(f"genmove {colour}")
elapsed = time.perf_counter() - start
ask("quit")
print(f"{sims / elapsed:.0f}")
PY
)
    theirs=$("$python" - "$sims" "$moves" <<'PY'
import sys, time, pyspiel
sims, moves = int(sys.argv[1]), [int(m) for m in sys.argv[2].split()]
game = pyspiel.load_game("havannah(board_size=8,swap=True)")
state = game.new_initial_state()
for move in moves:
    state.apply_action(move)
bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 1.4, sims, 1000, False, 1, False)
start = time.perf_counter()
bot.step(state)
print(f"{sims / (time.perf_counter() - start):.0f}")
PY
)
    echo "$label: ours $ours simulations/s, OpenSpiel MCTSBot $theirs simulations/s ($sims simulations, one thread each)"
done
