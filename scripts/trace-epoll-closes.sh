#!/usr/bin/env bash
# Runs the test suite under strace and reports every descriptor closed while still registered
# in an epoll set of the test process (tools/epoll-closes.py): the libdispatch hazard that left
# a serial port's reads deaf (docs/architecture.md, "I/O without polling threads").
#
#   scripts/trace-epoll-closes.sh [FILTER]     FILTER: a Swift Testing --filter (default: every test)
#
# Builds the tests (debug), runs the test bundle directly under `strace -f`, keeps the trace in
# .build/epoll-trace.txt. About 4 minutes for the whole suite on two idle cores (1.5× the
# untraced run). Exit status: the test run's if it failed, else 1 when a descriptor was closed
# while registered, else 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install-deps.sh" strace
swift build --build-tests
bundle="$(swift build --show-bin-path)/DriftBoxPackageTests.xctest"
trace="$root/.build/epoll-trace.txt"
filter=()
if [ $# -gt 0 ]; then filter=(--filter "$1"); fi

status=0
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${TEST_WIDTH:-48}" \
  strace -f --seccomp-bpf -tt -qq -o "$trace" \
    -e trace=epoll_ctl,close,dup2,dup3,clone,clone3 \
    "$bundle" --testing-library swift-testing "${filter[@]}" > "$root/.build/epoll-trace-tests.log" 2>&1 || status=$?
tail -n 1 "$root/.build/epoll-trace-tests.log"
if [ "$status" -ne 0 ]; then
  echo "trace-epoll-closes: the tests failed (exit $status); log: .build/epoll-trace-tests.log" >&2
  exit "$status"
fi
python3 "$root/tools/epoll-closes.py" "$trace"
