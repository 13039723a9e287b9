#!/usr/bin/env bash
# The Raspberry Pi boot partition's contents (called by image/build.sh for ARCH=arm64):
#   boot.sh ROOTFS KERNEL INITRD BOARD VERSION OUT
# From Debian's packages in ROOTFS: raspi-firmware (bootcode.bin, start*.elf, fixup*.dat,
# overlays/) and linux-image-arm64 (the kernel, its initrd, the upstream bcm27xx device
# trees bcm2*.dtb). Writes config.txt (per BOARD: rpi4b, rpi5, rpi-zero2w) and cmdline.txt
# (root by label). The firmware picks the device tree by SoC and model; with
# upstream_kernel=1 it uses the mainline names (bcm2711-rpi-4-b.dtb, bcm2712-rpi-5-b.dtb,
# bcm2837-rpi-zero-2-w.dtb). docs/arm64.md.
set -euo pipefail
rootfs="$1" kernel="$2" initrd="$3" board="$4" version="$5" out="$6"
here="$(cd "$(dirname "$0")" && pwd)"
kver="${kernel##*/vmlinuz-}"
firmware="$rootfs/usr/lib/raspi-firmware"
dtbs="$rootfs/usr/lib/linux-image-$kver/broadcom"
[ -f "$firmware/start4.elf" ] || { echo "image/rpi: no $firmware/start4.elf (raspi-firmware)" >&2; exit 1; }
[ -d "$dtbs" ] || { echo "image/rpi: no device trees in $dtbs (linux-image-arm64)" >&2; exit 1; }
mkdir -p "$out"
cp -r "$firmware"/. "$out/"
cp "$dtbs"/bcm2*.dtb "$out/"
cp "$kernel" "$out/vmlinuz"
cp "$initrd" "$out/initrd.img"
case "$board" in
  rpi4b) dtb=bcm2711-rpi-4-b.dtb ;;
  rpi5) dtb=bcm2712-rpi-5-b.dtb ;;
  rpi-zero2w) dtb=bcm2837-rpi-zero-2-w.dtb ;;
esac
[ -f "$out/$dtb" ] || { echo "image/rpi: the kernel $kver has no $dtb for $board" >&2; exit 1; }
{
  echo "# Drift Box $version, board $board: written by image/rpi/boot.sh (docs/arm64.md)."
  echo "# The GPIO/UART/I2C choices follow board/$board.toml."
  cat "$here/config-common.txt"
  echo
  cat "$here/config-$board.txt"
} > "$out/config.txt"
sed "s|@VERSION@|${version//|/}|" "$here/cmdline.txt.in" | tr -s ' ' > "$out/cmdline.txt"
# raspi-firmware's kernel hook filled the root's /boot/firmware during the install: BOOT is
# mounted there on the box, so the root filesystem keeps only the empty mount point.
find "$rootfs/boot/firmware" -mindepth 1 -delete 2>/dev/null || true
