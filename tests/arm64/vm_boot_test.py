#!/usr/bin/env python3
"""The Raspberry Pi image booted whole under qemu-system-aarch64 (`make arm64-image-test`).

    python3 tests/arm64/vm_boot_test.py [IMAGE]

IMAGE defaults to .build/image/arm64/driftbox-arm64-rpi4b.img. QEMU has no Raspberry Pi 4/5
machine, so the image boots on the generic `virt` machine (Cortex-A72, TCG): the kernel and
initrd come from the image's own BOOT partition (read with mtools, nothing mounted), the
disk is the image itself (virtio, snapshot: left unchanged), the command line is the
image's cmdline.txt with the console moved to the virt UART and `ip=dhcp` (the image has no
network configuration; systemd-network-generator turns that into DHCP on eth0). The Pi
firmware (config.txt, start*.elf) is what QEMU cannot run; everything from the kernel on is
the image's. Checks:

  a. systemd starts driftd.service (Type=notify: "Started" means driftd sent READY=1)
  b. the visitor API answers through QEMU's port forward (POST /api/v1/visitors, GET /api/v1/box)
  c. driftd's STATUS line and state via the console (systemctl is not reachable: the root
     account is locked) — the journal forwarded to the console shows driftd's "ready" line

Prints PASS/FAIL per check, the boot timings and "N passed, N failed"; exits 1 on failure.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
IMAGE = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else REPO / ".build/image/arm64/driftbox-arm64-rpi4b.img")
READY_TIMEOUT = int(os.environ.get("ARM64_VM_TIMEOUT", "900"))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def boot_partition_offset(image):
    out = subprocess.run(["sfdisk", "--json", str(image)], capture_output=True, text=True, check=True).stdout
    table = json.loads(out)["partitiontable"]
    return table["partitions"][0]["start"] * table.get("sectorsize", 512)


class Console:
    """The guest's serial console, collected from QEMU's stdout by a thread."""

    def __init__(self, stream, path):
        self.text = ""
        self.lock = threading.Lock()
        self.file = open(path, "w", errors="replace")
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for raw in iter(lambda: stream.readline(), b""):
            line = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode(errors="replace"))
            with self.lock:
                self.text += line
            self.file.write(line)
            self.file.flush()

    def find(self, pattern):
        with self.lock:
            return re.search(pattern, self.text, re.MULTILINE)

    def tail(self, lines=40):
        with self.lock:
            return "\n".join(self.text.splitlines()[-lines:])


def main():
    for tool in ("qemu-system-aarch64", "mcopy", "sfdisk"):
        if not shutil.which(tool):
            print(f"arm64 VM test: FAIL — {tool} is not installed (image/deps.sh arm64)")
            return 1
    if not IMAGE.exists():
        print(f"arm64 VM test: FAIL — no image at {IMAGE} (make image ARCH=arm64 BOARD=…)")
        return 1
    work = pathlib.Path(tempfile.mkdtemp(prefix="driftbox-arm64-vm-"))
    passed, failed, timings = [], [], {}
    process = None
    try:
        offset = boot_partition_offset(IMAGE)
        env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
        for name in ("vmlinuz", "initrd.img", "cmdline.txt"):
            subprocess.run(["mcopy", "-n", "-i", f"{IMAGE}@@{offset}", f"::/{name}", str(work / name)],
                           check=True, env=env)
        cmdline = (work / "cmdline.txt").read_text().split()
        cmdline = [part for part in cmdline if not part.startswith("console=")]
        cmdline += ["console=ttyAMA0,115200", "ip=dhcp", "systemd.journald.forward_to_console=1",
                    "systemd.show_status=1"]
        port = free_port()
        command = [
            "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-accel", "tcg,thread=multi",
            "-smp", os.environ.get("ARM64_VM_SMP", "2"), "-m", "1024", "-nographic", "-no-reboot",
            "-kernel", str(work / "vmlinuz"), "-initrd", str(work / "initrd.img"),
            "-append", " ".join(cmdline),
            "-drive", f"file={IMAGE},format=raw,if=virtio,snapshot=on",
            "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{port}-:80", "-device", "virtio-net-pci,netdev=net0",
            "-device", "virtio-rng-pci",
        ]
        print("qemu: " + " ".join(command))
        started = time.monotonic()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        console = Console(process.stdout, work / "console.log")

        def wait(what, pattern, timeout, since=None):
            """Waits for pattern on the console until `timeout` s after `since` (default: power-on)."""
            deadline = (started if since is None else since) + timeout
            while time.monotonic() < deadline:
                match = console.find(pattern)
                if match:
                    return match
                if process.poll() is not None:
                    raise AssertionError(f"QEMU exited {process.returncode} before {what}")
                time.sleep(1)
            raise AssertionError(f"{what}: not within {timeout} s")

        def check(name, function):
            began = time.monotonic()
            try:
                detail = function()
            except (AssertionError, OSError, ValueError) as error:
                failed.append(name)
                print(f"FAIL {name} ({time.monotonic() - began:.1f} s): {error}")
                return False
            passed.append(name)
            print(f"PASS {name} ({time.monotonic() - began:.1f} s){': ' + detail if detail else ''}")
            return True

        def a_ready():
            wait("the kernel's banner", r"Linux version", 120)
            timings["power-on to kernel"] = time.monotonic() - started
            match = wait("systemd starting driftd.service (READY=1)",
                         r"(Started|Failed to start|FAILED\].*) .*driftd\.service", READY_TIMEOUT)
            assert "Started" in match.group(0), f"systemd says: {match.group(0)}"
            timings["power-on to driftd READY"] = time.monotonic() - started
            return match.group(0).strip()

        def b_api():
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            last = None
            while time.monotonic() < deadline:
                try:
                    request = urllib.request.Request(base + "/api/v1/visitors", data=b"", method="POST")
                    token = json.loads(urllib.request.urlopen(request, timeout=10).read())["token"]
                    request = urllib.request.Request(base + "/api/v1/box", headers={"Authorization": "Bearer " + token})
                    response = urllib.request.urlopen(request, timeout=10)
                    body = json.loads(response.read())
                    assert response.status == 200, f"GET /api/v1/box answered {response.status}"
                    timings["power-on to visitor API"] = time.monotonic() - started
                    return f"GET /api/v1/box → 200 {json.dumps(body)[:100]}…"
                except (OSError, ValueError, KeyError) as error:
                    last = error
                    time.sleep(3)
            raise AssertionError(f"no answer on the forwarded port 80 within 120 s (last: {last})")

        def c_ready_line():
            match = wait("driftd's ready line in the forwarded journal", r"driftd\[\d+\]:.*\bready\b.*", 60,
                         since=time.monotonic())
            return match.group(0).strip()[:160]

        if check("a. systemd starts driftd.service on the booted image (READY=1)", a_ready):
            check("b. the visitor API answers through QEMU's port forward", b_api)
            check("c. driftd's ready line in the journal (forwarded to the console)", c_ready_line)
        if failed:
            print("console (last 40 lines):\n  " + console.tail().replace("\n", "\n  "))
    finally:
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if os.environ.get("ARM64_VM_KEEP"):
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    for name, value in timings.items():
        print(f"timing: {name}: {value:.1f} s")
    print(f"{len(passed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
