#!/usr/bin/env python3
"""CalculiX (ccx) and tremor side by side on one C3D8 plate deck: microseconds per increment per DOF.

Writes an aluminium plate of C3D8 bricks (0.5 mm; 60 x 60 x 4 by default: 55,815 DOF) loaded by a
tone burst at its top centre, with *DYNAMIC, DIRECT, EXPLICIT and a fixed increment below both
programs' stable estimates, then runs

  ccx -i plate           (OMP_NUM_THREADS and CCX_NPROC_EQUATION_SOLVER set to --threads)
  tremor run plate.inp   (OMP_NUM_THREADS=--threads; each operator:precision:backend of --cases)

with N and 2N increments, each --repeat times, keeping the shortest wall time (the run least
disturbed by other work on the machine). The cost per increment is the difference of the two wall
times divided by N, so reading the deck, assembly and start-up cancel; divided by the DOF it is the
figure compared. N is --increments for CalculiX; for tremor, whose increments are much cheaper, it
is chosen per case so that N increments take about --tremor-seconds (otherwise the start-up's
noise swamps the difference). The decks differ only in the step's time period. Writes JSON to
--output.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

H = 0.5e-3  # m, brick edge
FREQUENCY = 300e3  # Hz
CYCLES = 3


def node_id(i, j, k, nx, ny):
    return 1 + i + (nx + 1) * (j + (ny + 1) * k)


def write_deck(path, nx, ny, nz, dt, increments):
    lines = ["*HEADING", "Aluminium plate, C3D8, tone burst, explicit (bench/calculix_compare.py)", "*NODE,NSET=NALL"]
    for k in range(nz + 1):
        for j in range(ny + 1):
            for i in range(nx + 1):
                lines.append(f"{node_id(i, j, k, nx, ny)},{i * H:.9e},{j * H:.9e},{k * H:.9e}")
    lines.append("*ELEMENT,TYPE=C3D8,ELSET=EALL")
    e = 1
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                n = lambda a, b, c: node_id(a, b, c, nx, ny)
                corners = [n(i, j, k), n(i + 1, j, k), n(i + 1, j + 1, k), n(i, j + 1, k),
                           n(i, j, k + 1), n(i + 1, j, k + 1), n(i + 1, j + 1, k + 1), n(i, j + 1, k + 1)]
                lines.append(f"{e}," + ",".join(map(str, corners)))
                e += 1
    lines += ["*NSET,NSET=SOURCE", str(node_id(nx // 2, ny // 2, nz, nx, ny)),
              "*NSET,NSET=RECEIVERS", f"{node_id(nx // 2, ny // 2, nz, nx, ny)},", f"{node_id(nx, ny // 2, 0, nx, ny)},",
              "*MATERIAL,NAME=ALUMINIUM", "*ELASTIC", "70.e9,0.33", "*DENSITY", "2700.",
              "*SOLID SECTION,ELSET=EALL,MATERIAL=ALUMINIUM", "*AMPLITUDE,NAME=BURST"]
    points = []
    for m in range(40 * CYCLES + 1):
        t = m * CYCLES / FREQUENCY / (40 * CYCLES)
        phase = 2 * math.pi * FREQUENCY * t
        points.append(f"{t:.9e},{math.sin(phase) * 0.5 * (1 - math.cos(phase / CYCLES)):.9e}")
    lines += [",".join(points[m:m + 4]) for m in range(0, len(points), 4)]
    duration = dt * increments
    lines += ["*STEP,INC=10000000", "*DYNAMIC,DIRECT,EXPLICIT", f"{dt:.9e},{duration:.9e},{dt:.9e},{dt:.9e}",
              "*CLOAD,AMPLITUDE=BURST", "SOURCE,3,-1.",
              "*NODE PRINT,NSET=RECEIVERS,FREQUENCY=10", "U", "*END STEP"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def timed(command, cwd, env):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"calculix_compare: {' '.join(command)} failed ({result.returncode}):\n{result.stdout[-3000:]}")
    return elapsed, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", default="60,60,4", help="NX,NY,NZ bricks of 0.5 mm (default 60,60,4)")
    # 100 increments cost less than CalculiX's start-up varies by (seconds): their difference was
    # noise; 1000 against 2000 measured 0.68 us per increment per DOF on this deck.
    parser.add_argument("--increments", type=int, default=1000,
                        help="N for CalculiX: runs of N and 2N increments (default 1000)")
    parser.add_argument("--tremor-seconds", type=float, default=5.0,
                        help="tremor's N is chosen so that N increments step for about this long (default 5)")
    parser.add_argument("--dt", type=float, default=40e-9, help="fixed increment, s (default 40 ns)")
    parser.add_argument("--threads", type=int, default=2, help="threads for both programs (default 2)")
    parser.add_argument("--tremor", default="build/bin/tremor", help="tremor executable (default build/bin/tremor)")
    parser.add_argument("--ccx", default="ccx", help="CalculiX executable (default ccx)")
    parser.add_argument("--cases", default="assembled:double:openmp,assembled:float:openmp,assembled:double:serial,"
                        "block_csr:double:openmp,block_csr:float:openmp,matrix_free:float:openmp",
                        help="tremor operator:precision:backend triples")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each, the fastest kept (default 2)")
    parser.add_argument("-o", "--output", required=True, help="JSON file to write")
    parser.add_argument("--note", default="", help="free text stored in the JSON (e.g. what else the machine was doing)")
    args = parser.parse_args()
    nx, ny, nz = (int(v) for v in args.cells.split(","))
    dofs = 3 * (nx + 1) * (ny + 1) * (nz + 1)
    tremor = os.path.abspath(args.tremor)
    ccx = shutil.which(args.ccx)
    if ccx is None:
        sys.exit(f"calculix_compare: {args.ccx} not found (Debian package calculix-ccx; scripts/setup installs it)")

    load_at_start = list(os.getloadavg())
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), CCX_NPROC_EQUATION_SOLVER=str(args.threads))
    work = tempfile.mkdtemp(prefix="tremor_ccx_bench_")
    runs = {}
    ccx_version = ""
    selected = ""
    decks = {}

    def deck_for(n):
        if n not in decks:
            decks[n] = os.path.join(work, f"plate{n}.inp")
            write_deck(decks[n], nx, ny, nz, args.dt, n)
        return decks[n]

    # CalculiX: N and 2N increments.
    for n in (args.increments, 2 * args.increments):
        deck_for(n)
        best = None
        for _ in range(args.repeat):
            seconds, log = timed([ccx, "-i", f"plate{n}"], work, env)
            if "Job finished" not in log:
                sys.exit(f"calculix_compare: ccx did not finish:\n{log[-3000:]}")
            best = seconds if best is None else min(best, seconds)
        selected = (re.search(r"SELECTED time increment:\s*(\S+)", log) or [None, ""])[1]
        ccx_version = (re.search(r"CalculiX Version ([0-9.]+[0-9])", log) or [None, ""])[1]
        runs.setdefault("calculix", []).append({"increments": n, "wall_seconds": best})
        print(f"calculix, {n} increments: {best:.2f} s", flush=True)

    # tremor: a first run of --increments sets N per case so that the N-increment run steps for
    # about --tremor-seconds (setup then stays a small part of the difference); then N and 2N.
    for case in args.cases.split(","):
        operator, precision, backend = case.split(":")
        name = f"tremor {operator} {precision} {backend}"

        def run_tremor(n):
            seconds, log = timed([tremor, "run", deck_for(n), "-o", os.path.join(work, "t.h5"), "--backend", backend,
                                  "--operator", operator, "--precision", precision], work, env)
            speed = re.search(r"speed\s+(\S+) DOF-steps/s", log)
            return seconds, float(speed[1]) if speed else None

        _, speed = run_tremor(args.increments)
        n = max(args.increments, int(round(args.tremor_seconds * speed / dofs / 100)) * 100)
        for count in (n, 2 * n):
            best, reported = None, None
            for _ in range(args.repeat):
                seconds, speed = run_tremor(count)
                if best is None or seconds < best:
                    best, reported = seconds, speed
            runs.setdefault(name, []).append(
                {"increments": count, "wall_seconds": best, "reported_dof_steps_per_second": reported})
            print(f"{name}, {count} increments: {best:.2f} s", flush=True)

    result = {
        "benchmark": "CalculiX vs tremor, same C3D8 deck, *DYNAMIC, DIRECT, EXPLICIT",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
                       platform.processor()),
        "logical_cpus": os.cpu_count(),
        "threads": args.threads,
        "repeat": args.repeat,
        "load_average_at_start": load_at_start,
        "load_average_at_end": list(os.getloadavg()),
        "note": args.note,
        "git_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                     cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip(),
        "calculix_version": ccx_version,
        "calculix_selected_increment": selected,
        "mesh": {"cells": [nx, ny, nz], "brick_m": H, "nodes": dofs // 3, "dof": dofs},
        "dt": args.dt,
        "programs": {},
    }
    for name, (short, long) in runs.items():
        per_increment = (long["wall_seconds"] - short["wall_seconds"]) / (long["increments"] - short["increments"])
        entry = {"runs": [short, long], "seconds_per_increment": per_increment,
                 "us_per_increment_per_dof": 1e6 * per_increment / dofs if per_increment > 0 else None}
        if per_increment <= 0:
            print(f"{name}: the 2N run was not slower than the N run (noise from other work on the machine); "
                  "no difference figure", file=sys.stderr)
        if long.get("reported_dof_steps_per_second"):
            # tremor's own timing of its time loop (the longer run): the other way to leave setup out
            entry["reported_us_per_step_per_dof"] = 1e6 / long["reported_dof_steps_per_second"]
        result["programs"][name] = entry
    base = result["programs"]["calculix"]["us_per_increment_per_dof"]
    for name, entry in result["programs"].items():
        own = entry["us_per_increment_per_dof"]
        entry["speedup_over_calculix"] = base / own if base and own else None
        if "reported_us_per_step_per_dof" in entry:
            entry["speedup_over_calculix_by_loop_timing"] = base / entry["reported_us_per_step_per_dof"] if base else None
        print(f"{name:32s} " + (f"{own:.4g} us per increment per DOF" if own else "no difference figure") +
              (f", x{entry['speedup_over_calculix']:.1f} vs CalculiX" if entry["speedup_over_calculix"] else "") +
              (f" (loop timing {entry['reported_us_per_step_per_dof']:.4g} us, "
               f"x{entry['speedup_over_calculix_by_loop_timing']:.1f})" if "reported_us_per_step_per_dof" in entry else ""))
    with open(args.output, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    shutil.rmtree(work)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
