#!/usr/bin/env bash
# The outage schedule of a training run over a real S3-protocol server
# (scripts/s3-server.sh): a trainer with --workers and two one-thread
# workers; the server frozen (SIGSTOP) for 20 s and for 60 s, a worker, the
# trainer and the other worker SIGKILLed and restarted in between (the
# first 5 minutes), then frozen for 5 minutes and run a minute more. It
# checks that no process ends on its own, that every shard a worker
# reported is in the bucket and decodes, that the generations follow one
# another and that the pointer's checkpoint loads, and prints the counts.
# About 11 minutes; not part of the test suite (scripts/test-s3.sh runs a
# 15-second freeze).
#
#   scripts/store-outages.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/s3-server.sh

start_s3_server grandmaitre-outages
export GM_S3_RUN=s3://grandmaitre-outages/runs
export GM_S3_SERVER_PID=$S3_SERVER
cargo test --release --test distributed -- a_run_rides_out_the_outage_schedule --include-ignored --nocapture
