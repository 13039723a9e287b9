#!/usr/bin/env bash
# Load benchmark of the visitor API on the simulated board (release build):
#   1. requests/s and latency of GET /api/v1/bottles with wrk (Debian's wrk),
#   2. the delay of a chat line reaching N connected WebSocket clients (tools/chat-fanout.py,
#      run from a venv under .build/bench-venv with `websockets` from PyPI).
# Usage: scripts/bench-api.sh [BOTTLES=50] [CLIENTS=200] [LINES=100] [DURATION=10s]
# Installs wrk when missing (apt-get, as root). Prints the figures; nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
BOTTLES=${BOTTLES:-50}; CLIENTS=${CLIENTS:-200}; LINES=${LINES:-100}; DURATION=${DURATION:-10s}

if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" = 0 ]; then apt-get install -y -q wrk >/dev/null; else echo "bench-api: install wrk (apt-get install wrk)" >&2; exit 1; fi
fi
if [ ! -x .build/bench-venv/bin/python ]; then
    python3 -m venv .build/bench-venv && .build/bench-venv/bin/pip install -q websockets
fi
DRIFTD=$(scripts/build-release.sh)

work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/driftd.toml" <<TOML
[box]
board = "sim"
board_dir = "$PWD/board"
name = "Benchmark box"

[storage]
data_dir = "$work/data"

[http]
listen = "127.0.0.1:$port"
limit_per_client = false   # every benchmark client shares one address
TOML
"$DRIFTD" run --config "$work/driftd.toml" > "$work/driftd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -fs "$base/api/v1/openapi.json" >/dev/null && break; sleep 0.1; done

token=$(curl -fs -X POST "$base/api/v1/visitors" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
for i in $(seq "$BOTTLES"); do
    # Each creator token may drop 20 bottles at once; use a fresh creator every 10.
    if [ $((i % 10)) = 1 ]; then creator=$(curl -fs -X POST "$base/api/v1/visitors" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'); fi
    curl -fs -X POST "$base/api/v1/bottles" -H "Authorization: Bearer $creator" -H 'Content-Type: application/json' \
        -d "{\"text\":\"bottle $i\",\"hint\":\"benchmark\",\"conditions\":[{\"kind\":\"timeOfDay\",\"start\":\"00:00\",\"end\":\"23:59\"}]}" >/dev/null
done
listed=$(curl -fs "$base/api/v1/bottles" -H "Authorization: Bearer $token" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["bottles"]))')
echo "== GET /api/v1/bottles ($listed bottles listed), wrk -t2 -c16 -d$DURATION"
wrk -t2 -c16 -d"$DURATION" --latency -H "Authorization: Bearer $token" "$base/api/v1/bottles" | sed -n '/Latency Distribution/,$p'
echo "== chat fan-out: $CLIENTS clients, $LINES lines"
.build/bench-venv/bin/python tools/chat-fanout.py "$base" --clients "$CLIENTS" --lines "$LINES"
rss=$(ps -o rss= -p $pid | tr -d ' ')
echo "== driftd resident memory after the run: $((rss / 1024)) MiB"
