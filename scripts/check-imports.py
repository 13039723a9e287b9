#!/usr/bin/env python3
"""Fails when a target imports a module it does not list as a dependency (a module of this
package, or a product of a package it depends on).

Such an import compiles (the module comes in through another dependency), but the incremental
build does not track it: when the imported module's struct gains a stored property, the target
is not rebuilt and reads the struct with its old layout. That happened to the mesh node's
counters (`MeshCounters` in DriftMesh, read by DriftDaemonTests through DriftDaemon): after a
counter was added, `make test` on a warm build read `retriesRelayed`, `framesResent` and others
one field off, and eight tests failed until the test module was rebuilt — a clean clone passed
(docs/testing.md, "Stale incremental builds").

Usage: scripts/check-imports.py [--package-json FILE]   (default: `swift package dump-package`)
"""
import glob
import json
import os
import re
import subprocess
import sys

# The toolchain's own modules, which no target lists.
TOOLCHAIN = {"Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Glibc", "Musl",
             "Darwin", "Dispatch", "Synchronization", "Testing", "XCTest", "_Concurrency", "RegexBuilder",
             "Observation", "os"}

IMPORT = re.compile(r"^\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+|public\s+|internal\s+|package\s+)*"
                    r"import\s+(?:struct\s+|class\s+|enum\s+|protocol\s+|func\s+|var\s+|let\s+|typealias\s+)?(\w+)")


def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def imports(path):
    found = {}
    for file in sorted(glob.glob(os.path.join(path, "**", "*.swift"), recursive=True)):
        with open(file, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                match = IMPORT.match(line)
                if match:
                    found.setdefault(match.group(1), f"{file}:{number}")
    return found


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    if len(sys.argv) == 3 and sys.argv[1] == "--package-json":
        with open(sys.argv[2], encoding="utf-8") as handle:
            package = json.load(handle)
    else:
        package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                            capture_output=True, text=True).stdout)
    targets = {target["name"]: target for target in package["targets"]}
    problems = []
    for name, target in sorted(targets.items()):
        path = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
        deps = declared(target)
        for module, where in sorted(imports(path).items()):
            if module == name or module in deps or module in TOOLCHAIN:
                continue
            problems.append(f"{where}: {name} imports {module} but does not list it in Package.swift")
    for problem in problems:
        print(f"check-imports: {problem}")
    if problems:
        print("check-imports: add each to the target's dependencies (an undeclared import is not rebuilt when the module's layout changes)")
        return 1
    print(f"check-imports: OK ({len(targets)} targets, every import declared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
