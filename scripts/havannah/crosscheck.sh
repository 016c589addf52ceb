#!/usr/bin/env bash
# Cross-checks the engine's Havannah against OpenSpiel's `havannah`, move by
# move (see crosscheck.py), then measures random-playout speed of both.
#
# Usage: scripts/havannah/crosscheck.sh [crosscheck.py options, e.g. --random-games 500]
# Creates scripts/havannah/.venv with `pip install open_spiel` on first use.
# Exits non-zero on any mismatch.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"

if ! "$venv/bin/python" -c "import pyspiel" 2>/dev/null; then
    echo "creating $venv with open_spiel"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet open_spiel
fi

(cd "$root/engine" && cargo build --release --quiet --example havannah_replay)
target="${CARGO_TARGET_DIR:-$root/target}"
exec "$venv/bin/python" "$here/crosscheck.py" --replay "$target/release/examples/havannah_replay" "$@"
