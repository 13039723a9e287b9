#!/usr/bin/env bash
# Boots the disk image in QEMU under UEFI (OVMF), serial console on this terminal
# (Ctrl-A X quits). Works on a copy, so the built image stays pristine.
#   image/run-vm.sh [IMAGE] [CARD_SIZE]    CARD_SIZE (e.g. 2G) enlarges the copy like a bigger card
# Software emulation (TCG): /dev/kvm on the build machines cannot run Debian's kernel.
# Environment: VM_COPY=path to keep the copy there (default: a temporary file, removed at exit).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/fail-loudly.sh"   # a failure names its line and command
here="$(cd "$(dirname "$0")" && pwd)"
image="${1:-$here/../.build/image/x86_64/driftbox-x86_64.img}"
card="${2:-}"
[ -f "$image" ] || { echo "run-vm: no image at $image (make image ARCH=x86_64)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
copy="${VM_COPY:-$work/card.img}"
cp --sparse=always "$image" "$copy"
[ -z "$card" ] || truncate -s "$card" "$copy"
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/vars.fd"
qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -cpu max -smp 2 -m 1024 \
  -drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
  -drive if=pflash,format=raw,unit=1,file="$work/vars.fd" \
  -drive if=virtio,format=raw,file="$copy" \
  -nic user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:${VM_HTTP_PORT:-18081}-:80 \
  -nographic -serial mon:stdio "${@:3}"
