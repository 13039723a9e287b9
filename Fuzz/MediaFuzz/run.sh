#!/bin/sh
# Builds the DriftMedia libFuzzer target and runs it for a bounded time.
# Usage: Fuzz/MediaFuzz/run.sh [SECONDS]   (default 60; from the package root)
# FUZZ_STEP=build compiles only, FUZZ_STEP=run runs the binary built before (.ci/run builds
# while the image builds); unset, both.
set -eu
seconds=${1:-60}
step=${FUZZ_STEP:-both}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/driftbox-media-fuzz
mkdir -p "$out/corpus"
cp "$root"/Tests/DriftMediaTests/Fixtures/* "$out/corpus/"
# DRIFT_MEDIA_FUZZ swaps `import DriftCore` for CoreShim.swift (DriftCore needs swift-crypto).
if [ "$step" != run ]; then
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MediaFuzz -D DRIFT_MEDIA_FUZZ \
        "$root"/Sources/DriftMedia/*.swift "$root"/Fuzz/MediaFuzz/CoreShim.swift "$root"/Fuzz/MediaFuzz/FuzzEntry.swift \
        -o "$out/media-fuzz"
fi
[ "$step" = build ] && exit 0
. "$root/Fuzz/limits.sh"
run_fuzzer "$out/media-fuzz" "$out/corpus" "$seconds" 32768
