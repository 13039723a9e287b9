#!/bin/sh
# Builds the DriftMesh wire libFuzzer target and runs it for a bounded time.
# Usage: Fuzz/MeshFuzz/run.sh [SECONDS]   (default 60; from the package root)
# FUZZ_STEP=build compiles only, FUZZ_STEP=run runs the binary built before (.ci/run builds
# while the image builds); unset, both.
set -eu
seconds=${1:-60}
step=${FUZZ_STEP:-both}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/driftbox-mesh-fuzz
mkdir -p "$out/corpus"
cp "$root"/Fuzz/MeshFuzz/corpus/* "$out/corpus/"
# Only the crypto-free wire files (and the compact digest's codec with the generator it hashes
# with): they deliberately do not import Crypto (see README.md).
wire="$root/Sources/DriftMesh/Wire"
if [ "$step" != run ]; then
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MeshFuzz \
        "$wire"/NodeID.swift "$wire"/PacketKey.swift "$wire"/FrameKind.swift "$wire"/MeshHeader.swift \
        "$wire"/MeshHeader+Expiry.swift "$wire"/MeshFrame.swift "$wire"/MeshWireError.swift \
        "$wire"/MeshFrameCodec.swift "$wire"/Fragmenter.swift "$wire"/Reassembler.swift \
        "$root"/Sources/DriftMesh/Sync/CompactDigest.swift "$root"/Sources/DriftMesh/Routing/MeshRandom.swift \
        "$root"/Fuzz/MeshFuzz/FuzzEntry.swift \
        -o "$out/mesh-fuzz"
fi
[ "$step" = build ] && exit 0
. "$root/Fuzz/limits.sh"
run_fuzzer "$out/mesh-fuzz" "$out/corpus" "$seconds" 300
