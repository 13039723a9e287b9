#!/usr/bin/env python3
"""Our router with FLAGS against the same router without them, paired per seed.

Usage (from the repository root, after `swift build`):
    tools/mesh-optimum/paired.py DRIFTD SEED [--base "FLAGS"] [FLAGS...]

For 10/20/30/50 boxes at default load (`--period 100`) and low load (`--period 2000`), runs
    driftd sim mesh --nodes N --seed SEED --seeds 30 --period P --router ours --json [BASE]
    driftd sim mesh --nodes N --seed SEED --seeds 30 --period P --router ours --json [BASE] FLAGS
    driftd sim mesh --nodes N --seed SEED --seeds 30 --period P --router meshtastic --baseline-hop-limit 7 --json
and prints one line per size and load: one-shot reach (base → with FLAGS, the mean paired
difference in points ± its standard error, and the difference to hop-7 flooding), frames per
broadcast (and ÷ hop 7's), p50 latency, connected boxes within 5 minutes and total ÷ data
airtime. Seeds 1…30 were used for tuning in docs/mesh-simulation.md, 7301…7330 held out.
"""
import json
import math
import shlex
import subprocess
import sys

args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
DRIFTD, SEED, args = args[0], args[1], args[2:]
BASE = []
if args[:1] == ["--base"]:
    BASE, args = shlex.split(args[1]), args[2:]
FLAGS = args


def run(nodes, period, router, extra=()):
    cmd = [DRIFTD, "sim", "mesh", "--nodes", str(nodes), "--seed", SEED, "--seeds", "30", "--period", str(period),
           "--router", router, "--baseline-hop-limit", "7", "--json", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return {r["seed"]: r for r in rows if r["router"] == router}


def mean(xs):
    return sum(xs) / len(xs)


def avg(rs, key):
    return mean([r[key] for r in rs.values() if r.get(key) is not None])


def paired(a, b, key, scale=1.0):
    d = [(b[s][key] - a[s][key]) * scale for s in a if a[s].get(key) is not None and b[s].get(key) is not None]
    mu = mean(d)
    sd = math.sqrt(sum((x - mu) ** 2 for x in d) / (len(d) - 1)) if len(d) > 1 else 0.0
    return mu, sd / math.sqrt(len(d))


for nodes in (10, 20, 30, 50):
    for period in (100, 2000):
        base, cand, hop7 = run(nodes, period, "ours", BASE), run(nodes, period, "ours", BASE + FLAGS), run(nodes, period, "meshtastic")
        dr, df, dl = paired(base, cand, "reachability", 100), paired(base, cand, "transmissionsPerBroadcast"), paired(base, cand, "latencyP50Ms", 0.001)
        total = lambda rs: avg(rs, "totalAirtimeMs") / avg(rs, "dataAirtimeMs")
        print(f"{nodes:2} boxes, period {period:4} s: reach {avg(base, 'reachability'):.3f} → {avg(cand, 'reachability'):.3f} "
              f"({dr[0]:+.1f} ± {dr[1]:.1f}; − hop 7 {100 * (avg(cand, 'reachability') - avg(hop7, 'reachability')):+.1f}) | "
              f"frames {avg(cand, 'transmissionsPerBroadcast'):.2f} ({df[0]:+.2f} ± {df[1]:.2f}; ÷ hop 7 "
              f"{avg(cand, 'transmissionsPerBroadcast') / avg(hop7, 'transmissionsPerBroadcast'):.2f}) | "
              f"p50 {avg(base, 'latencyP50Ms') / 1000:.1f} → {avg(cand, 'latencyP50Ms') / 1000:.1f} s ({dl[0]:+.1f} ± {dl[1]:.1f}; hop 7 "
              f"{avg(hop7, 'latencyP50Ms') / 1000:.1f}) | ≤ 5 min {avg(base, 'connectedReachWithinRepairWindow'):.3f} → "
              f"{avg(cand, 'connectedReachWithinRepairWindow'):.3f} | total/data {total(base):.2f} → {total(cand):.2f}", flush=True)
