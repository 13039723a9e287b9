#!/usr/bin/env bash
# Installs the host tools the image build and the image tests need (Debian 12), if missing.
# Safe to run repeatedly: it only calls apt-get when something is absent.
# Usage: image/deps.sh [arm64 [binfmt]]   (or ARCH=arm64): add the aarch64 emulation tools,
#        and with binfmt register qemu-aarch64 with binfmt_misc if it is not yet.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/fail-loudly.sh"   # a failure names its line and command

packages=(
  mmdebstrap            # the Debian root filesystem, without mounting the image
  systemd-container     # systemd-nspawn for the container boot test
  mtools dosfstools     # FAT filesystems (BOOT, BOXCONF) written without mounting
  e2fsprogs             # mkfs.ext4 -d, debugfs
  fdisk                 # sfdisk on the image file
  uidmap                # newuidmap/newgidmap for mmdebstrap --mode=unshare (non-root builds)
  ovmf qemu-system-x86  # UEFI boot of the whole disk image (VM test)
  util-linux            # script, nsenter
  python3
)
# ARCH=arm64 (image/arm64/, docs/arm64.md): qemu-user runs the aarch64 driftd and, through
# binfmt_misc, the arm64 maintainer scripts of the image's root filesystem (mmdebstrap checks with
# arch-test that it can); file(1) checks ELFs; qemu-system-aarch64 boots the Pi image (virt machine).
arm64=0
[ "${ARCH:-}" = arm64 ] || [ "${1:-}" = arm64 ] && arm64=1
[ "$arm64" = 1 ] && packages+=(qemu-user-static arch-test file qemu-system-arm)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "image/deps: installing ${missing[*]}"
  SUDO=
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# binfmt_misc for aarch64 (needed only to build the arm64 image and to boot it under
# systemd-nspawn; `make arm64` and `make arm64-test` call qemu explicitly). Debian's entry
# (/usr/lib/binfmt.d/qemu-aarch64.conf) has the F flag: the kernel keeps the interpreter
# open, so it works inside chroots and containers. A container may not be allowed to do this.
if [ "$arm64" = 1 ] && [ "${2:-}" = binfmt ]; then
  binfmt=/proc/sys/fs/binfmt_misc
  [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
  if [ ! -e "$binfmt/qemu-aarch64" ]; then
    if [ -w "$binfmt/register" ] && cat /usr/lib/binfmt.d/qemu-aarch64.conf > "$binfmt/register" 2>/dev/null; then
      echo "image/deps: registered qemu-aarch64 with binfmt_misc"
    else
      echo "image/deps: cannot register qemu-aarch64 with binfmt_misc ($binfmt not writable here):" \
        "the arm64 image build and its container boot need it (docs/arm64.md)" >&2
      exit 1
    fi
  fi
fi
exit 0
