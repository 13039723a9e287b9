#!/usr/bin/env python3
"""Guard for the arm64 build scripts' control flow (part of `make test`; docs/arm64.md).

    python3 tests/arm64/scripts_guard_test.py [-v]

`make arm64` takes ~30 minutes cold and is not in CI, so a slip in the control flow of
image/arm64/*.sh (issue #22: a `find` on the not-yet-existing scratch directory stopped every
cold build under `set -euo pipefail`, with nothing but `Error 1`) went unseen. This runs the
real scripts in seconds: image/arm64/common.sh sources tests/arm64/standins.sh through
DRIFTBOX_ARM64_HOOK, which stands in for the heavy steps (mmdebstrap, apt, dpkg -x, clang,
cmake, swift build) and logs each one; everything else (stamps, the sysroot's symlinks, the
SDK bundle, the retry of SwiftPM 6.2.3's graph error, the BuildInfo refresh) runs for real,
in a temporary DRIFTBOX_ARM64_CACHE. Executables first on PATH named mmdebstrap, unshare,
chroot, apt-get, apt-cache, swift, sudo and mount stop the run if a real one is ever reached.
No network, no root, nothing written outside the temporary directory; ../shared not needed.

Checks:
  a. every build, image and check script sources scripts/lib/fail-loudly.sh; `bash -n` passes
  b. fail-loudly.sh names script, line and command for a failure in a function, a pipeline
     and a subshell, and leaves `set +e` regions and command substitutions alone
  c. cold cache: build.sh runs chroot → sysroot → static → sdk → swift build in order, retries
     SwiftPM's graph error once, and leaves bin/driftd, the stamps and relative symlinks
  d. warm cache: every step reuses its cache; only the BuildInfo refresh, swift build and the
     strip run
  e. warm cache without a local package mirror (no git insteadOf), ARM64_LINK=dynamic
  f. a failing step (apt-get download in sysroot.sh) names sysroot.sh, its line and command,
     and build.sh's line that ran it; nothing after it runs
  g. a failure inside a pipeline (the BuildInfo refresh) names build.sh's line and the pipeline
  h. a failing swift build says so and where its log is

Prints PASS/FAIL per check and "N passed, N failed"; exits 1 if any check failed.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
ARM64 = REPO / "image/arm64"
HOOK = REPO / "tests/arm64/standins.sh"
VERBOSE = "-v" in sys.argv[1:]
TRIPWIRES = ("mmdebstrap", "unshare", "chroot", "apt-get", "apt-cache", "swift", "sudo", "mount")

# The scripts that must fail loudly, and the ones that are not ours to change (yet).
LOUD = ["image/build.sh", "image/customize.sh", "image/deps.sh", "image/run-vm.sh",
        "image/arm64/common.sh", "scripts/install-deps.sh", "scripts/build-info.sh",
        "scripts/meshtastic-venv.sh", "scripts/check-units.sh", "scripts/check-gpiod-v2.sh",
        "scripts/embed-page.sh", "scripts/make-media-fixtures.sh"]
# image/arm64/*.sh other than common.sh get it by sourcing common.sh.

COLD_STEPS = [
    "chroot.sh mmdebstrap",
    "chroot.sh swift --version",
    "sysroot.sh apt-get update",
    "sysroot.sh apt-cache depends gcc:arm64",
    "sysroot.sh apt-cache depends --recurse",
    "sysroot.sh apt-get download",
    "sysroot.sh dpkg -x",
    "static.sh apt-get update",
    "static.sh apt-get source mosquitto",
    "static.sh apt-get source cjson",
    "static.sh clang cJSON",
    "static.sh cmake+make mosquitto",
    "static.sh llvm-ar libmosquitto.a",
    "build.sh swift build",
    "build.sh llvm-objcopy",
]
COLD_SAYS = ["chroot: mmdebstrap", "sysroot: resolving", "sysroot: downloading", "static: cJSON",
             "static: libmosquitto", "sdk: ", "swift build (release, static, aarch64)",
             "SwiftPM 6.2.3 dropped swift-configuration from the graph (attempt 1): again", "built in "]
WARM_STEPS = ["build.sh build-info.sh", "build.sh swift build", "build.sh llvm-objcopy"]
WARM_SAYS = ["chroot: reusing", "sysroot: reusing", "static: reusing", "sdk: ", "swift build (release, static", "built in "]


class Run:
    def __init__(self, result, log):
        self.code = result.returncode
        self.out = result.stdout
        self.err = result.stderr
        self.steps = log.read_text().splitlines() if log.exists() else []

    def collapsed(self):
        """The steps with repeats in a row folded (dpkg -x once per package)."""
        return [step for i, step in enumerate(self.steps) if i == 0 or self.steps[i - 1] != step]

    def describe(self):
        folded = [f"{step} (×{self.steps.count(step)})" if self.steps.count(step) > 1 else step
                  for step in self.collapsed()]
        return (f"exit {self.code}\n--- steps:\n" + "\n".join(folded)
                + f"\n--- stdout (tail):\n{tail(self.out)}\n--- stderr (tail):\n{tail(self.err)}")


def tail(text, lines=25):
    return "\n".join(text.splitlines()[-lines:])


class Guard:
    def __init__(self, work):
        self.work = work
        self.tripwire = work / "tripwire"
        self.tripwire.mkdir()
        for name in TRIPWIRES:
            path = self.tripwire / name
            path.write_text("#!/bin/sh\necho \"scripts guard: the real $(basename \"$0\") was called"
                            " ($*): DRIFTBOX_ARM64_HOOK did not stand in for it\" >&2\nexit 97\n")
            path.chmod(0o755)
        self.mirror = work / "gitconfig-mirror"
        self.mirror.write_text("[url \"/opt/swift-packages/\"]\n\tinsteadOf = https://github.com/\n")
        self.no_mirror = work / "gitconfig-none"
        self.no_mirror.write_text("")
        self.runs = 0

    def build(self, cache, gitconfig=None, **extra):
        """Runs image/arm64/build.sh with the stand-ins on CACHE; returns a Run."""
        self.runs += 1
        log = self.work / f"steps-{self.runs}.log"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("ARM64_", "DRIFTBOX_", "GUARD_"))}
        env.update(DRIFTBOX_ARM64_CACHE=str(cache), DRIFTBOX_ARM64_HOOK=str(HOOK), GUARD_LOG=str(log),
                   PATH=f"{self.tripwire}:{os.environ['PATH']}", GIT_OPTIONAL_LOCKS="0",
                   GIT_CONFIG_SYSTEM=str(gitconfig or self.mirror), LC_ALL="C.UTF-8")
        env.update(extra)
        result = subprocess.run(["bash", str(ARM64 / "build.sh")], env=env, cwd=self.work,
                                capture_output=True, text=True, timeout=120)
        run = Run(result, log)
        if VERBOSE:
            print(run.describe())
        return run


def in_order(text, needles):
    """The needles appear in text in this order; returns the first one missing or out of order."""
    at = 0
    for needle in needles:
        found = text.find(needle, at)
        if found < 0:
            return needle
        at = found + len(needle)
    return None


def check_sources_fail_loudly():
    missing = []
    for name in LOUD:
        text = (REPO / name).read_text()
        if not re.search(r"^\s*(source|\.|\[ .* \] \|\| \.) .*lib/fail-loudly\.sh", text, re.MULTILINE):
            missing.append(name)
    assert not missing, f"do not source scripts/lib/fail-loudly.sh: {', '.join(missing)}"
    scripts = LOUD + [str(path.relative_to(REPO)) for path in sorted(ARM64.glob("*.sh"))] + \
        ["scripts/lib/fail-loudly.sh", "tests/arm64/standins.sh"]
    for name in scripts:
        result = subprocess.run(["bash", "-n", str(REPO / name)], capture_output=True, text=True)
        assert result.returncode == 0, f"bash -n {name}: {result.stderr.strip()}"
    for path in sorted(ARM64.glob("*.sh")):
        if path.name != "common.sh":
            assert 'source "$(dirname "$0")/common.sh"' in path.read_text(), f"{path.name} does not source common.sh"
    return f"{len(LOUD)} scripts + image/arm64/*.sh through common.sh"


def check_helper(work):
    script = work / "loud.sh"
    script.write_text(f"""#!/usr/bin/env bash
set -euo pipefail
source "{REPO}/scripts/lib/fail-loudly.sh"
inner() {{
  ls /nonexistent-guard-dir 2>/dev/null
}}
set +e; false; set -e
kept=$(false; echo kept)
case "$1" in
  function) inner ;;
  pipeline) printf 'x\\n' | grep -q nothing-like-this | cat ;;
  subshell) ( true; false; true ) ;;
  fine) echo "fine: $kept" ;;
esac
""")
    expected = {
        "function": [r"^loud\.sh: line 5: FAILED \(exit 2\): ls /nonexistent-guard-dir", r"in inner\(\), called from .*loud\.sh line 10"],
        "pipeline": [r"^loud\.sh: line 11: FAILED \(exit 1\):", r"pipeline \(exit statuses 0 1 0\) at: pipeline\) printf"],
        "subshell": [r"^loud\.sh: line 12: FAILED \(exit 1\): false$", r"^loud\.sh: line 12: FAILED \(exit 1\): \( true; false; true \)"],
    }
    for case, patterns in expected.items():
        result = subprocess.run(["bash", str(script), case], cwd=work, capture_output=True, text=True, timeout=10)
        assert result.returncode != 0, f"{case}: exit 0"
        for pattern in patterns:
            assert re.search(pattern, result.stderr.replace(str(work) + "/", ""), re.MULTILINE), \
                f"{case}: no /{pattern}/ in stderr:\n{result.stderr}"
    result = subprocess.run(["bash", str(script), "fine"], cwd=work, capture_output=True, text=True, timeout=10)
    assert result.returncode == 0 and result.stdout == "fine: kept\n" and result.stderr == "", \
        f"set +e / command substitution: exit {result.returncode}, stdout {result.stdout!r}, stderr {result.stderr!r}"
    return "function, pipeline, subshell named; set +e and $(…) untouched"


def check_cold(guard, cache):
    run = guard.build(cache, GUARD_SWIFTPM_FLAKES="1")
    assert run.code == 0, f"cold cache: build.sh failed:\n{run.describe()}"
    assert run.collapsed() == COLD_STEPS, \
        f"cold cache: steps\n  " + "\n  ".join(run.collapsed()) + "\nexpected\n  " + "\n  ".join(COLD_STEPS)
    assert run.steps.count("build.sh swift build") == 2, "the SwiftPM graph error was not retried once"
    assert run.steps.count("sysroot.sh dpkg -x") > 10, "dpkg -x ran for fewer packages than the sysroot needs"
    missing = in_order(run.out, COLD_SAYS)
    assert missing is None, f"cold cache: stdout lacks (in order) {missing!r}:\n{run.out}"
    for path in ("bin/driftd", "bin/driftd-static", "chroot.stamp", "sysroot.stamp", "static.stamp",
                 "sdk/driftbox-aarch64.artifactbundle/driftbox-aarch64/swift-sdk.json",
                 "sysroot/usr/lib/aarch64-linux-gnu/libmosquitto.a", "sysroot/usr/lib/aarch64-linux-gnu/libcjson.a"):
        assert (cache / path).exists(), f"cold cache: no {path}"
    link = os.readlink(cache / "sysroot/usr/lib/swift")
    assert not link.startswith("/") and (cache / "sysroot/usr/lib/swift/linux/aarch64").is_dir(), \
        f"sysroot/usr/lib/swift → {link}: not made relative"
    assert "insteadof" in (cache / "chroot/etc/gitconfig").read_text().lower(), "the mirror's insteadOf is not in the chroot"
    assert run.out.rstrip().endswith(f"{cache}/bin/driftd-static"), "build.sh's last line is not the binary"
    return f"{len(run.steps)} steps in order, SwiftPM graph error retried"


def check_warm(guard, cache):
    generated = next(cache.glob("build-static/**/BuildInfoPlugin/Generated/BuildInfo.swift"), None)
    assert generated, "no BuildInfo.swift from a cold build to refresh (check c failed?)"
    run = guard.build(cache)
    assert run.code == 0, f"warm cache: build.sh failed:\n{run.describe()}"
    assert run.steps == WARM_STEPS, f"warm cache: steps {run.steps}, expected {WARM_STEPS}"
    missing = in_order(run.out, WARM_SAYS)
    assert missing is None, f"warm cache: stdout lacks (in order) {missing!r}:\n{run.out}"
    assert "Generated by scripts/build-info.sh" in generated.read_text(), "BuildInfo.swift was not refreshed"
    return "chroot, sysroot, static reused; BuildInfo refreshed"


def check_dynamic_no_mirror(guard, cache):
    run = guard.build(cache, gitconfig=guard.no_mirror, ARM64_LINK="dynamic")
    assert run.code == 0, f"no mirror, dynamic: build.sh failed:\n{run.describe()}"
    assert not any(step.startswith("static.sh") for step in run.steps), f"static.sh ran for a dynamic link: {run.steps}"
    assert run.steps[-2:] == ["build.sh swift build", "build.sh llvm-objcopy"], f"steps {run.steps}"
    assert (cache / "bin/driftd-dynamic").exists(), "no bin/driftd-dynamic"
    assert "insteadof" not in (cache / "chroot/etc/gitconfig").read_text().lower(), "an insteadOf without a mirror"
    return "no insteadOf, no static.sh, bin/driftd-dynamic"


def failure_lines(stderr):
    return [line for line in stderr.splitlines() if "FAILED (exit" in line]


def check_failure_names_itself(guard, cache):
    run = guard.build(cache, GUARD_FAIL="^sysroot.sh apt-get download")
    assert run.code != 0, f"a failing step: build.sh exit 0:\n{run.describe()}"
    lines = failure_lines(run.err)
    inner = [line for line in lines if line.startswith("image/arm64/sysroot.sh: line ")]
    outer = [line for line in lines if line.startswith("image/arm64/build.sh: line ")]
    assert inner and "in_chroot /bin/sh -c" in inner[0], f"sysroot.sh's failure does not name itself:\n{run.err}"
    number = int(re.match(r".*?: line (\d+):", inner[0]).group(1))
    source = (ARM64 / "sysroot.sh").read_text().splitlines()
    assert any("apt-get -q -o APT::Sandbox::User=root download" in line or "in_chroot /bin/sh -c" in line
               for line in source[number - 6:number + 1]), f"line {number} of sysroot.sh is not the download"
    assert outer and "sysroot.sh" in outer[0], \
        f"build.sh does not name the step that failed:\n{run.err}"
    assert run.steps[-1] == "sysroot.sh apt-get download", f"steps went on after the failure: {run.steps}"
    assert not (cache / "sysroot.stamp").exists(), "a stamp for a failed sysroot"
    where = lambda line: re.match(r"(.*?: line \d+):", line).group(1)
    return f"{where(inner[0])}: in_chroot … download ← {where(outer[0])}: sysroot.sh"


def check_pipeline_failure(guard, cache):
    run = guard.build(cache, GUARD_FAIL="^build.sh build-info.sh")
    assert run.code != 0, f"a failing BuildInfo refresh: exit 0:\n{run.describe()}"
    lines = failure_lines(run.err)
    assert any(line.startswith("image/arm64/build.sh: line ") and "build-info.sh" in line for line in lines), \
        f"the failing command inside the pipeline is not named:\n{run.err}"
    assert "pipeline (exit statuses 0 1) at: find \"$scratch\"" in run.err, f"the pipeline is not named:\n{run.err}"
    assert "build.sh swift build" not in run.steps, f"swift build ran after the failure: {run.steps}"
    return "build.sh: the in_chroot call in the loop, then the find | while pipeline"


def check_swift_build_failure(guard, cache):
    run = guard.build(cache, GUARD_FAIL="^build.sh swift build")
    assert run.code != 0, f"a failing swift build: exit 0:\n{run.describe()}"
    assert re.search(r"arm64: ERROR: swift build failed \(log: .*/build-static\.log\)", run.err), \
        f"no 'swift build failed (log: …)':\n{run.err}"
    assert run.steps.count("build.sh swift build") == 1, f"a real failure was retried: {run.steps}"
    return "swift build failed (log: …/build-static.log)"


def main():
    work = pathlib.Path(tempfile.mkdtemp(prefix="driftbox-arm64-guard-"))
    passed, failed = [], []
    began = time.monotonic()

    def check(name, function, *args):
        started = time.monotonic()
        try:
            detail = function(*args)
        except (AssertionError, OSError, subprocess.SubprocessError, ValueError) as error:
            failed.append(name)
            print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {str(error) or type(error).__name__}")
            return
        passed.append(name)
        print(f"PASS {name} ({time.monotonic() - started:.1f} s){': ' + detail if detail else ''}")

    try:
        guard = Guard(work)
        cache = work / "cache"
        check("a. every build/image script fails loudly (sources fail-loudly.sh), bash -n", check_sources_fail_loudly)
        check("b. fail-loudly.sh names script, line, command", check_helper, work)
        check("c. cold cache: every step runs, in order", check_cold, guard, cache)
        check("d. warm cache: steps reuse their cache", check_warm, guard, cache)
        check("e. warm cache, no local package mirror, ARM64_LINK=dynamic", check_dynamic_no_mirror, guard, cache)
        check("f. cold cache, a failing step names itself", check_failure_names_itself, guard, work / "cache-fail")
        check("g. a failure inside a pipeline names itself", check_pipeline_failure, guard, cache)
        check("h. a failing swift build says so", check_swift_build_failure, guard, cache)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"arm64 scripts guard: {len(passed)} passed, {len(failed)} failed ({time.monotonic() - began:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
