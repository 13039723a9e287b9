# The probe runs as its own transient unit: this oneshot must end for multi-user.target.
systemd-run --no-block --unit=vmtest-probe /bin/sh /config/vmtest-probe.sh
echo "vmtest: hook done"
