#!/usr/bin/env python3
"""The idle benchmark: how much a box does when nobody uses it.

Starts `driftd run --config CONFIG` as systemd does — NOTIFY_SOCKET pointing at a datagram
socket it listens on, WATCHDOG_USEC from the unit's WatchdogSec — waits for READY=1, lets it
settle, then reads /proc over the measured window:

- CPU share of one core (utime + stime of every thread, from /proc/PID/stat);
- context switches per second, all threads (voluntary + involuntary, /proc/PID/task/*/status,
  polled twice a second so that threads which end in the window still count), and per thread
  name, so a wake-up that should not be there has a name; threads started in the window;
- RSS (VmRSS at the end, VmHWM), threads and descriptors;
- where the RSS is, at the end (/proc/PID/smaps): anonymous (heap, stacks, relocated data)
  and file-backed (code and read-only data of the executable and its libraries), and the
  mappings holding the most, so a megabyte has a name.

Prints a markdown table (or JSON with --json) and exits 1 when a target is missed, 2 when the
daemon could not be started. Used by scripts/bench-idle.sh (docs/performance.md).
"""

import argparse
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class NotifyListener(threading.Thread):
    """Receives sd_notify datagrams; sets `ready` at READY=1."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.5)
        self.ready = threading.Event()
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                data = self.sock.recv(4096).decode("utf-8", "replace")
            except socket.timeout:
                continue
            except OSError:
                return
            if "READY=1" in data.split("\n"):
                self.ready.set()


def start_box(arguments, directory, name, timeout=120):
    """Starts `arguments` (a `driftd run …`) as systemd would, NOTIFY_SOCKET in `directory`, its
    output in `directory`/driftd.log; waits for READY=1. Returns (process, log file); raises
    RuntimeError when READY=1 does not come within `timeout` seconds. Used by the mesh tools."""
    notify_path = os.path.join(directory, "notify.sock")
    listener = NotifyListener(notify_path)
    listener.start()
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    log = open(os.path.join(directory, "driftd.log"), "w")
    process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, env=env)
    ready = listener.ready.wait(timeout=timeout)
    listener.stop = True
    if not ready:
        raise RuntimeError(f"box {name} sent no READY=1 within {timeout} s (log: {directory}/driftd.log)")
    return process, log


def eventually(timeout, probe, interval=0.02):
    """`probe()`'s first value that is not None, polled every `interval` s for at most `timeout` s; else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value is not None:
            return value
        time.sleep(interval)
    return None


def stop_box(process, log):
    """SIGTERM, 20 s to exit, then SIGKILL; closes the log."""
    if process and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    if log:
        log.close()


def read(path):
    with open(path) as f:
        return f.read()


def cpu_ticks(pid):
    """utime + stime of the whole process (every thread, including ended ones)."""
    fields = read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def status_field(text, name):
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None


def unit_watchdog_seconds():
    """WatchdogSec of systemd/driftd.service (plain seconds or `Ns`), 0 when absent."""
    unit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "systemd", "driftd.service")
    try:
        for line in open(unit):
            if line.startswith("WatchdogSec="):
                return float(line.split("=", 1)[1].strip().rstrip("s"))
    except OSError:
        pass
    return 0


def switches(pid):
    """{thread id: (name, voluntary + involuntary context switches)}."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            text = read(f"/proc/{pid}/task/{tid}/status")
            name = read(f"/proc/{pid}/task/{tid}/comm").strip()
        except OSError:
            continue  # the thread ended between listing and reading
        count = int(status_field(text, "voluntary_ctxt_switches")) + int(status_field(text, "nonvoluntary_ctxt_switches"))
        out[tid] = (name, count)
    return out


def kilobytes(text, name):
    value = status_field(text, name)
    return int(value.split()[0]) if value else 0


def memory(pid, top=12):
    """RSS split by kind and by mapping, from /proc/PID/smaps (kB → MB).

    Each mapping's Rss is split into its Anonymous part (heap, stacks, copy-on-write pages of
    a library's relocated data) and the rest (clean or shared pages of the file: code, read-only
    data). Mappings are grouped by file name; those without one as [heap], [stack] or [anon].
    """
    groups = {}
    name = None
    for line in read(f"/proc/{pid}/smaps").splitlines():
        parts = line.split()
        if not parts:
            continue
        if not parts[0].endswith(":"):  # a mapping's header: range perms offset dev inode [path]
            path = " ".join(parts[5:]) if len(parts) > 5 else ""
            name = os.path.basename(path) if path.startswith("/") else (path or "[anon]")
            groups.setdefault(name, {"rss": 0, "anon": 0})
        elif parts[0] == "Rss:":
            groups[name]["rss"] += int(parts[1])
        elif parts[0] == "Anonymous:":
            groups[name]["anon"] += int(parts[1])
    status = read(f"/proc/{pid}/status")
    mb = lambda kb: round(kb / 1024, 1)
    ranked = sorted(((n, g) for n, g in groups.items() if g["rss"]), key=lambda kv: -kv[1]["rss"])
    return {
        "anonMB": mb(kilobytes(status, "RssAnon")),
        "fileMB": mb(kilobytes(status, "RssFile")),
        "shmemMB": mb(kilobytes(status, "RssShmem")),
        "topMappings": [{"name": n, "rssMB": mb(g["rss"]), "anonMB": mb(g["anon"])} for n, g in ranked[:top]],
    }


def measure(pid, seconds, poll=0.5):
    """The window's figures. Threads are polled every `poll` seconds: Dispatch's worker threads
    end after a few idle seconds and new ones start for the next job, and a thread that ended
    takes its context switches out of /proc with it — so each thread's last count seen is kept
    (a thread born in the window counts from 0; at most its last `poll` seconds are missed)."""
    start_ticks, start_switches, started = cpu_ticks(pid), switches(pid), time.monotonic()
    seen = dict(start_switches)
    while time.monotonic() - started < seconds:
        time.sleep(min(poll, max(0.0, seconds - (time.monotonic() - started))))
        seen.update(switches(pid))
    end_ticks, elapsed = cpu_ticks(pid), time.monotonic() - started
    per_name = {}
    total = 0
    for tid, (name, count) in seen.items():
        before = start_switches.get(tid, (name, 0))[1]  # a thread born in the window counts from 0
        delta = count - before
        total += delta
        per_name[name] = per_name.get(name, 0) + delta
    status = read(f"/proc/{pid}/status")
    return {
        "seconds": round(elapsed, 1),
        "cpuPercent": round(100.0 * (end_ticks - start_ticks) / CLOCK_TICKS / elapsed, 3),
        "contextSwitchesPerSecond": round(total / elapsed, 2),
        "switchesByThread": {name: round(count / elapsed, 2) for name, count in sorted(per_name.items(), key=lambda kv: -kv[1]) if count},
        "rssMB": round(kilobytes(status, "VmRSS") / 1024, 1),
        "peakRssMB": round(kilobytes(status, "VmHWM") / 1024, 1),
        "threads": int(status_field(status, "Threads")),
        "threadsStarted": len(set(seen) - set(start_switches)),
        "descriptors": len(os.listdir(f"/proc/{pid}/fd")),
        "memory": memory(pid),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driftd", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--notify", required=True, help="path of the notify socket to make")
    parser.add_argument("--log", required=True)
    parser.add_argument("--profile", default="default", help="label of the run (default, beacon)")
    parser.add_argument("--settle", type=float, default=20)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--max-switches", type=float, default=2.0, help="context switches per second, all threads")
    parser.add_argument("--watchdog-sec", type=float, default=unit_watchdog_seconds(),
                        help="WATCHDOG_USEC for driftd (default: WatchdogSec of systemd/driftd.service; 0 = none)")
    parser.add_argument("--max-cpu", type=float, default=0.1, help="percent of one core")
    parser.add_argument("--max-rss", type=float, default=30.0, help="MB resident at the end")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--wrap", default="", help="run driftd under this command (e.g. valgrind --tool=callgrind …, "
                        "for tools/startup-order.sh); the figures are then the wrapper's, not driftd's")
    parser.add_argument("--ready-timeout", type=float, default=60, help="seconds to wait for READY=1")
    parser.add_argument("--cold", action="store_true",
                        help="drop the binary's pages from the page cache first, so driftd starts as after a boot "
                             "(the resident code then does not depend on how the file came into the cache)")
    args = parser.parse_args()

    listener = NotifyListener(args.notify)
    listener.start()
    env = dict(os.environ, NOTIFY_SOCKET=args.notify)
    for name in ("WATCHDOG_USEC", "WATCHDOG_PID"):
        env.pop(name, None)
    # As systemd starts it: with the unit's watchdog, so the pings and the loops' liveness beats
    # it paces are part of what is measured.
    if args.watchdog_sec > 0:
        env["WATCHDOG_USEC"] = str(int(args.watchdog_sec * 1_000_000))
    log = open(args.log, "ab")
    if args.cold:
        descriptor = os.open(args.driftd, os.O_RDONLY)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(descriptor)
    daemon = subprocess.Popen(shlex.split(args.wrap) + [args.driftd, "run", "--config", args.config], env=env, stdout=log, stderr=log,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        if not listener.ready.wait(args.ready_timeout) or daemon.poll() is not None:
            print(f"idle: driftd did not say READY=1 within {args.ready_timeout:g} s (see {args.log})", file=sys.stderr)
            return 2
        time.sleep(args.settle)
        if daemon.poll() is not None:
            print(f"idle: driftd ended during the settle (see {args.log})", file=sys.stderr)
            return 2
        result = measure(daemon.pid, args.seconds)
    finally:
        listener.stop = True
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(120 if args.wrap else 30)  # a wrapper such as callgrind writes its profile at the exit
            except subprocess.TimeoutExpired:
                daemon.kill()
    result["profile"] = args.profile
    result["targets"] = {"contextSwitchesPerSecond": args.max_switches, "cpuPercent": args.max_cpu, "rssMB": args.max_rss}
    missed = [name for name, limit in result["targets"].items() if result[name] > limit]
    result["missed"] = missed
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"### Idle, {args.profile} profile: {result['seconds']} s after READY=1 + {args.settle:g} s settle\n")
        print("| measure | value | target | |")
        print("| --- | ---: | ---: | --- |")
        for name, label, unit in (("contextSwitchesPerSecond", "context switches", "/s"), ("cpuPercent", "CPU", " % of a core"),
                                  ("rssMB", "RSS", " MB")):
            limit = result["targets"][name]
            print(f"| {label} | {result[name]}{unit} | ≤ {limit:g}{unit} | {'**missed**' if name in missed else 'ok'} |")
        print(f"| peak RSS (VmHWM) | {result['peakRssMB']} MB | | |")
        print(f"| threads, descriptors | {result['threads']}, {result['descriptors']} | | |")
        print(f"| threads started in the window | {result['threadsStarted']} | | |")
        wakers = ", ".join(f"{name} {rate}/s" for name, rate in result["switchesByThread"].items()) or "none"
        print(f"\nContext switches by thread: {wakers}")
        mem = result["memory"]
        print(f"\nRSS at the end: {mem['anonMB']} MB anonymous, {mem['fileMB']} MB file-backed, {mem['shmemMB']} MB shared memory. "
              "Top mappings (MB resident, of which anonymous): "
              + ", ".join(f"{m['name']} {m['rssMB']} ({m['anonMB']})" for m in mem["topMappings"]))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
