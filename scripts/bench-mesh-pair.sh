#!/usr/bin/env bash
# The mesh pair benchmark: two real driftd processes on the loopback radio, neighbours (or with
# LINE=1 three in a line, the bottles across the middle one); a visitor at box A sends a bottle
# to box B (C) 20 times; tools/mesh-pair.py reports the delivery
# latency (p50, p95, max: from the drop at A until B's visitor API serves the bottle) and the
# confirmation latency (until A lists it as delivered), with each box's mesh counters; exit
# status 1 when the delivery p95 is above MAX_P95 seconds or a bottle never arrives
# (docs/mesh.md, "Real daemons on the loopback radio").
#
#   scripts/bench-mesh-pair.sh [--json] [--keep]
#
# Environment (defaults in brackets):
#   DRIFTD=path    use this driftd, do not build (default: scripts/build-release.sh)
#   RUNS [20]      bottles sent            MAX_P95 [5]   seconds
#   SF [11]        spreading factor at 250 kHz: the board's LongFast; 7 is the process tests' preset
#   HELLO [300]    mesh.hello_interval_s: the board's; the process tests use 3
#   DISTANCE [500] metres between the boxes (their radio range is twice that)
#   TEXT_BYTES [120]  the bottle's text
#   LINE [0]       1: three boxes A — B — C, the bottles go A → C across B (two hops)
#   LOSS [0]       probability a frame in range is lost at a receiver (sim.radio_loss)
#   COLLISIONS [1] 0: frames on the air together at a receiver do not collide (sim.radio_collisions)
#   LOG_LEVEL [info]  daemon.log_level; trace logs each frame heard and sent (with --keep: each box's
#                  driftd.log traces a slow bottle's path)
#   GAP [0]        seconds more between a bottle's confirmation and the next (by default the next
#                  goes 0.5–2 s after: the channel stays busy, and the retries' busy gate with it)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
cd "$(dirname "$0")/.."

if [ -z "${DRIFTD:-}" ]; then
    DRIFTD=$(scripts/build-release.sh)
fi
[ -x "$DRIFTD" ] || { echo "bench-mesh-pair: no driftd at $DRIFTD" >&2; exit 2; }

exec python3 tools/mesh-pair.py --driftd "$DRIFTD" --board-dir "$PWD/board" --runs "${RUNS:-20}" --max-p95 "${MAX_P95:-5}" \
    --sf "${SF:-11}" --hello "${HELLO:-300}" --distance "${DISTANCE:-500}" --text-bytes "${TEXT_BYTES:-120}" \
    --loss "${LOSS:-0}" --gap "${GAP:-0}" --log-level "${LOG_LEVEL:-info}" $([ "${LINE:-0}" = 1 ] && echo --line) \
    $([ "${COLLISIONS:-1}" = 0 ] && echo --no-collisions) "$@"
