#!/usr/bin/env python3
"""Container boot test: the image's root filesystem booted with systemd-nspawn.

Run by `make image-test` (after `make image ARCH=x86_64`), as root:

    python3 tests/image/container_boot_test.py [ROOTFS] [IMAGE]

ROOTFS defaults to .build/image/x86_64/rootfs, IMAGE to .build/image/x86_64/driftbox-x86_64.img.
The real systemd of the image boots as PID 1 of a container (read-only root, like the box),
with a temporary data directory bound at /data and a test driftd.toml at /config; the
container has a private network, and the host reaches the visitor API by entering its
network namespace. Every check is an assertion; the script ends with "N passed, N failed"
and exits 1 when any check failed.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
ROOTFS = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else REPO / ".build/image/x86_64/rootfs")
IMAGE = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else REPO / ".build/image/x86_64/driftbox-x86_64.img")
HTTP_PORT = 18080
# Check c runs driftd under this WatchdogSec instead of the shipped 60 s (a runtime drop-in).
TEST_WATCHDOG_S = 15
CLEAN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "TERM": "dumb",
             "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0"}

TEST_CONFIG = f"""# driftd.toml of the container boot test (bound read-only at /config).
[box]
board = "sim"
name = "Drift Box (container test)"
country = "DE"
timezone = "Europe/Berlin"

[storage]
data_dir = "/data/driftd"

[http]
listen = "127.0.0.1:{HTTP_PORT}"

[daemon]
shutdown_timeout_s = 10
watchdog = true
"""


class CheckFailed(AssertionError):
    pass


class Container:
    """One booted container: the nspawn process (under `script`, it needs a terminal) and PID 1."""

    def __init__(self, rootfs, data, config, console_log):
        self.console_log = console_log
        nspawn = [
            "systemd-nspawn", "-D", str(rootfs), "-b", "--register=no", "--keep-unit", "--read-only",
            "--private-network", "--resolv-conf=off", "--timezone=off", "--link-journal=no",
            f"--bind={data}:/data", f"--bind-ro={config}:/config", "--machine=driftbox-test",
            *os.environ.get("IMAGE_TEST_NSPAWN_ARGS", "").split(),  # development: e.g. --bind-ro=/opt/swift
        ]
        command = " ".join(shlex_quote(part) for part in nspawn)
        self.started = time.monotonic()
        # stdin stays an open pipe: `script` must not see end-of-file while the container runs.
        self.process = subprocess.Popen(["script", "-qefc", command, str(console_log)],
                                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.STDOUT, start_new_session=True, env=CLEAN_ENV)
        self.pid1 = self._find_pid1(timeout=30)

    def _find_pid1(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CheckFailed(f"systemd-nspawn exited with {self.process.returncode} before the container booted; "
                                  f"console:\n{self.console_tail()}")
            children = children_by_parent()
            for pid in descendants(self.process.pid, children):
                if comm(pid) == "systemd-nspawn":
                    for child in children.get(pid, []):
                        if comm(child) == "systemd":
                            return child
            time.sleep(0.05)
        raise CheckFailed(f"no container PID 1 (systemd under systemd-nspawn) within {timeout} s")

    def run(self, *args, check=True, timeout=30):
        """Runs a command inside the container (all its namespaces, its root)."""
        result = subprocess.run(["nsenter", f"--target={self.pid1}", "--all", "--root", "--wd", "--", *args],
                                capture_output=True, text=True, timeout=timeout, env=CLEAN_ENV)
        if check and result.returncode != 0:
            raise CheckFailed(f"in the container, `{' '.join(args)}` exited {result.returncode}: "
                              f"{result.stdout.strip()} {result.stderr.strip()}")
        return result

    def show(self, unit, *properties):
        out = self.run("systemctl", "show", unit, "-p", ",".join(properties)).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def http_get(self, path):
        """A visitor's GET: a device token from POST /api/v1/visitors, then GET path with it.

        Runs the host's python in the container's network namespace (the container's
        loopback). Prints the status code, a newline and the body.
        """
        code = ("import json, sys, urllib.request\n"
                f"base = 'http://127.0.0.1:{HTTP_PORT}'\n"
                "r = urllib.request.urlopen(urllib.request.Request(base + '/api/v1/visitors', data=b'', method='POST'), timeout=5)\n"
                "token = json.loads(r.read())['token']\n"
                "q = urllib.request.Request(base + sys.argv[1], headers={'Authorization': 'Bearer ' + token})\n"
                "r = urllib.request.urlopen(q, timeout=5)\n"
                "print(r.status); sys.stdout.write(r.read().decode())\n")
        return subprocess.run(["nsenter", f"--target={self.pid1}", "--net", "--", sys.executable, "-c", code, path],
                              capture_output=True, text=True, timeout=15, env=CLEAN_ENV)

    def console_tail(self, lines=40):
        try:
            text = self.console_log.read_text(errors="replace")
        except OSError:
            return "(no console log)"
        return "\n".join(text.splitlines()[-lines:])

    def wait_exit(self, timeout):
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            if self.wait_exit(10) is None:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def shlex_quote(text):
    import shlex
    return shlex.quote(text)


def children_by_parent():
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(pid, children):
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def comm(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def wait_for(what, predicate, timeout, interval=0.2):
    """Polls predicate() until it returns a truthy value; raises CheckFailed naming `what` after timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except (CheckFailed, subprocess.TimeoutExpired, ValueError) as error:
            last = error
        time.sleep(interval)
    raise CheckFailed(f"{what}: not within {timeout} s (last: {last})")


def seconds(usec_text):
    """systemctl show's *USec values ("10s", "2s", "1min 30s" or microseconds) in seconds."""
    if usec_text.isdigit():
        return int(usec_text) / 1e6
    total = 0.0
    for number, unit in re.findall(r"([\d.]+)\s*(min|ms|us|s|h)", usec_text):
        total += float(number) * {"h": 3600, "min": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[unit]
    return total


def main():
    if os.geteuid() != 0:
        print("container boot test: FAIL — needs root (systemd-nspawn, nsenter)")
        return 1
    for tool in ("systemd-nspawn", "script", "nsenter"):
        if not shutil.which(tool):
            print(f"container boot test: FAIL — {tool} is not installed (image/deps.sh installs it)")
            return 1
    if not (ROOTFS / "usr/bin/driftd").exists():
        print(f"container boot test: FAIL — no root filesystem at {ROOTFS} (make image ARCH=x86_64)")
        return 1

    passed, failed = [], []
    timings = {}
    test_started = time.monotonic()
    work = pathlib.Path(tempfile.mkdtemp(prefix="driftbox-nspawn-"))
    container = None

    def check(name, function):
        started = time.monotonic()
        try:
            function()
        except (AssertionError, subprocess.TimeoutExpired) as error:
            failed.append(name)
            print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {error}")
            if container is not None:
                journal = container.run("journalctl", "-b", "-u", "driftd", "--no-pager", "-n", "30", check=False)
                print("  journal (driftd, last 30 lines):\n    " + journal.stdout.strip().replace("\n", "\n    "))
            return False
        passed.append(name)
        print(f"PASS {name} ({time.monotonic() - started:.1f} s)")
        return True

    try:
        passwd = (ROOTFS / "etc/passwd").read_text()
        entry = next((line.split(":") for line in passwd.splitlines() if line.startswith("driftd:")), None)
        if entry is None:
            print("container boot test: FAIL — the root filesystem has no driftd user")
            return 1
        uid, gid = int(entry[2]), int(entry[3])
        data, config = work / "data", work / "config"
        (data / "driftd").mkdir(parents=True)
        os.chown(data / "driftd", uid, gid)
        os.chmod(data / "driftd", 0o700)  # as tmpfiles.d/driftbox.conf makes it
        config.mkdir()
        (config / "driftd.toml").write_text(TEST_CONFIG)

        container = Container(ROOTFS, data, config, work / "console.log")
        state = {}

        def ready():
            props = container.show("driftd", "ActiveState", "SubState", "StatusText", "MainPID", "NRestarts")
            return props if (props.get("ActiveState"), props.get("SubState")) == ("active", "running") else None

        def a_ready():
            state["ready"] = wait_for("driftd active/running (READY=1) under systemd", ready, timeout=60)
            timings["boot to READY"] = time.monotonic() - container.started
            assert state["ready"]["StatusText"], "driftd is running but sent no STATUS= text"
            def api_answers():
                result = container.http_get("/api/v1/box")
                if result.returncode != 0:
                    raise CheckFailed(result.stderr.strip().splitlines()[-1:] or result.returncode)
                return result
            response = wait_for("the visitor API on the container's loopback", api_answers, timeout=15)
            status_code, _, body = response.stdout.partition("\n")
            assert status_code == "200", f"GET /api/v1/box answered {status_code}"
            box = json.loads(body)
            assert "Drift Box (container test)" in json.dumps(box), f"GET /api/v1/box names another box: {body[:200]}"

        def b_status_line():
            out = container.run("systemctl", "status", "driftd", "--no-pager", "-l", check=False).stdout
            text = state["ready"]["StatusText"]
            assert f'Status: "{text}"' in out, f"systemctl status does not show the STATUS line {text!r}:\n{out}"
            assert "board sim" in text, f"the STATUS line does not name the board: {text!r}"

        def c_watchdog():
            shipped = seconds(container.show("driftd", "WatchdogUSec")["WatchdogUSec"])
            assert shipped > 0, "driftd.service has no WatchdogSec"
            # The shipped interval (60 s) would keep this check waiting a minute for nothing: a
            # runtime drop-in (/run is the container's tmpfs) shortens it, and driftd, which pings
            # at half of WATCHDOG_USEC, restarts under it. The kill and the restart are the same.
            dropin = "/run/systemd/system/driftd.service.d"
            container.run("mkdir", "-p", dropin)
            container.run("sh", "-c", f"printf '[Service]\\nWatchdogSec={TEST_WATCHDOG_S}s\\n' > {dropin}/50-test-watchdog.conf")
            container.run("systemctl", "daemon-reload")
            container.run("systemctl", "restart", "driftd", timeout=60)
            def shortened():
                watchdog_now = seconds(container.show("driftd", "WatchdogUSec")["WatchdogUSec"])
                return ready() if watchdog_now == TEST_WATCHDOG_S else None
            wait_for(f"driftd running again with WatchdogSec={TEST_WATCHDOG_S}s", shortened, timeout=30)
            props = container.show("driftd", "WatchdogUSec", "RestartUSec", "MainPID", "NRestarts")
            watchdog, restart = seconds(props["WatchdogUSec"]), seconds(props["RestartUSec"])
            old_pid, old_restarts = props["MainPID"], int(props["NRestarts"])
            container.run("kill", "-STOP", old_pid)
            stopped = time.monotonic()
            budget = watchdog + restart + 15  # + start-up to READY and slack on a loaded machine

            def restarted():
                now = ready()
                return now if now and now["MainPID"] != old_pid and int(now["NRestarts"]) > old_restarts else None
            now = wait_for(f"a new driftd after SIGSTOP (WatchdogSec {watchdog:g} s + RestartSec {restart:g} s)",
                           restarted, timeout=budget)
            timings["SIGSTOP to READY again"] = time.monotonic() - stopped
            journal = container.run("journalctl", "-b", "-u", "driftd", "--no-pager", "-o", "cat").stdout
            assert "Watchdog timeout" in journal, "the journal does not say that the watchdog fired"
            if os.environ.get("IMAGE_TEST_VERBOSE"):
                print(container.run("journalctl", "-b", "-u", "driftd", "--no-pager", "-o", "short-monotonic").stdout[-3000:])
            assert int(now["NRestarts"]) == old_restarts + 1, f"NRestarts {old_restarts} → {now['NRestarts']}"
            container.run("rm", "-rf", dropin)  # the next restarts run the shipped unit again
            container.run("systemctl", "daemon-reload")

        def d_last_known_good():
            (config / "driftd.toml").write_text("[box\nname = this is not TOML\n")
            container.run("systemctl", "restart", "driftd", timeout=60)
            now = wait_for("driftd running again on the last known good config", ready, timeout=30)
            assert "CONFIG INVALID" in now["StatusText"], f"STATUS does not show the fault: {now['StatusText']!r}"
            out = container.run("driftd", "status", "--data-dir", "/data/driftd").stdout
            assert "RUNNING LAST KNOWN GOOD" in out, f"`driftd status` does not show the fault:\n{out}"
            assert "driftd.toml:1" in out, f"`driftd status` does not point at the broken line:\n{out}"
            response = container.http_get("/api/v1/box")
            assert response.stdout.startswith("200"), "the visitor API is down on the last known good config"

        def e_clean_stop():
            before = container.show("driftd", "MainPID")["MainPID"]
            started = time.monotonic()
            container.run("systemctl", "stop", "driftd", timeout=120)
            timings["systemctl stop"] = time.monotonic() - started
            props = container.show("driftd", "ActiveState", "Result", "ExecMainCode", "ExecMainStatus")
            assert props["ActiveState"] == "inactive", f"driftd is {props['ActiveState']} after stop"
            assert props["Result"] == "success", f"stop result {props['Result']}"
            assert props["ExecMainCode"] == "1" and props["ExecMainStatus"] == "0", \
                f"driftd did not exit 0 by itself (code {props['ExecMainCode']}, status {props['ExecMainStatus']})"
            journal = container.run("journalctl", "-b", "-u", "driftd", "--no-pager").stdout.splitlines()
            own = [line for line in journal if f"driftd[{before}]:" in line]
            assert any("stopped cleanly" in line for line in own), \
                f"the journal has no 'stopped cleanly' line from driftd[{before}]:\n" + "\n".join(own[-10:])
            killed = [line for line in journal if "SIGKILL" in line and f" {before} " in line]
            assert not killed, f"systemd had to SIGKILL driftd: {killed}"
            container.run("systemctl", "poweroff", check=False)
            code = container.wait_exit(60)
            assert code is not None, "the container did not power off within 60 s"
            assert code == 0, f"systemd-nspawn exited {code} after poweroff"

        check("a. driftd reaches READY under systemd; the visitor API answers", a_ready)
        if passed:
            check("b. systemctl status shows driftd's STATUS line", b_status_line)
            check("c. a stalled main loop (SIGSTOP): the watchdog kills it, systemd restarts it", c_watchdog)
            check("d. an invalid driftd.toml: running on the last known good config, fault in `driftd status`", d_last_known_good)
            check("e. SIGTERM (systemctl stop) stops driftd cleanly; the container powers off", e_clean_stop)
        check("f. first boot grows BOXDATA to the end of a larger card (systemd-repart on a copy)",
              lambda: repart_grows(work))
    except CheckFailed as error:
        failed.append("container boot")
        print(f"FAIL container boot: {error}")
    finally:
        if container is not None:
            if failed:
                print("console (last 40 lines):\n  " + container.console_tail().replace("\n", "\n  "))
            container.kill()
        shutil.rmtree(work, ignore_errors=True)

    for name, value in timings.items():
        print(f"timing: {name}: {value:.1f} s")
    print(f"timing: whole test: {time.monotonic() - test_started:.1f} s")
    print(f"{len(passed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def repart_grows(work):
    """The image's repart.d definition, applied by the host's systemd-repart to an enlarged copy."""
    if not IMAGE.exists():
        raise CheckFailed(f"no image at {IMAGE}")
    if not shutil.which("systemd-repart"):
        raise CheckFailed("systemd-repart is not installed")
    copy = work / "card.img"
    subprocess.run(["cp", "--sparse=always", str(IMAGE), str(copy)], check=True)
    before = sfdisk_json(copy)
    card = IMAGE.stat().st_size + 512 * 1024 * 1024
    os.truncate(copy, card)
    result = subprocess.run(["systemd-repart", "--dry-run=no", "--no-pager",
                             f"--definitions={ROOTFS / 'usr/lib/repart.d'}", str(copy)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"systemd-repart failed: {result.stderr.strip()}"
    after = sfdisk_json(copy)
    assert len(after["partitions"]) == 4, f"{len(after['partitions'])} partitions after repart"
    for old, new in zip(before["partitions"][:3], after["partitions"][:3]):
        assert (old["start"], old["size"], old.get("name")) == (new["start"], new["size"], new.get("name")), \
            f"repart touched {old.get('name')}"
    data = after["partitions"][3]
    assert data.get("name") == "BOXDATA", f"the last partition is {data.get('name')}"
    end_sector = data["start"] + data["size"]
    last_usable = after["lastlba"] + 1
    assert last_usable - end_sector < 2048, f"BOXDATA ends at {end_sector}, the card at {last_usable}"
    assert data["size"] > before["partitions"][3]["size"] + 500 * 2048, "BOXDATA did not grow by ~512 MiB"


def sfdisk_json(path):
    out = subprocess.run(["sfdisk", "--json", str(path)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["partitiontable"]


if __name__ == "__main__":
    sys.exit(main())
