#!/usr/bin/env bash
# Builds the Drift Box disk image: make image ARCH=x86_64, or ARCH=arm64 BOARD=rpi4b|rpi5|rpi-zero2w
# (Raspberry Pi: docs/arm64.md).
#
# Nothing is mounted and no loop device is used: the root filesystem is a directory made by
# mmdebstrap (--mode=root as uid 0, --mode=unshare otherwise), the filesystems are files made
# with mkfs.ext4 -d and mkfs.vfat + mtools, the partition table is written with sfdisk on the
# image file and the partitions are copied in with dd conv=notrunc. See docs/image.md.
#
# Outputs (.build/image/<arch>/): driftbox-<arch>.img, rootfs/ (booted by the container test),
# parts/ (the four filesystem images), build-info.txt.
# Environment:
#   ARCH               x86_64 or arm64
#   BOARD              arm64 only: rpi4b (default), rpi5, rpi-zero2w — config.txt and the partition
#                      table (GPT for the Pi 4/5 boot EEPROM; MBR for the Zero 2 W's boot ROM)
#   DRIFTBOX_MIRROR    Debian mirror (default http://deb.debian.org/debian)
#   DRIFTBOX_DRIFTD    use this driftd binary instead of building one (development only)
#   DRIFTBOX_STRIP     debug (default: no DWARF, symbols kept), all, or none; the DWARF goes to
#                      .build/image/<arch>/driftd.debug either way
#   DATA_MB            initial size of BOXDATA in MiB (default 128: above storage.min_free_mb = 64
#                      even before it grows on first boot)
#   DRIFTBOX_IMAGE_CACHE  where downloaded .debs are kept (default .build/image/cache; a path
#                      outside the clone lets fresh clones on one machine share it)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/fail-loudly.sh"   # a failure names its line and command
started=$(date +%s)
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
cd "$repo"

arch="${ARCH:-x86_64}"
board=""
# suite: the x86_64 image stays on bookworm; the Pi image is trixie (kernel 6.12 with the Pi 5's
# device trees, raspi-firmware 1.2025): its driftd is fully static, so glibc does not matter.
case "$arch" in
  x86_64) debarch=amd64; suite=bookworm; kernel_pkg=linux-image-amd64; boot_pkgs=(systemd-boot-efi); efi_name=BOOTX64.EFI; sdboot=systemd-bootx64.efi
          runtime_libs=(libgpiod2 libserialport0 libsqlite3-0 libmosquitto1) ;;
  arm64)  debarch=arm64; suite=trixie; kernel_pkg=linux-image-arm64; boot_pkgs=(raspi-firmware)
          board="${BOARD:-rpi4b}"; runtime_libs=()
          case "$board" in rpi4b|rpi5|rpi-zero2w) ;; *) echo "image: BOARD=$board: rpi4b, rpi5 or rpi-zero2w" >&2; exit 2 ;; esac ;;
  *) echo "image: ARCH=$arch: x86_64 or arm64" >&2; exit 2 ;;
esac
mirror="${DRIFTBOX_MIRROR:-http://deb.debian.org/debian}"
security="${DRIFTBOX_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
out="$repo/.build/image/$arch"
cache="${DRIFTBOX_IMAGE_CACHE:-$repo/.build/image/cache}/$debarch"
rootfs="$out/rootfs"
parts="$out/parts"
image="$out/driftbox-$arch${board:+-$board}.img"
say() { printf 'image: %s\n' "$*"; }
step_start=$started
step() { local now; now=$(date +%s); say "[$((now - started)) s] $*"; step_start=$now; }

if [ "$arch" = arm64 ]; then "$here/deps.sh" arm64 binfmt; else "$here/deps.sh"; fi
# Runs driftd on this machine (an aarch64 one through qemu-user, explicitly).
run_driftd() { if [ "$arch" = arm64 ]; then qemu-aarch64-static "$driftd" "$@"; else "$driftd" "$@"; fi; }

# --- Reproducibility: every time and id comes from the commit time. ------------------------
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 1700000000)}"
export SOURCE_DATE_EPOCH
export E2FSPROGS_FAKE_TIME="$SOURCE_DATE_EPOCH"
export TZ=UTC LC_ALL=C.UTF-8 MTOOLS_SKIP_CHECK=1
# A stable UUID (version 4 layout) / 32-bit FAT volume id for one name.
uuid_for() { local h; h=$(printf 'driftbox/%s/%s/%s' "$SOURCE_DATE_EPOCH" "$arch" "$1" | sha256sum | cut -c1-32)
  printf '%s-%s-4%s-a%s-%s\n' "${h:0:8}" "${h:8:4}" "${h:13:3}" "${h:17:3}" "${h:20:12}"; }
volid_for() { printf 'driftbox/%s/%s/%s' "$SOURCE_DATE_EPOCH" "$arch" "$1" | sha256sum | cut -c1-8; }

# --- 1. driftd, release, Swift runtime linked statically. -----------------------------------
# Built while mmdebstrap makes the root filesystem (step 2): the build is CPU, mmdebstrap mostly
# downloads and unpacks. prepare_driftd writes $ready (the binary to install, then its version)
# when driftd is ready for the image, or $failed; the customize hook waits for one of them
# before it installs driftd, and this script waits for the job when mmdebstrap is done.
ready="$out/driftd.ready" failed="$out/driftd.failed"
strip_mode="${DRIFTBOX_STRIP:-debug}"   # below
prepare_driftd() {
  if [ -n "${DRIFTBOX_DRIFTD:-}" ]; then
    driftd="$DRIFTBOX_DRIFTD"
    say "driftd: using $driftd (DRIFTBOX_DRIFTD)"
  elif [ "$arch" = arm64 ]; then
    step "building driftd (aarch64 cross build, fully static: image/arm64/build.sh)"
    "$here/arm64/build.sh" | tail -n 3
    driftd="${DRIFTBOX_ARM64_CACHE:-$repo/.build-arm64}/bin/driftd"
  else
    step "building driftd (release, --static-swift-stdlib: scripts/build-release.sh)"
    "$repo/scripts/install-deps.sh"
    driftd="$("$repo/scripts/build-release.sh" 2>"$out/driftd-build.log")" \
      || { tail -n 30 "$out/driftd-build.log" >&2; echo "image: the driftd build failed (log: $out/driftd-build.log)" >&2; exit 1; }
    tail -n 3 "$out/driftd-build.log"
  fi
  [ -x "$driftd" ] || { echo "image: no driftd binary at $driftd" >&2; exit 1; }
  if [ "$arch" = arm64 ]; then
    file -b "$driftd" | grep -q 'ARM aarch64' || { echo "image: $driftd is not an aarch64 binary" >&2; exit 1; }
    file -b "$driftd" | grep -q -E 'statically linked|static-pie' \
      || { echo "image: $driftd is not statically linked (the Pi image carries no Swift runtime)" >&2; exit 1; }
  fi
  foreign=""
  [ "$arch" = arm64 ] || foreign=$(ldd "$driftd" | awk '/=>/ {print $3}' | grep -v -E '^/(usr/)?lib/' || true)
  if [ -n "$foreign" ]; then
    echo "image: driftd links libraries that are not Debian's:" >&2; echo "$foreign" >&2
    [ -n "${DRIFTBOX_DRIFTD:-}" ] || exit 1
    say "WARNING: continuing with a development binary (DRIFTBOX_DRIFTD); the image will not run it"
  fi
  version="$(run_driftd version 2>/dev/null | head -n 1 || echo unknown)"
  say "driftd: $version; needs $( [ "$arch" = arm64 ] && echo "nothing (static)" || ldd "$driftd" | awk '/=>/ {print $1}' | tr '\n' ' ')"

  # The image's driftd is stripped (DRIFTBOX_STRIP, default debug): "debug" drops the DWARF and keeps
  # the symbol table, so a crash's backtrace in the journal still names its functions; "all" drops
  # the symbols too; "none" installs the binary as built. The DWARF (and symbols) are kept beside
  # the image as driftd.debug, linked by .gnu_debuglink and the build id: gdb/lldb on a copy of the
  # box's binary find it there. Sizes: docs/image.md.
  case "$strip_mode" in
    none) ;;
    debug|all)
      command -v llvm-objcopy >/dev/null || { echo "image: no llvm-objcopy (the Swift toolchain's, or Debian's llvm)" >&2; exit 1; }
      rm -f "$out/driftd" "$out/driftd.debug"
      llvm-objcopy --only-keep-debug "$driftd" "$out/driftd.debug"
      llvm-objcopy "--strip-$strip_mode" --add-gnu-debuglink="$out/driftd.debug" "$driftd" "$out/driftd"
      say "driftd stripped ($strip_mode): $(stat -c %s "$driftd") → $(stat -c %s "$out/driftd") bytes; debug info in $out/driftd.debug"
      driftd="$out/driftd" ;;
    *) echo "image: DRIFTBOX_STRIP=$strip_mode: debug, all or none" >&2; exit 2 ;;
  esac
  printf '%s\n%s\n' "$driftd" "$version" > "$ready.tmp"
  mv "$ready.tmp" "$ready"
}
mkdir -p "$out"
rm -f "$ready" "$ready.tmp" "$failed"
{ trap '[ -e "$ready" ] || touch "$failed"' EXIT; prepare_driftd; } &
driftd_job=$!
# A failure elsewhere does not leave the build running (its compilers are the job's descendants).
stop_tree() { local child; for child in $(pgrep -P "$1" || true); do stop_tree "$child"; done; kill "$1" 2>/dev/null || true; }
trap 'stop_tree "$driftd_job"' EXIT

# --- 2. The Debian root filesystem (downloaded .debs cached in .build/image/cache). ---------
step "mmdebstrap $suite $debarch → $rootfs"
packages=(
  systemd systemd-sysv udev dbus kmod iproute2 procps less
  "$kernel_pkg" initramfs-tools "${boot_pkgs[@]}" e2fsprogs
  hostapd dnsmasq i2c-tools gpiod "${runtime_libs[@]}" ca-certificates
  systemd-timesyncd
)
components=main
[ "$arch" = arm64 ] && components="main non-free-firmware"
mode=root
[ "$(id -u)" -eq 0 ] || mode=unshare
mkdir -p "$cache"
rm -rf "$rootfs"
export DRIFTBOX_REPO="$repo" DRIFTBOX_DRIFTD_READY="$ready" DRIFTBOX_DRIFTD_FAILED="$failed" DRIFTBOX_ARCH="$arch" DRIFTBOX_BOARD="$board"
mmdebstrap --mode="$mode" --variant=minbase --arch="$debarch" \
  --include="$(IFS=,; echo "${packages[*]}")" \
  --aptopt='Acquire::Retries "3"' \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --skip=download/empty --skip=essential/unlink \
  --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
  --setup-hook="sync-in '$cache' /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives '$cache'" \
  --customize-hook="'$here/customize.sh' \"\$1\"" \
  "$suite" "$rootfs" \
  "deb $mirror $suite $components" \
  "deb $mirror $suite-updates $components" \
  "deb $security $suite-security $components" 2>&1 \
  | { grep --line-buffered -v -E '^I: (running|running special hook|downloading|extracting|installing|configuring)' || true; }
[ -d "$rootfs/usr/bin" ] || { echo "image: mmdebstrap made no root filesystem" >&2; exit 1; }
wait "$driftd_job" || { echo "image: driftd is not ready for the image (above)" >&2; exit 1; }
{ read -r driftd; read -r version; } < "$ready"

kernel=$(ls "$rootfs"/boot/vmlinuz-* | sort -V | tail -n 1)
initrd="$rootfs/boot/initrd.img-${kernel##*/vmlinuz-}"
[ -f "$initrd" ] || { echo "image: no initrd for $kernel" >&2; exit 1; }
if [ "$arch" = x86_64 ]; then
  efi="$rootfs/usr/lib/systemd/boot/efi/$sdboot"
  [ -f "$efi" ] || { echo "image: $efi missing (systemd-boot-efi)" >&2; exit 1; }
fi
driftd_uid=$(awk -F: '$1 == "driftd" {print $3}' "$rootfs/etc/passwd")
driftd_gid=$(awk -F: '$1 == "driftd" {print $4}' "$rootfs/etc/passwd")
[ -n "$driftd_uid" ] || { echo "image: no driftd user in the root filesystem" >&2; exit 1; }

# --- 3. Filesystems, each a file. ------------------------------------------------------------
rm -rf "$parts"; mkdir -p "$parts"
staging="$out/staging"; rm -rf "$staging"; mkdir -p "$staging"
# Sets atime, mtime and ctime of every inode to SOURCE_DATE_EPOCH (mke2fs -d copies the
# source's times, ctime included, which no touch can set).
ext4_clamp_times() { local fs="$1" src="$2" list="$staging/debugfs-$(basename "$1").cmd"
  (cd "$src" && find . -print0) | LC_ALL=C sort -z | while IFS= read -r -d '' path; do
    path="${path#.}"; [ -n "$path" ] || path=/
    for field in atime mtime ctime; do printf 'sif "%s" %s @%s\n' "$path" "$field" "$SOURCE_DATE_EPOCH"; done
  done > "$list"
  debugfs -w -f "$list" "$fs" >/dev/null 2>"$staging/debugfs.err" || { cat "$staging/debugfs.err" >&2; return 1; }
  if grep -v '^debugfs ' "$staging/debugfs.err" | grep -q .; then
    echo "image: debugfs complained:" >&2; head "$staging/debugfs.err" >&2; return 1; fi
}
make_ext4() { local name="$1" src="$2" mib="$3" fs="$parts/$1.ext4"
  mkfs.ext4 -q -F -t ext4 -L "$name" -U "$(uuid_for "fs-$name")" -b 4096 -I 256 \
    -E "hash_seed=$(uuid_for "hash-$name"),root_owner=0:0,lazy_itable_init=0,lazy_journal_init=0" \
    -d "$src" "$fs" "${mib}M"
  ext4_clamp_times "$fs" "$src"
  e2fsck -fn "$fs" >/dev/null || { echo "image: e2fsck finds $name inconsistent" >&2; exit 1; }
}
# A FAT filesystem from the files of a directory (mtools, times from SOURCE_DATE_EPOCH).
make_vfat() { local name="$1" src="$2" mib="$3" fat="$4" fs="$parts/$1.vfat"
  rm -f "$fs"
  mkfs.vfat -C -F "$fat" -n "$name" --invariant -i "$(volid_for "vol-$name")" "$fs" $((mib * 1024)) >/dev/null
  find "$src" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  (cd "$src" && find . -mindepth 1 -type d | LC_ALL=C sort) | while read -r dir; do mmd -i "$fs" "::/${dir#./}"; done
  (cd "$src" && find . -type f | LC_ALL=C sort) | while read -r file; do mcopy -i "$fs" -m -o "$src/${file#./}" "::/${file#./}"; done
}
mib_of() { du -s --block-size=1M --apparent-size "$@" | awk '{s += $1} END {print s}'; }

boot="$staging/boot"
if [ "$arch" = x86_64 ]; then
  step "BOOT: systemd-boot, kernel ${kernel##*/vmlinuz-}, initrd"
  mkdir -p "$boot/EFI/BOOT" "$boot/loader/entries"
  cp "$efi" "$boot/EFI/BOOT/$efi_name"
  cp "$kernel" "$boot/vmlinuz"; cp "$initrd" "$boot/initrd.img"
  cp "$here/boot/loader.conf" "$boot/loader/loader.conf"
  sed "s|@VERSION@|${version//|/}|" "$here/boot/driftbox.conf.in" > "$boot/loader/entries/driftbox.conf"
else
  step "BOOT: Raspberry Pi firmware, kernel ${kernel##*/vmlinuz-}, initrd, device trees ($board)"
  "$here/rpi/boot.sh" "$rootfs" "$kernel" "$initrd" "$board" "$version" "$boot"
fi
# The initrd lives on BOOT only (the read-only root could not update it anyway).
rm -f "$rootfs"/boot/initrd.img-*
boot_mib=$(( $(mib_of "$boot") * 5 / 4 + 16 )); [ "$boot_mib" -ge 64 ] || boot_mib=64
make_vfat BOOT "$boot" "$boot_mib" 32

step "root: ext4 from $rootfs"
root_mib=$(( $(mib_of "$rootfs") * 5 / 4 + 64 ))
make_ext4 root "$rootfs" "$root_mib"

step "BOXCONF: driftd.toml, README.txt"
conf="$staging/conf"; mkdir -p "$conf"
cp "$here/config/driftd.toml" "$here/config/README.txt" "$conf/"
conf_check="$staging/conf-check"; mkdir -p "$conf_check"
cp "$here/config/driftd.toml" "$conf_check/"; cp -r "$repo/board" "$conf_check/board"
run_driftd config check "$conf_check/driftd.toml" >/dev/null || { run_driftd config check "$conf_check/driftd.toml" >&2; echo "image: the default driftd.toml is invalid" >&2; exit 1; }
conf_mib=32
make_vfat BOXCONF "$conf" "$conf_mib" 16

step "BOXDATA: /data/driftd owned by driftd ($driftd_uid:$driftd_gid)"
data="$staging/data"; mkdir -p "$data/driftd"
chown "$driftd_uid:$driftd_gid" "$data/driftd"; chmod 0750 "$data/driftd"
data_mib="${DATA_MB:-128}"
make_ext4 BOXDATA "$data" "$data_mib"

# --- 4. The disk: GPT (MBR for the Pi Zero 2 W), 1 MiB aligned, BOOT first, BOXDATA last. ---
# The Pi Zero 2 W's boot ROM reads only an MBR; the Pi 4/5 boot EEPROM reads GPT too.
# systemd-repart (BOXDATA growth on first boot) works on GPT only: docs/arm64.md.
step "disk image: sfdisk + dd"
start=1
root_type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709              # Linux root (x86-64)
[ "$arch" = arm64 ] && root_type=B921B045-1DF0-41C3-AF44-4C6F280D3FAE   # Linux root (ARM64)
label=gpt
[ "$board" = rpi-zero2w ] && label=dos
if [ "$label" = gpt ]; then
  table="label: gpt
label-id: $(uuid_for disk)
unit: sectors
first-lba: 2048
sector-size: 512
"
  layout=(
    "BOOT:$boot_mib:C12A7328-F81F-11D2-BA4B-00A0C93EC93B:$parts/BOOT.vfat"
    "root:$root_mib:$root_type:$parts/root.ext4"
    "BOXCONF:$conf_mib:EBD0A0A2-B9E5-4433-87C0-68B6B72699C7:$parts/BOXCONF.vfat"
    "BOXDATA:$data_mib:0FC63DAF-8483-4772-8E79-3D69D8477DE4:$parts/BOXDATA.ext4"
  )
else
  table="label: dos
label-id: 0x$(volid_for disk)
unit: sectors
sector-size: 512
"
  layout=("BOOT:$boot_mib:c:$parts/BOOT.vfat" "root:$root_mib:83:$parts/root.ext4"
          "BOXCONF:$conf_mib:c:$parts/BOXCONF.vfat" "BOXDATA:$data_mib:83:$parts/BOXDATA.ext4")
fi
for entry in "${layout[@]}"; do
  IFS=: read -r name mib type _ <<<"$entry"
  if [ "$label" = gpt ]; then
    table+="start=$((start * 2048)), size=$((mib * 2048)), type=$type, uuid=$(uuid_for "part-$name"), name=\"$name\"
"
  else
    table+="start=$((start * 2048)), size=$((mib * 2048)), type=$type$([ "$name" != BOOT ] || echo ', bootable')
"
  fi
  start=$((start + mib))
done
total_mib=$((start + 1))   # 1 MiB for the backup GPT at the end
rm -f "$image"
truncate -s "${total_mib}M" "$image"
printf '%s' "$table" | sfdisk --quiet --no-reread --no-tell-kernel "$image" >/dev/null
start=1
for entry in "${layout[@]}"; do
  IFS=: read -r name mib _ file <<<"$entry"
  dd if="$file" of="$image" bs=1M seek="$start" conv=notrunc,sparse status=none
  start=$((start + mib))
done
touch -d "@$SOURCE_DATE_EPOCH" "$image"
rm -rf "$staging"

# --- 5. What was built. ---------------------------------------------------------------------
elapsed=$(( $(date +%s) - started ))
ext4_free() { dumpe2fs -h "$1" 2>/dev/null | awk -F: '/^Free blocks/ {f=$2} /^Block size/ {b=$2} END {printf "%.0f MiB free", f*b/1048576}'; }
vfat_free() { mdir -i "$1" ::/ 2>/dev/null | awk '/bytes free/ {gsub(/[^0-9]/, ""); printf "%.1f MiB free", $0/1048576}'; }
{
  echo "image:     $image"
  echo "size:      $(stat -c %s "$image") bytes ($total_mib MiB; $(du -h "$image" | cut -f1) on disk, sparse)"
  echo "sha256:    $(sha256sum "$image" | cut -d' ' -f1)"
  echo "build:     $elapsed s (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH, $(date -u -d "@$SOURCE_DATE_EPOCH" +%FT%TZ))"
  echo "debian:    $suite $debarch${board:+, board $board}, $(dpkg-query --admindir="$rootfs/var/lib/dpkg" -W | wc -l) packages, kernel ${kernel##*/vmlinuz-}"
  echo "driftd:    $version (uid $driftd_uid), $(stat -c %s "$driftd") bytes (strip: $strip_mode)"
  echo "partitions:"
  echo "  1 BOOT     vfat  $boot_mib MiB, $(vfat_free "$parts/BOOT.vfat")"
  echo "  2 root     ext4  $root_mib MiB, $(ext4_free "$parts/root.ext4") (read-only)"
  echo "  3 BOXCONF  vfat  $conf_mib MiB, $(vfat_free "$parts/BOXCONF.vfat")"
  echo "  4 BOXDATA  ext4  $data_mib MiB, $(ext4_free "$parts/BOXDATA.ext4") (grows to fill the card on first boot)"
  echo "rootfs:    $rootfs (for the container test)"
  echo
  sfdisk -l "$image"
} | tee "$out/build-info.txt"
