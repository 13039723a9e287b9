#!/usr/bin/env python3
"""The results table of docs/mesh-simulation.md: both routers (baseline at hop 3 and 7),
the exact optimum and the greedy plan at 10/20/30/50 boxes, default and low load.

Usage (from the repository root, after `swift build`):
    tools/mesh-optimum/table.py [--sizes 10,20,30,50] [DRIFTD] [extra driftd flags for our router...]

Runs, for each size and load (period 100 s and 2000 s), over seeds 7301…7330:
    driftd sim mesh --nodes N --seed 7301 --seeds 30 --period P --router both --baseline-hop-limit 3 --json --optimum F
    driftd sim mesh --nodes N --seed 7301 --seeds 30 --period P --router meshtastic --baseline-hop-limit 7 --json --optimum F
    driftd sim mesh --nodes N --seed 7301 --seeds 30 --period P --router ours --cancel-always --json --optimum F
    driftd sim mesh --nodes N --seed 7301 --seeds 30 --period P --router ours --topology-plan --json --optimum F
(the extra flags go to every run of our router) and prints one Markdown row per router, plus the
optimum and the greedy plan.
"""
import json
import subprocess
import sys

ARGS = sys.argv[1:]
SIZES = (10, 20, 30, 50)
if ARGS[:1] == ["--sizes"]:
    SIZES = tuple(int(x) for x in ARGS[1].split(","))
    ARGS = ARGS[2:]
DRIFTD = ARGS[0] if ARGS else ".build/debug/driftd"
EXTRA = ARGS[1:]
OPTIMUM = "Tests/DriftMeshSimTests/Resources/mesh-optimum.json"
SEED, SEEDS = "7301", "30"


def runs(nodes, period, router, hop, extra=()):
    cmd = [DRIFTD, "sim", "mesh", "--nodes", str(nodes), "--seed", SEED, "--seeds", SEEDS, "--period", str(period),
           "--router", router, "--baseline-hop-limit", str(hop), "--json", "--optimum", OPTIMUM, *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def mean(rs, key):
    values = [r[key] for r in rs if r.get(key) is not None]
    return sum(values) / len(values) if values else None


def f(x, digits=3):
    return "–" if x is None else f"{x:.{digits}f}"


def main():
    print("| boxes | load | router | reach | connected ≤ 5 min | usefulness | frames / bcast | total / data airtime | p50 latency (s) | at equal reach: share · frames ÷ opt · usefulness ÷ opt |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for nodes in SIZES:
        for period, load in ((100, "default"), (2000, "low")):
            both = runs(nodes, period, "both", 3, EXTRA)
            ours = [r for r in both if r["router"] == "ours"]
            hop3 = [r for r in both if r["router"] == "meshtastic"]
            hop7 = runs(nodes, period, "meshtastic", 7)
            always = runs(nodes, period, "ours", 3, ("--cancel-always", *EXTRA))
            planned = runs(nodes, period, "ours", 3, ("--topology-plan", *EXTRA))
            for label, rs in (("ours (hop 7, repair)", ours),
                              ("ours, relays planned on the topology (`--topology-plan`, off by default)", planned),
                              ("ours, counter always (before the busy feed)", always),
                              ("Meshtastic hop 3", hop3), ("Meshtastic hop 7", hop7)):
                ratio = f"{f(mean(rs, 'equalReachShare'), 2)} · {f(mean(rs, 'framesVsOptimum'), 2)} · {f(mean(rs, 'usefulnessVsOptimum'), 2)}"
                total = mean(rs, "totalAirtimeMs") / mean(rs, "dataAirtimeMs")
                print(f"| {nodes} | {load} | {label} | {f(mean(rs, 'reachability'))} | {f(mean(rs, 'connectedReachWithinRepairWindow'))} "
                      f"| {f(mean(rs, 'usefulness'))} | {f(mean(rs, 'transmissionsPerBroadcast'), 2)} | {f(total, 2)}× "
                      f"| {f(mean(rs, 'latencyP50Ms') / 1000, 1)} | {ratio} |")
            rs = ours
            print(f"| {nodes} | {load} | *exact optimum* | *{f(mean(rs, 'reachabilityBound'))}* | | *{f(mean(rs, 'optimumUsefulness'))}* "
                  f"| *{f(mean(rs, 'optimumFrames'), 2)}* | | | |")
            print(f"| {nodes} | {load} | *greedy plan* | *{f(mean(rs, 'reachabilityBound'))}* | | *{f(mean(rs, 'usefulnessBound'))}* "
                  f"| *{f(mean(rs, 'planTransmissions'), 2)}* | | | |")


if __name__ == "__main__":
    main()
