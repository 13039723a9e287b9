#!/usr/bin/env python3
"""Descriptors a process closed while they were still registered in one of its epoll sets.

    tools/epoll-closes.py TRACE         # TRACE: strace -f -tt -o TRACE -e trace=epoll_ctl,close,dup2,dup3,clone,clone3 …

libdispatch keys its epoll registrations by descriptor number: a descriptor closed before its
source was unregistered, its number reused at once, leaves the new descriptor's sources
registered on nothing (docs/architecture.md, "I/O without polling threads"). This pairs every
`close` (or `dup2`/`dup3` onto a descriptor) by a thread of the traced process with the
registrations still live at that moment, and prints each one closed while registered, with the
`EPOLL_CTL_ADD` that registered it. Failed `epoll_ctl` calls are counted (libdispatch's own
concurrent deletes of one descriptor give harmless ENOENTs). Only the first process and its
threads count: children have descriptor tables of their own. Exit status 1 when any descriptor
was closed while registered. scripts/trace-epoll-closes.sh runs the test suite this way.
"""

import collections
import re
import sys

LINE = re.compile(r"^(\d+)\s+(\S+)\s+(.*)$")
EPOLL_CTL = re.compile(r"epoll_ctl\((\d+), (EPOLL_CTL_\w+), (\d+),(.*)\) = (-?\d+)")
CLOSING = re.compile(r"(close|dup2|dup3)\((\d+)(?:, (\d+))?")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    threads: set[int] = set()
    registered: dict[int, dict[int, str]] = collections.defaultdict(dict)  # epoll fd -> fd -> its ADD
    pending: dict[int, str] = {}  # a thread's unfinished call
    closed_registered: list[str] = []
    failed = collections.Counter()
    for raw in open(sys.argv[1], errors="replace"):
        match = LINE.match(raw.rstrip("\n"))
        if not match:
            continue
        pid, time, call = int(match.group(1)), match.group(2), match.group(3)
        if not threads:
            threads.add(pid)
        if call.startswith("<..."):
            if pid not in pending or "resumed>" not in call:
                continue
            call = pending.pop(pid) + call.split("resumed>", 1)[1]
        elif "<unfinished ...>" in call:
            start = call.split("<unfinished")[0]
            pending[pid] = start
            if not CLOSING.match(start):
                continue
            call = start + ") = 0"  # a close acts when it starts
        if call.startswith("clone"):
            child = re.search(r"= (\d+)$", call)
            if child and "CLONE_THREAD" in call and pid in threads:
                threads.add(int(child.group(1)))
            continue
        if pid not in threads:
            continue
        ctl = EPOLL_CTL.match(call)
        if ctl:
            epfd, op, fd, result = int(ctl.group(1)), ctl.group(2), int(ctl.group(3)), int(ctl.group(5))
            if result != 0:
                failed[(op, call.rsplit("=", 1)[1].split()[1])] += 1
            elif op == "EPOLL_CTL_ADD":
                registered[epfd][fd] = f"{time} {call}"
            elif op == "EPOLL_CTL_DEL":
                registered[epfd].pop(fd, None)
            continue
        closing = CLOSING.match(call)
        if closing:
            fd = int(closing.group(3) if closing.group(1) != "close" else closing.group(2))
            for epfd, fds in registered.items():
                if fd in fds and fd != epfd:
                    closed_registered.append(f"{time} thread {pid} closed {fd}, registered in epoll {epfd} by: {fds.pop(fd)}")
            registered.pop(fd, None)
    print(f"threads of the traced process: {len(threads)}")
    print(f"descriptors closed while registered: {len(closed_registered)}")
    for line in closed_registered:
        print("  " + line)
    for (op, errno), count in sorted(failed.items()):
        print(f"failed {op}: {count} ({errno})")
    return 1 if closed_registered else 0


if __name__ == "__main__":
    sys.exit(main())
