#!/usr/bin/env bash
# Installs the host tools the image build and the image tests need (Debian 12), if missing.
# Safe to run repeatedly: it only calls apt-get when something is absent.
set -euo pipefail

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

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "image/deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
