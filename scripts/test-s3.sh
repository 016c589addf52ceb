#!/usr/bin/env bash
# The storage tests against a real S3-protocol server: moto's server mode
# (from PyPI, in a virtual environment kept in the user's cache), started on
# 127.0.0.1 for the tests and stopped after them. The tests named `s3`
# read the server from GM_S3_RUN and the AWS_* variables set here.
#
#   scripts/test-s3.sh
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${XDG_CACHE_HOME:-$HOME/.cache}/grandmaitre-s3-venv
if [ ! -x "$venv/bin/moto_server" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'moto[s3]==5.2.5' 'flask==3.1.2' 'flask-cors==6.0.1'
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
endpoint=http://127.0.0.1:$port
for _ in $(seq 100); do
    if curl -sf -o /dev/null "$endpoint"; then
        break
    fi
    sleep 0.1
done
if ! curl -sf -o /dev/null -X PUT "$endpoint/grandmaitre-test"; then
    echo "test-s3: the S3 server did not start on $endpoint:" >&2
    cat "$log" >&2
    exit 1
fi

export AWS_ENDPOINT=$endpoint AWS_ALLOW_HTTP=true AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test
export GM_S3_RUN=s3://grandmaitre-test/runs
cargo test --release --workspace -- s3
