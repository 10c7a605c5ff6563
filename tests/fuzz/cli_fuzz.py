#!/usr/bin/env python3
"""A command-line fuzzer for `tremor`: random option sets and values for every command on small
models, from a seed, so every finding repeats.

Each command line must end within 20 s (or, a long run, stop on SIGINT with exit status 130 and
an "incomplete" file) with exit status 0, 1 or one of CLI11's usage errors
(103-114: a value outside its bounds, an option given twice), never a signal or another status;
a result file must never say "complete" unless the command exited 0, and a `run` that exits 0
must have taken every step its pre-flight planned. A command line that breaks a rule is
written to DIR (one file per finding, the arguments one per line) to be kept under
tests/data/fuzz/cli/, which `--replay` runs again.

usage: cli_fuzz.py TREMOR --seconds S [--seed N] [--findings DIR]
       cli_fuzz.py TREMOR --replay DIR
(run from the repository root)
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import h5py
except ImportError:
    print("skipped: this Python has no h5py (scripts/setup installs Debian's python3-h5py)")
    sys.exit(77)

MODELS = {
    "run": ["tests/data/cli/tiny.toml", "tests/data/cli/snapshots.toml", "tests/data/abaqus/calculix_explicit.inp",
            "tests/data/abaqus/plate_cpe4r.inp",
            "examples/plate-2d/model.toml", "tests/data/cli/inverted.inp", "tests/data/cli/bad_material.toml"],
    "static": ["tests/data/cli/static_free.toml", "examples/cantilever-3d/model.toml"],
    "bem": ["tests/data/cli/bem_small.toml", "tests/data/cli/bem_coarse.toml",
            "tests/data/cli/bem_zero_frequency.toml"],
    "info": ["tests/data/cli/tiny.toml", "examples/plate-2d/model.toml", "tests/data/cli/inverted.inp"],
    "export": [],
    "partition": ["examples/plate-2d/model.toml", "tests/data/cli/tiny.toml"],
}

NUMBERS = ["0", "-1", "1", "nan", "NaN", "inf", "-inf", "1e300", "-1e300", "1e-300", "5e-324", "1e12", "2",
           "0.5", "1e-9", "3.7e-8", "2147483648", "9223372036854775807", "-0", "0x10", "1e", "", " ", "abc",
           "1,5", "4e-6", "100", "1000000000"]
WORDS = ["auto", "serial", "openmp", "cuda", "double", "float", "none", "rcm", "csr", "block_csr", "ell",
         "block_ell", "matrix_free", "partitioned", "cusparse", "jacobi", "block_jacobi", "colouring",
         "atomics", "rigid_body", "direct", "constant", "linear", "greedy", "aligned", "", "x" * 300, "\u00e9"]

OPTIONS = {
    "run": {"--dt": NUMBERS, "--duration": NUMBERS, "--safety": NUMBERS, "--check-every": NUMBERS,
            "--checkpoint-every": NUMBERS, "--stop-at-step": NUMBERS, "--precision": WORDS, "--operator": WORDS,
            "--backend": WORDS, "--ordering": WORDS, "--allow-unstable": None, "--resume": None},
    "static": {"--tolerance": NUMBERS, "--max-iterations": NUMBERS, "--backend": WORDS, "--precision": WORDS,
               "--preconditioner": WORDS, "--format": WORDS, "--assembly": WORDS},
    "bem": {"--gauss": NUMBERS, "--backend": WORDS, "--free-term": WORDS, "--elements": WORDS,
            "--allow-coarse": None},
    "info": {},
    "export": {},
    "partition": {"--block-size": NUMBERS, "--method": WORDS},
}

# 0, 1 (tremor refused or failed), and CLI11's usage errors: 103-114 (a bad value, an option given twice...).
ALLOWED = {0, 1} | set(range(103, 115))


def status_of(path):
    try:
        with h5py.File(path, "r") as f:
            value = f["metadata"].attrs["status"]
            return value.decode() if isinstance(value, bytes) else str(value)
    except Exception:  # noqa: BLE001
        return None


def steps_taken(path):
    try:
        with h5py.File(path, "r") as f:
            return int(f["metadata"].attrs["step_count"])
    except Exception:  # noqa: BLE001
        return None


def draw(rng, work):
    command = rng.choice([c for c in OPTIONS if MODELS[c] or c == "export"])
    out = os.path.join(work, "out.h5")
    if command == "export":
        return ["export", rng.choice([os.path.join(work, "missing.h5"), "README.md", "tests/data/cli/tiny.toml"]),
                "-o", os.path.join(work, "csv")]
    args = [command, rng.choice(MODELS[command])]
    if command in ("run", "static", "bem"):
        args += ["-o", out]
        if "--backend" not in args and rng.random() < 0.8:
            args += ["--backend", "serial"]
    if command == "partition":
        args += ["-o", os.path.join(work, "out.blocks")]
    options = OPTIONS[command]
    for _ in range(rng.randint(0, 4)):
        if not options:
            break
        name = rng.choice(list(options))
        values = options[name]
        args += [name] if values is None else [name, rng.choice(values)]
    if command == "run" and rng.random() < 0.7:
        args += ["--duration", rng.choice(["2e-6", "5e-6", "1e-5"])]  # most runs short, some as drawn
    return args


def check_one(tremor, args, work):
    """Runs one command line; returns a description of what it broke, or None."""
    for name in os.listdir(work):
        path = os.path.join(work, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    p = subprocess.Popen([tremor] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace", stdin=subprocess.DEVNULL)
    try:
        text = p.communicate(timeout=20)[0]
    except subprocess.TimeoutExpired:
        # A long run the options asked for (a tiny --safety, a long --duration) is no hang if it
        # stops cleanly on Ctrl-C: exit 130 and a file that says "incomplete".
        p.send_signal(signal.SIGINT)
        try:
            text = p.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return "hang: no exit within 20 s of SIGINT"
        if p.returncode != 130:
            return f"stopped by SIGINT with exit status {p.returncode}: {text[-2000:]}"
        if "-o" in args:
            out = args[args.index("-o") + 1]
            if os.path.exists(out) and status_of(out) != "incomplete":
                return f"stopped by SIGINT, the file says {status_of(out)!r}"
        return None
    # --stop-at-step (hidden, for tests) stops the run as SIGINT does: exit status 130.
    allowed = ALLOWED | ({130} if "--stop-at-step" in args else set())
    if p.returncode < 0 or p.returncode not in allowed:
        return f"exit status {p.returncode}: {text[-2000:]}"
    if "-o" in args and args[0] in ("run", "static", "bem"):
        out = args[args.index("-o") + 1]
        status = status_of(out) if os.path.exists(out) else None
        if p.returncode == 130 and status not in (None, "incomplete"):
            return f"stopped at a step, the file says {status!r}"
        if p.returncode != 0 and status == "complete":
            return f"exit status {p.returncode} but the result file says complete: {text[-2000:]}"
        if p.returncode == 0 and args[0] == "run":
            planned = re.search(r"steps +([0-9,]+) for", text)
            if status != "complete":
                return f"exit status 0 but the result file says {status!r}"
            if planned and steps_taken(out) != int(planned.group(1).replace(",", "")):
                return f"complete after {steps_taken(out)} steps of {planned.group(1)}"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tremor")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--findings", default=".fuzz/crashes/cli")
    parser.add_argument("--replay")
    a = parser.parse_args()
    tremor = os.path.abspath(a.tremor)
    work = tempfile.mkdtemp(prefix="tremor-cli-fuzz-")
    try:
        if a.replay:
            failed = 0
            for name in sorted(os.listdir(a.replay)):
                if name.startswith(".") or name.endswith(".md"):
                    continue
                with open(os.path.join(a.replay, name)) as f:
                    args = [line.rstrip("\n").replace("$WORK", work) for line in f if not line.startswith("#")]
                found = check_one(tremor, args, work)
                print(f"{name}: {'ok' if found is None else 'FAIL: ' + found}", flush=True)
                failed += found is not None
            sys.exit(1 if failed else 0)
        rng = random.Random(a.seed)
        started, runs, findings = time.monotonic(), 0, 0
        statuses = {}
        while time.monotonic() - started < a.seconds:
            args = draw(rng, work)
            found = check_one(tremor, args, work)
            runs += 1
            if found is not None:
                findings += 1
                os.makedirs(a.findings, exist_ok=True)
                path = os.path.join(a.findings, f"seed{a.seed}-{runs}.args")
                with open(path, "w") as f:
                    f.write(f"# {found.splitlines()[0] if found else ''}\n")
                    f.write("\n".join(arg.replace(work, "$WORK") for arg in args) + "\n")
                print(f"FINDING {path}: {found[:300]}", flush=True)
        print(f"cli_fuzz: {runs} command lines in {time.monotonic() - started:.0f} s (seed {a.seed}), "
              f"{findings} finding(s)", flush=True)
        sys.exit(1 if findings else 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
