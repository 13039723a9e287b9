#!/bin/sh
# Test-only (copied to BOXCONF by tests/image/vm/test_vm_boot.py, never part of the product image):
# reports what the host cannot see through the visitor API, as "VMTEST <key> <value>" lines on
# the serial console, every few seconds for a few minutes. Read-only: it changes nothing.
# Each line opens the console anew: the serial getty's vhangup() revokes descriptors that
# were open on ttyS0 before it started.
exec 2>/dev/null
say() { printf 'VMTEST %s\n' "$*" >/dev/ttyS0; }
say boot "$(cat /proc/sys/kernel/random/boot_id)"
selftest_done=no
i=0
while [ $i -lt 120 ]; do
  i=$((i + 1))
  for m in / /config /data; do
    say mount "$(findmnt -n -r -o TARGET,SOURCE,LABEL,FSTYPE,OPTIONS --mountpoint $m 2>/dev/null || echo "$m - - - -")"
  done
  say datapart "$(lsblk -b -n -d -o SIZE /dev/disk/by-label/BOXDATA 2>/dev/null || echo -)"
  say datafs "$(df -B1 --output=size /data 2>/dev/null | tail -n 1 | tr -d ' ')"
  say repart "$(systemctl is-active systemd-repart.service 2>/dev/null)"
  say power "$(systemctl is-active driftbox-power.service 2>/dev/null) $(journalctl -b -u driftbox-power.service -o cat 2>/dev/null | grep -m1 'power-profile:' | tr -d '\n')"
  active=$(systemctl is-active driftd.service 2>/dev/null)
  say driftd "$active $(systemctl show -p NRestarts --value driftd.service 2>/dev/null) $(systemctl show -p StatusText --value driftd.service 2>/dev/null)"
  if [ "$active" = active ]; then
    say status "$(driftd status --data-dir /data/driftd --json 2>&1 | tr -d '\n')"
    if [ $selftest_done = no ] && [ $i -gt 3 ] && [ -f /config/vmtest-selftest ]; then
      # With the daemon running some checks find their devices busy; the store and the
      # BME280 (SMBus transfers are atomic) are checked all the same. Only when the test
      # asks (second boot): a second process on the store is not part of the power-cut test.
      driftd selftest --config /config/driftd.toml --data-dir /data/driftd 2>&1 \
        | grep -E 'storage.database|bme280|radio' | while read -r line; do say selftest "$line"; done
      selftest_done=yes
    fi
  fi
  if [ -f /config/vmtest-markers ]; then
    # Diagnosis only (VMTEST_MARKERS=1): a file written and fsync'd each round; the next boot
    # lists which survived the power cut.
    [ $i -eq 1 ] && say markers-found "$(ls /data/vmtest-marker-* 2>/dev/null | tr '\n' ' ')"
    dd if=/dev/zero of=/data/vmtest-marker-$(cut -c1-8 /proc/sys/kernel/random/boot_id)-$i bs=4096 count=1 conv=fsync 2>/dev/null \
      && say marker-written "$i"
    say datadir "$(ls -l --time-style=+%T /data/driftd | tr -s ' ' | tr '\n' ';')"
    pid=$(systemctl show -p MainPID --value driftd.service)
    say wal-host "$(stat -c '%s %y' /data/driftd/drift.sqlite-wal)"
    say wal-ns "$(nsenter -t "$pid" -m -- stat -c '%s %y' /data/driftd/drift.sqlite-wal)"
    say mnt-ns "$(grep -E ' /data ' /proc/$pid/mountinfo | tr '\n' ';')"
    say mnt-host "$(grep -E ' /data ' /proc/1/mountinfo | tr '\n' ';')"
    say dirty "$(grep -E 'Dirty|Writeback:' /proc/meminfo | tr -s ' ' | tr '\n' ';')"
  fi
  sleep 5
done
say probe-done
