#!/usr/bin/env bash
# Creates (or reuses) the amd64 Debian sid chroot that holds Debian's Swift 6.2.3 compiler.
# The compiler needs a newer glibc than the bookworm host has, so it only runs in there.
# Usage: image/arm64/chroot.sh            create if missing or if the package list changed
#        image/arm64/chroot.sh --rebuild  always create anew
source "$(dirname "$0")/common.sh"

# g++ brings libc6-dev, libstdc++ and crt files: SwiftPM compiles the build plugins for the chroot;
# cmake builds the static libmosquitto (static.sh).
chroot_packages=(swiftlang git ca-certificates pkg-config file dpkg-dev g++ cmake make)
want="$suite ${chroot_packages[*]}"
if [ "${1:-}" != --rebuild ] && stamp_ok "$cache/chroot.stamp" "$want" && [ -L "$chroot_dir/usr/bin/swift" ]; then
  say "chroot: reusing $chroot_dir"
  exit 0
fi
say "chroot: mmdebstrap $suite amd64 + ${chroot_packages[*]} → $chroot_dir"
mkdir -p "$cache" "$debs/amd64"
rm -rf "$chroot_dir" "$cache/chroot.stamp"
# --architectures adds arm64 as a foreign architecture: apt in the chroot downloads the sysroot.
run_mmdebstrap --mode="$mmdebstrap_mode" --variant=minbase --architectures=amd64,arm64 \
  --include="$(IFS=,; echo "${chroot_packages[*]}")" \
  "${apt_valid[@]}" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --skip=download/empty --skip=essential/unlink \
  --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
  --setup-hook="sync-in '$debs/amd64' /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives '$debs/amd64'" \
  --customize-hook='echo "Acquire::Check-Valid-Until \"false\";" > "$1/etc/apt/apt.conf.d/99driftbox-valid"' \
  "$suite" "$chroot_dir" "deb $mirror $suite main" 2>&1 \
  | { grep --line-buffered -v -E '^I: (running|downloading|extracting|installing|configuring)' || true; }
[ -L "$chroot_dir/usr/bin/swift" ] || die "mmdebstrap made no chroot with /usr/bin/swift"
printf '%s' "$want" > "$cache/chroot.stamp"
say "chroot: $(in_chroot /bin/sh -c 'swift --version 2>&1 | head -n 1' || true)"
