#!/usr/bin/env python3
"""The aarch64 driftd under qemu-user: `make arm64-test` (docs/arm64.md).

    python3 tests/arm64/emulated_test.py [--driftd BIN] [--x86-driftd BIN] [--sysroot DIR]

BIN defaults to .build-arm64/bin/driftd (from `make arm64`), the x86_64 reference to
.build/debug/driftd (`make build`). Each aarch64 run goes through qemu-aarch64-static
explicitly (no binfmt_misc registration needed); a dynamically linked binary gets the
arm64 sysroot as its library prefix (-L). Checks:

  a. the binary is an aarch64 ELF (file(1)), statically linked or not (printed)
  b. `driftd version` names libgpiod v2 (sid's libgpiod: the v2 half of the GPIO shim)
  c. `driftd config check` accepts the image's default driftd.toml (simulated board)
  d. `driftd selftest` on the simulated board: no FAIL line, exit 0
  e1. `driftd nmea decode` of the NMEA captures the repository ships (the fuzzer's seeds,
      Fuzz/NMEAFuzz/corpus: 25 receivers' first sentences and 4 edge cases): byte-identical
      to x86_64's
  e2. the same for every capture in ../shared/data/nmea (the whole shared data set); SKIP,
      with the reason, when ../shared is absent (a user's clone), as the Swift tests do
  f. `driftd run` on the simulated board answers the visitor API on loopback
     (POST /api/v1/visitors, GET /api/v1/box), then stops cleanly on SIGTERM

Prints PASS/FAIL/SKIP per check and "N passed, N failed, N skipped"; exits 1 if any check failed.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
CACHE = pathlib.Path(os.environ.get("DRIFTBOX_ARM64_CACHE", REPO / ".build-arm64"))
NMEA_DIR = REPO.parent / "shared/data/nmea"
SHIPPED_NMEA_DIR = REPO / "Fuzz/NMEAFuzz/corpus"


class Skip(Exception):
    """A check that cannot run here, with the reason."""


class Emulator:
    """Runs the aarch64 binary through qemu-aarch64-static."""

    def __init__(self, driftd, sysroot):
        self.qemu = shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")
        self.driftd = driftd
        self.static = "statically linked" in describe(driftd) or "static-pie" in describe(driftd)
        self.prefix = [] if self.static else ["-L", str(sysroot)]

    def command(self, *args):
        return [self.qemu, *self.prefix, str(self.driftd), *args]

    def run(self, *args, timeout=120, **kwargs):
        return subprocess.run(self.command(*args), capture_output=True, timeout=timeout, **kwargs)


def describe(path):
    return subprocess.run(["file", "-b", str(path)], capture_output=True, text=True).stdout.strip()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driftd", type=pathlib.Path, default=CACHE / "bin/driftd")
    parser.add_argument("--x86-driftd", type=pathlib.Path, default=REPO / ".build/debug/driftd")
    parser.add_argument("--sysroot", type=pathlib.Path, default=CACHE / "sysroot")
    options = parser.parse_args()

    if not options.driftd.exists():
        print(f"arm64 test: FAIL — no aarch64 driftd at {options.driftd} (make arm64)")
        return 1
    emulator = Emulator(options.driftd, options.sysroot)
    if emulator.qemu is None:
        print("arm64 test: FAIL — qemu-aarch64-static is not installed (image/arm64/deps.sh: qemu-user-static)")
        return 1

    passed, failed, skipped, timings = [], [], [], {}
    work = pathlib.Path(tempfile.mkdtemp(prefix="driftbox-arm64-"))
    test_started = time.monotonic()

    def check(name, function):
        started = time.monotonic()
        try:
            detail = function()
        except Skip as reason:
            skipped.append(name)
            print(f"SKIP {name}: {reason}")
            return
        except (AssertionError, subprocess.TimeoutExpired, OSError, ValueError) as error:
            failed.append(name)
            print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {error}")
            return
        passed.append(name)
        timings[name] = time.monotonic() - started
        print(f"PASS {name} ({timings[name]:.1f} s){': ' + detail if detail else ''}")

    def a_elf():
        text = describe(options.driftd)
        assert "ELF 64-bit" in text and "ARM aarch64" in text, f"file(1) says: {text}"
        return text

    def b_version():
        result = emulator.run("version")
        out = result.stdout.decode()
        assert result.returncode == 0, f"exit {result.returncode}: {result.stderr.decode().strip()}"
        assert "libgpiod v2" in out, f"`driftd version` does not name libgpiod v2: {out.strip()}"
        return out.strip()

    def c_config_check():
        conf = work / "conf"
        conf.mkdir()
        shutil.copy(REPO / "image/config/driftd.toml", conf / "driftd.toml")
        shutil.copytree(REPO / "board", conf / "board")
        result = emulator.run("config", "check", str(conf / "driftd.toml"))
        assert result.returncode == 0, \
            f"exit {result.returncode}: {result.stdout.decode().strip()} {result.stderr.decode().strip()}"
        return result.stdout.decode().strip().splitlines()[-1] if result.stdout.strip() else ""

    def d_selftest():
        data = work / "selftest-data"
        data.mkdir(mode=0o700)  # as driftd and tmpfiles make a data directory: selftest fails one others can read
        result = emulator.run("selftest", "--data-dir", str(data))
        out = result.stdout.decode()
        lines = [line for line in out.splitlines() if line.strip()]
        assert result.returncode == 0, f"exit {result.returncode}:\n{out}{result.stderr.decode()}"
        assert not any(line.lstrip().startswith("FAIL") for line in lines), f"a FAIL line:\n{out}"
        assert any(line.lstrip().startswith("PASS") for line in lines), f"no PASS line:\n{out}"
        return f"{sum(line.lstrip().startswith('PASS') for line in lines)} PASS lines"

    def nmea_identical(directory, captures):
        if not options.x86_driftd.exists():
            raise AssertionError(f"no x86_64 reference driftd at {options.x86_driftd} (make build)")
        compared, lines = [], 0
        for capture in captures:
            name = capture.name
            arm = emulator.run("nmea", "decode", str(capture))
            x86 = subprocess.run([str(options.x86_driftd), "nmea", "decode", str(capture)], capture_output=True, timeout=120)
            # The edge cases of the shipped corpus may be refused: then by both, alike.
            assert arm.returncode == x86.returncode, f"{name}: exit {arm.returncode} (aarch64) / {x86.returncode} (x86_64)"
            if arm.stdout != x86.stdout:
                (work / f"{name}.arm64").write_bytes(arm.stdout)
                (work / f"{name}.x86_64").write_bytes(x86.stdout)
                diff = subprocess.run(["diff", str(work / f"{name}.x86_64"), str(work / f"{name}.arm64")],
                                      capture_output=True, text=True).stdout
                raise AssertionError(f"{name}: the aarch64 output differs from x86_64's:\n{diff[:2000]}")
            compared.append(name)
            lines += len(arm.stdout.splitlines())
        assert compared, f"no capture in {directory}"
        assert lines > 0, "no capture decoded to any output"
        return f"{len(compared)} captures, {lines} output lines identical"

    def e1_nmea_shipped():
        return nmea_identical(SHIPPED_NMEA_DIR, sorted(path for path in SHIPPED_NMEA_DIR.iterdir() if path.is_file()))

    def e2_nmea_shared():
        if not NMEA_DIR.is_dir():
            raise Skip(f"{NMEA_DIR} is absent (the shared data set is not beside this clone); "
                       f"e1 compared the captures the repository ships")
        return nmea_identical(NMEA_DIR, sorted(NMEA_DIR.glob("*.log")))

    def f_run():
        port = free_port()
        data = work / "run-data"
        data.mkdir()
        log = open(work / "run.log", "wb")
        process = subprocess.Popen(emulator.command("run", "--config", str(REPO / "board/sim.toml"),
                                                    "--data-dir", str(data), "--listen", f"127.0.0.1:{port}"),
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            started = time.monotonic()
            token, last = None, None
            while time.monotonic() - started < 90:
                if process.poll() is not None:
                    raise AssertionError(f"driftd exited {process.returncode} before answering:\n{tail(work / 'run.log')}")
                try:
                    request = urllib.request.Request(base + "/api/v1/visitors", data=b"", method="POST")
                    token = json.loads(urllib.request.urlopen(request, timeout=5).read())["token"]
                    break
                except OSError as error:
                    last = error
                    time.sleep(0.5)
            assert token, f"no answer from {base} within 90 s (last: {last}):\n{tail(work / 'run.log')}"
            timings["run: start to first answer"] = time.monotonic() - started
            request = urllib.request.Request(base + "/api/v1/box", headers={"Authorization": "Bearer " + token})
            response = urllib.request.urlopen(request, timeout=10)
            body = json.loads(response.read())
            assert response.status == 200, f"GET /api/v1/box answered {response.status}"
            assert body, "GET /api/v1/box: empty body"
            process.send_signal(signal.SIGTERM)
            code = process.wait(timeout=60)
            assert code == 0, f"driftd exited {code} after SIGTERM:\n{tail(work / 'run.log')}"
            return f"GET /api/v1/box → 200 {json.dumps(body)[:120]}…; SIGTERM → exit 0"
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()

    try:
        check("a. the binary is an aarch64 ELF", a_elf)
        check("b. driftd version names libgpiod v2", b_version)
        check("c. driftd config check accepts the default driftd.toml", c_config_check)
        check("d. driftd selftest on the simulated board", d_selftest)
        check("e1. driftd nmea decode of the shipped captures: byte-identical to the x86_64 build", e1_nmea_shipped)
        check("e2. driftd nmea decode of ../shared/data/nmea: byte-identical to the x86_64 build", e2_nmea_shared)
        check("f. driftd run answers the visitor API on loopback, stops on SIGTERM", f_run)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name, value in timings.items():
        if name.startswith("run:"):
            print(f"timing: {name}: {value:.1f} s")
    print(f"timing: whole test: {time.monotonic() - test_started:.1f} s (qemu-user, {'static' if emulator.static else 'dynamic'} binary)")
    print(f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 1 if failed else 0


def tail(path, lines=20):
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


if __name__ == "__main__":
    sys.exit(main())
