#!/usr/bin/env python3
"""Which parts of a mapped file are resident in a process: resident pages per ELF section.

    tools/resident.py PID [NAME]        # NAME: part of the mapped file's path (default: the executable)
    tools/resident.py PID NAME --map SECTION   # and the resident pages per MiB of one section

Reads /proc/PID/maps and /proc/PID/pagemap (the present bit needs no privilege for one's own
processes) and the file's section headers (readelf). An executable's or library's RSS is mostly
clean file pages: this says whether they are code (.text), relocations (.rela.dyn), symbol
lookup tables (.dynsym, .dynstr, .gnu.hash) or data (docs/performance.md, "Idle" → memory).
"""

import argparse
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")


def mappings(pid, name):
    found, path = [], None
    for line in open(f"/proc/{pid}/maps"):
        parts = line.split()
        if len(parts) >= 6 and name in parts[5]:
            start, end = (int(x, 16) for x in parts[0].split("-"))
            found.append((start, end, int(parts[2], 16)))
            path = parts[5]
    if not found:
        sys.exit(f"resident: no mapping of {name!r} in process {pid}")
    return found, path


def resident_pages(pid, found):
    """Page numbers (relative to the file's load base) that are present."""
    base = min(start - offset for start, _, offset in found)
    present = set()
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for start, end, _ in found:
            pagemap.seek(start // PAGE * 8)
            entries = pagemap.read((end - start) // PAGE * 8)
            for i in range((end - start) // PAGE):
                if struct.unpack_from("<Q", entries, i * 8)[0] >> 63 & 1:
                    present.add((start - base) // PAGE + i)
    return present


def sections(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16) and int(m.group(3), 16):
            yield m.group(1), int(m.group(2), 16), int(m.group(3), 16)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pid")
    parser.add_argument("name", nargs="?")
    parser.add_argument("--map", metavar="SECTION", help="also print this section's resident pages per MiB")
    args = parser.parse_args()
    name = args.name or os.readlink(f"/proc/{args.pid}/exe")
    found, path = mappings(args.pid, name)
    present = resident_pages(args.pid, found)
    rows = []
    for section, address, size in sections(path):
        pages = range(address // PAGE, (address + size + PAGE - 1) // PAGE)
        rows.append((section, size, len(pages), sum(1 for page in pages if page in present), address))
    mib = lambda n: n / 1048576
    print(f"{path}: {mib(len(present) * PAGE):.2f} MiB resident")
    print("| section | size (MiB) | resident (MiB) |")
    print("| --- | ---: | ---: |")
    for section, size, _, resident, _ in sorted(rows, key=lambda row: -row[3]):
        if resident:
            print(f"| {section} | {mib(size):.2f} | {mib(resident * PAGE):.2f} |")
    if args.map:
        for section, size, _, _, address in rows:
            if section == args.map:
                per = [sum(1 for page in range((address + (i << 20)) // PAGE, min(address + size, address + ((i + 1) << 20)) // PAGE)
                           if page in present) for i in range((size + (1 << 20) - 1) >> 20)]
                print(f"\n{section}: resident pages per MiB (of {(1 << 20) // PAGE}): {per}")


if __name__ == "__main__":
    main()
