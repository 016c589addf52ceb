#!/usr/bin/env bash
# The storage tests against a real S3-protocol server (scripts/s3-server.sh:
# moto's server mode on 127.0.0.1), started for the tests and stopped after
# them; one freezes the server for 15 s under a trainer and two workers. The tests named `s3`, ignored in a plain `cargo test` (they need
# the server), read it from GM_S3_RUN and the AWS_* variables set here.
#
#   scripts/test-s3.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/s3-server.sh

start_s3_server grandmaitre-test
export GM_S3_RUN=s3://grandmaitre-test/runs
# The server's process: a test freezes it (SIGSTOP) to see runs ride out an outage.
export GM_S3_SERVER_PID=$S3_SERVER
cargo test --release --workspace -- s3 --include-ignored
