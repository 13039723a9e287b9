#!/usr/bin/env bash
# Installs the system packages Drift Box builds and tests against, if missing
# (plus any package named as an argument).
# Safe to run repeatedly: it only calls apt-get when something is absent.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command

packages=(
  pkg-config
  libgpiod-dev gpiod
  libserialport-dev
  libmosquitto-dev mosquitto
  libsqlite3-dev sqlite3
  python3-venv
  brotli            # scripts/embed-page.sh brotli's the visitor page at build time (else a libbrotlienc fallback, or gzip only)
  dnsmasq-base      # `dnsmasq --test` checks the access point's rendered dnsmasq.conf
)
# A script that needs more (scripts/test-under-load.sh: stress-ng) names it as an argument.
packages+=("$@")

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
