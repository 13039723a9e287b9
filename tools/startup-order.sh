#!/usr/bin/env bash
# The startup order of driftd's code (docs/performance.md, "Idle" → memory): which functions a
# box runs from exec through READY=1 and an idle minute, in the default and the beacon profile,
# written to tools/driftd.order. The release link (scripts/build-release.sh) hands it to lld as
# --symbol-ordering-file, so those functions sit together at the start of .text and an idle box
# maps a few megabytes of code instead of most of the binary (the kernel maps file pages in
# 64 KiB blocks around each one touched, so scattered functions pull in their neighbours).
#
#   tools/startup-order.sh      # (re)links the release driftd (scripts/build-release.sh) with a map
#
# Runs driftd under valgrind's callgrind (Debian's `valgrind`), which records every function
# executed; ~2 minutes per profile. Regenerate after larger changes: functions the file does not
# name are placed after the ordered ones, so a stale file costs memory, never correctness (and
# scripts/bench-idle.sh shows the RSS creeping up). Symbols are kept mangled, one per line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/fail-loudly.sh"
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "startup-order: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d /tmp/startup-order.XXXXXX)
trap 'rm -rf "$work"' EXIT
driftd=$(scripts/build-release.sh)
# valgrind 3.19 (Debian 12) cannot read DWARF 5: run a copy without the debug sections (the
# symbol table and every address stay).
objcopy --strip-debug "$driftd" "$work/driftd"

for profile in default beacon; do
    echo "startup-order: $profile profile under callgrind" >&2
    PROFILE=$profile SECONDS_IDLE=${SECONDS_IDLE:-60} SETTLE=${SETTLE:-10} DRIFTD="$work/driftd" \
        MAX_SWITCHES=1e9 MAX_CPU=1e9 MAX_RSS_DEFAULT=1e9 MAX_RSS_BEACON=1e9 \
        scripts/bench-idle.sh --ready-timeout 600 \
        --wrap "valgrind --tool=callgrind --demangle=no --callgrind-out-file=$work/callgrind.$profile" >/dev/null || true
    [ -s "$work/callgrind.$profile" ] || { echo "startup-order: no callgrind profile for $profile" >&2; exit 1; }
done

# Every function callgrind saw (fn= and cfn= lines name them once, then by number) that the
# binary defines, in the binary's address order (neighbours in the source stay neighbours).
# lld moves every input section holding a listed symbol: a local helper whose name many objects
# share (objectdestroyTm …) brings all its copies, and a function inside one of the Swift
# runtime's large multi-function sections (Swift.o's .text is 1.6 MB) brings the whole section.
# Leaving such names out was tried (only those adding ≤ 64 KiB): the copies that did run then
# stayed behind, scattered, and the idle RSS came out 1 MB higher in both profiles.
python3 - "$work" "$work/driftd" > tools/driftd.order <<'PY'
import re, subprocess, sys
work, binary = sys.argv[1], sys.argv[2]
executed = {"_start"}  # valgrind calls it "(below main)"
for profile in ("default", "beacon"):
    names = {}
    for line in open(f"{work}/callgrind.{profile}", errors="replace"):
        m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            number, name = m.groups()
            if name:
                names[number] = name
            executed.add(names.get(number))
address = {}
nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
for line in nm.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW" and parts[2] in executed:
        address.setdefault(parts[2], int(parts[0], 16))
print("\n".join(sorted(address, key=lambda n: (address[n], n))))
PY
echo "startup-order: $(wc -l < tools/driftd.order) functions → tools/driftd.order" >&2
