#!/usr/bin/env python3
"""Exact optimum of a collision-free broadcast on the simulator's topologies (MILP, HiGHS).

Usage (from the repository root):
    .build/debug/driftd sim mesh --export-topology --nodes 30 --seed 7301 --seeds 30 > /tmp/topo.jsonl
    tools/mesh-optimum/make_optimum.py /tmp/topo.jsonl ... > Tests/DriftMeshSimTests/Resources/mesh-optimum.json

The script makes its own virtual environment under `.build/mesh-optimum-venv` (from
requirements.txt, highspy from PyPI) the first time and re-runs itself there.

Input: JSON lines from `driftd sim mesh --export-topology` — per run `nodes`, `seed`,
`links` ([sender, receiver] pairs: the receiver decodes the sender at full power, exactly
the simulator's links) and `origins` (the origin box of each message, in order).

For each (topology, origin) two MILPs, over the boxes reachable from the origin (one-way
links count, as in the simulator's greedy plan):

    x_v in {0,1}   box v transmits the packet once (x_origin = 1)
    reach          every reachable box hears some transmitter
    causality      transmitters must hold the packet: a single-commodity flow from the
                   origin along links whose sender transmits delivers one unit to every
                   transmitter (f_uv <= n * x_u)
    no collisions  frames go one after another (a centralised schedule), so nothing is lost

  min frames:      minimise sum x_v (ties: fewer receptions)
  min receptions:  minimise sum x_v * out_degree(v) (every box in range decodes each frame;
                   ties: fewer frames) — the best usefulness = reached / receptions

Each MILP has a time limit (--time-limit, default 20 s); the output records the status and
the relative gap, so a bound that is not proven optimal says so.

`make_optimum.py --merge A.json B.json > ALL.json` joins outputs of runs made in parallel.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(ROOT, ".build", "mesh-optimum-venv")


def ensure_venv():
    """Re-runs this script inside .build/mesh-optimum-venv, creating it when missing."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "-q", "-r", os.path.join(HERE, "requirements.txt")])
    os.execv(python, [python] + sys.argv)


def reachable(origin, out):
    seen = {origin}
    stack = [origin]
    while stack:
        u = stack.pop()
        for v in out[u]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def solve(n, out, origin, objective, time_limit):
    """One MILP; returns (frames, receptions, reached, status, gap, transmitters)."""
    import highspy
    import numpy as np

    nodes = sorted(reachable(origin, out))
    index = {v: i for i, v in enumerate(nodes)}
    k = len(nodes)
    degree = [len(out[v]) for v in nodes]  # every box in range decodes, reachable or not
    arcs = [(u, v) for u in nodes for v in out[u] if v in index and v != origin]
    big = n * n + 1
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("random_seed", 1)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    # Columns: x (k), then one flow per arc.
    if objective == "frames":
        cost = [big + d for d in degree]
    else:
        cost = [d * (n + 1) + 1 for d in degree]
    lower = [1.0 if v == origin else 0.0 for v in nodes]
    upper = [1.0] * k
    h.addVars(k, np.array(lower), np.array(upper))
    h.changeColsCost(k, np.arange(k, dtype=np.int32), np.array(cost, dtype=float))
    h.changeColsIntegrality(k, np.arange(k, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * k))
    m = len(arcs)
    h.addVars(m, np.zeros(m), np.full(m, inf))
    rows = []  # (lower, upper, [(col, value)])
    # Reach: every reachable box other than the origin hears a transmitter.
    hearers = {v: [] for v in nodes}
    for u in nodes:
        for v in out[u]:
            if v in index:
                hearers[v].append(u)
    for v in nodes:
        if v != origin:
            rows.append((1.0, inf, [(index[u], 1.0) for u in hearers[v]]))
    # Flow only out of transmitters.
    for a, (u, v) in enumerate(arcs):
        rows.append((-inf, 0.0, [(k + a, 1.0), (index[u], -float(k))]))
    # Conservation: inflow − outflow = x_v for every box but the origin.
    inflow = {v: [] for v in nodes}
    outflow = {v: [] for v in nodes}
    for a, (u, v) in enumerate(arcs):
        inflow[v].append(a)
        outflow[u].append(a)
    for v in nodes:
        if v == origin:
            continue
        entries = [(k + a, 1.0) for a in inflow[v]] + [(k + a, -1.0) for a in outflow[v]] + [(index[v], -1.0)]
        rows.append((0.0, 0.0, entries))
    for lo, hi, entries in rows:
        cols = np.array([c for c, _ in entries], dtype=np.int32)
        vals = np.array([x for _, x in entries], dtype=float)
        h.addRow(lo, hi, len(entries), cols, vals)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    sol = h.getSolution().col_value
    chosen = [nodes[i] for i in range(k) if sol[i] > 0.5]
    frames = len(chosen)
    receptions = sum(len(out[v]) for v in chosen)
    gap = info.mip_gap if info.mip_gap == info.mip_gap else 0.0  # NaN → 0
    return frames, receptions, k - 1, status, max(0.0, gap), chosen


def merge(paths):
    parts = [json.load(open(p)) for p in paths]
    instances = sorted((i for part in parts for i in part["instances"]), key=lambda i: (i["nodes"], i["seed"]))
    json.dump({"generator": parts[0]["generator"], "timeLimitSeconds": max(p["timeLimitSeconds"] for p in parts),
               "notProvenOptimal": sum(p["notProvenOptimal"] for p in parts), "instances": instances},
              sys.stdout, indent=1, sort_keys=True)
    print()


def main():
    if sys.argv[1:2] == ["--merge"]:
        merge(sys.argv[2:])
        return
    ensure_venv()
    time_limit = 20.0
    args = sys.argv[1:]
    if "--time-limit" in args:
        i = args.index("--time-limit")
        time_limit = float(args[i + 1])
        del args[i:i + 2]
    runs = []
    for path in args or ["-"]:
        stream = sys.stdin if path == "-" else open(path)
        for line in stream:
            if line.strip():
                runs.append(json.loads(line))
    # HiGHS prints a banner on stdout: keep stdout for the JSON only.
    result = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    instances = []
    started = time.time()
    not_optimal = 0
    for run in runs:
        n = run["nodes"]
        out = {v: [] for v in range(n)}
        for s, r in run["links"]:
            out[s].append(r)
        for v in out:
            out[v].sort()
        origins = {}
        for origin in sorted(set(run["origins"])):
            f = solve(n, out, origin, "frames", time_limit)
            r = solve(n, out, origin, "receptions", time_limit)
            for s in (f, r):
                if s[3] != "Optimal":
                    not_optimal += 1
            origins[str(origin)] = {
                "reached": f[2],
                "minFrames": f[0], "minFramesReceptions": f[1], "minFramesStatus": f[3], "minFramesGap": round(f[4], 6),
                "minReceptions": r[1], "minReceptionsFrames": r[0], "minReceptionsStatus": r[3], "minReceptionsGap": round(r[4], 6),
            }
        instances.append({"nodes": n, "seed": run["seed"], "links": len(run["links"]), "linkChecksum": run["linkChecksum"],
                          "origins": origins})
        print(f"nodes {n} seed {run['seed']}: {len(origins)} origins, {time.time() - started:.0f} s", file=sys.stderr)
    json.dump({"generator": "tools/mesh-optimum/make_optimum.py (HiGHS MILP)", "timeLimitSeconds": time_limit,
               "notProvenOptimal": not_optimal, "instances": instances}, result, indent=1, sort_keys=True)
    result.write("\n")
    result.close()


if __name__ == "__main__":
    main()
