#!/usr/bin/env python3
"""VM boot test of the Drift Box disk image (issue 9): the whole image under QEMU (TCG, UEFI).

What it proves, each as an assertion (exit status 1 and a FAIL line naming what failed):
  * partitions mounted by label: / (root, ro), /config (BOXCONF, vfat, ro), /data (BOXDATA, ext4, rw)
  * the data partition grew into the space added to the disk (systemd-repart + growfs)
  * driftd active under systemd (Type=notify: active = READY) with its STATUS line
  * a GPS fix from a real NMEA capture fed into the guest's ttyS1 (a real kernel tty, libserialport)
  * weather from a BME280 on the kernel's i2c-stub (the real i2c-dev path)
  * a host-side `driftd run` on the simulated radio medium hears the VM box through the E22 on
    ttyS2 (M0/M1 strapped; `driftd sim e22` plays the module on the host)
  * a bottle dropped through the visitor API survives a hard power cut (kill -9 qemu) and a
    reboot, and `driftd selftest` finds the store's integrity_check ok
  * a config change written to the BOXCONF partition with mtools applies at the next boot
  * the beacon power profile boots (third boot, `[power] profile = "beacon"`): driftd READY with
    `powerProfile` beacon in `driftd status`, no visitor page behind the port forward, and
    driftbox-power.service ran (VMTEST_BEACON=0 skips it)

How the test talks to the guest: the visitor API through QEMU's user-network port forward,
and "VMTEST key value" lines a test-only probe prints on the serial console. The product
image is not changed: the probe and the BME280 preload live on this run's copy of BOXCONF,
and the copy's boot entry gets `systemd.run=` (systemd-run-generator) to start them.

Usage: test_vm_boot.py --image IMG [--driftd .build/debug/driftd] [--keep DIR]
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import bme280_stub  # noqa: E402

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
NMEA = os.path.join(REPO, "..", "shared", "data", "nmea", "neo-m8n.log")
NMEA_FIX = (44.06901, -121.31425)      # the capture's position (4404.14063 N, 12118.85478 W)
GROW_MB = 256
BOOT_LIMIT_S = 240                     # one boot to a usable API, under TCG on a loaded machine
NAME_1 = "VM box one"
NAME_2 = "VM box renamed"
TEXT = "a bottle that outlives a power cut"
# Test-only kernel arguments: run /config/vmtest.sh once BOXCONF is mounted, keep booting
# into multi-user.target (systemd-run-generator would otherwise boot into its own target).
HOOK = ('systemd.unit=multi-user.target systemd.wants=kernel-command-line.service '
        'systemd.run_success_action=none systemd.run_failure_action=none '
        'systemd.run="/usr/bin/timeout 120 /bin/sh -c \'while [ ! -f /config/vmtest.sh ]; do sleep 0.5; done; '
        'exec /bin/sh /config/vmtest.sh\'"')


class Failure(Exception):
    pass


def log(message):
    print(f"vm: {message}", flush=True)


def run(*args, **kwargs):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kwargs).stdout


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, timeout, interval=2.0):
    """predicate() until it returns something truthy; Failure naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as error:  # noqa: BLE001 - kept for the failure message
            last_error = error
        time.sleep(interval)
    raise Failure(f"{what}: not within {timeout} s" + (f" (last error: {last_error})" if last_error else ""))


# --- The disk image ---------------------------------------------------------------------------

class Disk:
    """This run's copy of the image, its partitions by name, and mtools access to the FAT ones."""

    def __init__(self, source, path):
        self.path = path
        run("cp", "--reflink=auto", "--sparse=always", source, path)
        table = json.loads(run("sfdisk", "--json", path))["partitiontable"]
        self.sector = table.get("sectorsize", 512)
        self.parts = {p.get("name"): p for p in table["partitions"]}
        for name in ("BOOT", "root", "BOXCONF", "BOXDATA"):
            if name not in self.parts:
                raise Failure(f"{source}: no partition named {name} (found {sorted(k for k in self.parts if k)})")
        self.original_data_bytes = self.parts["BOXDATA"]["size"] * self.sector
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) + GROW_MB * 1024 * 1024)

    def image(self, name):
        return f"{self.path}@@{self.parts[name]['start'] * self.sector}"

    def get(self, name, inside, local):
        run("mcopy", "-n", "-i", self.image(name), f"::{inside}", local, env=MTOOLS_ENV)

    def put(self, name, local, inside):
        run("mcopy", "-o", "-i", self.image(name), local, f"::{inside}", env=MTOOLS_ENV)


MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


def box_config(name, beacon=False):
    """The VM box's /config/driftd.toml: the x86-vm board plus what this test sets."""
    power = '\n[power]\nprofile = "beacon"\n' if beacon else ""
    return f"""# VM boot test (tests/image/vm): board x86-vm, see board/x86-vm.toml.
[box]
board = "x86-vm"
name = "{name}"

[storage]
data_dir = "/data/driftd"

[mesh]
hello_interval_s = 15

[gps]
set_clock = false     # the capture is from 2015
max_fix_age_s = 30
{power}"""


def sim_config(path, *, http, udp, peers, data, name, latitude, longitude):
    """A sim-board config for the host box and for the E22 module's air side: 868.125 MHz,
    SF9/125 kHz (the E22's 2.4 kbps on the simulated medium), the x86-vm profile's mesh key."""
    text = open(os.path.join(REPO, "board", "sim.toml")).read()
    x86 = open(os.path.join(REPO, "board", "x86-vm.toml")).read()
    key = re.search(r'^network_key = "([^"]+)"', x86, re.M).group(1)
    replacements = [
        (r'^name = .*$', f'name = "{name}"'),
        (r'^data_dir = .*$', f'data_dir = "{data}"'),
        (r'^listen = "127.0.0.1:8080"$', f'listen = "127.0.0.1:{http}"'),
        (r'^network_key = .*$', f'network_key = "{key}"'),
        (r'^(# )?hello_interval_s = .*$', 'hello_interval_s = 15'),   # left out in sim.toml (by the duty cycle)
        (r'^frequency_mhz = .*$', 'frequency_mhz = 868.125'),
        (r'^spreading_factor = .*$', 'spreading_factor = 9'),
        (r'^bandwidth_khz = .*$', 'bandwidth_khz = 125'),
        (r'^radio_udp_port = .*$', f'radio_udp_port = {udp}'),
        (r'^radio_peers = .*$', 'radio_peers = [' + ", ".join(f'"127.0.0.1:{p}"' for p in peers) + ']'),
        (r'^latitude = .*$', f'latitude = {latitude}'),
        (r'^longitude = .*$', f'longitude = {longitude}'),
    ]
    for pattern, value in replacements:
        text, count = re.subn(pattern, value, text, count=1, flags=re.M)
        if count != 1:
            raise Failure(f"board/sim.toml: no line matching {pattern}")
    with open(path, "w") as f:
        f.write(text)


# --- The guest ---------------------------------------------------------------------------------

class Console:
    """Follows the serial console log; keeps the latest value of each VMTEST key."""

    def __init__(self, path):
        self.path = path
        self.values = {}
        self.lines = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.kernel = threading.Event()
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()

    def _follow(self):
        while not os.path.exists(self.path) and not self.stop.is_set():
            time.sleep(0.2)
        with open(self.path, "rb") as f:
            buffer = b""
            while not self.stop.is_set():
                chunk = f.read(65536)
                if not chunk:
                    time.sleep(0.2)
                    continue
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                for raw in complete:
                    line = raw.decode("utf-8", "replace").replace("\r", "").strip()
                    if "Linux version" in line:
                        self.kernel.set()
                    with self.lock:
                        self.lines.append(line)
                        match = re.search(r"VMTEST (\S+) ?(.*)$", line)
                        if match:
                            key, value = match.groups()
                            if key in ("mount", "selftest"):
                                self.values.setdefault(key, {})[value.split()[0] if key == "mount" else value.split()[1]] = value
                            else:
                                self.values[key] = value

    def get(self, key):
        with self.lock:
            return self.values.get(key)

    def tail(self, count=40):
        with self.lock:
            return "\n".join(self.lines[-count:])


class GPSFeeder:
    """Writes an NMEA capture into QEMU's socket for the guest's ttyS1, in a loop, ~10 lines/s."""

    def __init__(self, socket_path, capture):
        self.lines = [line.strip() for line in open(capture, encoding="ascii", errors="replace")
                      if line.startswith("$")]
        self.socket_path = socket_path
        self.stop = threading.Event()
        # Closed while the firmware runs: OVMF and systemd-boot take serial bytes as key presses.
        self.open = threading.Event()
        self.sent = 0
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self):
        while not self.stop.is_set():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.connect(self.socket_path)
                    s.settimeout(1.0)
                    while not self.stop.is_set():
                        for line in self.lines:
                            if self.stop.is_set():
                                return
                            if not self.open.is_set():
                                break
                            try:
                                s.sendall((line + "\r\n").encode())
                                self.sent += 1
                            except socket.timeout:
                                pass
                            time.sleep(0.1)
            except OSError:
                pass
            time.sleep(0.5)


def flush_input(tty):
    """Drops what the E22 module wrote to its pty while no guest was reading."""
    fd = os.open(tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        termios.tcflush(fd, termios.TCIFLUSH)
    finally:
        os.close(fd)


class VM:
    """One boot of the disk under QEMU. The GPS feed and the E22 module are held back until the
    kernel prints its banner: before that, bytes on a UART are key presses to OVMF and
    systemd-boot (a newline in the NMEA feed once chose "Reboot Into Firmware Interface")."""

    def __init__(self, work, disk, vars_path, api_port, gps_socket, e22_tty, boot, feeder, module):
        self.console_path = os.path.join(work, f"console-{boot}.log")
        args = [
            "qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max", "-smp", os.environ.get("VMTEST_SMP", "2"), "-m", "1024",
            "-machine", "q35", "-display", "none", "-monitor", "none", "-nodefaults", "-vga", "none",
            "-drive", f"if=pflash,format=raw,unit=0,file={OVMF_CODE},readonly=on",
            "-drive", f"if=pflash,format=raw,unit=1,file={vars_path}",
            "-drive", f"file={disk.path},format=raw,if=virtio,cache={os.environ.get('VMTEST_CACHE', 'writeback')}",
            "-nic", f"user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:{api_port}-:80",
            "-chardev", f"file,id=console,path={self.console_path}", "-serial", "chardev:console",
            "-chardev", f"socket,id=gps,path={gps_socket},server=on,wait=off", "-serial", "chardev:gps",
            "-chardev", f"serial,id=e22,path={e22_tty}", "-serial", "chardev:e22",
        ]
        if feeder:
            feeder.open.clear()
        module.send_signal(signal.SIGSTOP)
        flush_input(e22_tty)
        self.kernel_at = None
        self.started = time.monotonic()
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=open(os.path.join(work, f"qemu-{boot}.log"), "w"),
                                        stderr=subprocess.STDOUT)
        self.console = Console(self.console_path)

        def release():
            while self.process.poll() is None:
                if self.console.kernel.wait(0.2):
                    self.kernel_at = self.elapsed()
                    break
            if feeder:
                feeder.open.set()
            module.send_signal(signal.SIGCONT)
        threading.Thread(target=release, daemon=True).start()

    def elapsed(self):
        return time.monotonic() - self.started

    def check_alive(self):
        if self.process.poll() is not None:
            raise Failure(f"qemu exited with {self.process.returncode}; console tail:\n{self.console.tail()}")

    def power_cut(self):
        """SIGKILL: no shutdown, no flush beyond what the guest already wrote to the disk."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.console.stop.set()


# --- The visitor API ----------------------------------------------------------------------------

class API:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.token = None

    def call(self, method, path, body=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")

    def visitor(self):
        if not self.token:
            status, answer = self.call("POST", "/api/v1/visitors")
            self.token = answer["token"]
        return self.token

    def box(self):
        self.visitor()
        return self.call("GET", "/api/v1/box")[1]


# --- The run --------------------------------------------------------------------------------------

class Checks:
    def __init__(self):
        self.passed, self.failed, self.skipped = [], [], []

    def check(self, name, body):
        try:
            detail = body()
            self.passed.append(name)
            log(f"PASS {name}" + (f": {detail}" if detail else ""))
        except Failure as error:
            self.failed.append(name)
            log(f"FAIL {name}: {error}")

    def skip(self, name, reason):
        self.skipped.append(name)
        log(f"SKIP {name}: {reason}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", default=os.path.join(REPO, ".build/image/x86_64/driftbox-x86_64.img"))
    parser.add_argument("--driftd", default=os.path.join(REPO, ".build/debug/driftd"), help="host driftd (box + E22 module)")
    parser.add_argument("--keep", help="keep the work directory (logs, disk) here")
    args = parser.parse_args()

    for tool in ("qemu-system-x86_64", "mcopy", "sfdisk"):
        if not shutil.which(tool):
            raise SystemExit(f"vm: {tool} is missing (image/deps.sh installs it)")
    for path in (OVMF_CODE, OVMF_VARS, args.image, args.driftd):
        if not os.path.exists(path):
            raise SystemExit(f"vm: {path} is missing")

    work = args.keep or tempfile.mkdtemp(prefix="driftbox-vm-")
    os.makedirs(work, exist_ok=True)
    log(f"work directory {work}")
    began = time.monotonic()
    checks = Checks()
    children = []
    vm = None
    try:
        disk = Disk(args.image, os.path.join(work, "disk.img"))
        vars_path = os.path.join(work, "OVMF_VARS.fd")
        shutil.copyfile(OVMF_VARS, vars_path)

        # BOXCONF: the box's config, the board profile (in case the image predates it), the test hooks.
        staged = os.path.join(work, "boxconf")
        os.makedirs(staged, exist_ok=True)
        files = {
            "driftd.toml": box_config(NAME_1),
            "vmtest.sh": open(os.path.join(HERE, "guest", "vmtest-head.sh")).read() + bme280_stub.preload_script(),
            "vmtest-probe.sh": open(os.path.join(HERE, "guest", "vmtest-probe.sh")).read(),
            "x86-vm.toml": open(os.path.join(REPO, "board", "x86-vm.toml")).read(),
        }
        if os.environ.get("VMTEST_MARKERS"):
            files["vmtest-markers"] = "write fsync'd marker files on /data (diagnosis)\n"
        for name, text in files.items():
            with open(os.path.join(staged, name), "w") as f:
                f.write(text)
            disk.put("BOXCONF", os.path.join(staged, name), f"/{name}")
        # BOOT: this copy's entry starts the hook.
        entry = os.path.join(work, "driftbox.conf")
        disk.get("BOOT", "/loader/entries/driftbox.conf", entry)
        lines = open(entry).read().splitlines()
        lines = [line + " " + HOOK if line.startswith("options") else line for line in lines]
        with open(entry, "w") as f:
            f.write("\n".join(lines) + "\n")
        disk.put("BOOT", entry, "/loader/entries/driftbox.conf")

        # Host side: a box on the simulated medium, and the E22 module next to it.
        host_http, host_udp, module_udp, api_port = free_port(), free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_DGRAM), free_port()
        host_data = os.path.join(work, "host-box")
        os.makedirs(host_data, exist_ok=True)
        sim_config(os.path.join(work, "host-box.toml"), http=host_http, udp=host_udp, peers=[module_udp], data=host_data,
                   name="Host box", latitude=52.4731, longitude=13.4019)
        sim_config(os.path.join(work, "e22-module.toml"), http=free_port(), udp=module_udp, peers=[host_udp], data=work,
                   name="E22 module", latitude=52.4740, longitude=13.4019)
        host = subprocess.Popen([args.driftd, "run", "--config", os.path.join(work, "host-box.toml"), "--data-dir", host_data],
                                stdout=open(os.path.join(work, "host-box.log"), "w"), stderr=subprocess.STDOUT)
        children.append(host)
        e22_link = os.path.join(work, "e22.tty")
        module = subprocess.Popen([args.driftd, "sim", "e22", "--config", os.path.join(work, "e22-module.toml"), "--link", e22_link],
                                  stdout=open(os.path.join(work, "e22-module.log"), "w"), stderr=subprocess.STDOUT)
        children.append(module)
        wait_for("the E22 module's pty", lambda: os.path.islink(e22_link), 30, 0.2)
        e22_tty = os.path.realpath(e22_link)
        host_api = API(host_http)
        wait_for("the host box's API", host_api.visitor, 60, 0.5)

        gps_socket = os.path.join(work, "gps.sock")
        feeder = None
        nmea_reason = None
        if not os.path.exists(NMEA):
            nmea_reason = f"{NMEA} absent (../shared missing): no NMEA to feed"

        # --- Boot 1 ---------------------------------------------------------------------------
        log(f"boot 1: qemu (TCG) on {disk.path}, +{GROW_MB} MiB, API on 127.0.0.1:{api_port}, E22 on {e22_tty}")
        if nmea_reason is None:
            feeder = GPSFeeder(gps_socket, NMEA)
        vm = VM(work, disk, vars_path, api_port, gps_socket, e22_tty, 1, feeder, module)
        api = API(api_port)

        def api_up():
            vm.check_alive()
            return api.box()
        box = wait_for("boot 1: the visitor API through the port forward", api_up, BOOT_LIMIT_S)
        boot1 = vm.elapsed()
        log(f"boot 1: kernel after {vm.kernel_at or 0:.0f} s, API answers after {boot1:.0f} s (box {box.get('name')!r})")

        def ready():
            vm.check_alive()
            value = vm.console.get("driftd")
            return value if value and value.startswith("active") else None

        def driftd_ready():
            value = wait_for("driftd active (READY) in the console probe", ready, 90)
            if len(value.split()) < 3:
                raise Failure(f"no STATUS line from driftd: {value!r}")

            def alive():
                status = (vm.console.get("status") or "").replace(" ", "")
                return status if '"alive":true' in status else None
            try:
                wait_for("driftd status alive", alive, 30)
            except Failure:
                raise Failure(f"driftd status is not alive: {(vm.console.get('status') or '')[:300]}")
            return value[:160]
        checks.check("driftd READY under systemd (active, STATUS line, status alive)", driftd_ready)

        def mounts():
            mount = wait_for("mount lines from the probe", lambda: (vm.console.get("mount") or {}).get("/data") and vm.console.get("mount"), 60)
            expected = {"/": ("root", "ext4", "ro"), "/config": ("BOXCONF", "vfat", "ro"), "/data": ("BOXDATA", "ext4", "rw")}
            for target, (label, fstype, mode) in expected.items():
                fields = (mount.get(target) or "").split()
                if len(fields) < 5 or fields[2] != label or fields[3] != fstype or mode not in fields[4].split(","):
                    raise Failure(f"{target}: expected LABEL={label} {fstype} {mode}, found {mount.get(target)!r}")
            return "; ".join(mount[t] for t in expected)
        checks.check("partitions mounted by label (/ ro, /config ro, /data rw)", mounts)

        def grew():
            def sizes():
                part, fs = vm.console.get("datapart"), vm.console.get("datafs")
                if part and fs and part.isdigit() and fs.isdigit() and int(part) > disk.original_data_bytes + (GROW_MB // 2) * 2**20 \
                        and int(fs) > disk.original_data_bytes:
                    return int(part), int(fs)
                return None
            try:
                part, fs = wait_for("BOXDATA grown", sizes, 60)
            except Failure:
                raise Failure(f"BOXDATA was {disk.original_data_bytes} bytes; now partition {vm.console.get('datapart')}, "
                              f"filesystem {vm.console.get('datafs')} (repart: {vm.console.get('repart')})")
            return f"partition {disk.original_data_bytes // 2**20} → {part // 2**20} MiB, filesystem {fs // 2**20} MiB"
        checks.check("the data partition grew on first boot", grew)

        if nmea_reason:
            checks.skip("GPS fix from the NMEA capture on ttyS1", nmea_reason)
        else:
            def fix():
                def position():
                    p = api.box().get("position")
                    if p and abs(p["latitude"] - NMEA_FIX[0]) < 0.01 and abs(p["longitude"] - NMEA_FIX[1]) < 0.01:
                        return p
                    return None
                p = wait_for(f"a fix near {NMEA_FIX} in GET /api/v1/box ({feeder.sent} sentences fed)", position, 120)
                return f"{p['latitude']:.5f}, {p['longitude']:.5f} after {feeder.sent} sentences"
            checks.check("GPS fix from the NMEA capture on ttyS1", fix)

        want = bme280_stub.expected()

        def weather():
            def reading():
                w = api.box().get("weather") or {}
                t, p, h = w.get("temperatureC"), w.get("pressureHPa"), w.get("humidityPercent")
                if t is not None and p is not None and h is not None:
                    return t, p, h
                return None
            t, p, h = wait_for("weather in GET /api/v1/box", reading, 120)
            if abs(t - want[0]) > 0.1 or abs(p - want[1]) > 0.5 or abs(h - want[2]) > 1.0:
                raise Failure(f"read {t} °C, {p} hPa, {h} %; the stub encodes {want}")
            return f"{t:.2f} °C, {p:.2f} hPa, {h:.1f} % (encoded {want[0]:.2f}, {want[1]:.2f}, {want[2]:.1f})"
        checks.check("weather from the BME280 on i2c-stub", weather)

        def mesh():
            def heard():
                boxes = host_api.call("GET", "/api/v1/mesh/boxes")[1].get("boxes", [])
                return next((b for b in boxes if b.get("name") == NAME_1), None)
            try:
                found = wait_for("the host box hearing the VM box", heard, 150, 3)
            except Failure as error:
                raise Failure(f"{error}; module: {open(os.path.join(work, 'e22-module.log')).read()[-400:]!r}")
            return f"host box lists {found['name']!r} (node {found['node']})"
        checks.check("the host box hears the VM box through the strapped E22 on ttyS2", mesh)

        bottle = {}

        def drop():
            status, answer = api.call("POST", "/api/v1/bottles", {"text": TEXT})
            if status not in (200, 201):
                raise Failure(f"POST /api/v1/bottles answered {status}")
            bottle.update(answer)
            return f"bottle {answer.get('id')}"
        checks.check("a bottle dropped through the API", drop)

        # --- Power cut, config change, boot 2 ------------------------------------------------
        settle = float(os.environ.get("VMTEST_SETTLE_S", "0"))
        if settle:
            log(f"waiting {settle:.0f} s before the power cut (VMTEST_SETTLE_S, diagnosis only)")
            time.sleep(settle)
        vm.power_cut()
        log("power cut: qemu killed with SIGKILL")
        if os.environ.get("VMTEST_DUMP"):
            subprocess.run(["cp", "--sparse=always", disk.path, os.path.join(work, "after-cut.img")], check=True)
        staged_config = os.path.join(staged, "driftd.toml")
        with open(staged_config, "w") as f:
            f.write(box_config(NAME_2))
        disk.put("BOXCONF", staged_config, "/driftd.toml")
        flag = os.path.join(staged, "vmtest-selftest")
        with open(flag, "w") as f:
            f.write("run driftd selftest in the probe\n")
        disk.put("BOXCONF", flag, "/vmtest-selftest")
        log(f"BOXCONF: box.name changed to {NAME_2!r} with mcopy")

        vm = VM(work, disk, vars_path, api_port, gps_socket, e22_tty, 2, feeder, module)
        api2 = API(api_port)

        def api_up2():
            vm.check_alive()
            return api2.box()
        box = wait_for("boot 2: the visitor API", api_up2, BOOT_LIMIT_S)
        boot2 = vm.elapsed()
        log(f"boot 2: kernel after {vm.kernel_at or 0:.0f} s, API answers after {boot2:.0f} s")

        def renamed():
            if box.get("name") != NAME_2:
                raise Failure(f"box name after the reboot is {box.get('name')!r}, BOXCONF says {NAME_2!r}")
            return f"name {NAME_2!r}"
        checks.check("a BOXCONF change made with mtools applies at the next boot", renamed)

        def selftest_lines():
            lines = wait_for("selftest lines from the probe", lambda: vm.console.get("selftest"), 120)
            return lines
        def selftest_boot1():
            lines = selftest_lines()
            radio = next((v for k, v in lines.items() if k == "radio"), "")
            if not radio.startswith("SKIP") or "strapped" not in radio:
                raise Failure(f"selftest radio line: {radio!r} (expected SKIP, strapped)")
            bme = lines.get("bme280", "")
            if not bme.startswith("PASS"):
                raise Failure(f"selftest bme280 line: {bme!r}")
            return f"{radio[:80]} …; {bme}"
        checks.check("selftest in the guest: E22 strapped is a SKIP with the reason, BME280 passes", selftest_boot1)


        def survived():
            if not bottle.get("id"):
                raise Failure("no bottle was dropped")
            try:
                status, answer = api.call("GET", "/api/v1/my/bottles")
            except urllib.error.HTTPError as error:
                raise Failure(f"GET /api/v1/my/bottles with the token issued before the power cut: HTTP {error.code} "
                              "(the visitor row is gone: acknowledged writes were lost)")
            listed = json.dumps(answer)
            if bottle["id"] not in listed:
                raise Failure(f"bottle {bottle['id']} is not in GET /api/v1/my/bottles after the power cut: {listed[:300]}")
            lines = selftest_lines()
            store = lines.get("storage.database", "")
            if not store.startswith("PASS") or "integrity_check: ok" not in store:
                raise Failure(f"selftest store line after the power cut: {store!r}")
            return f"bottle {bottle['id']} listed; {store}"
        checks.check("the bottle survives the power cut; integrity_check ok", survived)

        vm.power_cut()
        log(f"boot times: {boot1:.0f} s, {boot2:.0f} s (qemu start → visitor API answers)")

        # --- Boot 3: the beacon power profile (docs/power.md) ---------------------------------
        if os.environ.get("VMTEST_BEACON", "1") == "0":
            checks.skip("the beacon power profile boots", "VMTEST_BEACON=0")
        else:
            with open(staged_config, "w") as f:
                f.write(box_config(NAME_2, beacon=True))
            disk.put("BOXCONF", staged_config, "/driftd.toml")
            log("BOXCONF: power.profile = beacon; boot 3")
            vm = VM(work, disk, vars_path, api_port, gps_socket, e22_tty, 3, feeder, module)

            def beacon_boot():
                def status():
                    vm.check_alive()
                    active = vm.console.get("driftd") or ""
                    text = (vm.console.get("status") or "").replace(" ", "")
                    return text if active.startswith("active") and '"powerProfile":"beacon"' in text else None
                try:
                    wait_for("boot 3: driftd active with powerProfile beacon in driftd status", status, BOOT_LIMIT_S)
                except Failure:
                    raise Failure(f"driftd {vm.console.get('driftd')!r}, status {(vm.console.get('status') or '')[:300]!r}")
                power = wait_for("driftbox-power.service result from the probe", lambda: vm.console.get("power"), 60)
                if not power.startswith("active"):
                    raise Failure(f"driftbox-power.service: {power!r}")
                try:
                    API(api_port).box()
                    raise Failure("the visitor API answered in the beacon profile")
                except (OSError, urllib.error.URLError, json.JSONDecodeError):
                    pass
                return f"READY, powerProfile beacon, no visitor page; driftbox-power {power}; boot 3 after {vm.elapsed():.0f} s"
            checks.check("the beacon power profile boots (READY, status says beacon, no visitor page)", beacon_boot)
            vm.power_cut()
    except Failure as error:
        checks.failed.append("setup")
        log(f"FAIL: {error}")
        if vm:
            log("console tail:\n" + vm.console.tail())
    finally:
        if vm:
            vm.power_cut()
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGCONT)
                child.terminate()
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
        if not args.keep and not checks.failed:
            shutil.rmtree(work, ignore_errors=True)
        elif not args.keep:
            log(f"logs kept in {work}")
    log(f"total {time.monotonic() - began:.0f} s")
    print(f"vm: {len(checks.passed)} passed, {len(checks.failed)} failed, {len(checks.skipped)} skipped", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
