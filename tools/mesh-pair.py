#!/usr/bin/env python3
"""The mesh pair benchmark: a bottle sent to the neighbouring box, end to end.

Starts two `driftd run` processes (box A and box B) on the simulated board, their radios on
loopback UDP (`radio.kind = "sim"`, each the other's only peer, `--distance` metres apart within
`radio_range_m`), waits for READY=1 from both and for A to know "Box B" (B's box-info
broadcast). Then, `--runs` times: a visitor at A drops a bottle addressed to "Box B"
(`POST /api/v1/bottles`, `placement: "manual"`, `to: "Box B"`); the delivery latency runs from
just before that request until B's visitor API serves the bottle (`GET /api/v1/bottles/{id}`,
polled every 20 ms); the confirmation latency until A lists it as `delivered` (B's mesh
acknowledgement came back). The next bottle waits for the confirmation (at most 120 s) and a
random 0.5-2 s, so runs do not line up with the boxes' timers.

With `--line` a third box stands beyond B: A — B — C, `--distance` apart with a radio range of
1.5 × that, so A and C hear only B, and the bottles go from A to "Box C" across B (two hops).
`--loss P` loses each frame in range with probability P at every receiver (`sim.radio_loss`), so
what a lost frame costs shows in a few runs. Frames a box hears on the air together collide
there (`sim.radio_collisions`, on: with `--line`, A and C are hidden from each other at B);
`--no-collisions` keeps every frame, as the loopback radio did before collisions were modelled.

Prints the latencies (p50, p95 by nearest rank, max) and each box's mesh counters (retries,
frames lost to half duplex); exits 1 when the delivery p95 is above `--max-p95` seconds or a
bottle never arrives, 2 when the boxes could not be started. Used by
scripts/bench-mesh-pair.sh (docs/mesh.md, "Real daemons on the loopback radio").
"""

import argparse
import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from idle import eventually, start_box, stop_box  # tools/idle.py: a driftd started as systemd would, READY=1


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Box:
    def __init__(self, name, directory, east_m, args, board_dir):
        self.name = name
        self.directory = directory
        self.http = free_port(socket.SOCK_STREAM)
        self.radio = free_port(socket.SOCK_DGRAM)
        self.east_m = east_m
        self.args = args
        self.board_dir = board_dir
        self.process = None
        self.log = None
        os.makedirs(os.path.join(directory, "data"), exist_ok=True)

    @property
    def data(self):
        return os.path.join(self.directory, "data")

    def write_config(self, peer_ports):
        longitude = 13.4019 + self.east_m / (111_320 * math.cos(52.4731 * math.pi / 180))
        text = f"""[daemon]
log_level = "{self.args.log_level}"

[box]
board = "sim"
board_dir = "{self.board_dir}"
name = "Box {self.name}"

[storage]
data_dir = "{self.data}"

[http]
listen = "127.0.0.1:{self.http}"
limit_per_client = false      # every visitor of the benchmark comes from 127.0.0.1

[mesh]
hello_interval_s = {self.args.hello}

[radio]
spreading_factor = {self.args.sf}

[sim]
latitude = 52.4731
longitude = {longitude:.7f}
radio_udp_port = {self.radio}
radio_peers = [{", ".join(f'"127.0.0.1:{port}"' for port in peer_ports)}]
radio_range_m = {self.args.distance * (1.5 if self.args.line else 2):.0f}
radio_loss = {self.args.loss}
radio_collisions = {"false" if self.args.no_collisions else "true"}
"""
        with open(os.path.join(self.directory, "driftd.toml"), "w") as f:
            f.write(text)

    def start(self, driftd):
        self.process, self.log = start_box([driftd, "run", "--config", os.path.join(self.directory, "driftd.toml")],
                                           self.directory, self.name)

    def stop(self):
        stop_box(self.process, self.log)

    def request(self, method, path, token=None, body=None, timeout=20):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.http}{path}", data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as answer:
                raw = answer.read()
                return answer.status, json.loads(raw) if raw else {}
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw) if raw else {}
            except ValueError:
                return error.code, {}

    def visitor(self):
        status, body = self.request("POST", "/api/v1/visitors")
        if status != 201:
            raise RuntimeError(f"box {self.name}: no visitor token ({status} {body})")
        return body["token"]

    def mesh_status(self, driftd):
        out = subprocess.run([driftd, "mesh", "status", "--data-dir", self.data, "--json"], capture_output=True, text=True, timeout=30)
        try:
            return json.loads(out.stdout)
        except ValueError:
            return {}


def percentile(values, p):
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driftd", required=True)
    parser.add_argument("--board-dir", required=True, help="the repository's board/ directory")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sf", type=int, default=11, help="spreading factor (the board's 11 = LongFast at 250 kHz)")
    parser.add_argument("--hello", type=int, default=300, help="mesh.hello_interval_s (the board's 300)")
    parser.add_argument("--distance", type=int, default=500, help="metres between the boxes (range: twice that)")
    parser.add_argument("--text-bytes", type=int, default=120, help="the bottle's text length")
    parser.add_argument("--line", action="store_true", help="three boxes A — B — C; the bottles go A → C across B")
    parser.add_argument("--loss", type=float, default=0.0, help="probability a frame in range is lost (sim.radio_loss)")
    parser.add_argument("--no-collisions", action="store_true",
                        help="frames on the air together do not collide (sim.radio_collisions = false)")
    parser.add_argument("--max-p95", type=float, default=5.0, help="seconds; above it the benchmark fails")
    parser.add_argument("--gap", type=float, default=0.0,
                        help="seconds more between one bottle's confirmation and the next (default 0: 0.5–2 s, the channel kept busy)")
    parser.add_argument("--keep", action="store_true", help="keep the boxes' directories (configs, data, logs)")
    parser.add_argument("--log-level", default="info",
                        help="daemon.log_level of the boxes; trace logs every frame heard and sent (with --keep, a slow bottle's path)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="bench-mesh-pair.")
    a = Box("A", os.path.join(work, "A"), 0, args, args.board_dir)
    b = Box("B", os.path.join(work, "B"), args.distance, args, args.board_dir)
    boxes = [a, b]
    if args.line:
        boxes.append(Box("C", os.path.join(work, "C"), 2 * args.distance, args, args.board_dir))
    for box in boxes:
        box.write_config([other.radio for other in boxes if other is not box])
    target = boxes[-1]  # the box the bottles go to: B, or C beyond it
    status = 0
    try:
        try:
            for box in boxes:
                box.start(args.driftd)
            alice, bob = a.visitor(), target.visitor()
        except (RuntimeError, OSError) as error:
            print(f"bench-mesh-pair: {error}", file=sys.stderr)
            return 2
        started = time.monotonic()
        known = eventually(300, lambda: True if any(box.get("name") == f"Box {target.name}" for box in
                                                    a.request("GET", "/api/v1/mesh/boxes", alice)[1].get("boxes", [])) else None, 0.2)
        if not known:
            print(f"bench-mesh-pair: A never heard of Box {target.name} (its box-info broadcast)", file=sys.stderr)
            return 2
        known_after = time.monotonic() - started

        rng = random.Random(7)
        runs = []
        for i in range(args.runs):
            text = (f"bottle {i + 1} " + "the tide brought this one in " * 20)[: args.text_bytes]
            t0 = time.monotonic()
            code, sent = a.request("POST", "/api/v1/bottles", alice, {
                "text": text, "hint": "from the next box", "lifetimeSeconds": 1800, "placement": "manual", "to": f"Box {target.name}"})
            if code != 202:
                print(f"bench-mesh-pair: run {i + 1}: the drop was refused ({code} {sent})", file=sys.stderr)
                return 1
            bottle = sent["id"]
            arrived = eventually(120, lambda: time.monotonic() if target.request("GET", f"/api/v1/bottles/{bottle}", bob)[0] == 200 else None)
            if arrived is None:
                print(f"bench-mesh-pair: run {i + 1}: the bottle never arrived at {target.name} within 120 s", file=sys.stderr)
                runs.append({"run": i + 1, "delivered": None, "confirmed": None})
                status = 1
                continue

            def delivered():
                listed = a.request("GET", "/api/v1/mesh/sent", alice)[1].get("bottles", [])
                return time.monotonic() if any(x.get("id") == bottle and x.get("state") == "delivered" for x in listed) else None

            confirmed = eventually(120, delivered, 0.05)
            runs.append({"run": i + 1, "delivered": arrived - t0, "confirmed": None if confirmed is None else confirmed - t0})
            time.sleep(rng.uniform(0.5, 2.0) + args.gap)

        latencies = [r["delivered"] for r in runs if r["delivered"] is not None]
        confirmations = [r["confirmed"] for r in runs if r["confirmed"] is not None]
        result = {
            "runs": args.runs, "line": args.line, "loss": args.loss, "gapS": args.gap, "spreadingFactor": args.sf, "helloIntervalS": args.hello, "textBytes": args.text_bytes,
            "arrived": len(latencies), "knownAfterS": round(known_after, 1),
            "deliveredP50S": round(percentile(latencies, 50), 3) if latencies else None,
            "deliveredP95S": round(percentile(latencies, 95), 3) if latencies else None,
            "deliveredMaxS": round(max(latencies), 3) if latencies else None,
            "confirmedP50S": round(percentile(confirmations, 50), 3) if confirmations else None,
            "confirmedP95S": round(percentile(confirmations, 95), 3) if confirmations else None,
            "confirmedMaxS": round(max(confirmations), 3) if confirmations else None,
            "latenciesS": [None if r["delivered"] is None else round(r["delivered"], 3) for r in runs],
            "maxP95S": args.max_p95,
        }
        counters = {}
        for box in boxes:
            mesh = box.mesh_status(args.driftd)
            c = mesh.get("counters", {})
            counters[box.name] = {key: c.get(key) for key in ("sentOwn", "sentRelays", "sentHellos", "sentSync", "framesResent",
                                                              "duplicates", "answerWaits", "quickRetries", "retriesRelayed", "lastHopRetries", "lastHopRetriesBusy", "piecesResent", "firstHopRetries", "firstHopRetriesBusy", "acksReceived", "radioErrors")}
            counters[box.name]["outbox"] = mesh.get("outbox")
            counters[box.name]["neighbours"] = len(mesh.get("neighbours", []))
            counters[box.name]["radioDeaf"] = mesh.get("radioDeaf")
            counters[box.name]["radioCollided"] = mesh.get("radioCollided")
            counters[box.name]["radioBusyWaits"] = mesh.get("radioBusyWaits")
            counters[box.name]["radioQuietWaits"] = mesh.get("radioQuietWaits")
        result["counters"] = counters
        if result["deliveredP95S"] is None or result["deliveredP95S"] > args.max_p95 or len(latencies) < args.runs:
            status = 1
        result["pass"] = status == 0

        if args.json:
            print(json.dumps(result, indent=2, sort_keys=True))
        else:
            path = f"A → C across B ({args.distance} m apart each)" if args.line else f"A → B (neighbours, {args.distance} m)"
            print(f"bench-mesh-pair: {args.runs} bottles of {args.text_bytes} characters {path}, "
                  f"SF{args.sf} at 250 kHz, hello every {args.hello} s, frames lost {args.loss:.0%}"
                  f"{', no collisions' if args.no_collisions else ''}; "
                  f"A knew {target.name} after {known_after:.1f} s")
            print("| | p50 (s) | p95 (s) | max (s) |")
            print("| --- | ---: | ---: | ---: |")
            print(f"| delivered at {target.name} | {result['deliveredP50S']} | {result['deliveredP95S']} | {result['deliveredMaxS']} |")
            print(f"| confirmed at A | {result['confirmedP50S']} | {result['confirmedP95S']} | {result['confirmedMaxS']} |")
            print("each run (s): " + " ".join("-" if x is None else f"{x:.2f}" for x in result["latenciesS"]))
            for name, c in counters.items():
                print(f"box {name}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
            print(f"delivered p95 {result['deliveredP95S']} s against at most {args.max_p95} s: {'PASS' if status == 0 else 'FAIL'}")
        return status
    finally:
        for box in boxes:
            box.stop()
        if args.keep or status != 0:
            print(f"bench-mesh-pair: configs, data and logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
