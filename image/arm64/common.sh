#!/usr/bin/env bash
# Shared settings of the arm64 cross build (sourced by the scripts beside it; docs/arm64.md).
#
# Everything large lives in one cache directory that survives `make clean` and fresh
# worktrees on one machine when pointed outside the clone:
#   DRIFTBOX_ARM64_CACHE  default <repo>/.build-arm64 (ignored by git)
#     chroot/     amd64 Debian sid with swiftlang 6.2.3 (the compiler runs here)
#     sysroot/    arm64 Debian sid packages unpacked with dpkg -x (headers, libraries, Swift runtime)
#     sdk/        the Swift SDK bundle (driftbox-aarch64.artifactbundle)
#     static/     static archives Debian does not ship (libmosquitto.a)
#     debs/       downloaded .debs (amd64 and arm64)
#     run/        the arm64 chroot the emulated tests run in
#   DRIFTBOX_MIRROR       Debian mirror (default http://deb.debian.org/debian)
#   DRIFTBOX_SID_SUITE    suite with swiftlang 6.2.3 (default sid)
#   DRIFTBOX_ARM64_HOOK   test only: a bash file sourced at the end of this one (see below)
set -euo pipefail
arm64_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A failing command prints the script, the line and the command (never a bare `Error 1`).
source "$arm64_here/../../scripts/lib/fail-loudly.sh"
repo="$(cd "$arm64_here/../.." && pwd)"
cache="${DRIFTBOX_ARM64_CACHE:-$repo/.build-arm64}"
mirror="${DRIFTBOX_MIRROR:-http://deb.debian.org/debian}"
suite="${DRIFTBOX_SID_SUITE:-sid}"
chroot_dir="$cache/chroot"
sysroot="$cache/sysroot"
sdk_dir="$cache/sdk"
debs="$cache/debs"
# The sid Release file may be past its Valid-Until date on the mirror.
apt_valid=(--aptopt='Acquire::Check-Valid-Until "false"' --aptopt='Acquire::Retries "3"' --aptopt='APT::Install-Recommends "false"')
mmdebstrap_mode=root
[ "$(id -u)" -eq 0 ] || mmdebstrap_mode=unshare
arm64_started="${arm64_started:-$(date +%s)}"
say() { printf 'arm64: [%s s] %s\n' "$(( $(date +%s) - arm64_started ))" "$*"; }
die() { printf 'arm64: ERROR: %s\n' "$*" >&2; exit 1; }
# A stamp whose content names what was asked for: a changed list rebuilds.
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# Runs a command in the sid chroot, in a private mount namespace (the mounts vanish with it):
# /proc, /dev and /sys (swiftc finds its own libraries through /proc/self/exe), the local
# Swift package mirror at the same path, and the repository and the cache at their own paths.
# git_insteadof: the build machine's insteadOf mappings (none: the packages come from the network).
git_insteadof() { git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true; }
swift_mirror="$(git_insteadof | awk '{print $1}' | sed -E 's/^url\.(.*)\.insteadof$/\1/' | sort -u | head -n 1)"
# A worktree's .git names the main repository's: build-info.sh runs git on the repository.
git_common_dir="$(cd "$repo" && realpath "$(git rev-parse --git-common-dir 2>/dev/null || echo .git)" 2>/dev/null || true)"
in_chroot() {
  unshare --mount --propagation private -- /bin/bash -euc '
    root="$1" repo="$2" cache="$3" mirror="$4" git_dir="$5"; shift 5
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    for dir in "$mirror" "$repo" "$cache"; do
      [ -n "$dir" ] && [ -d "$dir" ] || continue
      mkdir -p "$root$dir"; mount --bind "$dir" "$root$dir"
    done
    if [ -n "$git_dir" ] && [ -d "$git_dir" ] && [ ! -d "$root$git_dir/objects" ]; then
      mkdir -p "$root$git_dir"; mount --bind "$git_dir" "$root$git_dir"; mount -o remount,bind,ro "$root$git_dir"
    fi
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb "$@"
  ' in_chroot "$chroot_dir" "$repo" "$cache" "${swift_mirror%/}" "$git_common_dir" "$@"
}

# mmdebstrap for the sid chroot (chroot.sh); installs it first if missing.
run_mmdebstrap() {
  command -v mmdebstrap >/dev/null || "$repo/image/deps.sh"
  nice -n 10 mmdebstrap "$@"
}

# The heavy steps (Debian downloads, apt, dpkg -x, clang, cmake, swift build) all go through
# run_mmdebstrap and in_chroot. DRIFTBOX_ARM64_HOOK, when set, names a bash file sourced here,
# after them, that may redefine them: tests/arm64/scripts_guard_test.py stands in for them that
# way to check the scripts' control flow (cold and warm cache, step order, a failure naming
# itself) in seconds, without network or root. Never set for a real build.
if [ -n "${DRIFTBOX_ARM64_HOOK:-}" ]; then source "$DRIFTBOX_ARM64_HOOK"; fi
