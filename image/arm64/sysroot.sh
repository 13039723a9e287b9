#!/usr/bin/env bash
# Creates (or reuses) the arm64 sysroot: Debian sid arm64 packages unpacked with dpkg -x
# (nothing is installed or configured, no arm64 code runs):
#   - swiftlang + libswiftlang: the aarch64 Swift modules, swiftrt.o, the runtime (shared in
#     usr/lib/swift, static in usr/lib/swift_static) — they must match the 6.2.3 compiler;
#   - libc6, libc6-dev, linux-libc-dev, libgcc, libstdc++ (crt files, libstdc++.a);
#   - the C libraries driftd links, as -dev packages with their dependencies: libgpiod (v2 in
#     sid), libserialport, SQLite, libmosquitto, and OpenSSL/cJSON (and OpenSSL's zlib, zstd,
#     brotli) for the static libmosquitto.
# Needs the chroot (chroot.sh): apt there has arm64 as a foreign architecture.
source "$(dirname "$0")/common.sh"

# The C libraries (their dependency closure is added), and the Swift packages (without theirs:
# the arm64 compiler's own dependencies are not needed to link for arm64).
# libzstd-dev and libbrotli-dev: sid's libcrypto.a calls zlib, zstd and brotli (compression).
c_packages=(libc6-dev linux-libc-dev libgpiod-dev libserialport-dev libsqlite3-dev libmosquitto-dev libssl-dev libcjson-dev
            zlib1g-dev libzstd-dev libbrotli-dev)
swift_packages=(swiftlang libswiftlang)
want="$suite ${c_packages[*]} ${swift_packages[*]} v2"
if [ "${1:-}" != --rebuild ] && stamp_ok "$cache/sysroot.stamp" "$want" && [ -d "$sysroot/usr/libexec/swift/lib/swift_static" ]; then
  say "sysroot: reusing $sysroot"
  exit 0
fi
mkdir -p "$debs/arm64"
rm -rf "$sysroot" "$cache/sysroot.stamp"

# mmdebstrap leaves no package lists behind.
ls "$chroot_dir"/var/lib/apt/lists/*_binary-arm64_Packages* >/dev/null 2>&1 || in_chroot apt-get -q update | tail -n 2
# The gcc the sid toolchain uses (crtbeginS.o, libgcc.a, libstdc++.a live in its -dev packages).
gcc_version=$(in_chroot apt-cache depends gcc:arm64 | sed -n -E 's/^ *Depends: gcc-([0-9]+):arm64.*/\1/p; s/^ *Depends: gcc-([0-9]+)$/\1/p' | head -n 1)
[ -n "$gcc_version" ] || die "cannot tell sid's gcc version (apt-cache depends gcc:arm64)"
c_packages+=("libgcc-$gcc_version-dev" "libstdc++-$gcc_version-dev")
say "sysroot: resolving the arm64 closure of ${c_packages[*]}"
closure=$(in_chroot apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${c_packages[@]/%/:arm64}" \
  | grep -E '^[a-z0-9]' | sed 's/:arm64$//' | sort -u)
# Nothing that only runs programs is needed in a sysroot.
skip='^(debconf|perl-base|dpkg|install-info|gcc-[0-9]+-base|libc-bin|libc-dev-bin|tzdata|rpcsvc-proto|libcrypt-dev|cpp.*|gcc-[0-9]+|binutils.*)$'
packages=$( { printf '%s\n' $closure | grep -v -E "$skip"; printf '%s\n' libcrypt-dev libcrypt1 "${swift_packages[@]}"; } | sort -u)
say "sysroot: downloading $(echo "$packages" | wc -l) arm64 packages → $debs/arm64"
# Architecture: all packages (linux-libc-dev …) have no :arm64 candidate.
in_chroot /bin/sh -c 'cd "$1"; shift; names=""
  for p in "$@"; do
    if apt-cache show --no-all-versions "$p:arm64" 2>/dev/null | grep -q "^Architecture: arm64"; then names="$names $p:arm64"; else names="$names $p"; fi
  done
  apt-get -q -o APT::Sandbox::User=root download $names' download "$debs/arm64" $packages \
  | { grep -v -E '^(Get|Fetched)' || true; }
mkdir -p "$sysroot"
for package in $packages; do
  deb=$(ls -t "$debs/arm64/${package}_"*_arm64.deb "$debs/arm64/${package}_"*_all.deb 2>/dev/null | head -n 1 || true)
  [ -n "$deb" ] || die "no .deb for $package in $debs/arm64"
  in_chroot dpkg -x "$deb" "$sysroot"
done
# Merged /usr: linker scripts (libc.so) name /lib/aarch64-linux-gnu/…, resolved in the sysroot.
for dir in lib bin sbin; do [ -e "$sysroot/$dir" ] || ln -s "usr/$dir" "$sysroot/$dir"; done
# Debian links usr/lib/swift to usr/libexec/swift/lib/swift but not swift_static; the driver
# looks for usr/lib/swift_static/linux/aarch64/swiftrt.o in the SDK when linking statically.
[ -e "$sysroot/usr/lib/swift_static" ] || ln -s ../libexec/swift/lib/swift_static "$sysroot/usr/lib/swift_static"
# Absolute symlinks would point into the build machine: make them relative to the sysroot.
find "$sysroot" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
done
[ -d "$sysroot/usr/lib/swift/linux/aarch64" ] || [ -d "$sysroot/usr/libexec/swift/lib/swift/linux/aarch64" ] \
  || die "the arm64 swiftlang package holds no usr/lib/swift/linux/aarch64"
printf '%s' "$want" > "$cache/sysroot.stamp"
say "sysroot: $(du -sh "$sysroot" | cut -f1) in $sysroot (gcc $gcc_version, $(ls "$debs/arm64"/libc6_*_arm64.deb | sed 's/.*libc6_\([^_]*\)_.*/glibc \1/'))"
