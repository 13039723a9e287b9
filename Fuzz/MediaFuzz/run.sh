#!/bin/sh
# Builds the DriftMedia libFuzzer target and runs it for a bounded time.
# Usage: Fuzz/MediaFuzz/run.sh [SECONDS]   (default 60; from the package root)
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/driftbox-media-fuzz
mkdir -p "$out/corpus"
cp "$root"/Tests/DriftMediaTests/Fixtures/* "$out/corpus/"
# DRIFT_MEDIA_FUZZ swaps `import DriftCore` for CoreShim.swift (DriftCore needs swift-crypto).
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MediaFuzz -D DRIFT_MEDIA_FUZZ \
    "$root"/Sources/DriftMedia/*.swift "$root"/Fuzz/MediaFuzz/CoreShim.swift "$root"/Fuzz/MediaFuzz/FuzzEntry.swift \
    -o "$out/media-fuzz"
"$out/media-fuzz" -max_total_time="$seconds" -max_len=32768 -rss_limit_mb=512 "$out/corpus"
