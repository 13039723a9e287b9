#!/usr/bin/env bash
# Checks the systemd units with systemd-analyze (syntax, directives, sandboxing keys).
# The unit points at /usr/bin/driftd, which exists only on the appliance, so the check
# runs on a copy whose ExecStart points at the freshly built binary.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze >/dev/null; then
  echo "check-units: SKIP (systemd-analyze not installed)"
  exit 0
fi
binary="$(pwd)/.build/debug/driftd"
[ -x "$binary" ] || { echo "check-units: build driftd first" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for unit in systemd/*.service; do
  sed "s|/usr/bin/driftd|$binary|" "$unit" > "$tmp/$(basename "$unit")"
done
# User/group lookups fail on a build machine without the driftd user; everything else must be clean.
output="$(systemd-analyze verify "$tmp"/*.service 2>&1 | grep -v -e "Failed to resolve user" -e "Failed to resolve group" -e "^$" || true)"
if [ -n "$output" ]; then
  echo "$output"
  echo "check-units: FAIL"
  exit 1
fi
echo "check-units: OK ($(ls systemd/*.service | wc -l) unit(s))"
