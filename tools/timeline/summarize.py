#!/usr/bin/env python3
"""A typical step of a GPU timeline (timeline.cpp's CSV): the median start, end and duration of each
kernel, memcpy and memset of a step, by stream, from the start of the step's anchor kernel.

    tools/timeline/summarize.py trace.csv [--anchor REGEX] [--grid N] [--run K]

The anchor (default: the fluid's column kernel, add_columns) marks each step; --grid keeps the
anchor's launches of that many blocks (one box of `tremor bench fluid` among several). Launches
more than --gap ms apart (default 5) start another run; the runs are listed, and the one asked for
(--run, default the longest) is summarised over its middle steps (the first and last tenth left
out). Names are demangled with c++filt where it is installed, and shortened to the function whose
lambda the kernel runs (forall's bodies); without c++filt they are shown mangled, whole."""
import argparse
import csv
import re
import shutil
import statistics
import subprocess
import sys


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    text = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, text.split("\n")))


def label(name):
    """The function whose lambda a kernel runs, with its template arguments, or the kernel's own."""
    if not name:
        return ""
    if name.startswith("_Z"):  # not demangled (no c++filt): whole, so that no two kernels share one
        return name
    at = name.find("::{lambda")
    head = name[:at] if at >= 0 else name
    if head.endswith(")"):  # drop the parameter list: back to its matching parenthesis
        depth = 0
        for i in range(len(head) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(head[i], 0)
            if depth == 0:
                head = head[:i]
                break
    depth, cut = 0, 0
    for i, c in enumerate(head):  # the last component outside template brackets
        depth += {"<": 1, ">": -1}.get(c, 0)
        if depth == 0 and head.startswith("::", i):
            cut = i + 2
    short = head[cut:]
    short = re.sub(r"^forall_(blocks_)?(bounded_)?kernel<\d*,?\s*", "", short)
    return short[:90]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--anchor", default="add_columns")
    parser.add_argument("--grid", type=int, default=0)
    parser.add_argument("--run", type=int, default=-1)
    parser.add_argument("--gap", type=float, default=5.0, help="ms between the anchor's launches that start a run")
    a = parser.parse_args()
    with open(a.trace, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{a.trace}: no records")
    names = demangle(sorted({r["name"] for r in rows if r["name"]}))
    for r in rows:
        r["label"] = label(names.get(r["name"], r["name"])) or r["kind"]
        r["start"], r["end"] = int(r["start_ns"]), int(r["end_ns"])
    rows.sort(key=lambda r: r["start"])
    anchor = re.compile(a.anchor)
    marks = [r for r in rows if r["kind"] == "kernel" and anchor.search(r["label"] + " " + names.get(r["name"], ""))
             and (a.grid == 0 or int(r["grid"]) == a.grid)]
    if len(marks) < 3:
        sys.exit(f"{a.trace}: {len(marks)} launches of the anchor '{a.anchor}'" +
                 (f" of {a.grid} blocks" if a.grid else "") + "; at least 3 needed")
    runs, current = [], [marks[0]]
    for previous, mark in zip(marks, marks[1:]):
        if mark["start"] - previous["start"] > a.gap * 1e6:
            runs.append(current)
            current = []
        current.append(mark)
    runs.append(current)
    plural = "s" if len(runs) != 1 else ""
    print(f"{len(rows)} records; {len(runs)} run{plural} of the anchor '{a.anchor}'" +
          (f" ({a.grid} blocks)" if a.grid else ""))
    for k, run in enumerate(runs):
        period = statistics.median(y["start"] - x["start"] for x, y in zip(run, run[1:])) if len(run) > 1 else 0
        print(f"  run {k}: {len(run)} steps, a step every {period / 1e3:.1f} us (median)")
    chosen = max(range(len(runs)), key=lambda k: len(runs[k])) if a.run < 0 else a.run
    run = runs[chosen]
    if len(run) < 5:
        sys.exit(f"run {chosen}: {len(run)} steps; at least 5 needed")
    skip = max(1, len(run) // 10)
    steps = run[skip:len(run) - skip]
    # Each step's records by (stream, label, k-th of them in the step), times from the step's anchor.
    by = {}
    i = 0
    for s, (mark, following) in enumerate(zip(steps, steps[1:] + [None])):
        end = following["start"] if following else mark["start"] + (steps[-1]["start"] - steps[-2]["start"])
        while i < len(rows) and rows[i]["start"] < mark["start"]:
            i += 1
        seen = {}
        j = i
        while j < len(rows) and rows[j]["start"] < end:
            r = rows[j]
            key = (r["stream"], r["label"])
            seen[key] = seen.get(key, 0) + 1
            by.setdefault(key + (seen[key],), []).append((r["start"] - mark["start"], r["end"] - mark["start"]))
            j += 1
    period = statistics.median(y["start"] - x["start"] for x, y in zip(steps, steps[1:]))
    print(f"\nrun {chosen}: {len(steps)} middle steps, a step every {period / 1e3:.2f} us; times in us from the "
          f"anchor's start (median over the steps that hold the record)")
    print(f"{'stream':>6} {'start':>9} {'end':>9} {'us':>8} {'steps':>6}  kernel")
    lines = []
    for (stream, name, nth), spans in by.items():
        if len(spans) < len(steps) // 2:
            continue  # (now and then: a recorder's flush, a table of loads)
        start = statistics.median(x for x, _ in spans)
        end = statistics.median(y for _, y in spans)
        duration = statistics.median(y - x for x, y in spans)
        lines.append((start, stream, end, duration, len(spans), name + (f" #{nth}" if nth > 1 else "")))
    for start, stream, end, duration, n, name in sorted(lines):
        print(f"{stream:>6} {start / 1e3:9.2f} {end / 1e3:9.2f} {duration / 1e3:8.2f} {n:6d}  {name}")
    for stream in sorted({line[1] for line in lines}):
        busy = sum(line[3] for line in lines if line[1] == stream)
        print(f"stream {stream}: busy {busy / 1e3:.2f} us of the step's {period / 1e3:.2f} us")


if __name__ == "__main__":
    main()
