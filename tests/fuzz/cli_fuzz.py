#!/usr/bin/env python3
"""A command-line fuzzer for `tremor`: random option sets and values for every command on small
models, from a seed, so every finding repeats.

`tremor image` and `tremor export` are drawn on small result files made once at the start
(tests/data/cli/shots_plate.toml: a receiver grid in two shots; tiny.toml: no grid), with hostile
values and outputs: a symbolic link, a FIFO or a folder where a PNG image or CSV file would go.

Each command line must end within 20 s (or, a long run, stop on SIGINT with exit status 130 and
an "incomplete" file) with exit status 0, 1 or one of CLI11's usage errors
(103-114: a value outside its bounds, an option given twice), never a signal or another status;
a result file must never say "complete" unless the command exited 0, and a `run` that exits 0
must have taken every step its pre-flight planned. Exit status 1 comes with an "error:" message;
image and export of what is surely bad (a missing, non-HDF5 or gridless result file, a non-finite
or non-numeric value, an output refused by the file rules) exit non-zero; afterwards every result
file reads back whole (h5py), and the hostile outputs and what their links name are untouched. A
command line that breaks a rule is
written to DIR (one file per finding, the arguments one per line; $WORK the scratch folder,
$RESULTS the result files') to be kept under tests/data/fuzz/cli/, which `--replay` runs again.

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
import stat
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
    "image": [],
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
    "image": {},  # drawn by draw_image
    "partition": {"--block-size": NUMBERS, "--method": WORDS},
}

# The result files image and export read ($RESULTS, made once at the start): the grid of the shots
# plate in shots a0 and s0, and a run without a grid. The PNG images of shots.h5 are
# shots.a0.area.png and shots.s0.area.png; its CSV files a0.probe.csv, a0.area.csv, s0....
RESULT_MODELS = {"shots.h5": "tests/data/cli/shots_plate.toml", "tiny.h5": "tests/data/cli/tiny.toml"}
# Inputs that are surely not a result file to map or export.
NOT_RESULTS = ["$WORK/missing.h5", "$WORK/folder", "$WORK/fifo", "$WORK/precious.txt", "README.md",
               "tests/data/cli/tiny.toml", "$RESULTS/shots.h5.tmp", ""]
# Values of image's numbers that are surely refused (not a finite number).
NOT_NUMBERS = {"nan", "NaN", "inf", "-inf", "", " ", "abc", "1,5", "0x10", "1e"}
IMAGE_NUMBERS = {"--from": NUMBERS + ["2e-6", "4e-6", "-1e-6"], "--to": NUMBERS + ["2e-6", "6e-6", "1"],
                 "--threshold": NUMBERS + ["-3", "-20", "-200", "-201", "0.1"],
                 "--smooth": NUMBERS + ["1e-3", "5e-4", "1.5"], "--scale": NUMBERS + ["4", "64", "65"]}
IMAGE_WORDS = {"--grid": ["area", "probe", "nothere", ""], "--shot": ["a0", "s0", "a0,s0", "a1", "", ","],
               "--combine": ["all", "", "x" * 300], "--quantity": ["displacement", "velocity", "bogus"],
               "--component": ["x", "y", "z", "w", ""],
               "--baseline": ["$RESULTS/shots.h5", "$RESULTS/tiny.h5", "$WORK/link-result.h5"] + NOT_RESULTS,
               "-o": ["$WORK/maps", "$WORK/pngs", "$WORK/folder", "$WORK/precious.txt", "$WORK/fifo",
                      "$WORK/link-folder", "$WORK/a/b/c", ""]}


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


def whole(path):
    """None when every group and dataset of an HDF5 file reads back (h5py), else why not."""
    try:
        with h5py.File(path, "r") as f:
            f.visititems(lambda name, item: item[()] if isinstance(item, h5py.Dataset) else None)
        return None
    except Exception as e:  # noqa: BLE001 - any failure to read is what is tested
        return str(e) or type(e).__name__


def make_results(tremor, results):
    """The result files image and export read, made (again) in `results`."""
    for name in os.listdir(results):
        os.remove(os.path.join(results, name))
    for name, model in RESULT_MODELS.items():
        p = subprocess.run([tremor, "run", model, "-o", os.path.join(results, name), "--backend", "serial"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        if p.returncode != 0:
            sys.exit(f"cli_fuzz: cannot make {name} from {model}: {p.stdout[-2000:]}")


PRECIOUS = "not tremor's\n"


def make_fixtures(work, results):
    """Hostile things in `work` for image and export to meet: a folder, a FIFO, a file a link
    names, links to a result file and to a folder, and folders whose PNG images or CSV files
    would land on a link or a FIFO. Returns {path: file type} of each, checked after the command."""
    os.mkdir(os.path.join(work, "folder"))
    os.mkfifo(os.path.join(work, "fifo"))
    precious = os.path.join(work, "precious.txt")
    with open(precious, "w") as f:
        f.write(PRECIOUS)
    os.symlink(os.path.join(results, "shots.h5"), os.path.join(work, "link-result.h5"))
    os.symlink(os.path.join(work, "folder"), os.path.join(work, "link-folder"))
    for folder, names in (("pngs", ["shots.a0.area.png", "shots.s0.area.png"]),
                          ("csvs", ["a0.area.csv", "s0.probe.csv"])):
        os.mkdir(os.path.join(work, folder))
        os.symlink(precious, os.path.join(work, folder, names[0]))
        os.mkfifo(os.path.join(work, folder, names[1]))
    fixtures = {}
    for root, folders, files in os.walk(work):
        for name in folders + files:
            path = os.path.join(root, name)
            fixtures[path] = stat.S_IFMT(os.lstat(path).st_mode)
    return fixtures


def value(args, option):
    return args[args.index(option) + 1] if option in args[:-1] else None


def surely_refused(args, work, results):
    """Why an image or export command line must fail, or None when it may succeed."""
    command, result = args[0], args[1] if len(args) > 1 else ""
    if result in [p.replace("$WORK", work).replace("$RESULTS", results) for p in NOT_RESULTS]:
        return f"{result!r} is not a result file"
    if command == "image":
        if os.path.basename(result) == "tiny.h5":
            return "a result file without a receiver grid"
        baseline = value(args, "--baseline")
        if baseline is not None and (baseline in [p.replace("$WORK", work) for p in NOT_RESULTS] or
                                     os.path.basename(baseline) == "tiny.h5"):
            return f"the baseline {baseline!r}"
        if value(args, "--grid") in ("nothere", "probe") or value(args, "--shot") in ("a1", ","):
            return "a grid or shot the file does not have"
        for option in IMAGE_NUMBERS:
            if value(args, option) in NOT_NUMBERS:
                return f"{option} {value(args, option)!r}"
        if value(args, "-o") in (os.path.join(work, "pngs"), os.path.join(work, "precious.txt"),
                                 os.path.join(work, "fifo")) and os.path.basename(result) == "shots.h5":
            return "PNG images onto a link, a FIFO or a file"
    if command == "export" and value(args, "-o") in (os.path.join(work, n) for n in ("csvs", "precious.txt", "fifo")) \
            and os.path.basename(result) == "shots.h5":
        return "CSV files onto a link, a FIFO or a file"
    return None


def draw_image_or_export(rng, command, work, results):
    # Mostly the file with grids, so that the options are what is tried.
    draw = rng.random()
    result = ("$RESULTS/shots.h5" if draw < 0.55 else "$WORK/link-result.h5" if draw < 0.65 else
              "$RESULTS/tiny.h5" if draw < 0.75 else rng.choice(NOT_RESULTS))
    args = [command, result]
    if command == "export":
        args += ["-o", rng.choice(["$WORK/csv", "$WORK/csvs", "$WORK/folder", "$WORK/link-folder",
                                   "$WORK/precious.txt", "$WORK/fifo", "$WORK/a/b/c", ""])]
    else:
        for _ in range(rng.randint(0, 4)):
            name = rng.choice(list(IMAGE_NUMBERS) + list(IMAGE_WORDS))
            args += [name, rng.choice(IMAGE_NUMBERS.get(name) or IMAGE_WORDS[name])]
    return [a.replace("$WORK", work).replace("$RESULTS", results) for a in args]


def draw(rng, work, results):
    # image and export twice as often: they take a tenth of a second, a run or a solve seconds.
    command = rng.choice([c for c in OPTIONS if MODELS[c]] + ["export", "image"] * 2)
    out = os.path.join(work, "out.h5")
    if command in ("export", "image"):
        return draw_image_or_export(rng, command, work, results)
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


def check_one(tremor, args, work, results):
    """Runs one command line; returns a description of what it broke, or None."""
    for name in os.listdir(work):
        path = os.path.join(work, name)
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    fixtures = make_fixtures(work, results) if args[0] in ("image", "export") else {}
    found = run_one(tremor, args, work, results)
    if found is None and args[0] in ("image", "export"):
        found = check_files(args, work, results, fixtures)
    return found


def check_files(args, work, results, fixtures):
    """The rules of image and export: what must be refused is, every result file reads back whole,
    and the hostile outputs are as they were."""
    for name in sorted(os.listdir(results)):
        if name.endswith(".h5"):
            broken = whole(os.path.join(results, name))
            if broken is not None:
                return f"{name} does not read back after the command: {broken}"
    for path, kind in fixtures.items():
        if not os.path.lexists(path) or stat.S_IFMT(os.lstat(path).st_mode) != kind:
            return f"{path.replace(work, '$WORK')} was replaced or removed"
    with open(os.path.join(work, "precious.txt")) as f:
        if f.read() != PRECIOUS:
            return "precious.txt, which links name, was written"
    return None


def run_one(tremor, args, work, results):
    """Runs one command line; returns a description of a broken exit rule, or None."""
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
    if p.returncode == 1 and "error:" not in text:
        return f"exit status 1 without an error message: {text[-2000:]}"
    if args[0] in ("image", "export") and p.returncode == 0:
        why = surely_refused(args, work, results)
        if why is not None:
            return f"exit status 0 for {why}: {text[-2000:]}"
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
    started = time.monotonic()  # the result files' making counts in the time given
    work = tempfile.mkdtemp(prefix="tremor-cli-fuzz-")
    results = tempfile.mkdtemp(prefix="tremor-cli-fuzz-results-")
    try:
        make_results(tremor, results)
        if a.replay:
            failed = 0
            for name in sorted(os.listdir(a.replay)):
                if name.startswith(".") or name.endswith(".md"):
                    continue
                with open(os.path.join(a.replay, name)) as f:
                    args = [line.rstrip("\n").replace("$WORK", work).replace("$RESULTS", results)
                            for line in f if not line.startswith("#")]
                found = check_one(tremor, args, work, results)
                print(f"{name}: {'ok' if found is None else 'FAIL: ' + found}", flush=True)
                failed += found is not None
            sys.exit(1 if failed else 0)
        rng = random.Random(a.seed)
        runs, findings = 0, 0
        while time.monotonic() - started < a.seconds:
            args = draw(rng, work, results)
            found = check_one(tremor, args, work, results)
            runs += 1
            if found is not None:
                if args[0] in ("image", "export"):
                    make_results(tremor, results)  # a broken result file would fail every later line
                findings += 1
                os.makedirs(a.findings, exist_ok=True)
                path = os.path.join(a.findings, f"seed{a.seed}-{runs}.args")
                with open(path, "w") as f:
                    f.write(f"# {found.splitlines()[0] if found else ''}\n")
                    f.write("\n".join(arg.replace(work, "$WORK").replace(results, "$RESULTS") for arg in args) + "\n")
                print(f"FINDING {path}: {found[:300]}", flush=True)
        print(f"cli_fuzz: {runs} command lines in {time.monotonic() - started:.0f} s (seed {a.seed}), "
              f"{findings} finding(s)", flush=True)
        sys.exit(1 if findings else 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(results, ignore_errors=True)


if __name__ == "__main__":
    main()
