#!/usr/bin/env bash
# Fuzzes the visitor API against its contract, api/openapi.json, with schemathesis (PyPI):
# a fresh debug `driftd run` on the simulated board (free loopback port, throwaway data
# directory), a device token minted for it, then every documented operation with generated
# and boundary inputs and every schemathesis check (server errors, undocumented statuses,
# content types, headers, response schemas, …).
#
#   scripts/api-fuzz.sh                      # after `swift build --product driftd`
#   DRIFTD=/path/to/driftd API_FUZZ_EXAMPLES=100 scripts/api-fuzz.sh --seed 7   # extra args go to schemathesis
#
# Exits non-zero on any failed check (a 5xx, a status the document does not list, a body
# or header unlike the document, a wrong answer to an undeclared method, …). Two checks are
# left out because the API's contract is not what they assume:
#   positive_data_acceptance      wants 2xx for anything the JSON Schema allows, but the
#                                 rules go further than JSON Schema can say (media checked by
#                                 content, BCP 47 tags, text that shows nothing, cursors,
#                                 integers past 64 bits), and a WebSocket route asked for
#                                 over plain HTTP answers 426 by design;
#   ensure_resource_availability  expects every GET "linked" to a created bottle to find
#                                 something, but a new bottle has no image or whisper (404).
# Its "schema validation mismatch" warning (generated data mostly refused) is expected for
# the two WebSocket routes (426 to plain HTTP), for bottle drafts and edits (the box's own
# limits — longest lifetime, most conditions, hint length — are its configuration's, and text
# rules such as "nothing but spaces" are beyond JSON Schema) and for chat lines (BCP 47
# grammar, same text rules); the document states every fixed range it can, so what it calls
# invalid is refused (the check that fails on that, negative_data_rejection, is on).
# The filter_too_much health check is suppressed: schemathesis cannot make enough wrong
# bodies for a binary upload with six media types (a generator limit, not the API's).
# Reports land in .build/artifacts/api-fuzz/ (JUnit, and driftd's log).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ARTIFACTS="$ROOT/.build/artifacts/api-fuzz"
VENV="$ROOT/.build/api-fuzz-venv"
SCHEMATHESIS_VERSION="4.32.5"
EXAMPLES="${API_FUZZ_EXAMPLES:-25}"

log() { printf 'api-fuzz: %s\n' "$*" >&2; }

# 1. A venv with schemathesis, pinned (rebuilt when the pin changes).
if [ ! -x "$VENV/bin/schemathesis" ] || [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
    log "creating $VENV (schemathesis $SCHEMATHESIS_VERSION)"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
PY="$VENV/bin/python"
# DRIFTBOX_VENV_ONLY=1: only the venv (.ci/run makes it while the build runs).
[ "${DRIFTBOX_VENV_ONLY:-}" = 1 ] && exit 0

# 2. driftd on a free port with a throwaway data directory.
DRIFTD="${DRIFTD:-$(swift build --show-bin-path)/driftd}"
if [ ! -x "$DRIFTD" ]; then
    log "no driftd at $DRIFTD; build it first: swift build --product driftd"
    exit 1
fi
free_tcp() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
free_udp() { "$PY" -c 'import socket; s = socket.socket(type=socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT="$(free_tcp)"
RADIO_PORT="$(free_udp)"
DATA="$(mktemp -d "${TMPDIR:-/tmp}/driftd-api-fuzz.XXXXXX")"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS" "$DATA/data" "$DATA/work"
LOG="$ARTIFACTS/driftd.log"
CONFIG="$DATA/api-fuzz.toml"
cat >"$CONFIG" <<TOML
[box]
board = "sim"
board_dir = "$ROOT/board"
name = "Drift Box (API fuzz)"

[http]
limit_per_client = false   # every request comes from 127.0.0.1

[sim]
radio_udp_port = $RADIO_PORT
radio_peers = []
TOML

"$DRIFTD" run --config "$CONFIG" --data-dir "$DATA/data" --listen "127.0.0.1:$PORT" >"$LOG" 2>&1 &
DRIFTD_PID=$!
FUZZ_PID=
cleanup() {
    if [ -n "$FUZZ_PID" ] && kill -0 "$FUZZ_PID" 2>/dev/null; then
        kill -TERM "$FUZZ_PID" 2>/dev/null || true
        wait "$FUZZ_PID" 2>/dev/null || true
    fi
    if kill -0 "$DRIFTD_PID" 2>/dev/null; then
        kill -TERM "$DRIFTD_PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$DRIFTD_PID" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$DRIFTD_PID" 2>/dev/null && { log "driftd ignored SIGTERM for 10 s; killing it"; kill -KILL "$DRIFTD_PID" 2>/dev/null || true; }
        wait "$DRIFTD_PID" 2>/dev/null || true
    fi
    rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

BASE="http://127.0.0.1:$PORT"
# 3. Wait for the server, then mint a device token.
TOKEN="$("$PY" - "$BASE" <<'PY'
import json, sys, time, urllib.request
base = sys.argv[1]
deadline = time.time() + 60
while True:
    try:
        urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=2).read()
        break
    except Exception:
        if time.time() > deadline:
            sys.exit("driftd did not answer within 60 s")
        time.sleep(0.2)
request = urllib.request.Request(base + "/api/v1/visitors", method="POST")
print(json.load(urllib.request.urlopen(request, timeout=10))["token"])
PY
)" || { log "driftd did not come up; its log: $LOG"; tail -20 "$LOG" >&2; exit 1; }

# 4. Test data, so the operations on one bottle reach its logic instead of answering 404:
#    a bottle with an image, a whisper and a chat line with an image attached (every {id}
#    operation but DELETE, and {message}; the media are the repository's test fixtures) and a
#    second bottle for DELETE /api/v1/bottles/{id} to remove. The fuzzer then edits, locks,
#    opens and empties them as it likes; a 404 after that is one answer among others.
SCHEMATHESIS_CONFIG="$DATA/schemathesis.toml"
"$PY" - "$BASE" "$TOKEN" "$ROOT/Tests/DriftMediaTests/Fixtures" >"$SCHEMATHESIS_CONFIG" <<'PY' || { log "could not create the test data; driftd's log: $LOG"; tail -20 "$LOG" >&2; exit 1; }
import json, sys, urllib.request
base, token, fixtures = sys.argv[1], sys.argv[2], sys.argv[3]
def call(method, path, body=None, media=None):
    kind, data = "application/json", None if body is None else json.dumps(body).encode()
    if media is not None:
        kind, name = media
        data = open(f"{fixtures}/{name}", "rb").read()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Authorization": "Bearer " + token, "Content-Type": kind})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply) if reply.status != 204 else None
kept = call("POST", "/api/v1/bottles", {"text": "A bottle for the API fuzz", "hint": "open me"})["id"]
doomed = call("POST", "/api/v1/bottles", {"text": "A bottle for the fuzzer to delete"})["id"]
call("PUT", f"/api/v1/bottles/{kept}/image", media=("image/png", "image-97x61.png"))
call("PUT", f"/api/v1/bottles/{kept}/whisper", media=("audio/webm", "whisper-3s.webm"))
call("POST", f"/api/v1/bottles/{kept}/open", {})
staged = call("POST", f"/api/v1/bottles/{kept}/attachments", media=("image/png", "image-97x61.png"))["attachment"]
line = call("POST", f"/api/v1/bottles/{kept}/messages", {"text": "hello from the fuzz", "language": "en", "attachment": staged})["id"]
# Every documented operation on one bottle, from the document itself (new routes join by
# themselves): all but the one that deletes it and the one that also needs a {message}.
paths = call("GET", "/api/v1/openapi.json")["paths"]
on_kept = [f"{method.upper()} {path}" for path, operations in paths.items()
           if path.startswith("/api/v1/bottles/{id}") and "{message}" not in path
           for method in operations if method in ("get", "put", "post", "patch", "delete")
           and (method, path) != ("delete", "/api/v1/bottles/{id}")]
print("[[operations]]")
print("include-name = " + json.dumps(on_kept))
print("parameters = { \"path.id\" = " + json.dumps(kept) + " }")
print()
print("[[operations]]")
print("include-name = \"GET /api/v1/bottles/{id}/messages/{message}/attachment\"")
print("parameters = { \"path.id\" = " + json.dumps(kept) + ", \"path.message\" = " + json.dumps(line) + " }")
print()
print("[[operations]]")
print("include-name = \"DELETE /api/v1/bottles/{id}\"")
print("parameters = { \"path.id\" = " + json.dumps(doomed) + " }")
PY
cp "$SCHEMATHESIS_CONFIG" "$ARTIFACTS/schemathesis.toml"

# 5. Fuzz. Run from a scratch directory so nothing lands in the repository.
log "fuzzing $BASE ($EXAMPLES examples per operation)"
started=$(date +%s)
status=0
# In the background and waited for, so a signal to this script stops it at once (the traps
# run during `wait`, not only after a foreground command ends).
(cd "$DATA/work" && exec "$VENV/bin/schemathesis" --config-file "$SCHEMATHESIS_CONFIG" run "$BASE/api/v1/openapi.json" --url "$BASE" \
    --checks all --exclude-checks positive_data_acceptance,ensure_resource_availability \
    --suppress-health-check filter_too_much \
    --max-examples "$EXAMPLES" --header "Authorization: Bearer $TOKEN" \
    --generation-database none --no-color \
    --report junit --report-junit-path "$ARTIFACTS/junit.xml" "$@") &
FUZZ_PID=$!
wait "$FUZZ_PID" || status=$?
FUZZ_PID=
log "schemathesis finished in $(( $(date +%s) - started )) s with status $status"
if grep -qE "Fatal|panic|Fatal error" "$LOG"; then
    log "driftd logged a crash; see $LOG"
    status=1
fi
if ! kill -0 "$DRIFTD_PID" 2>/dev/null; then
    log "driftd is gone; see $LOG"
    status=1
fi
exit "$status"
