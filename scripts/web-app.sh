#!/usr/bin/env bash
# Assembles the Heraldis game screen as one folder of static files that
# runs offline: the page (web/demo/), the export of a model (its modules,
# model.onnx, model.json) and onnxruntime-web's wasm build.
#
#   scripts/web-app.sh OUT [EXPORT_DIR]
#
# EXPORT_DIR defaults to checkpoints/heraldis/export. Serve OUT with any
# static file server (for example `python3 -m http.server -d OUT`) and open
# it; nothing outside the folder is fetched. Needs web/node_modules
# (`cd web && npm ci --ignore-scripts`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: scripts/web-app.sh OUT [EXPORT_DIR]" >&2
    exit 2
fi
out=$1
export_dir=${2:-checkpoints/heraldis/export}
dist=web/node_modules/onnxruntime-web/dist
for file in model.onnx model.json heraldis.js grandmaitre.js search.js solve.js; do
    if [ ! -f "$export_dir/$file" ]; then
        echo "web-app: $export_dir/$file is missing (grandmaitre export --model checkpoints/heraldis --out $export_dir)" >&2
        exit 1
    fi
done
if [ ! -f "$dist/ort.wasm.min.mjs" ]; then
    echo "web-app: $dist is missing (cd web && npm ci --ignore-scripts)" >&2
    exit 1
fi

# Assembled beside OUT, then moved into place: never a half-built folder.
parent=$(dirname "$out")
mkdir -p "$parent"
staging=$(mktemp -d "$parent/.web-app.XXXXXX")
trap 'rm -rf "$staging"' EXIT
cp web/demo/index.html web/demo/app.js "$staging/"
cp "$export_dir"/{model.onnx,model.json,heraldis.js,grandmaitre.js,search.js,solve.js} "$staging/"
# The solution book, when the export has one (model.json names it).
if [ -f "$export_dir/book.txt" ]; then
    cp "$export_dir/book.txt" "$staging/"
fi
cp "$dist"/{ort.wasm.min.mjs,ort-wasm-simd-threaded.mjs,ort-wasm-simd-threaded.wasm} "$staging/"
chmod 755 "$staging"
rm -rf "$out"
mv "$staging" "$out"
trap - EXIT
echo "web-app: $out ($(du -sh "$out" | cut -f1)): serve it and open index.html"
