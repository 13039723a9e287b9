#!/usr/bin/env python3
"""Festival benchmark for driftd: a crowd of phones, hostile slow clients and a burst of
password drops at once, with the daemon's memory, descriptors, threads and watchdog watched.

Started by scripts/bench-festival.sh, which builds driftd, writes its config, takes a core
with stress-ng and cleans up. This tool starts driftd itself (so it sees it exit), with
NOTIFY_SOCKET pointing at a datagram socket it listens on and WATCHDOG_USEC set, then:

  1. slow clients (--slow, from --slow-addresses addresses 127.0.1.1…): each connects, sends a
     request line and then one header line every 5 s, records what the door answers (408,
     429, 503 or a bare close) and connects again, until the run ends;
  2. visitors (--visitors), each a phone with an address of its own (127.0.0.2–127.0.0.255,
     reused beyond 254) and one kept-alive HTTP connection: mint a device token, the seed
     bottles are dropped, --sockets of them open one of --chats chat bottles and hold its
     live socket (/api/v1/bottles/{id}/live);
  3. for --duration seconds every visitor acts every --think-s seconds on average (exponential):
     list, look at a bottle, open one (with its password when it has one), drop one, and chat
     members post chat lines; every --burst-every seconds --burst visitors drop a password
     bottle at the same moment (503 busy with Retry-After is the documented answer when the
     hashing queue is full: counted apart, not an error).

Measured: latency per route (from the request's first byte, including a new connection's
connect, to the end of the answer), chat fan-out (from just before a line's POST to its
arrival on each other member's socket), driftd's VmRSS/VmHWM, descriptors and threads
(/proc, every 0.5 s), 5xx, visitors' connection errors, crash, and the watchdog pings
(kernel receive timestamps, SO_TIMESTAMP). Prints a markdown table (or --json) and exits 1
when a target is missed, 2 when the run could not be set up.

All traffic goes to 127.0.0.0/8. The client is one asyncio process: its scheduling is part of
every figure (see "client loop lag" in the report), so the figures are an upper bound.
Needs `websockets` (PyPI).
"""
import argparse, asyncio, collections, json, os, random, re, resource, signal, socket, struct, subprocess, sys, threading, time
import urllib.request

import websockets

IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)
SO_TIMESTAMP = getattr(socket, "SO_TIMESTAMP", 29)


def percentile(values, p):
    """Nearest-rank percentile of a sorted list (as tools/chat-fanout.py)."""
    if not values:
        return float("nan")
    return values[min(len(values) - 1, max(0, int(-(-len(values) * p // 1)) - 1))]


def visitor_address(index):
    """One address per phone: 127.0.0.2 … 127.0.0.255, reused beyond 254 phones."""
    return f"127.0.0.{2 + index % 254}"


def slow_address(index, count):
    n = index % count
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


def bound_socket(address):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_IP, IP_BIND_ADDRESS_NO_PORT, 1)
    except OSError:
        pass
    sock.bind((address, 0))
    sock.setblocking(False)
    return sock


async def connect_from(address, host, port, timeout):
    sock = bound_socket(address)
    try:
        await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (host, port)), timeout)
    except BaseException:
        sock.close()
        raise
    return sock


# ---------------------------------------------------------------------------------------------
# Watching the daemon: notify socket, /proc.

class NotifyListener(threading.Thread):
    """Receives sd_notify datagrams; records each with the kernel's receive time."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
        self.sock.bind(path)
        self.sock.settimeout(0.25)
        self.stop = threading.Event()
        self.messages = []  # (wall time, [assignments])
        self.ready = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16))
            except socket.timeout:
                continue
            except OSError:
                return
            at = time.time()
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMP and len(payload) >= 16:
                    seconds, micros = struct.unpack("qq", payload[:16])
                    at = seconds + micros / 1e6
            lines = data.decode(errors="replace").split("\n")
            self.messages.append((at, lines))
            if "READY=1" in lines:
                self.ready.set()

    def close(self):
        self.stop.set()
        self.join(2)
        self.sock.close()

    def pings(self):
        return [at for at, lines in self.messages if "WATCHDOG=1" in lines]

    def first(self, assignment):
        return next((at for at, lines in self.messages if assignment in lines), None)


def proc_status(pid):
    values = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM", "Threads"):
                    values[key] = int(rest.split()[0])
        values["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        values["cpu"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        pass
    return values


def thread_cpu(pid):
    """CPU seconds per thread name (/proc/PID/task/*/stat), largest first: where the daemon's
    CPU went. Threads sharing a name (the NIO event loops, the cooperative pool's workers) add up."""
    by_name = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        name = re.sub(r"[-#]?\d+$", "", name) or name   # NIO-ELT-0-#3 → NIO-ELT-0, passwords-1 → passwords
        by_name[name] = by_name.get(name, 0) + (int(fields[11]) + int(fields[12])) / tick
    return dict(sorted(((k, round(v, 1)) for k, v in by_name.items()), key=lambda kv: -kv[1]))


class Sampler(threading.Thread):
    def __init__(self, pid, every=0.5):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.stop = threading.Event()
        self.samples = []

    def run(self):
        while not self.stop.wait(self.every):
            values = proc_status(self.pid)
            if values:
                self.samples.append((time.monotonic(), values))

    def close(self):
        self.stop.set()
        self.join(2)


# ---------------------------------------------------------------------------------------------
# Recording.

class Stats:
    def __init__(self):
        self.latency = collections.defaultdict(list)   # route -> [ms]
        self.status = collections.defaultdict(collections.Counter)  # route -> Counter(class)
        self.connection_errors = collections.Counter()  # route -> n
        self.error_samples = []
        self.stale_retries = 0
        self.slow = collections.Counter()
        self.slow_open = 0
        self.slow_open_samples = []
        self.slow_max_hold = 0.0
        self.live_dropped = 0
        self.live_failed = collections.Counter()
        self.loop_lag = []
        self.unexpected_5xx = []

    def record(self, route, status, code, ms):
        self.latency[route].append(ms)
        if status == 503 and code == "busy":
            kind = "503 busy"
        elif status == 429:
            kind = "429"
        elif 101 <= status < 300:   # 101: a live socket's upgrade
            kind = "2xx"
        elif 400 <= status < 500:
            kind = "4xx"
        else:
            kind = "5xx"
            if len(self.unexpected_5xx) < 20:
                self.unexpected_5xx.append(f"{route}: {status} {code}")
        self.status[route][kind] += 1
        if 400 <= status < 500 and status != 429:
            self.status[route][str(status)] += 1

    def failed(self, route, error):
        self.connection_errors[route] += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(f"{route}: {type(error).__name__} {error}")


class ConnectionFailed(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# A phone: one address, kept-alive HTTP/1.1 connections as a browser keeps them (one per request
# in flight, at most 6 kept idle; a raw asyncio client, so that each phone's connections come
# from its own address).

async def read_response(reader):
    """(status, headers, payload, reusable) of one HTTP/1.1 answer."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
    reusable = headers.get("connection", "").lower() != "close"
    if "content-length" in headers:
        payload = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        for _ in range(100000):
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            chunks.append(chunk[:-2])
        payload = b"".join(chunks)
    else:
        payload = await reader.read()
        reusable = False
    return status, headers, payload, reusable


class Phone:
    def __init__(self, index, host, port, stats):
        self.index, self.host, self.port, self.stats = index, host, port, stats
        self.address = visitor_address(index)
        self.idle = []          # kept-alive (reader, writer) pairs
        self.token = None
        self.chat = None        # the chat bottle this phone sits in, if any
        self.seen = []          # bottle ids from its last list

    def close(self):
        for _, writer in self.idle:
            writer.close()
        self.idle = []

    async def request(self, method, path, route, body=None, token=True, timeout=30):
        """Sends one request; returns (status, json or None, ms) or raises ConnectionFailed
        (counted). A kept-alive connection the box closed meanwhile is reopened once, as a
        browser does."""
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", "User-Agent: festival-bench"]
        if token and self.token:
            head.append(f"Authorization: Bearer {self.token}")
        if body is not None:
            head.append("Content-Type: application/json")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {len(data)}")
        wire = ("\r\n".join(head) + "\r\n\r\n").encode() + data
        for attempt in range(2):
            connection = self.idle.pop() if self.idle else None
            reused = connection is not None
            start = time.monotonic()
            writer = connection[1] if connection else None
            try:
                if not reused:
                    sock = await connect_from(self.address, self.host, self.port, 10)
                    connection = await asyncio.open_connection(sock=sock, limit=1 << 22)
                reader, writer = connection
                writer.write(wire)
                await writer.drain()
                status, headers, payload, reusable = await asyncio.wait_for(read_response(reader), timeout)
            except (asyncio.IncompleteReadError, ConnectionError) as error:
                if writer is not None:
                    writer.close()
                if reused and attempt == 0 and not getattr(error, "partial", b""):
                    self.stats.stale_retries += 1
                    continue
                self.stats.failed(route, error)
                raise ConnectionFailed(str(error)) from error
            except (OSError, asyncio.TimeoutError, ValueError, IndexError, asyncio.LimitOverrunError) as error:
                if writer is not None:
                    writer.close()
                self.stats.failed(route, error)
                raise ConnectionFailed(repr(error)) from error
            except BaseException:
                if writer is not None:
                    writer.close()
                raise
            ms = (time.monotonic() - start) * 1000
            if reusable and len(self.idle) < 6:
                self.idle.append(connection)
            else:
                writer.close()
            try:
                document = json.loads(payload) if payload else None
            except ValueError:
                document = None
            code = document.get("error", {}).get("code") if isinstance(document, dict) and "error" in document else None
            self.stats.record(route, status, code, ms)
            return status, document, ms
        raise ConnectionFailed("unreachable")


# ---------------------------------------------------------------------------------------------
# Slow clients.

async def slow_client(index, args, stats, stop_at, start_delay):
    await asyncio.sleep(start_delay)
    address = slow_address(index, args.slow_addresses)
    for _ in range(int(args.duration + 600)):  # bounded: at most one connection a second
        if time.monotonic() >= stop_at:
            return
        opened = None
        writer = None
        try:
            sock = await connect_from(address, args.host, args.port, 10)
            reader, writer = await asyncio.open_connection(sock=sock)
            opened = time.monotonic()
            stats.slow_open += 1
            writer.write(f"GET /api/v1/bottles HTTP/1.1\r\nHost: {args.host}\r\n".encode())
            outcome = "still open at the end"
            for line in range(200):
                try:
                    data = await asyncio.wait_for(reader.read(512), 5)
                except asyncio.TimeoutError:
                    if time.monotonic() >= stop_at:
                        break
                    writer.write(f"X-Slow-{line}: {line}\r\n".encode())
                    continue
                if not data:
                    outcome = "closed, no answer"
                elif data.startswith(b"HTTP/1."):
                    outcome = data.split(b" ", 2)[1].decode(errors="replace")
                else:
                    outcome = "other bytes"
                break
            stats.slow[outcome] += 1
        except (ConnectionError, BrokenPipeError):
            stats.slow["reset" if opened else "connect refused/reset"] += 1
        except (OSError, asyncio.TimeoutError):
            stats.slow["connect failed/timed out"] += 1
        finally:
            if opened is not None:
                stats.slow_open -= 1
                stats.slow_max_hold = max(stats.slow_max_hold, time.monotonic() - opened)
            if writer is not None:
                writer.close()
        await asyncio.sleep(1 + random.random())


# ---------------------------------------------------------------------------------------------
# Chat: live sockets and fan-out.

class Chat:
    def __init__(self, bottle):
        self.bottle = bottle
        self.members = []        # phones
        self.connected = set()   # phone indices with a live socket that said hello


class FanOut:
    def __init__(self):
        self.sent = {}       # key -> (time, chat, sender index, expected recipients)
        self.arrivals = collections.defaultdict(dict)  # key -> {phone index: time}
        self.counter = 0


async def live_socket(phone, chat, args, stats, fanout, ready, stop):
    url = f"ws://{args.host}:{args.port}/api/v1/bottles/{chat.bottle}/live?token={phone.token}"
    for attempt in range(5):
        if stop.is_set():
            return
        start = time.monotonic()
        try:
            sock = await connect_from(phone.address, args.host, args.port, 10)
            async with websockets.connect(url, sock=sock, max_queue=None, ping_interval=None,
                                          open_timeout=30, close_timeout=2) as ws:
                stats.record("GET /api/v1/bottles/{id}/live (upgrade)", 101, None, (time.monotonic() - start) * 1000)
                while not stop.is_set():
                    try:
                        text = await asyncio.wait_for(ws.recv(), 1)
                    except asyncio.TimeoutError:
                        continue
                    at = time.monotonic()
                    event = json.loads(text)
                    kind = event.get("type")
                    if kind == "hello":
                        chat.connected.add(phone.index)
                        ready.add(phone.index)
                    elif kind == "message":
                        key = event.get("message", {}).get("text", "")
                        if key in fanout.sent:
                            fanout.arrivals[key][phone.index] = at
                    elif kind == "lifecycle" and event.get("state") == "expired":
                        break
                return
        except websockets.exceptions.InvalidStatus as error:
            status = error.response.status_code
            stats.record("GET /api/v1/bottles/{id}/live (upgrade)", status, None, (time.monotonic() - start) * 1000)
            stats.live_failed[str(status)] += 1
        except websockets.exceptions.ConnectionClosed:
            if not stop.is_set():
                stats.live_dropped += 1
        except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException) as error:
            stats.failed("GET /api/v1/bottles/{id}/live (upgrade)", error)
            stats.live_failed[type(error).__name__] += 1
        finally:
            chat.connected.discard(phone.index)
        await asyncio.sleep(1)


# ---------------------------------------------------------------------------------------------
# Visitors.

class Pool:
    """The bottles the crowd knows of, with the password of those that have one."""

    def __init__(self):
        self.bottles = {}

    def add(self, bottle, password=None):
        self.bottles[bottle] = password

    def gone(self, bottle):
        self.bottles.pop(bottle, None)

    def pick(self, seen):
        candidates = [b for b in seen if b in self.bottles] or list(self.bottles)
        return random.choice(candidates) if candidates else None


def drop_body(index, password=None):
    body = {"text": f"festival bottle {index}", "hint": "by the big stage"}
    if password:
        body["conditions"] = [{"kind": "password", "password": password, "hint": "the band's name"}]
    elif index % 2:
        body["conditions"] = [{"kind": "daysOfWeek", "days": ["monday", "tuesday", "wednesday", "thursday",
                                                               "friday", "saturday", "sunday"]}]
    return body


async def drop(phone, pool, index, password=None):
    route = "POST /api/v1/bottles (password)" if password else "POST /api/v1/bottles"
    status, document, _ = await phone.request("POST", "/api/v1/bottles", route, drop_body(index, password))
    if status == 201 and document:
        pool.add(document["id"], password)
    return status


async def act(phone, pool, fanout, stats, counter):
    """One action of a phone, picked from a realistic mix."""
    roll = random.random()
    member = phone.chat is not None
    # chat members: chat 20 %, list 44 %, look 16 %, open 19 %, drop 1 %;
    # the others:   list 55 %, look 20 %, open 22 %, drop 3 %. A fifth of the drops have a password.
    if member and roll < 0.20:
        fanout.counter += 1
        key = f"fest-{fanout.counter}-{phone.index}"
        expected = set(phone.chat.connected) - {phone.index}
        fanout.sent[key] = (time.monotonic(), phone.chat, phone.index, expected)
        status, _, _ = await phone.request("POST", f"/api/v1/bottles/{phone.chat.bottle}/messages",
                                           "POST /api/v1/bottles/{id}/messages", {"text": key, "language": "en"})
        if status != 201:
            fanout.sent.pop(key, None)
        return
    roll = (roll - 0.20) / 0.80 if member else roll
    if roll < 0.55:
        status, document, _ = await phone.request("GET", "/api/v1/bottles", "GET /api/v1/bottles")
        if status == 200 and document:
            phone.seen = [b["id"] for b in document.get("bottles", [])][:200]
    elif roll < 0.75:
        bottle = pool.pick(phone.seen)
        if bottle:
            status, _, _ = await phone.request("GET", f"/api/v1/bottles/{bottle}", "GET /api/v1/bottles/{id}")
            if status == 404:
                pool.gone(bottle)
    elif roll < (0.99 if member else 0.97):
        bottle = pool.pick(phone.seen)
        if bottle:
            password = pool.bottles.get(bottle)
            body = {"password": password} if password else {}
            status, _, _ = await phone.request("POST", f"/api/v1/bottles/{bottle}/open",
                                               "POST /api/v1/bottles/{id}/open", body)
            if status in (404, 409):
                pool.gone(bottle)
    else:
        counter[0] += 1
        password = f"pw-{counter[0]}" if random.random() < 0.2 else None
        await drop(phone, pool, counter[0], password)


async def visitor_loop(phone, args, pool, fanout, stats, counter, stop_at, crashed):
    await asyncio.sleep(random.random() * args.think_s)
    for _ in range(int(args.duration * 20) + 10):   # bounded in count as in time
        if time.monotonic() >= stop_at or crashed.is_set():
            return
        try:
            await act(phone, pool, fanout, stats, counter)
        except ConnectionFailed:
            await asyncio.sleep(1)
        pause = min(random.expovariate(1 / args.think_s), 4 * args.think_s, max(0, stop_at - time.monotonic()))
        try:
            await asyncio.wait_for(crashed.wait(), pause)   # the pause, cut short when driftd is gone
        except asyncio.TimeoutError:
            pass


async def password_bursts(phones, args, pool, counter, stats, stop_at, start_at):
    bursts = []
    at = start_at
    rotation = 0
    for _ in range(1000):
        if at >= stop_at:
            break
        await asyncio.sleep(max(0, at - time.monotonic()))
        if time.monotonic() >= stop_at:
            break
        chosen = [phones[(rotation + i) % len(phones)] for i in range(min(args.burst, len(phones)))]
        rotation += len(chosen)
        started = time.monotonic()
        jobs = []
        for phone in chosen:
            counter[0] += 1
            jobs.append(drop(phone, pool, counter[0], f"burst-{counter[0]}"))
        results = await asyncio.gather(*jobs, return_exceptions=True)
        outcome = collections.Counter(str(r) if isinstance(r, int) else "connection error" for r in results)
        bursts.append({"at": round(started - start_at + args.burst_first, 1), "drops": len(chosen),
                       "answers": dict(outcome), "seconds": round(time.monotonic() - started, 2)})
        at += args.burst_every
    return bursts


async def loop_lag(stats, stop):
    while not stop.is_set():
        before = time.monotonic()
        await asyncio.sleep(0.05)
        stats.loop_lag.append((time.monotonic() - before - 0.05) * 1000)


async def slow_gauge(stats, stop):
    while not stop.is_set():
        stats.slow_open_samples.append(stats.slow_open)
        await asyncio.sleep(1)


# ---------------------------------------------------------------------------------------------

async def run(args, daemon, stats):
    """The load. Returns the facts the report needs beyond Stats."""
    facts = {}
    loop_stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(stats, loop_stop))
    crashed = asyncio.Event()

    async def watch_daemon():
        while not crashed.is_set():
            if daemon.poll() is not None:
                facts["crashedAt"] = round(time.monotonic() - facts.get("t0", time.monotonic()), 1)
                crashed.set()
                return
            await asyncio.sleep(0.2)

    watcher = asyncio.create_task(watch_daemon())
    facts["t0"] = time.monotonic()
    # Slow clients first: they hold the door for the whole run (setup included).
    slow_until = time.monotonic() + args.setup_limit + args.duration + 30
    slow_tasks = [asyncio.create_task(slow_client(i, args, stats, slow_until, 5 * i / max(1, args.slow)))
                  for i in range(args.slow)]
    gauge = asyncio.create_task(slow_gauge(stats, loop_stop))
    await asyncio.sleep(min(6, args.duration / 3) if args.slow else 0)
    facts["slowOpenAtSetup"] = stats.slow_open

    phones = [Phone(i, args.host, args.port, stats) for i in range(args.visitors)]
    setup_deadline = time.monotonic() + args.setup_limit
    gate = asyncio.Semaphore(32)

    async def mint(phone):
        async with gate:
            for _ in range(10):
                if time.monotonic() > setup_deadline or crashed.is_set():
                    return
                try:
                    status, document, _ = await phone.request("POST", "/api/v1/visitors", "POST /api/v1/visitors",
                                                              token=False)
                except ConnectionFailed:
                    await asyncio.sleep(1)
                    continue
                if status == 201 or (status == 200 and document):
                    phone.token = document["token"]
                    return
                await asyncio.sleep(1)

    await asyncio.gather(*(mint(p) for p in phones))
    phones = [p for p in phones if p.token]
    facts["tokens"] = len(phones)
    if not phones:
        facts["setupFailed"] = "no visitor token could be made"
        return facts, [], FanOut(), []

    pool = Pool()
    counter = [0]
    # Seed bottles, dropped by the last phones (not chat members), one each.
    seeders = phones[::-1][:args.seed]

    async def seed(phone):
        async with gate:
            counter[0] += 1
            try:
                await drop(phone, pool, counter[0])
            except ConnectionFailed:
                pass

    await asyncio.gather(*(seed(p) for p in seeders))
    # Chats: member 0 of each drops the chat bottle; every member opens it and goes live.
    members = phones[:min(args.sockets, len(phones))]
    chats = []
    for c in range(min(args.chats, len(members))):
        group = members[c::args.chats]
        try:
            status, document, _ = await group[0].request("POST", "/api/v1/bottles", "POST /api/v1/bottles",
                                                         {"text": f"festival chat {c}", "hint": "come and talk"})
        except ConnectionFailed:
            continue
        if status != 201:
            continue
        chat = Chat(document["id"])
        chat.members = group
        chats.append(chat)

    async def join(phone, chat):
        async with gate:
            try:
                status, _, _ = await phone.request("POST", f"/api/v1/bottles/{chat.bottle}/open",
                                                   "POST /api/v1/bottles/{id}/open", {})
            except ConnectionFailed:
                return
            if status == 200:
                phone.chat = chat

    await asyncio.gather(*(join(p, chat) for chat in chats for p in chat.members))
    fanout = FanOut()
    ready = set()
    live_stop = asyncio.Event()
    live_tasks = [asyncio.create_task(live_socket(p, p.chat, args, stats, fanout, ready, live_stop))
                  for p in phones if p.chat is not None]
    wanted = len(live_tasks)
    for _ in range(int(args.setup_limit * 10)):
        if len(ready) >= wanted or time.monotonic() > setup_deadline or crashed.is_set():
            break
        await asyncio.sleep(0.1)
    facts["chats"] = len(chats)
    facts["liveSockets"] = len(ready)
    facts["liveWanted"] = args.sockets
    facts["setupSeconds"] = round(time.monotonic() - facts["t0"], 1)
    facts["slowOpenAtMix"] = stats.slow_open

    # The mix.
    mix_start = time.monotonic()
    stop_at = mix_start + args.duration
    stats_before = {route: len(v) for route, v in stats.latency.items()}
    visitors = [asyncio.create_task(visitor_loop(p, args, pool, fanout, stats, counter, stop_at, crashed))
                for p in phones]
    bursts_task = asyncio.create_task(password_bursts(phones[::-1], args, pool, counter, stats, stop_at,
                                                      mix_start + args.burst_first))
    await asyncio.gather(*visitors, return_exceptions=True)
    bursts = await bursts_task
    facts["mixSeconds"] = round(time.monotonic() - mix_start, 1)
    facts["mixRequests"] = sum(len(v) for v in stats.latency.values()) - sum(stats_before.values())
    mix_gauge = stats.slow_open_samples[int(mix_start - facts["t0"]):] or [0]
    facts["slowOpenDuringMix"] = {"min": min(mix_gauge), "median": sorted(mix_gauge)[len(mix_gauge) // 2],
                                  "max": max(mix_gauge)}
    # Late deliveries: wait up to 5 s for every expected arrival.
    for _ in range(50):
        if all(set(fanout.arrivals.get(k, {})) >= exp for k, (_, _, _, exp) in fanout.sent.items()):
            break
        await asyncio.sleep(0.1)
    facts["liveAtEnd"] = sum(len(c.connected) for c in chats)
    live_stop.set()
    await asyncio.gather(*live_tasks, return_exceptions=True)
    for task in slow_tasks:
        task.cancel()
    await asyncio.gather(*slow_tasks, return_exceptions=True)
    loop_stop.set()
    crashed.set()   # ends the watcher
    await asyncio.gather(lag_task, gauge, watcher, return_exceptions=True)
    for phone in phones:
        phone.close()
    facts["drops"] = counter[0]
    facts["bottlesKnown"] = len(pool.bottles)
    return facts, bursts, fanout, chats


def scrape_metrics(url):
    wanted = {}
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
        with opener.open(url, timeout=5) as response:
            for line in response.read().decode().splitlines():
                if line.startswith(("driftd_http_", "driftd_password_hashing_")):
                    name, _, value = line.rpartition(" ")
                    wanted[name] = float(value)
    except OSError:
        return None
    return wanted


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driftd", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--metrics", help="the daemon's metrics URL")
    parser.add_argument("--notify", required=True, help="path for the sd_notify socket")
    parser.add_argument("--log", required=True, help="driftd's log file")
    parser.add_argument("--pid-file")
    parser.add_argument("--watchdog-usec", type=int, default=2_000_000)
    parser.add_argument("--nofile", type=int, default=8192, help="driftd's descriptor limit, as the unit's LimitNOFILE")
    parser.add_argument("--visitors", type=int, default=300)
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--chats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=50, help="bottles dropped before the mix")
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--slow-addresses", type=int, default=250)
    parser.add_argument("--burst", type=int, default=40)
    parser.add_argument("--burst-every", type=float, default=30)
    parser.add_argument("--burst-first", type=float, default=None, help="seconds into the mix (default: a quarter)")
    parser.add_argument("--duration", type=float, default=120)
    parser.add_argument("--think-s", type=float, default=5)
    parser.add_argument("--setup-limit", type=float, default=120)
    parser.add_argument("--stress-cpus", default="?")
    parser.add_argument("--build", default="?")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.visitors < 1 or args.sockets > args.visitors or args.chats < 1 or not 1 <= args.slow_addresses <= 250 * 254:
        parser.error("need visitors ≥ 1, sockets ≤ visitors, chats ≥ 1, 1 ≤ slow-addresses ≤ 63500")
    if args.burst_first is None:
        args.burst_first = args.duration / 4
    def interrupted(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    # The script runs this tool in the background (SIGINT ignored) and sends SIGTERM on Ctrl-C:
    # both end the run through the cleanup below, which stops driftd.
    signal.signal(signal.SIGTERM, interrupted)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.slow + args.visitors + args.sockets + 200:
        print(f"festival: descriptor limit {hard} is too low for this run", file=sys.stderr)
        return 2

    version = subprocess.run([args.driftd, "version"], capture_output=True, text=True, timeout=30).stdout.strip()
    # Bound before driftd starts (datagrams wait in the socket), read by the thread started below.
    listener = NotifyListener(args.notify)
    env = dict(os.environ, NOTIFY_SOCKET=args.notify, WATCHDOG_USEC=str(args.watchdog_usec))
    env.pop("WATCHDOG_PID", None)
    nofile = min(args.nofile, hard) if args.nofile > 0 else hard

    def limit_descriptors():   # as the unit's LimitNOFILE, for driftd only (no other thread runs yet)
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    log = open(args.log, "ab")
    started = time.time()
    daemon = subprocess.Popen([args.driftd, "run", "--config", args.config], env=env, stdout=log, stderr=log,
                              stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=limit_descriptors)
    listener.start()
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(f"{daemon.pid}\n")
    sampler = Sampler(daemon.pid)
    sampler.start()
    stats = Stats()
    facts, bursts, fanout, chats = {}, [], FanOut(), []
    exit_code = None
    shutdown_seconds = None
    stopped_at = None
    try:
        if not listener.ready.wait(60) or daemon.poll() is not None:
            print(f"festival: driftd did not say READY=1 within 60 s (see {args.log})", file=sys.stderr)
            return 2
        ready_seconds = listener.first("READY=1") - started
        facts, bursts, fanout, chats = asyncio.run(run(args, daemon, stats))
        end_status = proc_status(daemon.pid)
        end_threads = thread_cpu(daemon.pid)
        metrics = scrape_metrics(args.metrics) if args.metrics and daemon.poll() is None else None
        crashed_during = daemon.poll() is not None
        stopped_at = time.time()
        if not crashed_during:
            daemon.send_signal(signal.SIGTERM)
            t = time.monotonic()
            try:
                daemon.wait(30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait(10)
            shutdown_seconds = time.monotonic() - t
        exit_code = daemon.returncode
    finally:
        sampler.close()
        listener.close()
        if daemon.poll() is None:
            daemon.terminate()
            try:
                daemon.wait(10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait(10)
        log.close()
        try:
            os.unlink(args.notify)
        except OSError:
            pass
    if facts.get("setupFailed"):
        print(f"festival: {facts['setupFailed']} (see {args.log})", file=sys.stderr)
        return 2

    # ------------------------------------------------------------------------- the figures
    routes = {}
    for route in sorted(stats.latency):
        values = sorted(stats.latency[route])
        count = stats.status[route]
        routes[route] = {"requests": len(values), "p50Ms": round(percentile(values, 0.5), 1),
                         "p99Ms": round(percentile(values, 0.99), 1), "maxMs": round(values[-1], 1),
                         "2xx": count["2xx"], "4xx": count["4xx"], "429": count["429"], "busy503": count["503 busy"],
                         "5xx": count["5xx"], "connectionErrors": stats.connection_errors[route],
                         "statuses4xx": {k: v for k, v in count.items() if k.isdigit()}}
    for route, n in stats.connection_errors.items():
        routes.setdefault(route, {"requests": 0, "p50Ms": None, "p99Ms": None, "maxMs": None, "2xx": 0, "4xx": 0,
                                  "429": 0, "busy503": 0, "5xx": 0, "connectionErrors": n, "statuses4xx": {}})
    delays, last = [], []
    missing = 0
    for key, (sent, chat, sender, expected) in fanout.sent.items():
        got = fanout.arrivals.get(key, {})
        line = [(got[i] - sent) * 1000 for i in expected if i in got]
        missing += len(expected) - len(line)
        delays.extend(line)
        if line:
            last.append(max(line))
    delays.sort()
    last.sort()
    samples = [v for _, v in sampler.samples]
    door_cap = descriptor_limit = None
    logged_errors = {}   # message → count, for lines logged at error or worse
    try:
        with open(args.log, errors="replace") as f:
            for line in f:
                parts = line.split(" ", 3)
                if len(parts) == 4 and parts[1] in ("error", "critical"):
                    message = parts[3].split(" bottle=")[0].split(" box=")[0].strip()
                    logged_errors[message] = logged_errors.get(message, 0) + 1
                if "visitor connections capped" in line:
                    fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
                    door_cap, descriptor_limit = fields.get("connections"), fields.get("descriptorLimit")
    except OSError:
        pass
    rss_peak_kb = max([v.get("VmHWM", 0) for v in samples] + [end_status.get("VmHWM", 0)])
    pings = [at for at in listener.pings() if stopped_at is None or at <= stopped_at]
    interval = args.watchdog_usec / 1e6
    ready_at = listener.first("READY=1")
    marks = [ready_at] + pings + ([stopped_at] if stopped_at else [])
    gaps = [b - a for a, b in zip(marks, marks[1:])]
    lag = sorted(stats.loop_lag)
    client_cpu = resource.getrusage(resource.RUSAGE_SELF)
    crashed = facts.get("crashedAt") is not None or exit_code is None or exit_code != 0
    unexpected_5xx = sum(r["5xx"] for r in routes.values())
    visitor_errors = sum(stats.connection_errors.values()) + stats.live_dropped
    list_route = routes.get("GET /api/v1/bottles", {})
    figures = {
        "driftd": version, "build": args.build, "stressCpus": args.stress_cpus,
        "load": {"visitors": args.visitors, "tokens": facts.get("tokens"), "liveSockets": facts.get("liveSockets"),
                 "liveWanted": facts.get("liveWanted"), "chats": facts.get("chats"), "slowClients": args.slow,
                 "slowAddresses": args.slow_addresses, "burst": args.burst, "burstEvery": args.burst_every,
                 "durationSeconds": args.duration, "thinkSeconds": args.think_s, "seedBottles": args.seed},
        "setupSeconds": facts.get("setupSeconds"), "mixSeconds": facts.get("mixSeconds"),
        "mixRequests": facts.get("mixRequests"), "readySeconds": round(ready_seconds, 2),
        "routes": routes,
        "chatFanOut": {"lines": len(fanout.sent), "deliveries": len(delays), "missing": missing,
                       "p50Ms": round(percentile(delays, 0.5), 1), "p99Ms": round(percentile(delays, 0.99), 1),
                       "maxMs": round(delays[-1], 1) if delays else None,
                       "lastSocketP99Ms": round(percentile(last, 0.99), 1)},
        "passwordBursts": bursts,
        "slowClients": {"answers": dict(stats.slow), "openAtSetup": facts.get("slowOpenAtSetup"),
                        "openAtMixStart": facts.get("slowOpenAtMix"), "openDuringMix": facts.get("slowOpenDuringMix"),
                        "longestHoldSeconds": round(stats.slow_max_hold, 1)},
        "daemon": {"doorCap": door_cap, "descriptorLimit": descriptor_limit, "rssPeakMB": round(rss_peak_kb / 1024, 1), "rssEndMB": round(end_status.get("VmRSS", 0) / 1024, 1),
                   "fdsPeak": max([v.get("fds", 0) for v in samples] or [0]), "fdsEnd": end_status.get("fds"),
                   "threadsPeak": max([v.get("Threads", 0) for v in samples] or [0]),
                   "threadsEnd": end_status.get("Threads"), "cpuSeconds": round(end_status.get("cpu", 0), 1),
                   "cpuByThread": end_threads,
                   "crashedAtSeconds": facts.get("crashedAt"), "exitCode": exit_code,
                   "shutdownSeconds": round(shutdown_seconds, 2) if shutdown_seconds is not None else None,
                   "loggedErrors": logged_errors},
        "watchdog": {"intervalSeconds": interval, "pings": len(pings),
                     "seconds": round((marks[-1] - ready_at), 1) if len(marks) > 1 else 0,
                     "maxGapSeconds": round(max(gaps), 2) if gaps else None,
                     "missed": sum(1 for g in gaps if g > interval)},
        "visitorConnectionErrors": visitor_errors, "liveSocketsDropped": stats.live_dropped,
        "liveSocketFailures": dict(stats.live_failed), "staleKeepAliveRetries": stats.stale_retries,
        "errorSamples": stats.error_samples, "unexpected5xx": stats.unexpected_5xx,
        "clientLoopLagMs": {"p50": round(percentile(lag, 0.5), 1), "p99": round(percentile(lag, 0.99), 1),
                            "max": round(lag[-1], 1) if lag else None},
        "clientCpuSeconds": round(client_cpu.ru_utime + client_cpu.ru_stime, 1),
        "metrics": metrics,
    }
    targets = [
        ("crashes", 0 if not crashed else 1, "0", not crashed),
        ("5xx (not 503 busy)", unexpected_5xx, "0", unexpected_5xx == 0),
        ("p99 GET /api/v1/bottles", f"{list_route.get('p99Ms')} ms", "≤ 250 ms",
         bool(list_route.get("requests")) and list_route["p99Ms"] <= 250),
        ("chat fan-out p99", f"{figures['chatFanOut']['p99Ms']} ms", "≤ 100 ms",
         bool(delays) and figures["chatFanOut"]["p99Ms"] <= 100 and missing == 0),
        ("visitors served beside slow clients", f"{facts.get('mixRequests')} requests, {visitor_errors} connection errors",
         "0 errors", visitor_errors == 0 and (facts.get("mixRequests") or 0) > 0
         and facts.get("liveSockets") == facts.get("liveWanted") and facts.get("tokens") == args.visitors),
        ("RSS peak", f"{figures['daemon']['rssPeakMB']} MB", "≤ 100 MB", figures["daemon"]["rssPeakMB"] <= 100),
        ("watchdog pings missed", figures["watchdog"]["missed"], "0",
         figures["watchdog"]["missed"] == 0 and len(pings) > 0),
    ]
    figures["targets"] = {name: {"value": value, "target": target, "met": met} for name, value, target, met in targets}
    figures["passed"] = all(met for *_, met in targets)
    if args.json:
        print(json.dumps(figures, sort_keys=True, indent=1, default=str))
    else:
        print_report(figures, targets)
    return 0 if figures["passed"] else 1


def print_report(f, targets):
    load = f["load"]
    out = print
    out(f"### Festival benchmark — {f['driftd']}, {f['build']} build, stress-ng --cpu {f['stressCpus']}")
    out("")
    out(f"{load['tokens']}/{load['visitors']} visitor tokens, {load['liveSockets']}/{load['liveWanted']} live chat sockets "
        f"in {load['chats']} chats, {load['slowClients']} slow clients from {load['slowAddresses']} addresses, "
        f"password bursts of {load['burst']} every {load['burstEvery']:g} s; mix {f['mixSeconds']} s "
        f"(think {load['thinkSeconds']:g} s) after {f['setupSeconds']} s of setup; {f['mixRequests']} requests in the mix.")
    out("")
    out("| target | measured | wanted | |")
    out("| --- | --- | --- | --- |")
    for name, value, target, met in targets:
        out(f"| {name} | {value} | {target} | {'ok' if met else '**missed**'} |")
    out("")
    out("| route | requests | p50 ms | p99 ms | max ms | 2xx | 4xx | 429 | 503 busy | 5xx | conn. errors |")
    out("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for route, r in f["routes"].items():
        four = r["4xx"]
        if r["statuses4xx"]:
            four = f"{four} ({', '.join(f'{k}×{v}' for k, v in sorted(r['statuses4xx'].items()))})"
        out(f"| {route} | {r['requests']} | {r['p50Ms']} | {r['p99Ms']} | {r['maxMs']} | {r['2xx']} | {four} | {r['429']} "
            f"| {r['busy503']} | {r['5xx']} | {r['connectionErrors']} |")
    c = f["chatFanOut"]
    out("")
    out("| measure | value |")
    out("| --- | --- |")
    out(f"| chat fan-out (post → each other socket) | p50 {c['p50Ms']} ms, p99 {c['p99Ms']} ms, max {c['maxMs']} ms; "
        f"{c['lines']} lines, {c['deliveries']} deliveries, {c['missing']} missing |")
    out(f"| chat line on its last socket | p99 {c['lastSocketP99Ms']} ms |")
    d = f["daemon"]
    out(f"| driftd RSS | peak {d['rssPeakMB']} MB (VmHWM), end {d['rssEndMB']} MB |")
    out(f"| driftd descriptors | peak {d['fdsPeak']}, end {d['fdsEnd']}; limit {d['descriptorLimit']}, "
        f"door cap {d['doorCap']} connections |")
    out(f"| driftd threads | peak {d['threadsPeak']}, end {d['threadsEnd']} |")
    errors = d.get("loggedErrors") or {}
    out(f"| driftd errors logged | {sum(errors.values())}"
        + (": " + "; ".join(f"{count}× {message}" for message, count in sorted(errors.items(), key=lambda kv: -kv[1])) if errors else "")
        + " |")
    if d["crashedAtSeconds"] is not None:
        code = d["exitCode"]
        ending = f"**exited during the run, {d['crashedAtSeconds']} s after the load began: " + (
            f"signal {-code}**" if code is not None and code < 0 else f"exit status {code}**")
    else:
        ending = f"SIGTERM → exit status {d['exitCode']} after {d['shutdownSeconds']} s"
    out(f"| driftd CPU, start, end | {d['cpuSeconds']} s of CPU; READY=1 after {f['readySeconds']} s; {ending} |")
    if d.get("cpuByThread"):
        out("| driftd CPU by thread | " + ", ".join(f"{name} {seconds} s" for name, seconds in d["cpuByThread"].items() if seconds >= 0.1) + " |")
    w = f["watchdog"]
    out(f"| watchdog (WATCHDOG_USEC {w['intervalSeconds']:g} s) | {w['pings']} pings in {w['seconds']} s, "
        f"longest gap {w['maxGapSeconds']} s, {w['missed']} missed |")
    s = f["slowClients"]
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(s["answers"].items(), key=lambda kv: -kv[1]))
    mix = s["openDuringMix"] or {}
    out(f"| slow clients: answers | {answers or 'none'} |")
    out(f"| slow clients: open at once | {s['openAtSetup']} when setup began, during the mix min {mix.get('min')} / "
        f"median {mix.get('median')} / max {mix.get('max')}; longest held {s['longestHoldSeconds']} s |")
    for b in f["passwordBursts"]:
        answers = ", ".join(f"{k}: {v}" for k, v in sorted(b["answers"].items()))
        out(f"| password burst at {b['at']} s | {b['drops']} drops → {answers}; all answered in {b['seconds']} s |")
    out(f"| visitors' connection errors | {f['visitorConnectionErrors']} (live sockets dropped {f['liveSocketsDropped']}, "
        f"failed {f['liveSocketFailures'] or 0}; kept-alive connections reopened {f['staleKeepAliveRetries']}) |")
    m = f["metrics"]
    if m:
        def total(prefix):
            parts = [(k[len(prefix):].strip("{}"), int(v)) for k, v in sorted(m.items()) if k.startswith(prefix)]
            return ", ".join(f"{label} {v}" if label else f"{v}" for label, v in parts) or "0"
        out(f"| door (driftd metrics) | evicted {total('driftd_http_evicted_total')}; timeouts "
            f"{total('driftd_http_timeouts_total')}; refused {total('driftd_http_refused_total')} |")
        out(f"| password hashing (driftd metrics) | done {total('driftd_password_hashing_done')}; "
            f"refused {total('driftd_password_hashing_refused')} |")
    l = f["clientLoopLagMs"]
    out(f"| client loop lag (part of every figure) | p50 {l['p50']} ms, p99 {l['p99']} ms, max {l['max']} ms; "
        f"client CPU {f['clientCpuSeconds']} s |")
    out("")
    if f["errorSamples"]:
        out("Connection errors (first ones): " + "; ".join(f["errorSamples"][:5]))
    if f["unexpected5xx"]:
        out("5xx (first ones): " + "; ".join(f["unexpected5xx"][:5]))
    out(f"**{'All targets met.' if f['passed'] else 'Targets missed.'}**")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("festival: interrupted; driftd stopped", file=sys.stderr)
        sys.exit(130)
