#!/usr/bin/env bash
# The release driftd as the image ships it, for this machine: the Swift runtime and Foundation
# linked in (--static-swift-stdlib) and a lean link (lld, packed relocations, no exported
# symbols, the startup functions first), so that an idle box maps little of its code.
# Prints the binary's path on stdout; SwiftPM's output goes to stderr.
#
#   scripts/build-release.sh [more swift build flags]
#   DRIFTBOX_RELEASE_SCRATCH=dir scripts/build-release.sh   # SwiftPM's scratch directory (default .build)
#   DRIFTBOX_RELEASE_FLAGS="-Xswiftc …" scripts/build-release.sh   # more flags (below)
#
# Used by `make release`, image/build.sh (x86_64) and the benchmarks (bench-idle, bench-festival,
# bench-api). The arm64 image builds its own fully static binary (image/arm64/build.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
cd "$(dirname "$0")/.."

# Each flag was measured with scripts/bench-idle.sh (docs/performance.md, "Idle" → memory):
#   --static-swift-stdlib      the Swift runtime and Foundation inside driftd: no dynamic symbol
#                              lookups through five large libraries at start
#   -use-ld=lld, -z pack-relative-relocs   lld, and the ~66,000 relative relocations of a PIE
#                              as a compact DT_RELR table instead of 1.6 MB of .rela.dyn
#   --no-export-dynamic        static-stdlib-args.lnk exports every driftd symbol (48,000 of
#                              them, 3 MB of .dynsym/.dynstr/.gnu.hash read at start); nothing
#                              looks them up (the fully static arm64 binary has none)
#   -function-sections (Swift), -ffunction-sections (C)   one section per function, so that
#   --symbol-ordering-file     tools/driftd.order (tools/startup-order.sh) can put the functions
#                              a box runs from start to idle together at the front of .text
#   -T tools/driftd.ld         and the functions without a symbol (.L…, ~250 KB) before them
flags=(-c release --static-swift-stdlib
       -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
       -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
       -Xlinker "--symbol-ordering-file=$PWD/tools/driftd.order" -Xlinker --no-warn-symbol-ordering
       -Xlinker -T -Xlinker "$PWD/tools/driftd.ld")
# DRIFTBOX_RELEASE_FLAGS="flags": more swift build flags, for both calls below (.ci/run: debug
# information as line tables only, `-Xswiftc -gline-tables-only -Xcc -gline-tables-only`).
if [ -n "${DRIFTBOX_RELEASE_FLAGS:-}" ]; then read -r -a extra <<<"$DRIFTBOX_RELEASE_FLAGS"; flags+=("${extra[@]}"); fi
# DRIFTBOX_RELEASE_SCRATCH=dir: SwiftPM's scratch directory for this build instead of .build.
# SwiftPM locks its scratch directory while a command runs, `swift test` included, so .ci/run
# builds the image's driftd in its own while the tests run.
[ -n "${DRIFTBOX_RELEASE_SCRATCH:-}" ] && flags+=(--scratch-path "$DRIFTBOX_RELEASE_SCRATCH")
bin="$(swift build "${flags[@]}" --show-bin-path)/driftd"
# SwiftPM does not know these two files are inputs of the link: relink when one changed.
if [ -f "$bin" ] && { [ tools/driftd.order -nt "$bin" ] || [ tools/driftd.ld -nt "$bin" ]; }; then rm -f "$bin"; fi
swift build "${flags[@]}" --product driftd "$@" >&2
echo "$bin"
