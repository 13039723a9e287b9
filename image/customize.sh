#!/usr/bin/env bash
# mmdebstrap customize hook: turns the Debian root filesystem in $1 into the Drift Box root.
# Runs inside mmdebstrap (as root, or as fake root in its user namespace with --mode=unshare),
# so ownership is right in both modes. Environment (exported by image/build.sh):
#   DRIFTBOX_REPO     the repository (image/, systemd/, board/, docs/)
#   DRIFTBOX_DRIFTD_READY   written by image/build.sh when driftd is ready for the image: the
#                           binary's path on its first line (it is built while mmdebstrap runs)
#   DRIFTBOX_DRIFTD_FAILED  written instead when it could not be (the build's log says why)
#   DRIFTBOX_ARCH     x86_64 or arm64 (BOOT at /boot/firmware instead of /boot/efi)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/fail-loudly.sh"   # a failure names its line and command
root="$1"
repo="${DRIFTBOX_REPO:?}"
say() { echo "image/customize: $*"; }

# 1. Our own files: fstab, repart.d definition.
tar -C "$repo/image/rootfs" --owner=0 --group=0 -cf - . | tar -C "$root" -xf - --no-same-owner --keep-directory-symlink

# The Raspberry Pi image (ARCH=arm64) mounts BOOT where Debian's raspi-firmware keeps it.
boot_mount=/boot/efi
if [ "${DRIFTBOX_ARCH:-x86_64}" = arm64 ]; then
  boot_mount=/boot/firmware
  sed -i -E 's|^(LABEL=BOOT +)/boot/efi( +)|\1/boot/firmware\2|; s|^# Drift Box x86_64 image|# Drift Box arm64 (Raspberry Pi) image|' "$root/etc/fstab"
fi

# 2. The units helper's overlay (sysusers.d, tmpfiles.d, udev rules, drop-ins, presets …),
#    copied verbatim: owner root:root, modes kept.
if [ -d "$repo/image/overlay" ]; then
  say "overlay: $(find "$repo/image/overlay" -type f | wc -l) file(s)"
  tar -C "$repo/image/overlay" --owner=0 --group=0 --exclude='.gitkeep' -cf - . \
    | tar -C "$root" -xpf - --keep-directory-symlink
else
  say "overlay: image/overlay/ absent (units branch not merged yet)"
fi

# 3. systemd units of the project → /etc/systemd/system/.
units=()
for unit in "$repo"/systemd/*.service "$repo"/systemd/*.timer "$repo"/systemd/*.path "$repo"/systemd/*.socket; do
  [ -f "$unit" ] || continue
  install -m 0644 "$unit" "$root/etc/systemd/system/$(basename "$unit")"
  units+=("$(basename "$unit")")
done
# Drop-in directories (driftd.service.d/ …), if the units helper adds them.
for dropins in "$repo"/systemd/*.d; do
  [ -d "$dropins" ] || continue
  mkdir -p "$root/etc/systemd/system/$(basename "$dropins")"
  install -m 0644 "$dropins"/* "$root/etc/systemd/system/$(basename "$dropins")/"
done
say "units: ${units[*]}"

# 4. driftd, its board profiles and docs. driftd is built while mmdebstrap runs: wait for it.
ready="${DRIFTBOX_DRIFTD_READY:?}" failed="${DRIFTBOX_DRIFTD_FAILED:?}"
if [ ! -e "$ready" ] && [ ! -e "$failed" ]; then
  say "waiting for the driftd build"
  waited=$SECONDS
  while [ ! -e "$ready" ] && [ ! -e "$failed" ]; do sleep 1; done
  say "driftd ready after $((SECONDS - waited)) s more"
fi
[ -e "$ready" ] || { echo "image/customize: no driftd for the image (its build failed: see above)" >&2; exit 1; }
install -m 0755 "$(head -n 1 "$ready")" "$root/usr/bin/driftd"
install -d -m 0755 "$root/usr/share/driftd/board" "$root/usr/share/doc/driftd"
install -m 0644 "$repo"/board/*.toml "$root/usr/share/driftd/board/"
install -m 0644 "$repo/README.md" "$root/usr/share/doc/driftd/README.md"
install -m 0644 "$repo"/docs/*.md "$root/usr/share/doc/driftd/"
install -m 0644 "$repo/image/config/driftd.toml" "$root/usr/share/driftd/driftd.toml.default"

# 5. A read-only root: mount points, empty machine-id, hostname.
install -d -m 0755 "$root/data" "$root/config" "$root$boot_mount"
install -d -m 0700 "$root/var/lib/private"
: > "$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"
# (trixie's dbus leaves the link to its tmpfiles.d at boot, which the read-only root refuses)
install -d -m 0755 "$root/var/lib/dbus"
ln -s /etc/machine-id "$root/var/lib/dbus/machine-id"
echo driftbox > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tdriftbox\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
ln -sf /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"

# 6. Users: sysusers.d from the overlay (and Debian's), then a fallback driftd user and its
#    groups only if none of those made them (before the units branch is merged).
chroot "$root" systemd-sysusers
fallback=()
grep -q '^gpio:' "$root/etc/group" || fallback+=("g gpio - -")
grep -q '^i2c:' "$root/etc/group" || fallback+=("g i2c - -")
grep -q '^dialout:' "$root/etc/group" || fallback+=("g dialout - -")
if ! grep -q '^driftd:' "$root/etc/passwd"; then
  fallback+=("u driftd - \"Drift Box daemon\" /data/driftd /usr/sbin/nologin")
  fallback+=("m driftd gpio" "m driftd i2c" "m driftd dialout")
fi
if [ ${#fallback[@]} -gt 0 ]; then
  say "fallback sysusers: ${fallback[*]}"
  printf '%s\n' "# Written by image/customize.sh: the overlay's sysusers.d did not create these." "${fallback[@]}" \
    > "$root/usr/lib/sysusers.d/driftbox-image-fallback.conf"
  chroot "$root" systemd-sysusers
fi

# 7. tmpfiles.d of the overlay, for paths on the (read-only) root only: everything under
#    tmpfs or the data partition is created at boot anyway.
for conf in "$root"/usr/lib/tmpfiles.d/driftbox*.conf "$root"/etc/tmpfiles.d/*.conf; do
  [ -f "$conf" ] || continue
  chroot "$root" systemd-tmpfiles --create \
    --exclude-prefix=/dev --exclude-prefix=/proc --exclude-prefix=/sys --exclude-prefix=/run \
    --exclude-prefix=/tmp --exclude-prefix=/var/tmp --exclude-prefix=/var/log \
    --exclude-prefix=/var/lib/systemd --exclude-prefix=/var/lib/private --exclude-prefix=/var/lib/misc \
    --exclude-prefix=/data --exclude-prefix=/config --exclude-prefix=/boot/efi \
    "${conf#"$root"}" || say "WARNING: systemd-tmpfiles $(basename "$conf") failed (skipped)"
done

# 8. Enable units: every unit our preset file names (enable/disable lines, literal names),
#    and the project's units with an [Install] section.
preset="$root/usr/lib/systemd/system-preset/80-driftbox.preset"
if [ -f "$preset" ]; then
  while read -r verb name _; do
    case "$verb" in
      enable|disable)
        case "$name" in *'*'*|*'?'*) say "preset: glob '$name' not applied (name units literally)"; continue ;; esac
        chroot "$root" systemctl "$verb" "$name" 2>&1 | sed 's/^/  /' || say "WARNING: systemctl $verb $name failed" ;;
    esac
  done < <(grep -E '^[[:space:]]*(enable|disable)[[:space:]]' "$preset")
fi
for unit in "${units[@]}"; do
  if grep -q '^\[Install\]' "$root/etc/systemd/system/$unit"; then
    chroot "$root" systemctl enable "$unit" 2>&1 | sed 's/^/  /'
  fi
done
# First boot grows BOXDATA: systemd-repart must run (Debian 12 wires it into sysinit.target;
# this only guards against a systemd package that does not).
if [ ! -e "$root/usr/lib/systemd/system/sysinit.target.wants/systemd-repart.service" ] \
   && [ ! -e "$root/lib/systemd/system/sysinit.target.wants/systemd-repart.service" ]; then
  mkdir -p "$root/etc/systemd/system/sysinit.target.wants"
  ln -sf /lib/systemd/system/systemd-repart.service "$root/etc/systemd/system/sysinit.target.wants/systemd-repart.service"
fi

# 9. Leave no caches or logs in the image (the .debs were synced out to the build cache).
rm -f "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin
rm -rf "$root"/var/log/* "$root"/var/lib/systemd/* "$root"/tmp/* "$root"/var/tmp/*
rm -f "$root/etc/resolv.conf"; : > "$root/etc/resolv.conf"
say "done"
