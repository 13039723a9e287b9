#!/usr/bin/env bash
# Makes (once) the virtualenv with the `meshtastic` package from PyPI that the Meshtastic
# conformance test uses, at .build/python-meshtastic/, and prints its python's path on the
# last line. Concurrent callers wait for one another (flock). Exits non-zero, saying why,
# when the virtualenv is missing and cannot be made (no python3-venv, PyPI unreachable).
#
#   scripts/meshtastic-venv.sh            # make build-tests runs it
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MESHTASTIC_VENV:-$ROOT/.build/python-meshtastic}"
PY="$VENV/bin/python"

ready() { [ -x "$PY" ] && "$PY" -c 'import meshtastic.protobuf.mesh_pb2' 2>/dev/null; }

mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9

if ! ready; then
    echo "meshtastic-venv: creating $VENV (pip install meshtastic)" >&2
    rm -rf "$VENV"
    python3 -m venv "$VENV" >&2
    "$PY" -m pip install --quiet --disable-pip-version-check --timeout 30 meshtastic >&2
    ready || { echo "meshtastic-venv: meshtastic does not import after install" >&2; exit 1; }
fi
echo "$PY"
