#!/usr/bin/env python3
"""Compare receiver traces of runs of one model at different resolutions.

Each input is a CSV file of `tremor export` (time, then one column per receiver point and
component). The first file, or the Richardson extrapolation of two (--extrapolate COARSE FINE
RATE: FINE + (FINE - COARSE) / (2^RATE - 1), for meshes halved in h), is the reference; every
other file is resampled to the reference's times (cubic Catmull-Rom, whose error O(dt^4) is far
below what is compared) and its difference from the reference printed per column, as the
relative L2 norm over the record and as the largest difference over the largest reference
value. Standard library only.

Usage:
  compare_traces.py [--component uz] [--extrapolate COARSE FINE RATE] [REFERENCE] OTHER...
"""
import argparse
import csv
import math
import sys


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 3:
        sys.exit(f"error: {path}: fewer than two samples")
    header = rows[0]
    if header[0] != "time":
        sys.exit(f"error: {path}: the first column is {header[0]!r}, not 'time' (is it a tremor export?)")
    data = [[float(v) for v in row] for row in rows[1:]]
    times = [row[0] for row in data]
    columns = {name: [row[i] for row in data] for i, name in enumerate(header) if i > 0}
    return times, columns


def resample(times, values, at):
    """Catmull-Rom interpolation of (times, values) at the times `at` (uniform or not)."""
    out = []
    j = 0
    n = len(times)
    for t in at:
        if t <= times[0]:
            out.append(values[0])
            continue
        if t >= times[-1]:
            out.append(values[-1])
            continue
        while times[j + 1] < t:
            j += 1
        t0, t1 = times[j], times[j + 1]
        p0, p1 = values[j], values[j + 1]
        m0 = (p1 - values[j - 1]) / (t1 - times[j - 1]) if j > 0 else (p1 - p0) / (t1 - t0)
        m1 = (values[j + 2] - p0) / (times[j + 2] - t0) if j + 2 < n else (p1 - p0) / (t1 - t0)
        h = t1 - t0
        s = (t - t0) / h
        h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
        out.append(h00 * p0 + h10 * h * m0 + h01 * p1 + h11 * h * m1)
    return out


def differences(reference, other):
    num = sum((a - b) ** 2 for a, b in zip(other, reference))
    den = sum(b * b for b in reference)
    worst = max(abs(a - b) for a, b in zip(other, reference))
    peak = max(abs(b) for b in reference)
    return math.sqrt(num / den) if den > 0 else float("inf"), worst / peak if peak > 0 else float("inf")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--component", default="uz", help="column suffix to compare (default uz)")
    parser.add_argument("--extrapolate", nargs=3, metavar=("COARSE", "FINE", "RATE"),
                        help="reference = Richardson extrapolation of two runs, h halved, error ~ h^RATE")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    files = list(args.files)
    if args.extrapolate:
        coarse_path, fine_path, rate = args.extrapolate
        times, fine = read(fine_path)
        coarse_times, coarse = read(coarse_path)
        factor = 1.0 / (2.0 ** float(rate) - 1.0)
        reference = {}
        for name, values in fine.items():
            if name not in coarse:
                sys.exit(f"error: {coarse_path}: no column {name!r}")
            c = resample(coarse_times, coarse[name], times)
            reference[name] = [f + (f - cv) * factor for f, cv in zip(values, c)]
        label = f"Richardson({coarse_path}, {fine_path}, rate {rate})"
        others = files + [coarse_path, fine_path]
    else:
        times, reference = read(files[0])
        label = files[0]
        others = files[1:]

    names = [n for n in reference if n.endswith("_" + args.component)]
    if not names:
        sys.exit(f"error: no column ends in _{args.component}")
    runs = [(path, *read(path)) for path in others]
    # Runs end at the first step past the duration: compare over the times all of them cover.
    end = min([times[-1]] + [t[-1] for _, t, _ in runs])
    keep = sum(1 for t in times if t <= end)
    times = times[:keep]
    reference = {name: values[:keep] for name, values in reference.items()}
    print(f"reference: {label}; compared over 0 to {end:.6g} s")
    print(f"{'run':50s} {'column':>14s} {'L2 rel':>9s} {'max rel':>9s}")
    for path, t, columns in runs:
        for name in names:
            if name not in columns:
                sys.exit(f"error: {path}: no column {name!r}")
            l2, worst = differences(reference[name], resample(t, columns[name], times))
            print(f"{path:50s} {name:>14s} {100 * l2:8.3f}% {100 * worst:8.3f}%")


if __name__ == "__main__":
    main()
