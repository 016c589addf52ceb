#!/usr/bin/env bash
# Tests of the web side (web/): the JavaScript rules, encoding and bar
# against a fresh export of checkpoints/heraldis (onnxruntime-node), and the
# demo page in headless Chromium (onnxruntime-web), and the module's loader
# under damaged model.json descriptions; then the node tests against the
# committed export, if there is one.
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

echo "== web tests against a fresh export"
(cd web && GM_EXPORT="$tmp/export" node --test test/node.test.mjs test/description.test.mjs test/browser.test.mjs)

if [ -f checkpoints/heraldis/export/model.json ]; then
    echo "== web tests against the committed export"
    (cd web && GM_EXPORT="$PWD/../checkpoints/heraldis/export" node --test test/node.test.mjs)
fi
