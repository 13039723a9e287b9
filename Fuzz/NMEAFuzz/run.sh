#!/bin/sh
# Builds the NMEA libFuzzer target and runs it for a bounded time.
# Usage: Fuzz/NMEAFuzz/run.sh [SECONDS]   (default 60; from the package root)
# FUZZ_STEP=build compiles only, FUZZ_STEP=run runs the binary built before (.ci/run builds
# while the image builds); unset, both.
set -eu
seconds=${1:-60}
step=${FUZZ_STEP:-both}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/driftbox-nmea-fuzz
mkdir -p "$out/corpus"
cp "$root"/Fuzz/NMEAFuzz/corpus/* "$out/corpus/"
if [ "$step" != run ]; then
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name NMEAFuzz \
        "$root"/Sources/GNSS/*.swift "$root"/Fuzz/NMEAFuzz/FuzzEntry.swift -o "$out/nmea-fuzz"
fi
[ "$step" = build ] && exit 0
. "$root/Fuzz/limits.sh"
run_fuzzer "$out/nmea-fuzz" "$out/corpus" "$seconds" 4096
