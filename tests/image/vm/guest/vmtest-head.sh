#!/bin/sh
# Test-only hook (tests/image/vm/test_vm_boot.py writes it to this run's BOXCONF as
# /config/vmtest.sh; systemd.run= on the copy's kernel command line runs it once).
#
# The image brings up no wired network (a box serves its own Wi-Fi access point), so the
# hook gives the VM's NIC QEMU's user-network address; the host reaches the visitor API
# through QEMU's port forward to 10.0.2.15:80.
for n in /sys/class/net/*; do
  i=${n##*/}
  [ "$i" = lo ] && continue
  [ -e "$n/device" ] || continue
  ip link set "$i" up && ip addr add 10.0.2.15/24 dev "$i" && ip route add default via 10.0.2.2 dev "$i" \
    && echo "vmtest: $i is 10.0.2.15/24" && break
done
# The probe, as its own transient unit (this oneshot must end for multi-user.target, and a
# failing preload below must not silence the probe).
systemd-run --no-block --unit=vmtest-probe /bin/sh /config/vmtest-probe.sh
