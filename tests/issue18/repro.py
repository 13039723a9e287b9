#!/usr/bin/env python3
"""Issue 18's load failures, black-box, against any commit's driftd.

Starts `driftd run` on a copy of that checkout's board/sim.toml (its own ports and data
directory), runs one scenario, prints what it saw and a PASS or FAIL line, and exits 1 on
FAIL. Used to show that a failure the issue measured on dee8aaf is there on that commit and
gone on main (docs/testing.md, "Issue 18's failures, before and after"):

  python3 tests/issue18/repro.py --checkout /work/wt-old slow-clients   # dee8aaf: FAIL
  python3 tests/issue18/repro.py --checkout .            slow-clients   # main: PASS

Scenarios:
  slow-clients  driftd under `ulimit -n 1024` (the default soft limit; the unit then set no
                LimitNOFILE), 1,100 slow clients from 50 loopback addresses, each sending a
                header line every 5 s. While they hold on, `driftd status` and a visitor's
                GET /api/v1/bottles must be answered, and the daemon must still be running,
                with no "Fatal error" in its log.
  hash-storm    a drop with 16 password conditions must be refused (422) without the time
                16 hashes take; 24 such drops from 8 addresses at once must not hold another
                visitor's GET /api/v1/bottles (the issue measured 2.1 s and 30.6 s).
  bench-mqtt    `driftd bench mqtt --count 200` (it starts Debian's Mosquitto) must leave no
                Mosquitto running; one left behind is reported with its blocked signals
                (/proc/PID/status SigBlk), sent SIGTERM, then SIGKILLed.

Only loopback addresses; every loop is bounded in count and time.
"""
import argparse
import http.client
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Box:
    """One driftd on the checkout's sim board, in a temporary folder."""

    def __init__(self, checkout, nofile=None):
        self.checkout = os.path.abspath(checkout)
        self.binary = os.path.join(self.checkout, ".build/debug/driftd")
        self.dir = tempfile.mkdtemp(prefix="issue18-")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        board = open(os.path.join(self.checkout, "board/sim.toml")).read()
        board = board.replace("radio_udp_port = 47300", f"radio_udp_port = {free_port()}")
        board = board.replace('listen = "127.0.0.1:8080"', f'listen = "127.0.0.1:{self.port}"')
        self.config = os.path.join(self.dir, "driftd.toml")
        open(self.config, "w").write(board)
        self.log_path = os.path.join(self.dir, "driftd.log")
        log = open(self.log_path, "wb")
        notify = os.path.join(self.dir, "notify.sock")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(notify)

        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        env = {"PATH": "/usr/bin:/bin", "HOME": self.dir, "NOTIFY_SOCKET": notify}
        self.process = subprocess.Popen(
            [self.binary, "run", "--config", self.config, "--data-dir", self.data, "--listen", f"127.0.0.1:{self.port}"],
            cwd=self.checkout, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=limit, start_new_session=True)
        self.notify.settimeout(90)
        started = time.monotonic()
        while True:
            message = self.notify.recv(4096).decode(errors="replace")
            if "READY=1" in message:
                break
            if time.monotonic() - started > 90:
                raise SystemExit("driftd did not say READY=1 within 90 s")
        print(f"driftd {self.version()} READY after {time.monotonic() - started:.1f} s, pid {self.process.pid}, "
              f"descriptor limit {nofile or 'inherited'}")

    def version(self):
        return subprocess.run([self.binary, "version"], capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]

    def log(self):
        return open(self.log_path, errors="replace").read()

    def status(self, timeout=30):
        started = time.monotonic()
        try:
            run = subprocess.run([self.binary, "status", "--data-dir", self.data], capture_output=True, text=True, timeout=timeout)
            return run.returncode, (run.stdout + run.stderr).strip(), time.monotonic() - started
        except subprocess.TimeoutExpired:
            return None, f"no answer within {timeout} s", time.monotonic() - started

    def request(self, method, path, body=None, token=None, source="127.0.0.1", timeout=60):
        """(status or None, seconds, parsed JSON or text)."""
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0))
            headers = {"Connection": "close"}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            if body is not None:
                headers["Content-Type"] = "application/json"
            connection.request(method, path, body=body, headers=headers)
            reply = connection.getresponse()
            text = reply.read().decode(errors="replace")
            connection.close()
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = text
            return reply.status, time.monotonic() - started, parsed
        except (OSError, http.client.HTTPException) as error:
            return None, time.monotonic() - started, repr(error)

    def visitor(self, source="127.0.0.1"):
        status, _, reply = self.request("POST", "/api/v1/visitors", source=source)
        if status != 201:
            raise SystemExit(f"POST /api/v1/visitors from {source}: {status} {reply}")
        return reply["token"]

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.notify.close()

    def exit_description(self):
        code = self.process.poll()
        if code is None:
            return "running"
        return f"ended by signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"exited {code}"


def verdict(failures):
    for failure in failures:
        print(f"  failed: {failure}")
    print("FAIL" if failures else "PASS")
    return 1 if failures else 0


def slow_clients(box, args):
    failures = []
    token = box.visitor()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    clients, refused = [], 0
    for index in range(args.clients):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.bind((f"127.0.0.{2 + index % args.addresses}", 0))
            s.connect(("127.0.0.1", box.port))
            s.sendall(b"GET /api/v1/bottles HTTP/1.1\r\n")
            clients.append(s)
        except OSError:
            refused += 1
            s.close()
    print(f"{len(clients)} slow clients connected from {args.addresses} addresses ({refused} could not connect)")
    stop = threading.Event()

    def trickle():   # a header line every 5 s, as the clients did
        while not stop.wait(5):
            for s in clients:
                try:
                    s.send(b"X-Slow: yes\r\n")
                except OSError:
                    pass

    threading.Thread(target=trickle, daemon=True).start()
    time.sleep(2)   # the daemon accepts what it can
    descriptors = len(os.listdir(f"/proc/{box.process.pid}/fd")) if box.process.poll() is None else None
    print(f"the daemon holds {descriptors} descriptors")
    code, text, seconds = box.status()
    print(f"driftd status: exit {code} after {seconds:.1f} s: {text[:300]}")
    if code != 0:
        failures.append(f"driftd status exit {code}: {text[:200]}")
    status, seconds, reply = box.request("GET", "/api/v1/bottles", token=token, timeout=30)
    print(f"GET /api/v1/bottles: {status} after {seconds:.2f} s")
    if status != 200:
        failures.append(f"GET /api/v1/bottles: {status} after {seconds:.1f} s ({str(reply)[:120]})")
    # Hold on for the rest of the time, then look at the daemon.
    deadline = time.monotonic() + args.hold
    while time.monotonic() < deadline and box.process.poll() is None:
        time.sleep(0.5)
    stop.set()
    for s in clients:
        s.close()
    if box.process.poll() is None:
        time.sleep(2)
    print(f"daemon: {box.exit_description()}")
    if box.process.poll() is not None:
        failures.append(f"the daemon {box.exit_description()}")
    log = box.log()
    for pattern in ("Too many open files", "Fatal error", "accept"):
        for line in log.splitlines():
            if pattern in line:
                print(f"  log: {line.strip()[:240]}")
                break
    if "Fatal error" in log:
        failures.append("Fatal error in the daemon's log")
    return failures


def hash_storm(box, args):
    failures = []
    sixteen = json.dumps({"text": "sixteen locks",
                          "conditions": [{"kind": "password", "password": f"secret{i}"} for i in range(16)]})
    one = json.dumps({"text": "one lock", "conditions": [{"kind": "password", "password": "river"}]})
    creator = box.visitor()
    status, seconds, reply = box.request("POST", "/api/v1/bottles", body=one, token=creator)
    print(f"a drop with 1 password condition: {status} after {seconds:.3f} s (one hash)")
    one_hash = seconds
    status, seconds, reply = box.request("POST", "/api/v1/bottles", body=sixteen, token=creator)
    problem = json.dumps(reply)[:160] if isinstance(reply, dict) else str(reply)[:160]
    print(f"a drop with 16 password conditions: {status} after {seconds:.3f} s ({problem})")
    if status != 422:
        failures.append(f"16 password conditions: {status}, not 422")
    if seconds > max(0.5, 3 * one_hash):
        failures.append(f"16 password conditions refused after {seconds:.2f} s (one hash takes {one_hash:.2f} s): it hashed before refusing")

    bystander = box.visitor()
    status, seconds, _ = box.request("GET", "/api/v1/bottles", token=bystander)
    print(f"GET /api/v1/bottles before the storm: {status} after {seconds:.3f} s")
    failures += storm(box, args, bystander, "127.0.0", lambda n: sixteen,
                      "drops with 16 password conditions (the issue's storm)")
    if args.valid_storm:
        failures += storm(box, args, bystander, "127.0.1",
                          lambda n: json.dumps({"text": f"storm {n}", "conditions": [{"kind": "password", "password": f"p{n}"}]}),
                          "good drops with one password each (each hashed once)")
    return failures


def storm(box, args, bystander, network, body, what):
    """24 drops (`body(n)`) from 8 addresses at once while `bystander` lists the bottles."""
    failures = []
    droppers = [(f"{network}.{2 + i}", box.visitor(f"{network}.{2 + i}")) for i in range(8)]
    answers, lock = [], threading.Lock()

    def drop(source, token, index):
        status, seconds, _ = box.request("POST", "/api/v1/bottles", body=body(index), token=token, source=source, timeout=120)
        with lock:
            answers.append((status, seconds))

    threads = [threading.Thread(target=drop, args=(source, token, 3 * i + n))
               for i, (source, token) in enumerate(droppers) for n in range(3)]
    for thread in threads:
        thread.start()
    waits = []
    while any(thread.is_alive() for thread in threads) and len(waits) < 600:
        status, seconds, _ = box.request("GET", "/api/v1/bottles", token=bystander, timeout=120)
        waits.append((status, seconds))
        time.sleep(0.1)
    for thread in threads:
        thread.join(120)
    codes = sorted({status for status, _ in answers}, key=str)
    print(f"storm: {len(answers)} {what} from 8 addresses, answers {codes}, slowest {max(s for _, s in answers):.2f} s")
    worst = max(seconds for _, seconds in waits)
    print(f"the bystander's GET /api/v1/bottles during it: {len(waits)} requests, slowest {worst:.2f} s, "
          f"statuses {sorted({s for s, _ in waits}, key=str)}")
    if worst > args.list_limit:
        failures.append(f"GET /api/v1/bottles took {worst:.2f} s during the storm of {what} (limit {args.list_limit} s)")
    if any(status != 200 for status, _ in waits):
        failures.append(f"GET /api/v1/bottles failed during the storm of {what}")
    return failures

def mosquittos():
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if open(f"/proc/{entry}/comm").read().strip() == "mosquitto":
                    found.add(int(entry))
            except OSError:
                pass
    return found


def bench_mqtt(args):
    failures = []
    binary = os.path.join(os.path.abspath(args.checkout), ".build/debug/driftd")
    before = mosquittos()
    run = subprocess.run([binary, "bench", "mqtt", "--count", "200"], capture_output=True, text=True, timeout=300,
                         cwd=args.checkout, stdin=subprocess.DEVNULL)
    print(f"driftd bench mqtt --count 200: exit {run.returncode}; {(run.stdout + run.stderr).strip().splitlines()[-1:]}")
    time.sleep(1)
    for pid in sorted(mosquittos() - before):
        status = open(f"/proc/{pid}/status").read()
        blocked = re.search(r"^SigBlk:\s*(\S+)", status, re.M).group(1)
        parent = re.search(r"^PPid:\s*(\S+)", status, re.M).group(1)
        print(f"a Mosquitto left running: pid {pid}, parent {parent}, SigBlk {blocked}")
        failures.append(f"Mosquitto {pid} still running after the bench (SigBlk {blocked})")
        os.kill(pid, signal.SIGTERM)
        time.sleep(2)
        alive = os.path.exists(f"/proc/{pid}") and "Z" not in open(f"/proc/{pid}/stat").read().split()[2]
        print(f"  SIGTERM sent: {'still running 2 s later' if alive else 'ended'}")
        if alive:
            failures.append(f"Mosquitto {pid} ignored SIGTERM")
            os.kill(pid, signal.SIGKILL)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkout", required=True, help="the checkout whose .build/debug/driftd and board/sim.toml to run")
    parser.add_argument("--clients", type=int, default=1100)
    parser.add_argument("--addresses", type=int, default=50)
    parser.add_argument("--nofile", type=int, default=1024)
    parser.add_argument("--hold", type=float, default=20, help="seconds the slow clients hold on after the checks")
    parser.add_argument("--list-limit", type=float, default=1.0, help="slowest GET /api/v1/bottles allowed in the storm")
    parser.add_argument("--valid-storm", action="store_true", help="hash-storm: then 24 good one-password drops at once")
    parser.add_argument("scenario", choices=["slow-clients", "hash-storm", "bench-mqtt"])
    args = parser.parse_args()
    if args.scenario == "bench-mqtt":
        return verdict(bench_mqtt(args))
    box = Box(args.checkout, nofile=args.nofile if args.scenario == "slow-clients" else None)
    try:
        failures = slow_clients(box, args) if args.scenario == "slow-clients" else hash_storm(box, args)
    finally:
        box.stop()
        print(f"log: {box.log_path}")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
