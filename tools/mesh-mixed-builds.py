#!/usr/bin/env python3
"""Real daemons of two builds on the loopback radio: does the mesh hold across an older box?

Starts three `driftd run` processes on the simulated board in a line, A — B — C, 800 m apart
with a 1 km radio range (A and C cannot hear each other; everything goes through B), hellos
every 3 s and SF7, as the three-box process tests (Tests/driftdTests/MeshProcessTests.swift).
A and C run this build with `mesh.topology_plan = true`; B runs `--older-driftd`, a build from
before the planned relays (each box's config comes from its own checkout's board/sim.toml).
With `--control`, B runs this build with the plan off instead: the contrast.

Checks, in order: A and C learn B as a neighbour and B both of them; a broadcast from A reaches
C and one from C reaches A; a message from A to C is delivered and acknowledged back to A; then, after 150 s
(more than one advert period at 3-second hellos, 108 s ± 11 s), which lists A and C know
(`topologyBoxes`: with an older B only their own, since B drops the adverts; with the control
both) and what B counted as malformed (an older B: `bad_kind`, the adverts' frame kind 6).
Prints a JSON report with --json; exits 1 when a message did not cross or the lists are not
as expected, 2 when the boxes could not be started. Used by scripts/check-mixed-builds.sh
(docs/mesh-simulation.md, "A mesh of mixed builds").
"""

import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from idle import eventually, start_box, stop_box  # tools/idle.py: a driftd started as systemd would, READY=1


def free_udp_ports(count):
    """`count` distinct free UDP ports on loopback (all bound at once, then let go)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Box:
    def __init__(self, name, directory, east_m, port, driftd, checkout, plan):
        self.name, self.directory, self.east_m, self.port = name, directory, east_m, port
        self.driftd, self.checkout, self.plan = driftd, checkout, plan
        self.process = None
        self.log = None
        os.makedirs(self.data, exist_ok=True)

    @property
    def data(self):
        return os.path.join(self.directory, "data")

    @property
    def config(self):
        return os.path.join(self.directory, "driftd.toml")

    def write_config(self, peers):
        longitude = 13.4019 + self.east_m / (111_320 * math.cos(52.4731 * math.pi / 180))
        with open(os.path.join(self.checkout, "board", "sim.toml")) as f:
            text = f.read()

        def replace(old, new):
            nonlocal text
            if old not in text:
                raise RuntimeError(f"box {self.name}: {self.checkout}/board/sim.toml has no line {old!r}")
            text = text.replace(old, new)

        replace('name = "Drift Box (simulated)"', f'name = "Box {self.name}"')
        replace("longitude = 13.4019", f"longitude = {longitude:.7f}")
        replace("radio_udp_port = 47300", f"radio_udp_port = {self.port}")
        replace("radio_peers = []", "radio_peers = [" + ", ".join(f'"127.0.0.1:{p}"' for p in peers) + "]")
        replace("radio_range_m = 0 ", "radio_range_m = 1000 ")
        replace("# hello_interval_s = 300 ", "hello_interval_s = 3 ")
        replace("spreading_factor = 11", "spreading_factor = 7")
        if self.plan:
            replace("topology_plan = false", "topology_plan = true ")
        with open(self.config, "w") as f:
            f.write(text)

    def start(self):
        self.process, self.log = start_box([self.driftd, "run", "--config", self.config, "--data-dir", self.data,
                                            "--listen", "127.0.0.1:0"], self.directory, self.name)
        self.ready_at = time.monotonic()

    def stop(self):
        stop_box(self.process, self.log)

    def mesh(self, *arguments):
        out = subprocess.run([self.driftd, "mesh", *arguments, "--data-dir", self.data, "--json"],
                             capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"box {self.name}: driftd mesh {' '.join(arguments)}: {out.stderr.strip()}")
        return json.loads(out.stdout)

    def inbox(self):
        return [m.get("text") for m in self.mesh("inbox").get("messages", [])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driftd", required=True, help="this build's driftd")
    parser.add_argument("--checkout", required=True, help="this build's checkout (for board/sim.toml)")
    parser.add_argument("--older-driftd", help="the older build's driftd (box B)")
    parser.add_argument("--older-checkout", help="the older build's checkout")
    parser.add_argument("--control", action="store_true", help="B runs this build with the plan off instead")
    parser.add_argument("--advert-wait", type=float, default=150, help="seconds to let adverts go round (default 150)")
    parser.add_argument("--keep", action="store_true", help="keep the boxes' directories (configs, data, logs)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.control and not (args.older_driftd and args.older_checkout):
        parser.error("give --older-driftd and --older-checkout, or --control")

    work = tempfile.mkdtemp(prefix="mesh-mixed-builds.")
    ports = free_udp_ports(3)
    middle = (args.driftd, args.checkout) if args.control else (args.older_driftd, args.older_checkout)
    boxes = [Box("A", os.path.join(work, "A"), 0, ports[0], args.driftd, args.checkout, True),
             Box("B", os.path.join(work, "B"), 800, ports[1], middle[0], middle[1], False),
             Box("C", os.path.join(work, "C"), 1600, ports[2], args.driftd, args.checkout, True)]
    a, b, c = boxes
    failures = []
    report = {"middle": "this build, plan off" if args.control else "older build"}
    try:
        try:
            for box in boxes:
                box.write_config([p for p in ports if p != box.port])
            for box in boxes:
                box.start()
            nodes = {box.name: box.mesh("status").get("node") for box in boxes}
        except (RuntimeError, OSError, ValueError) as error:
            print(f"mesh-mixed-builds: {error}", file=sys.stderr)
            return 2
        report["nodes"] = nodes

        def hears(box, other):
            ids = [n.get("id") for n in box.mesh("status").get("neighbours", [])]
            return True if nodes[other.name] in ids else None

        started = time.monotonic()
        # Every box knows its neighbours on the line before the first message: a relay is planned on
        # the neighbour table, and a B that has not heard C yet takes A's broadcast as covering
        # all it knows, and leaves C to repair.
        if not eventually(60, lambda: True if hears(a, b) and hears(c, b) and hears(b, a) and hears(b, c) else None, 0.5):
            failures.append("the boxes did not learn their neighbours on the line within 60 s")
        report["neighboursAfterS"] = round(time.monotonic() - started, 1)

        def crossing(sender, receiver, text, extra=()):
            t0 = time.monotonic()
            # How long B had been up: within its first hello period and jitter (3.3 s here) it
            # is still learning its neighbours (docs/mesh-simulation.md, "The first hello period").
            report.setdefault("firstSentAfterBReadyS", round(t0 - b.ready_at, 2))
            sender.mesh("send", "--text", text, *extra)
            arrived = eventually(60, lambda: True if text in receiver.inbox() else None, 0.5)
            if not arrived:
                failures.append(f"{text!r} from {sender.name} never reached {receiver.name} within 60 s")
                return None
            return round(time.monotonic() - t0, 2)

        report["broadcastAtoCS"] = crossing(a, c, "across the older box")
        report["broadcastCtoAS"] = crossing(c, a, "and back again")
        report["directedAtoCS"] = crossing(a, c, "just for C", ("--to", nodes["C"]))
        delivered = eventually(120, lambda: True if (a.mesh("status").get("outbox") or {}).get("delivered", 0) >= 1 else None, 0.5)
        report["directedAcknowledged"] = bool(delivered)
        if not delivered:
            failures.append("A's message to C was not acknowledged within 120 s")
        if "just for C" in b.inbox():
            failures.append("B delivered the message for C")

        time.sleep(args.advert_wait)
        statuses = {box.name: box.mesh("status") for box in boxes}
        report["topologyBoxes"] = {name: s.get("topologyBoxes") for name, s in statuses.items()}
        report["malformed"] = {name: (s.get("counters") or {}).get("malformed") for name, s in statuses.items()}
        report["topologyAdverts"] = {name: (s.get("counters") or {}).get("topologyAdverts") for name, s in statuses.items()}
        report["counters"] = {name: s.get("counters") for name, s in statuses.items()}  # all of them, in --json
        report["radioDeaf"] = {name: s.get("radioDeaf") for name, s in statuses.items()}  # frames lost while transmitting
        expected = 2 if args.control else 1
        for box in (a, c):
            if report["topologyBoxes"][box.name] != expected:
                failures.append(f"box {box.name} knows {report['topologyBoxes'][box.name]} lists, {expected} expected")
        dropped = (report["malformed"]["B"] or {}).get("bad_kind", 0)
        if not args.control and dropped == 0:
            failures.append("the older B counted no frame of unknown kind: did A and C advertise?")
        if args.control and report["malformed"]["B"]:
            failures.append(f"B of this build counted malformed frames: {report['malformed']['B']}")
        report["failures"] = failures
        report["pass"] = not failures
        if args.json:
            print(json.dumps(report, indent=2, sort_keys=True))
        else:
            print(f"mesh-mixed-builds: A (plan) — B ({report['middle']}) — C (plan), loopback radio, SF7, hellos every 3 s")
            for key in ("neighboursAfterS", "firstSentAfterBReadyS", "broadcastAtoCS", "broadcastCtoAS", "directedAtoCS", "directedAcknowledged",
                        "topologyBoxes", "topologyAdverts", "malformed"):
                print(f"  {key}: {report[key]}")
            print("PASS" if not failures else "FAIL: " + "; ".join(failures))
        return 0 if not failures else 1
    finally:
        for box in boxes:
            box.stop()
        if args.keep or failures:
            print(f"mesh-mixed-builds: configs, data and logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
