#!/usr/bin/env bash
# Browser tests of the visitor page: headless Chromium (Debian's chromium + chromium-driver)
# driven by selenium against a real, freshly started driftd on the simulated board.
#
#   scripts/browser-tests.sh            # after `swift build --product driftd`
#   DRIFTD=/path/to/driftd scripts/browser-tests.sh -k recovery   # extra args go to pytest
#
# Screenshots land in .build/artifacts/browser/. Exits non-zero when a test fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ARTIFACTS="$ROOT/.build/artifacts/browser"
VENV="$ROOT/.build/browser-venv"

log() { printf 'browser-tests: %s\n' "$*" >&2; }

# 1. Chromium and its driver, from Debian.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        log "chromium and chromium-driver are missing; install them: sudo apt-get install -y chromium chromium-driver"
        exit 1
    fi
    log "installing chromium and chromium-driver"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# 2. A venv with selenium, pytest and axe-selenium-python (it ships axe-core, the
#    accessibility checker the phone journey runs on every screen).
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import selenium, pytest, axe_selenium_python' 2>/dev/null; then
    log "creating $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'selenium>=4.20' 'pytest>=7' 'axe-selenium-python==2.1.6'
fi
# DRIFTBOX_VENV_ONLY=1: only chromium and the venv (.ci/run makes them while the build runs).
[ "${DRIFTBOX_VENV_ONLY:-}" = 1 ] && exit 0

# 3. driftd on a free port with a throwaway data directory.
DRIFTD="${DRIFTD:-$(swift build --show-bin-path)/driftd}"
if [ ! -x "$DRIFTD" ]; then
    log "no driftd at $DRIFTD; build it first: swift build --product driftd"
    exit 1
fi
PORT="$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
DATA="$(mktemp -d "${TMPDIR:-/tmp}/driftd-browser.XXXXXX")"
LOG="$ARTIFACTS/driftd.log"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS" "$DATA/data"

# The simulated board's profile with a short chat countdown (so the "bottle dies" step
# takes seconds, not minutes; long enough for the phone journey to walk every screen while
# a chat dies), its own radio port (other boxes may run here) and
# quick weather samples (the watch test changes the simulated weather with `driftd ctl`).
COUNTDOWN="${BROWSER_CHAT_COUNTDOWN:-20}"
free_udp() { "$VENV/bin/python" -c 'import socket; s = socket.socket(type=socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
RADIO_PORT="$(free_udp)"
PEER_RADIO_PORT="$(free_udp)"
PEER_PORT="$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
CONFIG="$DATA/browser-tests.toml"
cat >"$CONFIG" <<TOML
[box]
board = "sim"
board_dir = "$ROOT/board"
name = "Drift Box (browser tests)"

[bottles]
chat_countdown_s = $COUNTDOWN

[http]
limit_per_client = false   # every browser session comes from 127.0.0.1 (the API tests cover the limits)

[mesh]
hello_interval_s = 5

[radio]
spreading_factor = 7          # ~70 ms per frame: frequent hellos stay far inside the airtime budget

[sim]
radio_udp_port = $RADIO_PORT
radio_peers = ["127.0.0.1:$PEER_RADIO_PORT"]

[i2c]
sample_interval_s = 2
TOML
# A second box 500 m east on the simulated radio, for bottles sent across boxes and
# remote chat (tests/browser/test_mesh.py): DRIFT_PEER_URL.
PEER_CONFIG="$DATA/browser-peer.toml"
mkdir -p "$DATA/peer"
cat >"$PEER_CONFIG" <<TOML
[box]
board = "sim"
board_dir = "$ROOT/board"
name = "Drift Box (peer)"

[bottles]
chat_countdown_s = $COUNTDOWN

[http]
limit_per_client = false

[mesh]
hello_interval_s = 5

[radio]
spreading_factor = 7          # ~70 ms per frame: frequent hellos stay far inside the airtime budget

[sim]
longitude = 13.4093
radio_udp_port = $PEER_RADIO_PORT
radio_peers = ["127.0.0.1:$RADIO_PORT"]
TOML
"$DRIFTD" run --config "$CONFIG" --data-dir "$DATA/data" --listen "127.0.0.1:$PORT" >"$LOG" 2>&1 &
DRIFTD_PID=$!
"$DRIFTD" run --config "$PEER_CONFIG" --data-dir "$DATA/peer" --listen "127.0.0.1:$PEER_PORT" >"$ARTIFACTS/driftd-peer.log" 2>&1 &
PEER_PID=$!
cleanup() {
    kill -TERM "$PEER_PID" 2>/dev/null || true
    if kill -0 "$DRIFTD_PID" 2>/dev/null; then
        kill -TERM "$DRIFTD_PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$DRIFTD_PID" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$DRIFTD_PID" 2>/dev/null && { log "driftd ignored SIGTERM for 10 s; killing it"; kill -KILL "$DRIFTD_PID" 2>/dev/null || true; }
        wait "$DRIFTD_PID" 2>/dev/null || true
    fi
    wait "$PEER_PID" 2>/dev/null || true
    rm -rf "$DATA"
}
trap cleanup EXIT

URL="http://127.0.0.1:$PORT"
log "driftd (pid $DRIFTD_PID) at $URL, data in $DATA"
ready=0
for _ in $(seq 1 600); do
    if ! kill -0 "$DRIFTD_PID" 2>/dev/null; then
        log "driftd exited during start-up; its log:"; tail -n 40 "$LOG" >&2; exit 1
    fi
    if "$VENV/bin/python" - "$URL" <<'PY' 2>/dev/null
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1] + "/", timeout=2) as r:
    sys.exit(0 if r.status == 200 and b"app.js" in r.read() else 1)
PY
    then ready=1; break; fi
    sleep 0.1
done
if [ "$ready" != 1 ]; then
    log "the page did not answer at $URL/ within 60 s; driftd's log:"; tail -n 40 "$LOG" >&2; exit 1
fi

# 4. The tests.
status=0
DRIFT_URL="$URL" DRIFT_PEER_URL="http://127.0.0.1:$PEER_PORT" DRIFT_ARTIFACTS="$ARTIFACTS" DRIFTD="$DRIFTD" DRIFT_DATA_DIR="$DATA/data" "$VENV/bin/python" -m pytest -p no:cacheprovider -q --durations=0 \
    --junitxml="$ARTIFACTS/junit.xml" "$ROOT/tests/browser" "$@" || status=$?

log "screenshots in $ARTIFACTS:"
ls -1 "$ARTIFACTS"/*.png 2>/dev/null | sed 's/^/  /' >&2 || log "  (none)"
if [ "$status" != 0 ]; then
    # CI keeps only what is printed: the boxes' logs and the browsers' consoles go to stderr.
    for f in "$LOG" "$ARTIFACTS/driftd-peer.log" "$ARTIFACTS"/FAILED-*.log; do
        [ -f "$f" ] || continue
        log "--- last 60 lines of $f"
        tail -n 60 "$f" | cut -c1-400 >&2
    done
    log "FAILED (pytest exit $status); driftd's log: $LOG"
fi
exit "$status"
