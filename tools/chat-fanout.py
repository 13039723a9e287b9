#!/usr/bin/env python3
"""Chat fan-out benchmark for a running driftd: how long a chat line takes to reach
every participant connected to a bottle's live chat.

Makes CLIENTS device tokens, drops one bottle without conditions, has every client open it
and connect /api/v1/bottles/{id}/live, then posts LINES chat lines over HTTP (each from a
different client, INTERVAL ms apart) and times each line from just before its POST to its
arrival on every socket. All clients share one address, so run the daemon with
`http.limit_per_client = false` (scripts/bench-api.sh does). Needs `websockets` (PyPI).

Usage: chat-fanout.py URL [--clients 200] [--lines 100] [--interval-ms 20] [--json]
The client side is one asyncio process: its own scheduling is part of the measured delay,
so the figures are an upper bound for the box.
"""
import argparse, asyncio, json, time, urllib.request

import websockets


def call(base, method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else {}


async def client(url, arrivals, ready, stop):
    async with websockets.connect(url, max_queue=None, ping_interval=None) as socket:
        while True:
            receive = asyncio.ensure_future(socket.recv())
            done, _ = await asyncio.wait({receive, stop}, return_when=asyncio.FIRST_COMPLETED)
            if stop in done:
                receive.cancel()
                return
            at = time.monotonic()
            event = json.loads(receive.result())
            if event.get("type") == "hello":
                ready.append(1)
            elif event.get("type") == "message":
                arrivals.setdefault(event["message"]["text"], []).append(at)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--interval-ms", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.lines <= args.clients:
        parser.error("--lines must be 1..clients (each line comes from another client)")
    base = args.url.rstrip("/")
    tokens = [call(base, "POST", "/api/v1/visitors")["token"] for _ in range(args.clients)]
    bottle = call(base, "POST", "/api/v1/bottles", tokens[0], {"text": "benchmark bottle"})["id"]
    for token in tokens:
        call(base, "POST", f"/api/v1/bottles/{bottle}/open", token, {})
    ws_base = base.replace("http://", "ws://")
    arrivals, ready = {}, []
    stop = asyncio.get_running_loop().create_future()
    tasks = [asyncio.create_task(client(f"{ws_base}/api/v1/bottles/{bottle}/live?token={token}", arrivals, ready, stop))
             for token in tokens]
    deadline = time.monotonic() + 60
    while len(ready) < len(tokens) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    inside = len(ready)
    sent = {}
    loop = asyncio.get_running_loop()
    for index in range(args.lines):
        key = f"bench-line-{index}"
        sent[key] = time.monotonic()
        await loop.run_in_executor(None, call, base, "POST", f"/api/v1/bottles/{bottle}/messages",
                                   tokens[(index + 1) % len(tokens)], {"text": key, "language": "en"})
        await asyncio.sleep(args.interval_ms / 1000)
    end = time.monotonic() + 30
    while sum(len(v) for v in arrivals.values()) < args.lines * inside and time.monotonic() < end:
        await asyncio.sleep(0.05)
    stop.set_result(None)
    await asyncio.gather(*tasks, return_exceptions=True)
    delays = sorted((at - sent[key]) * 1000 for key, times in arrivals.items() if key in sent for at in times)

    def percentile(p):
        return delays[min(len(delays) - 1, max(0, int(-(-len(delays) * p // 1)) - 1))] if delays else float("nan")

    figures = {"clients": args.clients, "connected": inside, "lines": args.lines, "deliveries": len(delays),
               "missing": args.lines * inside - len(delays), "p50Ms": percentile(0.5), "p90Ms": percentile(0.9),
               "p99Ms": percentile(0.99), "maxMs": delays[-1] if delays else float("nan")}
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        print(f"chat fan-out: {inside} clients connected, {args.lines} lines, {len(delays)} deliveries "
              f"({figures['missing']} missing)")
        print(f"delay post -> arrival: p50 {figures['p50Ms']:.1f} ms, p90 {figures['p90Ms']:.1f} ms, "
              f"p99 {figures['p99Ms']:.1f} ms, max {figures['maxMs']:.1f} ms")


asyncio.run(main())
