#!/usr/bin/env bash
# The idle benchmark: the release driftd on the simulated board, nobody using it. For each
# profile (the default box, and the beacon kit: `[power] profile = "beacon"`, docs/power.md)
# tools/idle.py starts it, waits for
# READY=1 and a settle, then reports over the window CPU share of one core, context switches
# per second (all threads, from /proc, and by thread name), RSS, threads and descriptors;
# exit status 1 when a target is missed (docs/performance.md, "Idle").
#
#   scripts/bench-idle.sh [--json]
#
# Environment (defaults in brackets):
#   DRIFTD=path     use this driftd, do not build (default: scripts/build-release.sh)
#   SECONDS_IDLE [120]  the measured window      SETTLE [45]  seconds after READY=1 before it
#                       (at least 40: the stable position stands ~30 s in, then the beacon's
#                       GPS sleeps and the default box's fixes slow to one per 10 s)
#   PROFILES ["default beacon"]   PROFILE=beacon (or default) runs that one profile only
#   MAX_SWITCHES [2]  MAX_CPU [0.1] (% of a core)  MAX_RSS_DEFAULT [30]  MAX_RSS_BEACON [20] (MB)
#   COLD [1]        drop driftd's pages from the page cache before each start, as after a boot
#                   (0: start from whatever the cache holds; its file-backed RSS then varies by
#                   about 1 MB with how the binary was written or last read)
#   TRIM_MEMORY [1] 0: `[daemon] trim_memory = false`, the box keeps its start-up code mapped
#                   (docs/performance.md, "Giving memory back")
#   KEEP=1          keep the temporary directory (configs, driftd logs); kept anyway on failure
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
cd "$(dirname "$0")/.."

SECONDS_IDLE=${SECONDS_IDLE:-120}; SETTLE=${SETTLE:-45}; PROFILES=${PROFILES:-${PROFILE:-default beacon}}
for profile in $PROFILES; do
    case "$profile" in default|beacon) ;; *) echo "bench-idle: unknown profile '$profile' (default, beacon)" >&2; exit 2 ;; esac
done
MAX_SWITCHES=${MAX_SWITCHES:-2}; MAX_CPU=${MAX_CPU:-0.1}
MAX_RSS_DEFAULT=${MAX_RSS_DEFAULT:-30}; MAX_RSS_BEACON=${MAX_RSS_BEACON:-20}
cold=(); if [ "${COLD:-1}" = 1 ]; then cold=(--cold); fi

if [ -z "${DRIFTD:-}" ]; then
    DRIFTD=$(scripts/build-release.sh)
fi
[ -x "$DRIFTD" ] || { echo "bench-idle: no driftd at $DRIFTD" >&2; exit 2; }

work=$(mktemp -d /tmp/bench-idle.XXXXXX)
status=0
cleanup() {
    if [ "$status" = 0 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$work"; else echo "bench-idle: configs and logs kept in $work" >&2; fi
}
trap cleanup EXIT

free_port() { python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.$1); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }

for profile in $PROFILES; do
    dir="$work/$profile"
    mkdir -p "$dir/data"
    port=$(free_port SOCK_STREAM); radio=$(free_port SOCK_DGRAM)
    {
        cat <<TOML
[box]
board = "sim"
board_dir = "$PWD/board"
name = "Idle box ($profile)"

[storage]
data_dir = "$dir/data"

[http]
listen = "127.0.0.1:$port"

[sim]
radio_udp_port = $radio   # not the default 47300, which another box or a test may hold
TOML
        if [ "${TRIM_MEMORY:-1}" = 0 ]; then
            printf '\n[daemon]\ntrim_memory = false\n'
        fi
        if [ "$profile" = beacon ]; then
            printf '\n[camp]\nname = "Idle camp"\n\n[power]\nprofile = "beacon"\n'
        fi
    } > "$dir/driftd.toml"
    # The stable position stands after 30 fixes (one a second); then the beacon's GPS sleeps
    # and the default box's fixes slow to one per 10 s. The window starts after that (at least
    # 40 s in), so it measures a box as it idles for days.
    case "$profile" in beacon) max_rss=$MAX_RSS_BEACON ;; *) max_rss=$MAX_RSS_DEFAULT ;; esac
    settle=$(( SETTLE < 40 ? 40 : SETTLE ))
    set +e
    python3 tools/idle.py --driftd "$DRIFTD" --config "$dir/driftd.toml" --notify "$dir/notify.sock" --log "$dir/driftd.log" \
        --profile "$profile" --settle "$settle" --seconds "$SECONDS_IDLE" --max-switches "$MAX_SWITCHES" --max-cpu "$MAX_CPU" \
        --max-rss "$max_rss" "${cold[@]}" "$@"
    rc=$?
    set -e
    echo
    if [ "$rc" -gt "$status" ]; then status=$rc; fi
done
exit "$status"
