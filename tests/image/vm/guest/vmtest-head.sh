#!/bin/sh
# Test-only hook (tests/image/vm/test_vm_boot.py writes it to this run's BOXCONF as
# /config/vmtest.sh; systemd.run= on the copy's kernel command line runs it once).
# The probe first, as its own transient unit (this oneshot must end for multi-user.target,
# and a failing preload below must not silence the probe).
systemd-run --no-block --unit=vmtest-probe /bin/sh /config/vmtest-probe.sh
