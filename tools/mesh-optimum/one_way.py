#!/usr/bin/env python3
"""One-way links in the simulator's topologies: which boxes no hello-based router can know of.

Usage (from the repository root, after `swift build`):
    for n in 10 20 30 50; do
        .build/debug/driftd sim mesh --export-topology --nodes $n --seed 7301 --seeds 30 > /tmp/topo$n.jsonl
    done
    tools/mesh-optimum/one_way.py /tmp/topo10.jsonl /tmp/topo20.jsonl /tmp/topo30.jsonl /tmp/topo50.jsonl

Input: JSON lines from `driftd sim mesh --export-topology` (links are [sender, receiver]: the
receiver decodes the sender at full power). For every (topology, origin), over the boxes
reachable from the origin (one-way links count, as for the optimum), it prints the share of
(box, message) pairs whose box

  - is heard by nobody: its hellos reach no box, so no router that decides from hellos can
    know it exists; only a relay sent for other boxes reaches it;
  - has no link usable both ways (it hears some box, but no box it hears hears it);
  - is joined to the origin by links usable both ways (what our router's coverage counts on);
  - is joined to the origin once every one-way link A -> B is known to A whenever a box that
    A hears hears B (what a hello reporting one-way links one hop on could tell A).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_optimum import reachable  # noqa: E402 (the same search the optimum's reach uses)


def main(paths):
    print("| boxes | heard by nobody | no two-way link | joined both ways | with one-way links reported one hop on |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        pairs = deaf = lonely = both = reported = 0
        nodes = 0
        for line in open(path):
            if not line.strip():
                continue
            t = json.loads(line)
            nodes = t["nodes"]
            hears = [set() for _ in range(nodes)]  # hears[r]: the boxes r decodes
            heard_by = [set() for _ in range(nodes)]  # heard_by[s]: the boxes that decode s
            for s, r in t["links"]:
                hears[r].add(s)
                heard_by[s].add(r)
            two_way = [{v for v in heard_by[u] if u in heard_by[v]} for u in range(nodes)]
            known = [set(two_way[u]) for u in range(nodes)]
            for a in range(nodes):
                for b in heard_by[a] - two_way[a]:
                    if any(b in hears[c] for c in hears[a] if c != b):
                        known[a].add(b)
            nobody = {m for m in range(nodes) if not heard_by[m]}
            no_two_way = {m for m in range(nodes) if not two_way[m]}
            for origin in t["origins"]:
                reach = reachable(origin, heard_by) - {origin}
                pairs += len(reach)
                deaf += len(reach & nobody)
                lonely += len(reach & no_two_way)
                both += len(reach & reachable(origin, two_way))
                reported += len(reach & reachable(origin, known))
        print(f"| {nodes} | {deaf / pairs:.3f} | {lonely / pairs:.3f} | {both / pairs:.3f} | {reported / pairs:.3f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
