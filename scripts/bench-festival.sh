#!/usr/bin/env bash
# The festival benchmark (issue 18): the release build on the simulated board, with
# `stress-ng --cpu 1` taking a core to stand in for a slower board, under a crowd at once —
# 300 visitor tokens (one address each, 127.0.0.2–127.0.0.255, reused beyond 254), 200 live
# chat sockets, a mix of list/look/open/drop/chat, 1,000 slow clients (a header line every
# 5 s, from 250 addresses 127.0.1.x) and bursts of password drops. tools/festival.py starts
# driftd with NOTIFY_SOCKET/WATCHDOG_USEC, drives the load and reports latency per route, chat
# fan-out, RSS, descriptors, threads, 5xx, connection errors, crashes and watchdog pings as a
# markdown table; exit status 1 when a target is missed (docs/performance.md).
#
#   scripts/bench-festival.sh [--json]
#
# Environment (defaults in brackets):
#   DRIFTD=path        use this driftd, do not build (default: scripts/build-release.sh)
#   DURATION [120]     seconds of the mix, after the setup
#   VISITORS [300]  SOCKETS [200]  CHATS [4]  SEED [50] bottles before the mix
#   SLOW [1000]  SLOW_ADDRESSES [250]  BURST [40] password drops at once  BURST_EVERY [30] s
#   THINK_S [5]        mean seconds between one visitor's actions
#   STRESS_CPUS [1]    stress-ng --cpu workers beside driftd (0: none)
#   NOFILE [8192]      driftd's descriptor limit, as the unit's LimitNOFILE (at most the shell's hard limit);
#                      driftd caps visitor connections at 1024 and 64–256 below it
#   KEEP=1             keep the temporary directory (config, driftd.log); it is kept anyway on failure
# Needs stress-ng (installed when missing, scripts/install-deps.sh) and a venv under
# .build/bench-venv with `websockets` from PyPI (made when missing). All traffic stays on 127.0.0.0/8.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
cd "$(dirname "$0")/.."

DURATION=${DURATION:-120}; VISITORS=${VISITORS:-300}; SOCKETS=${SOCKETS:-200}; CHATS=${CHATS:-4}
SEED=${SEED:-50}; SLOW=${SLOW:-1000}; SLOW_ADDRESSES=${SLOW_ADDRESSES:-250}; BURST=${BURST:-40}
BURST_EVERY=${BURST_EVERY:-30}; THINK_S=${THINK_S:-5}; STRESS_CPUS=${STRESS_CPUS:-1}; NOFILE=${NOFILE:-8192}

if [ "$STRESS_CPUS" -gt 0 ] && ! command -v stress-ng >/dev/null; then
    scripts/install-deps.sh stress-ng
fi
if ! .build/bench-venv/bin/python -c 'import websockets' 2>/dev/null; then
    python3 -m venv .build/bench-venv && .build/bench-venv/bin/pip install -q websockets
fi
if [ -z "${DRIFTD:-}" ]; then
    DRIFTD=$(scripts/build-release.sh)
    build=release
else
    case "$DRIFTD" in */debug/*) build=debug ;; */release/*) build=release ;; *) build="given ($DRIFTD)" ;; esac
fi
[ -x "$DRIFTD" ] || { echo "bench-festival: no driftd at $DRIFTD" >&2; exit 2; }

work=$(mktemp -d /tmp/bench-festival.XXXXXX)
tool="" stress="" status=2
cleanup() {
    trap - EXIT INT TERM
    if [ -n "$tool" ] && kill -0 "$tool" 2>/dev/null; then
        kill -TERM "$tool" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$tool" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$tool" 2>/dev/null || true
    fi
    if [ -s "$work/driftd.pid" ]; then
        daemon=$(cat "$work/driftd.pid")
        if grep -qa driftd "/proc/$daemon/cmdline" 2>/dev/null; then
            kill -TERM "$daemon" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.2; done
            kill -KILL "$daemon" 2>/dev/null || true
        fi
    fi
    # stress-ng runs in a session of its own (setsid): its process group is its workers too.
    if [ -n "$stress" ]; then kill -TERM -- "-$stress" 2>/dev/null || true; wait "$stress" 2>/dev/null || true; fi
    if [ "$status" = 0 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$work"; else echo "bench-festival: config and driftd.log kept in $work" >&2; fi
}
trap cleanup EXIT
trap 'status=130; exit 130' INT TERM

free_port() { python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.$1); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
port=$(free_port SOCK_STREAM); metrics=$(free_port SOCK_STREAM); radio=$(free_port SOCK_DGRAM)
cat > "$work/driftd.toml" <<TOML
[box]
board = "sim"
board_dir = "$PWD/board"
name = "Festival box"

[storage]
data_dir = "$work/data"

[http]
listen = "127.0.0.1:$port"
# limit_per_client stays on: every simulated phone has an address of its own on 127.0.0.0/8.

[features]
metrics = true

[metrics]
listen = "127.0.0.1:$metrics"

[sim]
radio_udp_port = $radio   # not the default 47300, which another box or a test may hold
TOML
if [ "${TRIM_MEMORY:-1}" = 0 ]; then printf '\n[daemon]\ntrim_memory = false\n' >> "$work/driftd.toml"; fi

if [ "$STRESS_CPUS" -gt 0 ]; then
    # Bounded even if nothing cleans up: the setup limit (120 s) + the mix + shutdown.
    setsid stress-ng --cpu "$STRESS_CPUS" --timeout "$((DURATION + 300))s" --quiet &
    stress=$!
fi

echo "bench-festival: $build driftd, stress-ng --cpu $STRESS_CPUS, $VISITORS visitors, $SOCKETS live sockets," \
     "$SLOW slow clients, mix of ${DURATION} s; work dir $work" >&2
.build/bench-venv/bin/python tools/festival.py --driftd "$DRIFTD" --config "$work/driftd.toml" --port "$port" \
    --metrics "http://127.0.0.1:$metrics/metrics" --notify "$work/notify.sock" --log "$work/driftd.log" \
    --pid-file "$work/driftd.pid" --nofile "$NOFILE" --duration "$DURATION" --visitors "$VISITORS" --sockets "$SOCKETS" \
    --chats "$CHATS" --seed "$SEED" --slow "$SLOW" --slow-addresses "$SLOW_ADDRESSES" --burst "$BURST" \
    --burst-every "$BURST_EVERY" --think-s "$THINK_S" --stress-cpus "$STRESS_CPUS" --build "$build" "$@" &
tool=$!
set +e
wait "$tool"
status=$?
set -e
tool=""
exit "$status"
