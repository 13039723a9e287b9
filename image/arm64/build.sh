#!/usr/bin/env bash
# make arm64: cross-builds driftd for aarch64 (Raspberry Pi) on this x86_64 machine with
# Debian's Swift 6.2.3, as one fully static executable. docs/arm64.md tells why and how.
#
#   1. chroot.sh   amd64 Debian sid chroot with swiftlang (the compiler runs there)
#   2. sysroot.sh  arm64 sid packages unpacked: Swift runtime and modules, glibc, C libraries
#   3. static.sh   libmosquitto.a from Debian's source package (Debian ships no static one)
#   4. sdk.sh      the Swift SDK bundle (swift-sdk.json, toolset with ld.lld)
#   5. swift build --swift-sdk … -c release --product driftd -static-executable
#
# Output: $cache/bin/driftd (cache: DRIFTBOX_ARM64_CACHE, default .build-arm64). The build
# directory is $cache/build (--scratch-path), apart from the host's .build.
# Environment: ARM64_LINK=static (default) or dynamic (static Swift runtime, shared C
# libraries and glibc: for a trixie image only, see docs/arm64.md).
# A failing step prints its script, line and command (scripts/lib/fail-loudly.sh, via
# common.sh). tests/arm64/scripts_guard_test.py (make test) runs these scripts on a cold and a
# warm cache with stand-ins for the heavy steps (DRIFTBOX_ARM64_HOOK, common.sh).
source "$(dirname "$0")/common.sh"
link="${ARM64_LINK:-static}"
"$arm64_here/chroot.sh"
"$arm64_here/sysroot.sh"
if [ "$link" = static ]; then "$arm64_here/static.sh"; fi
"$arm64_here/sdk.sh"

# The local Swift package mirror: the same insteadOf mapping as the build machine's git.
rm -f "$chroot_dir/etc/gitconfig"
git_insteadof | while read -r key value; do
  git config --file "$chroot_dir/etc/gitconfig" --add "$key" "$value"
done
git config --file "$chroot_dir/etc/gitconfig" --add safe.directory '*'

case "$link" in
  # --static-swift-stdlib makes SwiftPM hand swiftc the swift_static resource directory, where
  # static-executable-args.lnk lives.
  # SwiftPM links -lmosquitto (modulemap) but knows nothing of what the static archive needs:
  # OpenSSL (with its compression libraries) and cJSON (lld finds archive members in any order).
  static)  link_flags=(--static-swift-stdlib -Xswiftc -static-executable)
           for lib in ssl crypto cjson z zstd brotlienc brotlidec brotlicommon; do link_flags+=(-Xlinker "-l$lib"); done ;;
  dynamic) link_flags=(--static-swift-stdlib) ;;
  *) die "ARM64_LINK=$link: static or dynamic" ;;
esac
scratch="$cache/build-$link"
say "swift build (release, $link, aarch64) in $scratch"
started_build=$(date +%s)
# pkg-config (CSerialPort, CMosquitto) must read the arm64 .pc files of the sysroot.
# SwiftPM 6.2.3 loads this package graph only some of the time: hummingbird-websocket depends
# on hummingbird with `traits: []`, the root with its default traits, and SwiftPM then
# sometimes drops swift-configuration ("product 'Configuration' required by package
# 'hummingbird' … not found", hummingbird issue #769; 6.3.1 is not affected). It fails within
# seconds, before compiling anything, so that one error is retried.
# SwiftPM 6.2.3 does not rerun the BuildInfoPlugin's prebuild command on a warm cross build
# (the version line kept an old commit): refresh its output first (it is rewritten only when
# the content changes, so an unchanged tree does not recompile). A cold build has no $scratch
# yet, and nothing to refresh (find would fail on the missing directory: issue #22).
if [ -d "$scratch" ]; then
  find "$scratch" -path '*BuildInfoPlugin*' -name BuildInfo.swift | while read -r generated; do
    in_chroot /bin/sh "$repo/scripts/build-info.sh" "$repo" "$generated"
  done
fi
attempt=1
while :; do
  set +e
  in_chroot /usr/bin/env \
    PKG_CONFIG_LIBDIR="$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig" \
    PKG_CONFIG_SYSROOT_DIR="$sysroot" \
    nice -n 10 swift build --package-path "$repo" --scratch-path "$scratch" \
      --swift-sdks-path "$sdk_dir" --swift-sdk driftbox-aarch64 \
      -c release --product driftd "${link_flags[@]}" ${ARM64_SWIFT_FLAGS:-} > "$cache/build-$link.log" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 0 ] && [ "$attempt" -lt 40 ] \
     && grep -q "product 'Configuration' required by package 'hummingbird'" "$cache/build-$link.log"; then
    say "SwiftPM 6.2.3 dropped swift-configuration from the graph (attempt $attempt): again"
    attempt=$((attempt + 1))
    continue
  fi
  break
done
{ grep -v -E '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Planning)|^(Fetch|Comput|Creating|Working)' "$cache/build-$link.log" || true; } | tail -n 15
[ "$status" -eq 0 ] || die "swift build failed (log: $cache/build-$link.log)"
bin="$scratch/aarch64-unknown-linux-gnu/release/driftd"
[ -f "$bin" ] || die "no $bin after swift build"
mkdir -p "$cache/bin"
# Without DWARF (symbols stay, for backtraces): ~3x smaller. The unstripped one stays in $scratch.
in_chroot /usr/libexec/swift/bin/llvm-objcopy --strip-debug "$bin" "$cache/bin/driftd-$link"
if [ "$link" = static ]; then cp "$cache/bin/driftd-$link" "$cache/bin/driftd.tmp"; mv "$cache/bin/driftd.tmp" "$cache/bin/driftd"; fi
say "built in $(( $(date +%s) - started_build )) s: $cache/bin/driftd-$link ($(stat -c %s "$cache/bin/driftd-$link") bytes; with DWARF $(stat -c %s "$bin"))"
say "file: $(file -b "$cache/bin/driftd-$link")"
echo "$cache/bin/driftd-$link"
