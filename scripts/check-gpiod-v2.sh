#!/usr/bin/env bash
# Proves that the libgpiod v2 half of the GPIO shim (Sources/CGPIOD/gpiod_v2.c)
# compiles and links against Debian trixie's libgpiod 2.x, on a Debian 12 host
# that only has libgpiod 1.6 installed.
#
# It downloads libgpiod-dev and libgpiod3 from deb.debian.org (trixie) with a
# private apt state in a temp dir, unpacks them with `dpkg -x` (nothing is
# installed), then:
#   1. compiles both shim files with -DDRIFT_GPIOD_API=2 -Werror against the
#      2.x header (the v1 file must compile to nothing);
#   2. links the objects into a throwaway shared object with --no-undefined
#      against the 2.x libgpiod.so, so every gpiod_* symbol used must exist.
#
# Exit 0 on success, 1 on a compile/link failure. If the mirror cannot be
# reached it prints a line starting with "SKIP" and exits 0.
#
# Usage: scripts/check-gpiod-v2.sh   (from anywhere; needs apt-get, dpkg, cc)
# Env:   DRIFT_GPIOD_SUITE (default trixie), DRIFT_DEBIAN_MIRROR
#        (default http://deb.debian.org/debian), KEEP_TMP=1 to keep the temp dir.
set -eu
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command

suite=${DRIFT_GPIOD_SUITE:-trixie}
mirror=${DRIFT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
root=$(cd "$(dirname "$0")/.." && pwd)
shim="$root/Sources/CGPIOD"
cc=${CC:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/drift-gpiod-v2.XXXXXX")
cleanup() { [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
# apt drops privileges to _apt for downloads; let it write here.
chmod 755 "$tmp"

skip() { echo "SKIP check-gpiod-v2: $*"; exit 0; }
fail() { echo "FAIL check-gpiod-v2: $*" >&2; exit 1; }

command -v apt-get >/dev/null 2>&1 || skip "apt-get not available (not a Debian host)"
command -v dpkg >/dev/null 2>&1 || skip "dpkg not available (not a Debian host)"
command -v "$cc" >/dev/null 2>&1 || fail "no C compiler ($cc)"
[ -r "$keyring" ] || skip "no Debian archive keyring at $keyring"

mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts" "$tmp/debs" "$tmp/root"
echo "deb [signed-by=$keyring] $mirror $suite main" > "$tmp/sources.list"
: > "$tmp/status"

apt_opts="-o Dir::Etc::sourcelist=$tmp/sources.list \
 -o Dir::Etc::sourceparts=$tmp/parts \
 -o Dir::State::Lists=$tmp/lists \
 -o Dir::State::status=$tmp/status \
 -o Dir::Cache=$tmp/cache \
 -o Debug::NoLocking=1 \
 -o APT::Get::List-Cleanup=0 \
 -o Acquire::Retries=1 -o Acquire::http::Timeout=20"

# shellcheck disable=SC2086
if ! apt-get $apt_opts -q update > "$tmp/update.log" 2>&1; then
    tail -n 5 "$tmp/update.log" >&2
    skip "cannot reach $mirror $suite (apt-get update failed)"
fi
# apt-get update exits 0 even when a fetch failed; check the index arrived.
ls "$tmp/lists/" | grep -q "_${suite}_main_binary-.*_Packages" \
    || { tail -n 5 "$tmp/update.log" >&2; skip "no $suite package index from $mirror"; }

# shellcheck disable=SC2086
(cd "$tmp/debs" && apt-get $apt_opts -q download libgpiod-dev libgpiod3) > "$tmp/download.log" 2>&1 \
    || { tail -n 5 "$tmp/download.log" >&2; skip "could not download libgpiod-dev/libgpiod3 from $suite"; }

for deb in "$tmp"/debs/*.deb; do
    dpkg -x "$deb" "$tmp/root"
done
header="$tmp/root/usr/include/gpiod.h"
[ -f "$header" ] || fail "libgpiod-dev from $suite has no usr/include/gpiod.h"
version=$(ls "$tmp"/debs/libgpiod-dev_*.deb | sed 's/.*libgpiod-dev_\([^_]*\)_.*/\1/')
echo "check-gpiod-v2: libgpiod-dev $version from $suite"

cflags="-std=c11 -Wall -Wextra -Werror -DDRIFT_GPIOD_API=2 -I$shim/include -I$tmp/root/usr/include"
for src in "$shim"/gpiod_v1.c "$shim"/gpiod_v2.c; do
    obj="$tmp/$(basename "$src" .c).o"
    # shellcheck disable=SC2086
    "$cc" $cflags -fPIC -c "$src" -o "$obj" || fail "$(basename "$src") does not compile against libgpiod $version"
done

# The v1 file must contribute no symbols when API 2 is selected.
if command -v nm >/dev/null 2>&1 && nm "$tmp/gpiod_v1.o" | grep -q ' T '; then
    fail "gpiod_v1.c defines symbols with DRIFT_GPIOD_API=2"
fi

libdir=$(dirname "$(find "$tmp/root" -name 'libgpiod.so.*' | head -n 1)")
[ -d "$libdir" ] || fail "libgpiod3 from $suite has no libgpiod.so.*"
ln -sf "$(basename "$(find "$libdir" -name 'libgpiod.so.*' | head -n 1)")" "$libdir/libgpiod.so"
# --allow-shlib-undefined: the trixie .so may need a newer glibc than this host.
"$cc" -shared -o "$tmp/libdgpio_v2_check.so" "$tmp/gpiod_v1.o" "$tmp/gpiod_v2.o" \
    -L"$libdir" -lgpiod -Wl,--no-undefined -Wl,--allow-shlib-undefined \
    || fail "gpiod_v2.c uses symbols missing from libgpiod $version"

echo "PASS check-gpiod-v2: shim compiles and links against libgpiod $version (API 2)"
