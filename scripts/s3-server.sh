# Sourced, not run: an S3-protocol server (moto's server mode, from PyPI,
# in a virtual environment kept in the user's cache) on a free port of
# 127.0.0.1, stopped when the calling script exits.
#
#   . scripts/s3-server.sh
#   start_s3_server BUCKET   # exports AWS_ENDPOINT and the other AWS_*
#
# S3_VENV is the virtual environment (its python has boto3, moto's own
# client, for scripts that read the bucket back).

S3_VENV=${XDG_CACHE_HOME:-$HOME/.cache}/grandmaitre-s3-venv

start_s3_server() {
    local bucket=$1 port log
    if [ ! -x "$S3_VENV/bin/moto_server" ]; then
        python3 -m venv "$S3_VENV"
        "$S3_VENV/bin/pip" install --quiet 'moto[s3]==5.2.5' 'flask==3.1.2' 'flask-cors==6.0.1'
    fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    log=$(mktemp)
    "$S3_VENV/bin/moto_server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
    S3_SERVER=$!
    trap 'kill "$S3_SERVER" 2>/dev/null || true; rm -f "'"$log"'"' EXIT
    AWS_ENDPOINT=http://127.0.0.1:$port
    for _ in $(seq 100); do
        if curl -sf -o /dev/null "$AWS_ENDPOINT"; then
            break
        fi
        sleep 0.1
    done
    if ! curl -sf -o /dev/null -X PUT "$AWS_ENDPOINT/$bucket"; then
        echo "the S3 server did not start on $AWS_ENDPOINT:" >&2
        cat "$log" >&2
        exit 1
    fi
    export AWS_ENDPOINT AWS_ALLOW_HTTP=true AWS_REGION=us-east-1
    export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test
}
