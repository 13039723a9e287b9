#!/usr/bin/env bash
# `make test` on a busy machine: a clean clone of the committed HEAD (with ../shared beside it
# when this checkout has one), run RUNS times in a row while `stress-ng --cpu N` keeps N cores
# busy beside it. The suite must pass every time; a failure is a bug in the product or the test.
#
#   scripts/test-under-load.sh [RUNS]        RUNS defaults to 3
#   STRESS_CPUS=2 (default) stress workers; 0 runs on an idle machine
#   KEEP=1 keeps the clone and the logs (printed at the end); otherwise they are removed on success
#
# The first run builds from nothing (a clean clone); later runs reuse that build, as CI does not.
# Each run's log is .build/load/run-N.log in the clone. Exit status: 0 when every run passed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-3}"
cpus="${STRESS_CPUS:-2}"

"$root/scripts/install-deps.sh" stress-ng

work="$(mktemp -d /tmp/driftbox-load.XXXXXX)"
git clone -q "$root" "$work/main"
if [ -d "$root/../shared" ]; then
  ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"
fi
mkdir -p "$work/main/.build/load"

stress=""
cleanup() {
  if [ -n "$stress" ]; then kill "$stress" 2>/dev/null || true; wait "$stress" 2>/dev/null || true; fi
}
trap cleanup EXIT
if [ "$cpus" -gt 0 ]; then
  stress-ng --cpu "$cpus" --timeout 0 --quiet &
  stress=$!
fi

echo "test-under-load: $runs run(s) of make test in $work/main, stress-ng --cpu $cpus beside it"
failed=0
for run in $(seq 1 "$runs"); do
  log="$work/main/.build/load/run-$run.log"
  start=$(date +%s)
  set +e
  (cd "$work/main" && make test) >"$log" 2>&1
  status=$?
  set -e
  seconds=$(( $(date +%s) - start ))
  summary="$(grep -aE '^(✔|✘|━) Test run with' "$log" | tail -1 || true)"
  printf 'run %d: exit %d after %dm%02ds  %s\n' "$run" "$status" $((seconds / 60)) $((seconds % 60)) "$summary"
  if [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    grep -aE '^✘ Test .* (failed|recorded an issue)' "$log" | head -20 || true
    echo "  log: $log"
  fi
done

if [ "$failed" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
  rm -rf "$work"
else
  echo "test-under-load: clone and logs kept in $work"
fi
echo "test-under-load: $((runs - failed)) of $runs run(s) passed"
[ "$failed" -eq 0 ]
