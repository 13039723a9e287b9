#!/usr/bin/env bash
# Runs tools/dispatch-hangup-race.swift: libdispatch read and write sources on pseudo-terminals,
# used by libdispatch's rules, crashing its manager thread after hang-ups — why the monitors
# wait on Drift Box's own epoll thread (Sources/DriftSystem/EpollReactor.swift, docs/testing.md).
#
#   scripts/repro-dispatch-hangup.sh [RUNS] [SECONDS]     default: 10 runs of 60 s
#
# Each run is a fresh process with MALLOC_PERTURB_ set (freed memory overwritten, so a read of
# it crashes instead of passing unseen). Prints each run's outcome and the count of crashes;
# exit status 1 when at least one run crashed, 0 when none did.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-10}"
seconds="${2:-60}"
binary="$root/.build/dispatch-hangup-race"
mkdir -p "$root/.build"
swiftc -O "$root/tools/dispatch-hangup-race.swift" -o "$binary"

crashes=0
for run in $(seq 1 "$runs"); do
  log="$root/.build/dispatch-hangup-race.$run.log"
  status=0
  MALLOC_PERTURB_=165 timeout $((seconds + 60)) "$binary" "$seconds" > "$log" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    echo "run $run: $(tail -n 1 "$log")"
  else
    crashes=$((crashes + 1))
    # glibc's own message (a corrupted heap) comes first when there is one; then the
    # backtracer's reason and the first libdispatch frame of the crashed thread.
    first="$(head -n 1 "$log")"
    case "$first" in *malloc*|*free*) first="$first; " ;; *) first="" ;; esac
    reason="$(grep -m 1 -o 'Program crashed: [^*]*' "$log" || true)"
    where="$(sed -n '/ crashed:/,$p' "$log" | grep -m 1 -o '_dispatch_[a-z_]* + [0-9]*' || true)"
    echo "run $run: crashed (exit $status): ${first}${reason:-?} in ${where:-?}; log: $log"
  fi
done
echo "dispatch-hangup-race: $crashes of $runs runs crashed"
[ "$crashes" -eq 0 ]
