#!/usr/bin/env bash
# Checks every systemd unit and drop-in of the image with systemd-analyze verify (syntax,
# directives, sandboxing keys), the sysusers.d and tmpfiles.d files in a scratch root, the
# manager and journald drop-ins' keys, and the overlay's scripts with `sh -n`.
# Units point at /usr/bin/driftd, which exists only on the appliance, so the check runs on
# copies whose ExecStart points at the freshly built binary. Debian's hostapd and dnsmasq
# units are not installed here: their drop-ins are checked on top of stand-ins with the
# same directives Debian's have.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze >/dev/null; then
  echo "check-units: SKIP (systemd-analyze not installed)"
  exit 0
fi
binary="${DRIFTD_BINARY:-$(pwd)/.build/debug/driftd}"
[ -x "$binary" ] || { echo "check-units: build driftd first" >&2; exit 1; }
overlay=image/overlay
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
units="$tmp/units"
mkdir -p "$units"
failed=0
fail() { echo "check-units: $*"; failed=1; }

rewrite() {  # rewrite SRC DST: the appliance's paths → this checkout's
  sed -e "s|/usr/bin/driftd|$binary|g" -e "s|/usr/lib/driftbox/|$(pwd)/$overlay/usr/lib/driftbox/|g" "$1" > "$2"
}
count=0
for unit in systemd/*.service systemd/*.timer systemd/*.path systemd/*.socket systemd/*.mount \
            "$overlay"/etc/systemd/system/*.service "$overlay"/etc/systemd/system/*.mount; do
  [ -f "$unit" ] || continue
  rewrite "$unit" "$units/$(basename "$unit")"
  count=$((count + 1))
done

# Stand-ins for Debian's hostapd.service and dnsmasq.service (bookworm), and their drop-ins.
stubs="$tmp/stubs"
mkdir -p "$stubs"
printf '%s\n' '[Unit]' 'Description=hostapd (stand-in for Debian'"'"'s unit)' 'After=network.target' \
  'ConditionFileNotEmpty=/etc/hostapd/hostapd.conf' '[Service]' 'Type=forking' 'PIDFile=/run/hostapd.pid' \
  'Restart=on-failure' 'RestartSec=2' 'Environment=DAEMON_CONF=/etc/hostapd/hostapd.conf' \
  'EnvironmentFile=-/etc/default/hostapd' 'ExecStart=/bin/true -B -P /run/hostapd.pid $DAEMON_OPTS ${DAEMON_CONF}' \
  '[Install]' 'WantedBy=multi-user.target' > "$units/hostapd.service"
printf '%s\n' '[Unit]' 'Description=dnsmasq (stand-in for Debian'"'"'s unit)' 'Requires=network.target' \
  'After=network.target' '[Service]' 'Type=forking' 'PIDFile=/run/dnsmasq/dnsmasq.pid' \
  'ExecStartPre=/bin/true checkconfig' 'ExecStart=/bin/true exec' 'ExecStartPost=/bin/true start-resolvconf' \
  'ExecStop=/bin/true stop-resolvconf' 'ExecReload=/bin/kill -HUP $MAINPID' '[Install]' 'WantedBy=multi-user.target' \
  > "$units/dnsmasq.service"
dropins=0
for dir in "$overlay"/etc/systemd/system/*.d systemd/*.d; do
  [ -d "$dir" ] || continue
  mkdir -p "$units/$(basename "$dir")"
  for file in "$dir"/*.conf; do
    # Debian's binaries are absent here: point the drop-ins at /bin/true, keeping the arguments.
    sed -e "s|/usr/sbin/hostapd|/bin/true|g" -e "s|/usr/sbin/dnsmasq|/bin/true|g" "$file" > "$units/$(basename "$dir")/$(basename "$file")"
    dropins=$((dropins + 1))
  done
done

# User/group lookups fail on a build machine without the driftd user; everything else must be clean.
output="$(cd "$units" && SYSTEMD_UNIT_PATH="$units:" systemd-analyze verify --man=no "$units"/*.service "$units"/*.mount 2>&1 \
  | grep -v -e "Failed to resolve user" -e "Failed to resolve group" -e "^$" || true)"
[ -z "$output" ] || { echo "$output"; fail "systemd-analyze verify found problems"; }

# The drop-ins must really be applied (a misnamed directory is silently ignored): a bogus key
# added to each must make verify complain about that file.
for dir in "$units"/*.d; do
  [ -d "$dir" ] || continue
  unit="$(basename "$dir" .d)"
  for file in "$dir"/*.conf; do
    cp "$file" "$file.orig"
    printf '[Unit]\nDriftboxProbe=1\n' >> "$file"
    probe="$(cd "$units" && SYSTEMD_UNIT_PATH="$units:" systemd-analyze verify --man=no "$units/$unit" 2>&1 || true)"
    mv "$file.orig" "$file"
    grep -q "DriftboxProbe" <<<"$probe" || fail "drop-in $(basename "$dir")/$(basename "$file") is not applied to $unit"
  done
done

# sysusers.d and tmpfiles.d in a scratch root that starts with Debian's base groups.
root="$tmp/root"
mkdir -p "$root/etc" "$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d"
printf 'root:x:0:\ndialout:x:20:\nsystemd-journal:x:101:\n' > "$root/etc/group"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
: > "$root/etc/shadow"; : > "$root/etc/gshadow"
cp "$overlay"/usr/lib/sysusers.d/*.conf "$root/usr/lib/sysusers.d/"
if ! out="$(systemd-sysusers --root="$root" 2>&1)"; then echo "$out"; fail "systemd-sysusers rejected sysusers.d"; fi
grep -q '^driftd:' "$root/etc/passwd" || fail "sysusers.d made no driftd user"
for group in gpio i2c dialout; do
  grep -Eq "^$group:x:[0-9]+:(.*,)?driftd(,|$)" "$root/etc/group" || fail "driftd is not in group $group"
done
cp "$overlay"/usr/lib/tmpfiles.d/*.conf "$root/usr/lib/tmpfiles.d/"
if ! out="$(systemd-tmpfiles --root="$root" --create 2>&1)"; then echo "$out"; fail "systemd-tmpfiles rejected tmpfiles.d"; fi
[ -d "$root/data/driftd" ] || fail "tmpfiles.d made no /data/driftd"

# Manager and journald drop-ins: only keys those files know (a typo is silently ignored).
check_keys() {  # check_keys FILE SECTION KEY...
  local file="$1" section="$2"; shift 2
  local known=" $* "
  grep -q "^\[$section\]" "$file" || fail "$file: no [$section] section"
  while IFS= read -r line; do
    case "$line" in ''|'#'*|'['*) continue ;; esac
    key="${line%%=*}"
    [[ "$known" == *" $key "* ]] || fail "$file: unknown key $key"
  done < "$file"
}
for file in "$overlay"/etc/systemd/system.conf.d/*.conf; do
  check_keys "$file" Manager RuntimeWatchdogSec RebootWatchdogSec KExecWatchdogSec WatchdogDevice RuntimeWatchdogPreSec
done
for file in "$overlay"/etc/systemd/journald.conf.d/*.conf; do
  check_keys "$file" Journal Storage Compress Seal SplitMode SyncIntervalSec RateLimitIntervalSec RateLimitBurst \
    SystemMaxUse SystemKeepFree SystemMaxFileSize SystemMaxFiles RuntimeMaxUse RuntimeKeepFree RuntimeMaxFileSize \
    RuntimeMaxFiles MaxRetentionSec MaxFileSec ForwardToSyslog ForwardToKMsg ForwardToConsole ForwardToWall \
    MaxLevelStore MaxLevelSyslog MaxLevelKMsg MaxLevelConsole MaxLevelWall ReadKMsg Audit
done

# Preset: every name is a unit we ship or Debian's.
while read -r verb name _; do
  case "$verb" in enable|disable) ;; *) continue ;; esac
  case "$name" in
    *'*'*|*'?'*) fail "preset: $name is a glob (the image enables literal names only)" ;;
    hostapd.service|dnsmasq.service|systemd-networkd.service|systemd-timesyncd.service) ;;
    *) [ -f "systemd/$name" ] || [ -f "$overlay/etc/systemd/system/$name" ] || fail "preset names $name, which we do not ship" ;;
  esac
done < "$overlay/usr/lib/systemd/system-preset/80-driftbox.preset"

# Scripts in the overlay.
for script in "$overlay"/usr/lib/driftbox/*; do
  sh -n "$script" || fail "$script: syntax error"
  [ -x "$script" ] || fail "$script is not executable"
done

# The daemon's sandbox must not regress: systemd-analyze's exposure score (0 = locked down,
# 10 = none) stays at or below 3.0 (2.7 when this was written).
score=""
if security="$(SYSTEMD_UNIT_PATH="$units:" systemd-analyze security --offline=yes "$units/driftd.service" 2>/dev/null)"; then
  score="$(sed -n 's/.*Overall exposure level for driftd.service: \([0-9.]*\).*/\1/p' <<<"$security")"
fi
if [ -n "$score" ]; then
  awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' || fail "driftd.service exposure $score is above 3.0 (systemd-analyze security)"
else
  echo "check-units: systemd-analyze security --offline unavailable; exposure not checked"
fi

[ "$failed" = 0 ] || { echo "check-units: FAIL"; exit 1; }
echo "check-units: OK ($count unit(s), $dropins drop-in(s), sysusers.d, tmpfiles.d, manager/journald drop-ins, preset; driftd.service exposure ${score:-?})"
