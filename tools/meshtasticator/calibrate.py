#!/usr/bin/env python3
"""Runs Meshtasticator's own discrete-event scenario (batchSim.py's loop, without plots) to
calibrate `driftd sim mesh --router meshtastic` against it (docs/mesh-simulation.md).

Usage:  calibrate.py MESHTASTICATOR_CHECKOUT NODES REPETITIONS
Needs simpy, numpy, pyyaml, matplotlib, pandas (a venv: .build/meshtasticator-venv).
Prints one JSON line: means over repetitions of reachability, usefulness (both 0…1),
frames per message and collision rate, as batchSim.py computes them.
"""
import json
import os
import random
import sys

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, sys.argv[1])

import simpy  # noqa: E402

from lib.common import find_random_position, setup_asymmetric_links  # noqa: E402
from lib.config import Config  # noqa: E402
from lib.discrete_event import BroadcastPipe  # noqa: E402
from lib.node import MeshNode, NodeConfig  # noqa: E402
from lib.point import Point  # noqa: E402


class TempNode:
    def __init__(self, conf, x, y):
        self.position = Point(x, y, conf.HM)


def run(nr_nodes, rep):
    conf = Config()
    conf.SELECTED_ROUTER_TYPE = conf.ROUTER_TYPE.MANAGED_FLOOD
    conf.NR_NODES = nr_nodes
    conf.update_router_dependencies()
    random.seed(rep)
    while True:
        temp = []
        for _ in range(nr_nodes):
            x, y = find_random_position(conf, temp)
            if x is None:
                break
            temp.append(TempNode(conf, x, y))
        if len(temp) == nr_nodes:
            break
    conf.SEED = rep
    random.seed(rep)
    env = simpy.Environment()
    pipe = BroadcastPipe(env)
    nodes, messages, packets, delays = [], [], [], []
    packets_at = [[] for _ in range(nr_nodes)]
    seq = {"val": 0}
    for i in range(nr_nodes):
        x, y = temp[i].position.x, temp[i].position.y
        cfg = NodeConfig(i, Point(x, y, conf.HM), antenna_gain=conf.GL, hop_limit=conf.hopLimit)
        nodes.append(MeshNode(conf, nodes, env, pipe, conf.PERIOD, messages, packets_at, packets, delays, cfg, seq))
    setup_asymmetric_links(conf, nodes)
    env.run(until=conf.SIMTIME)
    sensed = sum(1 for p in packets for n in nodes if p.sensedByN[n.nodeid])
    collided = sum(1 for p in packets for n in nodes if p.collidedAtN[n.nodeid])
    received = sum(1 for p in packets for n in nodes if p.receivedAtN[n.nodeid])
    useful = sum(n.usefulPackets for n in nodes)
    sent = sum(n.nrPacketsSent for n in nodes)
    m = seq["val"]
    return {"reach": useful / (m * (nr_nodes - 1)), "usefulness": useful / received if received else 0,
            "framesPerMessage": sent / m, "collisionRate": collided / sensed if sensed else 0, "messages": m}


def main():
    nr, reps = int(sys.argv[2]), int(sys.argv[3])
    results = [run(nr, rep) for rep in range(reps)]
    mean = {k: sum(r[k] for r in results) / len(results) for k in results[0]}
    mean.update({"nodes": nr, "repetitions": reps})
    print(json.dumps(mean, sort_keys=True))


if __name__ == "__main__":
    main()
