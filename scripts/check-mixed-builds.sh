#!/usr/bin/env bash
# Real daemons of two builds on the loopback radio: a line A — B — C where A and C run this build
# with mesh.topology_plan on and B runs an older build (by default 139ab1f, the last build before
# the planned relays), then the same line with B of this build and the plan off (the control).
# tools/mesh-mixed-builds.py says whether messages cross B both ways (a broadcast each way, a
# directed message acknowledged), which lists A and C know, and what B counted as malformed
# (docs/mesh-simulation.md, "A mesh of mixed builds"). Exit 1 when a check fails.
#
#   scripts/check-mixed-builds.sh [--json]
#
# Environment (defaults in brackets):
#   OLDER_REV [139ab1f]   the older build's revision (a commit of this repository)
#   OLDER_DIR [.build/older-<rev>]   where its checkout and debug build are kept (built once:
#                         a fresh `swift build`, 144 s here with SwiftPM's caches warm)
#   DRIFTD [.build/debug/driftd, built with `swift build --product driftd`]   this build
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
cd "$(dirname "$0")/.."

rev=${OLDER_REV:-139ab1f}
older=${OLDER_DIR:-$PWD/.build/older-$rev}
if [ ! -d "$older/.git" ]; then
    git clone -q "$PWD" "$older"
fi
git -C "$older" checkout -q "$rev"
echo "check-mixed-builds: building the older build ($rev) in $older" >&2
(cd "$older" && swift build --product driftd >&2)
older_driftd="$older/.build/debug/driftd"

if [ -z "${DRIFTD:-}" ]; then
    swift build --product driftd >&2
    DRIFTD=$PWD/.build/debug/driftd
fi

status=0
python3 tools/mesh-mixed-builds.py --driftd "$DRIFTD" --checkout "$PWD" --older-driftd "$older_driftd" --older-checkout "$older" "$@" || status=1
python3 tools/mesh-mixed-builds.py --driftd "$DRIFTD" --checkout "$PWD" --control "$@" || status=1
exit $status
