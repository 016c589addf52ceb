#!/usr/bin/env bash
# Tests of the web side (web/): the JavaScript rules, encoding, search, bar
# and levels against a fresh export of checkpoints/heraldis
# (onnxruntime-node), the module's loader under damaged model.json
# descriptions, and the game screen assembled from that export
# (scripts/web-app.sh) in headless Chromium (onnxruntime-web); a short run
# of each benchmark (web/bench/); then the node tests against the committed
# export, if there is one. Screenshots of
# the game screen are kept in target/web-artifacts/.
#
#   scripts/test-web.sh
#
# Needs target/release/grandmaitre (built by `cargo test --release` or
# `cargo build --release`). Installs what is missing: web/node_modules
# (npm ci) and Debian's Chromium (apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release/grandmaitre
if [ ! -x "$bin" ]; then
    echo "test-web: $bin is missing; build it first (cargo build --release)" >&2
    exit 1
fi

if [ ! -d web/node_modules ]; then
    # --ignore-scripts: onnxruntime-node's install script downloads a GPU
    # provider from outside the registry; its CPU runtime ships in the package.
    (cd web && npm ci --ignore-scripts --no-audit --no-fund)
fi

if [ ! -x /usr/bin/chromium ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" export --model checkpoints/heraldis --out "$tmp/export"

scripts/web-app.sh "$tmp/app" "$tmp/export"
artifacts=$PWD/target/web-artifacts
mkdir -p "$artifacts"

echo "== web tests against a fresh export"
(cd web && GM_EXPORT="$tmp/export" GM_APP="$tmp/app" GM_ARTIFACTS="$artifacts" \
    node --test test/node.test.mjs test/description.test.mjs test/browser.test.mjs)

# The benchmarks, briefly: they run on what the tests run on, so that
# none can break unnoticed (the numbers are not checked here).
echo "== web benchmarks, a short run each"
(cd web && node bench/timing.mjs "$tmp/app" 2 4 \
    && node bench/match.mjs --games 2 --level 1 --opponent random --export "$tmp/export")

if [ -f checkpoints/heraldis/export/model.json ]; then
    echo "== web tests against the committed export"
    (cd web && GM_EXPORT="$PWD/../checkpoints/heraldis/export" node --test test/node.test.mjs)
fi
