#!/usr/bin/env python3
"""Fault injection for tremor's outputs (docs/running.md, "What tremor promises about your files").

Each case runs `tremor` as a user would and then breaks something: a kill -9 at a random moment,
a full disk (a file-size limit), an output that is not a regular file, a second writer, a
truncated checkpoint, numbers that overflow. After each, the result file must open, say what it
holds ("complete" only for a run that completed), and `--resume` must finish the run bit for bit
as an uninterrupted one. Moments are drawn from a fixed seed, so a failure repeats.

usage: fault_suite.py TREMOR CASE   (run from the repository root; CASE: see CASES below)
"""
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

try:
    import h5py
    import numpy as np
except ImportError:
    print("skipped: this Python has no h5py (scripts/setup installs Debian's python3-h5py)")
    sys.exit(77)

TREMOR = os.path.abspath(sys.argv[1])
ROOT = os.getcwd()
TINY = os.path.join(ROOT, "tests/data/cli/tiny.toml")
CANTILEVER = os.path.join(ROOT, "examples/cantilever-3d/model.toml")
CAVITY = os.path.join(ROOT, "tests/data/cli/bem_small.toml")
SEED = 20261125
# kill -9 trials per case (random moments over the run; more with TREMOR_FAULT_KILLS for a long run:
# each trial is a full run or two, and the suite's default keeps it within the test budget).
KILLS = int(os.environ.get("TREMOR_FAULT_KILLS", "8"))
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)


def tremor(args, limit_bytes=None, timeout=300, **kw):
    """Runs tremor; returns (rc, stdout + stderr)."""
    def limit():
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    p = subprocess.run([TREMOR] + args, capture_output=True, text=True, timeout=timeout, preexec_fn=limit,
                       errors="replace", **kw)
    return p.returncode, p.stdout + p.stderr


def status_of(path):
    """The status a result file records, or None when it does not open."""
    try:
        with h5py.File(path, "r") as f:
            return f["metadata"].attrs["status"].decode() if isinstance(f["metadata"].attrs["status"], bytes) \
                else str(f["metadata"].attrs["status"])
    except Exception as e:  # noqa: BLE001 - any failure to read is what is tested
        return None


def histories(path):
    with h5py.File(path, "r") as f:
        return {name: (np.array(g["time"]), np.array(g["values"])) for name, g in f["histories"].items()}


def same_histories(a, b):
    ha, hb = histories(a), histories(b)
    return ha.keys() == hb.keys() and all(
        np.array_equal(ha[k][0], hb[k][0]) and np.array_equal(ha[k][1], hb[k][1]) for k in ha)


def run_args(model, out, *extra):
    return ["run", model, "-o", out, "--backend", "serial", *extra]


# A run of about a second on 2 cores with a checkpoint every 500 steps: long enough to be killed
# or to fill a disk in the middle, short enough for 20 tries.
LONG = ["--duration", "1e-2", "--checkpoint-every", "5000"]


def kill_after(args, delay):
    """Starts tremor with `args` and kills it (SIGKILL) after `delay` s."""
    p = subprocess.Popen([TREMOR] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait()


def reference(work):
    out = os.path.join(work, "reference.h5")
    rc, text = tremor(run_args(TINY, out, *LONG))
    assert rc == 0, text
    return out


def case_kill_run(work):
    ref = reference(work)
    rng = random.Random(SEED)
    resumed = 0
    started = time.monotonic()
    rc, _ = tremor(run_args(TINY, os.path.join(work, "timing.h5"), *LONG))
    whole = time.monotonic() - started
    for trial in range(KILLS):
        out = os.path.join(work, f"kill{trial}.h5")
        delay = rng.uniform(0.0, whole)
        kill_after(run_args(TINY, out, *LONG), delay)
        partial = out + ".partial"
        where = f"kill -9 after {delay:.3f} s (trial {trial})"
        if os.path.exists(out):  # finished before the kill
            check(status_of(out) == "complete", f"{where}: finished file does not say complete")
            continue
        if os.path.exists(partial) and status_of(partial) is None:
            # Killed while the file was being created, before its first flush: there is nothing
            # to continue, and the same command starts afresh over the stale `.partial`.
            check(not os.path.exists(out + ".checkpoint"), f"{where}: a checkpoint counts a file that does not open")
            rc, text = tremor(run_args(TINY, out, *LONG))
            check(rc == 0 and same_histories(out, ref), f"{where}: the fresh run over the stale file failed: {text}")
            continue
        if os.path.exists(partial):
            check(status_of(partial) == "incomplete", f"{where}: {partial} does not say incomplete")
        if not os.path.exists(out + ".checkpoint"):
            continue  # killed before the first checkpoint: a fresh run is all there is to do
        rc, text = tremor(run_args(TINY, out, *LONG, "--resume"))
        check(rc == 0, f"{where}: --resume failed: {text}")
        if rc == 0:
            resumed += 1
            check(status_of(out) == "complete", f"{where}: resumed file does not say complete")
            check(same_histories(out, ref), f"{where}: resumed histories differ from the uninterrupted run")
    print(f"kill_run: {KILLS} kills in a {whole:.2f} s run, {resumed} resumed bit-identical", flush=True)


def case_kill_capture(work):
    """A capture's shots stepped 3 together (8 shots: 3, 3, then 2 beside a repeated one), killed at
    random moments: the `.partial` holds every shot of the batch being stepped, each up to the steps
    its step_count says (less the one a sample may wait), and every sample it holds is the finished
    run's. Checkpointed between batches, `--resume` then steps the batch killed again and finishes
    the file with every shot's histories and /fmc the bits of the uninterrupted run."""
    model = os.path.join(work, "capture.toml")
    with open(os.path.join(ROOT, "tests/data/cli/fmc_block.toml")) as f:
        text = f.read()
    with open(model, "w") as f:  # flushed often, so that most kills land after a flush
        f.write(text + "\n[output]\nflush_seconds = 0.05\n")
    together = 3
    options = ["--duration", "6e-5", "--shots-together", str(together), "--checkpoint-every", "100"]
    ref = os.path.join(work, "reference.h5")
    started = time.monotonic()
    rc, text = tremor(run_args(model, ref, *options))
    whole = time.monotonic() - started
    assert rc == 0, text
    def everything(path):
        with h5py.File(path, "r") as f:
            found = {}
            f.visititems(lambda name, item: found.update({name: np.array(item)})
                         if isinstance(item, h5py.Dataset) and (name.startswith("shots/") or name.startswith("fmc/"))
                         else None)
            return found

    whole_file = everything(ref)
    check(any(name.startswith("fmc/") for name in whole_file), f"{ref} holds no /fmc")
    with h5py.File(ref, "r") as f:
        want = {s: (np.array(g["histories/probe/time"]), np.array(g["histories/probe/values"]))
                for s, g in f["shots"].items()}
    names = sorted(want, key=lambda s: int(s.split(".")[1]))
    rng = random.Random(SEED + 4)
    checked, batches, resumed = 0, set(), 0
    for trial in range(KILLS):
        out = os.path.join(work, f"kill{trial}.h5")
        delay = rng.uniform(0.2 * whole, whole)
        kill_after(run_args(model, out, *options), delay)
        where = f"kill -9 after {delay:.3f} s (trial {trial})"
        checked += check_partial(out, where, want, names, together, batches)
        if os.path.exists(out + ".checkpoint") and not os.path.exists(out):  # killed after the first batch
            rc, text = tremor(run_args(model, out, *options, "--resume"))
            check(rc == 0 and "at the start of shot" in text, f"{where}: --resume failed: {text}")
            if rc == 0:
                resumed += 1
                got = everything(out)
                check(got.keys() == whole_file.keys() and all(np.array_equal(got[k], whole_file[k]) for k in got),
                      f"{where}: the resumed file's shots and /fmc are not the uninterrupted run's")
    check(checked > 0, f"no kill of {KILLS} left a partial file mid-batch")
    check(resumed > 0, f"no kill of {KILLS} left a checkpoint to resume")
    print(f"kill_capture: {KILLS} kills in a {whole:.2f} s capture, {checked} partial files checked, killed in "
          f"batches {sorted(batches)}, {resumed} resumed bit-identical", flush=True)


def check_partial(out, where, want, names, together, batches):
    """What a killed capture left in `out`.partial (case_kill_capture); 1 where checked mid-batch."""
    partial = out + ".partial"
    if os.path.exists(out) or not os.path.exists(partial) or status_of(partial) is None:
        return 0  # finished, or killed before the file's first flush
    with h5py.File(partial, "r") as f:
        step = int(f["metadata"].attrs["step_count"])
        dt = float(f["metadata"].attrs["time_step"])
        have = {s: (np.array(g["histories/probe/time"]), np.array(g["histories/probe/values"]))
                for s, g in f["shots"].items()} if "shots" in f else {}
    if not have or step == 0:
        return 0  # before the loop's first flush, or the batch's: its set-up, or whole batches
    # The batch stepped at the last flush: that of the first shot held in part. None: a batch's
    # last flush held its shots whole, and the next had not flushed (its shots absent).
    first = next((k for k, s in enumerate(names) if s in have and len(have[s][0]) < len(want[s][0])), None)
    held = [s for s in names if s in have]
    check(held == names[:len(held)], f"{where}: {partial} holds shots {held}, not the first ones in order")
    batch = names[first // together * together:][:together] if first is not None else []
    if batch:
        batches.add(first // together)
    for s in names:
        if s not in have:
            check(s not in batch, f"{where}: shot {s} of the batch stepped is missing from {partial}")
            continue
        t, v = have[s]
        ok = np.array_equal(t, want[s][0][:len(t)]) and np.array_equal(v, want[s][1][:len(t)])
        check(ok, f"{where}: shot {s}'s samples in {partial} are not the finished run's")
        if s in batch:
            # The samples up to step_count (one may wait a step: a velocity's, a fluid's pressure).
            due = int(np.count_nonzero(want[s][0] <= (step - 1) * dt * (1 + 1e-9)))
            check(len(t) >= due, f"{where}: shot {s} holds {len(t)} samples; step_count {step} says {due}")
    return 1


def run_limited(args, out, limit, where):
    """Runs tremor with a file-size limit of `limit` bytes; a run that fits must say complete."""
    rc, text = tremor(args, limit_bytes=limit)
    if rc == 0:
        check(status_of(out) == "complete", f"{where}: rc 0 but the file does not say complete")
    return rc, text


def case_disk_full_run(work):
    ref = reference(work)
    size = os.path.getsize(ref)
    rng = random.Random(SEED + 1)
    resumed = refused = 0
    for trial in range(12):
        limit = rng.randint(4096, size)
        out = os.path.join(work, f"full{trial}.h5")
        where = f"file-size limit {limit} of {size} bytes"
        rc, text = run_limited(run_args(TINY, out, *LONG), out, limit, where)
        if rc == 0:
            continue
        check(rc == 1, f"{where}: exit status {rc} (a crash?): {text}")
        check("error:" in text, f"{where}: no error message: {text}")
        partial = out + ".partial"
        final = out if os.path.exists(out) else partial
        check(not os.path.exists(out) or status_of(out) != "complete", f"{where}: a failed run says complete")
        if os.path.exists(final) and os.path.getsize(final) > 0:
            check(status_of(final) in ("incomplete",) or (status_of(final) or "").startswith("failed: "),
                  f"{where}: {final} does not open as incomplete or failed ({status_of(final)}): {text}")
        if not os.path.exists(out + ".checkpoint"):
            refused += 1
            continue
        rc, text = tremor(run_args(TINY, out, *LONG, "--resume"))
        check(rc == 0, f"{where}: --resume after the failure failed: {text}")
        if rc == 0:
            resumed += 1
            check(same_histories(out, ref), f"{where}: resumed histories differ from the uninterrupted run")
    print(f"disk_full_run: 12 limits up to {size} bytes: {resumed} failed mid-run and resumed bit-identical, "
          f"{refused} stopped before a checkpoint", flush=True)


def case_disk_full_snapshots(work):
    """As disk_full_run, with snapshots (written through as they are taken) filling most of the file."""
    model = os.path.join(ROOT, "tests/data/cli/snapshots.toml")
    options = ["--duration", "1e-4", "--checkpoint-every", "100"]
    ref = os.path.join(work, "reference.h5")
    rc, text = tremor(run_args(model, ref, *options))
    assert rc == 0, text
    size = os.path.getsize(ref)
    rng = random.Random(SEED + 4)
    resumed = 0
    for trial in range(6):
        limit = rng.randint(size // 3, size)
        out = os.path.join(work, f"full{trial}.h5")
        where = f"snapshots, file-size limit {limit} of {size} bytes"
        rc, text = run_limited(run_args(model, out, *options), out, limit, where)
        if rc == 0:
            continue
        check(rc == 1 and "writing stopped" in text, f"{where}: exit status {rc}: {text}")
        check(status_of(out + ".partial") == "incomplete", f"{where}: the .partial does not open as incomplete")
        if os.path.exists(out + ".checkpoint"):
            rc, text = tremor(run_args(model, out, *options, "--resume"))
            check(rc == 0, f"{where}: --resume failed: {text}")
            if rc == 0:
                resumed += 1
                with h5py.File(out, "r") as a, h5py.File(ref, "r") as b:
                    snaps = b["snapshots/displacement"]
                    check(len(a["snapshots/displacement"]) == len(snaps) and all(
                        np.array_equal(a["snapshots/displacement"][k][()], snaps[k][()]) for k in snaps),
                        f"{where}: resumed snapshots differ from the uninterrupted run")
    print(f"disk_full_snapshots: 6 limits up to {size} bytes, {resumed} resumed bit-identical", flush=True)


def case_disk_full_capture(work):
    """A capture's shots, one by one and 4 together, on a disk 1.6 times its finished file: complete. The
    room a flush reserves for the shots' histories (twice the file's size when a batch's were reserved
    all at once, at its end) stays within a fraction of the file."""
    model = os.path.join(ROOT, "tests/data/cli/fmc_block.toml")
    options = ["--duration", "60e-6"]
    ref = os.path.join(work, "reference.h5")
    rc, text = tremor(run_args(model, ref, *options))
    assert rc == 0, text
    size = os.path.getsize(ref)
    for k in (1, 4):
        out = os.path.join(work, f"capture{k}.h5")
        where = f"{k} together, file-size limit 1.6 x {size} bytes"
        rc, text = run_limited(run_args(model, out, *options, "--shots-together", str(k)), out, int(1.6 * size), where)
        check(rc == 0, f"{where}: exit status {rc}: {text}")
    print(f"disk_full_capture: a {size}-byte capture written within 1.6 times its size", flush=True)


def case_disk_full_static_bem(work):
    for name, args in (("static", ["static", CANTILEVER, "--backend", "serial"]),
                       ("bem", ["bem", CAVITY, "--backend", "serial"])):
        good = os.path.join(work, f"{name}.h5")
        rc, text = tremor(args + ["-o", good])
        assert rc == 0, text
        size = os.path.getsize(good)
        rng = random.Random(SEED + 2)
        for trial in range(5):
            limit = rng.randint(2048, size - 1)
            out = os.path.join(work, f"{name}-full{trial}.h5")
            rc, text = tremor(args + ["-o", out], limit_bytes=limit)
            where = f"{name} with a file-size limit of {limit} of {size} bytes"
            check(rc == 1, f"{where}: exit status {rc}, expected 1: {text}")
            check(not os.path.exists(out) or status_of(out) != "complete", f"{where}: a failed run says complete")
            partial = out + ".partial"
            if os.path.exists(partial) and os.path.getsize(partial) > 0:
                check(status_of(partial) is not None, f"{where}: {partial} does not open")


def case_kill_static_bem(work):
    rng = random.Random(SEED + 3)
    for name, args in (("static", ["static", CANTILEVER, "--backend", "serial"]),
                       ("bem", ["bem", CAVITY, "--backend", "serial"])):
        started = time.monotonic()
        rc, text = tremor(args + ["-o", os.path.join(work, f"{name}-timing.h5")])
        assert rc == 0, text
        whole = time.monotonic() - started
        for trial in range(KILLS):
            out = os.path.join(work, f"{name}-kill{trial}.h5")
            p = subprocess.Popen([TREMOR] + args + ["-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            delay = rng.uniform(0.0, whole)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
            where = f"{name} killed after {delay:.3f} s"
            if os.path.exists(out):
                check(status_of(out) == "complete", f"{where}: the finished file does not say complete")
            partial = out + ".partial"
            left = status_of(partial) if os.path.exists(partial) else None
            # The same command again finishes, whatever the kill left, and keeps what the killed
            # run wrote (a `.partial` that opens) beside it.
            rc, text = tremor(args + ["-o", out])
            check(rc == 0 and status_of(out) == "complete", f"{where}: the rerun failed: {text}")
            check(not os.path.exists(partial), f"{where}: the rerun left {partial}")
            if left is not None:
                kept = out[:-len(".h5")] + ".killed.h5"
                check(os.path.exists(kept) and status_of(kept) == left and "is kept as" in text,
                      f"{where}: the killed run's {partial} was not kept as {kept}: {text}")
                os.remove(kept)


def case_outputs(work):
    """-o naming a device, a FIFO, a symbolic link or a folder is refused before any work."""
    targets = {}
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    targets["FIFO"] = fifo
    link_target = os.path.join(work, "precious.txt")
    with open(link_target, "w") as f:
        f.write("not tremor's\n")
    link = os.path.join(work, "link.h5")
    os.symlink(link_target, link)
    targets["symbolic link"] = link
    targets["folder"] = work
    if os.geteuid() == 0:
        device = os.path.join(work, "full")
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # as /dev/full
        targets["character device"] = device
    commands = {
        "run": lambda out: run_args(TINY, out),
        "static": lambda out: ["static", CANTILEVER, "-o", out, "--backend", "serial"],
        "bem": lambda out: ["bem", CAVITY, "-o", out, "--backend", "serial"],
        "bem --csv": lambda out: ["bem", CAVITY, "-o", os.path.join(work, "csv-run.h5"), "--csv", out,
                                  "--backend", "serial"],
    }
    for kind, target in targets.items():
        before = os.lstat(target)
        for command, args in commands.items():
            started = time.monotonic()
            rc, text = tremor(args(target))
            where = f"{command} -o {kind}"
            check(rc == 1, f"{where}: exit status {rc}, expected 1: {text}")
            check("refusing" in text or "folder" in text, f"{where}: the message does not say why: {text}")
            check(time.monotonic() - started < 10, f"{where}: refused only after the work")
            after = os.lstat(target)
            check(stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino,
                  f"{where}: the {kind} was replaced")
    with open(link_target) as f:
        check(f.read() == "not tremor's\n", "the symbolic link's target was written")


def case_second_writer(work):
    out = os.path.join(work, "same.h5")
    # A writer holding the lock (as a running tremor does): the second is refused, the file untouched.
    import fcntl
    with open(out + ".partial", "wb") as held:
        held.write(b"the first writer's data")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for args in (run_args(TINY, out), ["static", CANTILEVER, "-o", out, "--backend", "serial"],
                     ["bem", CAVITY, "-o", out, "--backend", "serial"]):
            rc, text = tremor(args)
            check(rc == 1 and "another process is writing" in text, f"{args[0]}: second writer not refused: {text}")
            with open(out + ".partial", "rb") as f:
                check(f.read() == b"the first writer's data", f"{args[0]}: the first writer's file was changed")
    os.remove(out + ".partial")
    # Two real runs: the first completes with a readable file, the second is refused.
    first = subprocess.Popen([TREMOR] + run_args(TINY, out, "--duration", "2e-4"), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    for _ in range(200):
        if os.path.exists(out + ".partial"):
            break
        time.sleep(0.01)
    rc, text = tremor(run_args(TINY, out, "--duration", "2e-4"))
    first_text = first.communicate()[0]
    check(first.returncode == 0, f"the first run failed: {first_text}")
    if os.path.exists(out):
        check(status_of(out) == "complete", "the first run's file does not open as complete")
    check(rc == 1 and "another process is writing" in text or rc == 0,
          f"the second run was neither refused nor a clean run after the first: {text}")


SHOTS = os.path.join(ROOT, "tests/data/cli/shots_plate.toml")  # a 17 x 17 grid in two shots, well under a second


def grid_results(work):
    """Result files with receiver grids: the shots plate's (two shots), and the same plate with its
    transducers fired together in one run (one grid, no shots: /histories/area)."""
    shots = os.path.join(work, "shots.h5")
    rc, text = tremor(run_args(SHOTS, shots))
    assert rc == 0, text
    with open(SHOTS) as f:
        lines = f.read().split("\n")
    model, skipping = [], False
    for line in lines:  # the [[shot]] tables dropped
        skipping = line.strip() == "[[shot]]" or (skipping and line.strip() != "")
        if not skipping:
            model.append(line)
    together = os.path.join(work, "together.toml")
    with open(together, "w") as f:
        f.write("\n".join(model))
    single = os.path.join(work, "single.h5")
    rc, text = tremor(run_args(together, single))
    assert rc == 0, text
    for path in (shots, single):
        xmf = os.path.splitext(path)[0] + ".xmf"
        if os.path.exists(xmf):
            os.remove(xmf)
    return shots, single


def whole(path):
    """Whether every group and dataset of an HDF5 file reads back (h5py); else why not."""
    try:
        with h5py.File(path, "r") as f:
            f.visititems(lambda name, item: item[()] if isinstance(item, h5py.Dataset) else None)
        return None
    except Exception as e:  # noqa: BLE001 - any failure to read is what is tested
        return str(e) or type(e).__name__


def contents(path):
    with open(path, "rb") as f:
        return f.read()


def case_image_file_size(work):
    """`tremor image` refused a write (a file-size limit, as a full disk): the result file stays
    byte for byte as it was, no PNG image nor copy is left, and without the limit it then works."""
    for out in grid_results(work):
        name = os.path.basename(out)
        size = os.path.getsize(out)
        saved = contents(out)
        # Just past the file (`ulimit -f` of its size in KB + 1): the copy fits, the images do not;
        # one byte past it; half of it: the copy itself is refused.
        for limit in ((size // 1024 + 1) * 1024, size + 1, size // 2):
            rc, text = tremor(["image", out], limit_bytes=limit)
            where = f"tremor image {name} with a file-size limit of {limit} of {size} bytes"
            check(rc == 1 and "error:" in text and f"{out} is unchanged" in text, f"{where}: {rc}: {text}")
            check(contents(out) == saved, f"{where}: the result file changed")
            check(whole(out) is None, f"{where}: the result file does not read back: {whole(out)}")
            check(sorted(os.listdir(work)) == sorted(["shots.h5", "single.h5", "together.toml"]),
                  f"{where}: left {sorted(os.listdir(work))}")
        rc, text = tremor(["image", out])
        check(rc == 0, f"tremor image {name} after the refused writes: {rc}: {text}")
        imaged = contents(out)
        # Imaged once, refused again: the file keeps the first images.
        rc, text = tremor(["image", out, "--threshold", "-3"], limit_bytes=size + 1)
        check(rc == 1 and contents(out) == imaged, f"tremor image {name} refused over its own images: {text}")
        rc, text = tremor(["image", out, "--threshold", "-3"])
        check(rc == 0, f"tremor image {name} again: {rc}: {text}")
        if whole(out) is not None:
            check(False, f"{name} after tremor image: {whole(out)}")
            continue
        try:
            with h5py.File(out, "r") as f:
                thresholds = {k: f["images"][k].attrs["threshold_db"] for k in f["images"]}
        except Exception as e:  # noqa: BLE001 - any failure to read is what is tested
            thresholds = str(e)
        check(thresholds == ({"a0.area": -3.0, "s0.area": -3.0} if name == "shots.h5" else {"area": -3.0}),
              f"{name}: the images are not those of the last tremor image: {thresholds}")
        rc, text = tremor(["export", out, "-o", os.path.join(work, "csv")])
        check(rc == 0, f"tremor export {name} after tremor image: {text}")
        shutil.rmtree(os.path.join(work, "csv"))
        for png in [p for p in os.listdir(work) if p.endswith(".png")]:
            os.remove(os.path.join(work, png))


def case_image_held(work):
    """`tremor image` of a result file another process has open is refused at once, saying so,
    before any PNG image is written; `tremor export` says the same of a file being written."""
    import fcntl
    out, _ = grid_results(work)
    saved = contents(out)

    def refused(where):
        rc, text = tremor(["image", out])
        check(rc == 1 and "another process has this result file open" in text, f"{where}: {rc}: {text}")
        check(contents(out) == saved, f"{where}: the result file changed")
        check(not [p for p in os.listdir(work) if p.endswith(".png") or p.endswith(".tmp")],
              f"{where}: left {os.listdir(work)}")

    with open(out, "rb") as held:  # a writer's lock, as a run holds on the file it writes
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        refused("a writer's lock held")
        rc, text = tremor(["export", out, "-o", os.path.join(work, "csv")])
        check(rc == 1 and "another process is writing this result file" in text, f"export of a held file: {text}")
    if os.environ.get("HDF5_USE_FILE_LOCKING", "").upper() != "FALSE":
        with h5py.File(out, "r"):  # a reader through HDF5, which locks what it opens
            refused("h5py reading it")
    # A run still writing its file.
    running = os.path.join(work, "running.h5")
    p = subprocess.Popen([TREMOR] + run_args(TINY, running, "--duration", "1"), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not os.path.exists(running + ".partial") and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # the file claimed and opened
    rc, text = tremor(["image", running + ".partial"])
    check(rc == 1 and "another process has this result file open" in text, f"image of a run's .partial: {text}")
    p.kill()
    p.wait()
    # Two at once: each maps the file or is refused; the file reads back with a complete set.
    both = [subprocess.Popen([TREMOR, "image", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    texts = [q.communicate(timeout=120)[0] for q in both]
    for q, text in zip(both, texts):
        check(q.returncode == 0 or q.returncode == 1 and "another process has this result file open" in text,
              f"two tremor image at once: {q.returncode}: {text}")
    check(any(q.returncode == 0 for q in both), f"two tremor image at once: neither mapped: {texts}")
    check(whole(out) is None, f"after two tremor image at once: {whole(out)}")
    with h5py.File(out, "r") as f:
        check(sorted(f["images"]) == ["a0.area", "s0.area"], "after two tremor image at once: the images")


def case_export_outputs(work):
    """`tremor export` refuses a symbolic link, FIFO, folder or device at a CSV's name (or its
    temporary's) before writing any CSV, as every output does, naming the path."""
    out = os.path.join(work, "tiny.h5")
    rc, text = tremor(run_args(TINY, out))
    assert rc == 0, text
    folder = os.path.join(work, "csv")
    precious = os.path.join(work, "precious.txt")
    with open(precious, "w") as f:
        f.write("not tremor's\n")
    makers = {"symbolic link": lambda path: os.symlink(precious, path), "FIFO": os.mkfifo, "folder": os.mkdir}
    if os.geteuid() == 0:
        makers["character device"] = lambda path: os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    for kind, make in makers.items():
        for name in ("probe.csv", "probe.csv.partial"):
            os.mkdir(folder)
            target = os.path.join(folder, name)
            make(target)
            before = os.lstat(target)
            where = f"export over a {kind} at {name}"
            try:
                rc, text = tremor(["export", out, "-o", folder], timeout=30)
            except subprocess.TimeoutExpired:  # a FIFO opened for writing waits for a reader
                rc, text = None, "no exit within 30 s"
            check(rc == 1 and f"{target}: refusing" in text, f"{where}: {rc}: {text}")
            after = os.lstat(target) if os.path.lexists(target) else None
            check(after is not None and stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and
                  after.st_ino == before.st_ino, f"{where}: the {kind} was replaced")
            check(os.listdir(folder) == [name], f"{where}: wrote {os.listdir(folder)}")
            shutil.rmtree(folder)
    with open(precious) as f:
        check(f.read() == "not tremor's\n", "the symbolic link's target was written")
    rc, text = tremor(["export", out, "-o", folder])
    check(rc == 0 and os.listdir(folder) == ["probe.csv"], f"export into a clean folder: {text}")


def case_overflow(work):
    out = os.path.join(work, "overflow.h5")
    model = os.path.join(work, "huge.toml")
    with open(TINY) as f:
        text = f.read().replace("duration = 5e-6", "duration = 1e300")
    with open(model, "w") as f:
        f.write(text)
    for args in (run_args(TINY, out, "--duration", "1e12"), run_args(model, out),
                 run_args(TINY, out, "--dt", "1e-300", "--allow-unstable"),
                 run_args(TINY, out, "--safety", "1e-300")):
        rc, text = tremor(args)
        check(rc == 1 and "steps" in text and "more than" in text, f"{args}: not refused: {text}")
        check(not os.path.exists(out) and not os.path.exists(out + ".partial"), f"{args}: left a file")


def case_nan_options(work):
    out = os.path.join(work, "nan.h5")
    for option, value in (("--dt", "nan"), ("--duration", "nan"), ("--dt", "inf"), ("--duration", "-inf"),
                          ("--safety", "nan"), ("--safety", "0"), ("--dt", "0")):
        rc, text = tremor(run_args(TINY, out, option, value))
        check(rc != 0 and "must be a finite number" in text or "must be a number in" in text,
              f"{option} {value}: not refused: {text}")
        check(len(text) < 400, f"{option} {value}: the message is long: {text}")
        check(not os.path.exists(out), f"{option} {value}: a result file was written")
    rc, text = tremor(["static", CANTILEVER, "-o", out, "--tolerance", "nan"])
    check(rc != 0 and "finite" in text, f"static --tolerance nan: not refused: {text}")


def case_empty_deck(work):
    nodes_only = os.path.join(work, "nodes.inp")
    with open(nodes_only, "w") as f:
        f.write("*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n*STEP\n*STATIC\n*END STEP\n")
    empty = os.path.join(work, "empty.inp")
    open(empty, "w").close()
    out = os.path.join(work, "empty.h5")
    for deck in (nodes_only, empty):
        for command in ("static", "run", "info"):
            args = [command, deck] + (["-o", out] if command != "info" else [])
            rc, text = tremor(args)
            check(rc == 1 and "no elements" in text, f"{command} {os.path.basename(deck)}: {rc}: {text}")
            check(not os.path.exists(out), f"{command} {os.path.basename(deck)}: a result file was written")


def case_readonly_folder(work):
    folder = os.path.join(work, "readonly")
    os.mkdir(folder)
    os.chmod(folder, 0o555)
    out = os.path.join(folder, "r.h5")
    as_user = {}
    if os.geteuid() == 0:  # root writes anywhere: run tremor as nobody
        as_user = {"user": 65534, "group": 65534}
        os.chmod(work, 0o755)
    for args in (run_args(TINY, out), ["static", CANTILEVER, "-o", out, "--backend", "serial"],
                 ["bem", CAVITY, "-o", out, "--backend", "serial"]):
        rc, text = tremor(args, **as_user)
        check(rc == 1 and "Permission denied" in text, f"{args[0]} into a read-only folder: {rc}: {text}")
        check(os.listdir(folder) == [], f"{args[0]} wrote something into the read-only folder")


def case_truncated_checkpoint(work):
    ref = reference(work)
    out = os.path.join(work, "t.h5")
    rc, text = tremor(run_args(TINY, out, *LONG, "--stop-at-step", "12000"))
    check(rc == 130, f"the stopped run: {rc}: {text}")
    checkpoint = out + ".checkpoint"
    whole = open(checkpoint, "rb").read()
    saved = open(out, "rb").read()
    with open(checkpoint, "wb") as f:
        f.write(whole[: len(whole) // 2])
    rc, text = tremor(run_args(TINY, out, *LONG, "--resume"))
    check(rc == 1 and "checkpoint" in text, f"a truncated checkpoint was not refused: {text}")
    check(open(out, "rb").read() == saved, "the refused resume changed the result file")
    # A checkpoint that opens but whose state is not the model's size (altered): refused before
    # the result file is touched, naming the checkpoint.
    with open(checkpoint, "wb") as f:
        f.write(whole)
    with h5py.File(checkpoint, "a") as f:
        for name in ("previous", "current"):
            values = f[name][()]
            del f[name]
            f[name] = values[:-3]
    rc, text = tremor(run_args(TINY, out, *LONG, "--resume"))
    check(rc == 1 and f"{checkpoint}: holds the displacement at" in text and "torn or altered" in text,
          f"an altered checkpoint was not refused naming it: {text}")
    check(open(out, "rb").read() == saved, "the refused resume changed the result file")
    with open(checkpoint, "wb") as f:
        f.write(whole)
    rc, text = tremor(run_args(TINY, out, *LONG, "--resume"))
    check(rc == 0 and same_histories(out, ref), f"resume from the restored checkpoint: {text}")


def case_bem_sigterm(work):
    """SIGTERM during a boundary-element solve: the frequency being solved is finished and
    written, the file is finished as incomplete under its own name, and the exit status is 143."""
    model = os.path.join(ROOT, "examples/bem-cavity/model.toml")  # 2 frequencies, seconds each
    out = os.path.join(work, "term.h5")
    p = subprocess.Popen([TREMOR, "bem", model, "-o", out, "--backend", "serial"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    # The signal lands during the first frequency: once the result file is open (a loaded machine
    # may take longer than any fixed delay to get there), well before the first one is solved.
    deadline = time.monotonic() + 120
    while not os.path.exists(out + ".partial") and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    text = p.communicate(timeout=300)[0]
    check(p.returncode == 143, f"bem under SIGTERM: exit status {p.returncode}: {text}")
    check("interrupted by SIGTERM after 1 of 2 frequencies" in text, f"bem under SIGTERM says: {text}")
    check(status_of(out) == "incomplete", f"bem under SIGTERM: the file says {status_of(out)}")
    check(not os.path.exists(out + ".partial"), "bem under SIGTERM left the .partial")
    with h5py.File(out, "r") as f:
        check(f["bem/frequency"].shape == (1,), "bem under SIGTERM: the solved frequency is not in the file")


def case_mpi_sigterm_worker(work):
    """SIGTERM to a process of `mpirun -np 2 tremor run` other than the first: every process
    stops at its next check, the first finishes the file as incomplete and says why."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("skipped: no mpirun")
        sys.exit(77)
    model = os.path.join(ROOT, "tests/data/cli/long.toml")  # minutes of steps on 2 cores
    out = os.path.join(work, "term.h5")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl="self,vader", OMP_NUM_THREADS="1")
    p = subprocess.Popen([mpirun, "-np", "2", "--oversubscribe", TREMOR, "run", model, "-o", out, "--backend",
                          "serial", "--check-every", "20"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env)

    def second_rank():
        """The pid of world rank 1 among mpirun's children, once it is stepping."""
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    environ = f.read().split(b"\0")
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    command = f.read()
            except OSError:
                continue
            if b"OMPI_COMM_WORLD_RANK=1" in environ and TREMOR.encode() in command and out.encode() in command:
                return int(entry)
        return None

    # The signal lands inside the time loop: once the result file is open and the set-up is
    # done (a loaded machine may take longer than any fixed delay to get there).
    deadline = time.monotonic() + 120
    worker = None
    while p.poll() is None and time.monotonic() < deadline:
        worker = worker or second_rank()
        if worker and os.path.exists(out + ".partial"):
            break
        time.sleep(0.05)
    time.sleep(1.0)
    check(worker is not None and p.poll() is None, "mpirun -np 2: no second process found stepping")
    if worker is None:
        p.kill()
        return
    started = time.monotonic()
    os.kill(worker, signal.SIGTERM)
    try:
        text = p.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        text = p.communicate()[0]
        check(False, f"SIGTERM to the second process did not stop the run within 60 s: {text[-2000:]}")
        return
    check(p.returncode != 0, f"SIGTERM to the second process: exit status {p.returncode}")
    check("interrupted by a signal to another process of the run" in text,
          f"SIGTERM to the second process: the first does not say why it stopped: {text[-2000:]}")
    check(status_of(out) == "incomplete", f"SIGTERM to the second process: the file says {status_of(out)}")
    print(f"stopped {time.monotonic() - started:.1f} s after the signal")


def digest(path):
    with open(path, "rb") as f:
        return f.read()


def grid_plate(work, name, corner):
    """tiny_plate.toml with a 3 x 3 receiver grid on its top surface from `corner` (x, y, m)."""
    with open(os.path.join(ROOT, "tests/data/cli/tiny_plate.toml")) as f:
        text = f.read()
    x, y = corner
    text += (f'\n[[receiver]]\nname = "area"\ngrid = {{ min = [{x}, {y}], max = [{x + 0.002}, {y + 0.002}], '
             f'count = [3, 3], surface = "zmax" }}\n')
    model = os.path.join(work, name)
    with open(model, "w") as f:
        f.write(text)
    return model


def case_refused_keeps_earlier(work):
    """A run refused or failed before its first step leaves an earlier result at its output as it
    was (byte for byte, no .partial) and says so; the same for static and bem."""
    out = os.path.join(work, "out.h5")
    rc, text = tremor(run_args(grid_plate(work, "grid.toml", (-0.002, -0.002)), out))
    assert rc == 0, text
    before = digest(out)
    # The grid moved off the plate: refused where its points are placed, after the output was claimed.
    rc, text = tremor(run_args(grid_plate(work, "off.toml", (0.5, 0.5)), out))
    check(rc == 1 and "is not over surface" in text, f"run with a grid off the plate: {rc}: {text}")
    check(digest(out) == before, "run with a grid off the plate: the earlier result file changed")
    check(not os.path.exists(out + ".partial"), "run with a grid off the plate: left a .partial")
    check("out.h5 is kept as it was" in text, f"run with a grid off the plate: does not say the file was kept: {text}")
    for name, good, refused in (
            ("static", ["static", CANTILEVER, "--backend", "serial"],
             ["static", os.path.join(ROOT, "tests/data/cli/static_free.toml"), "--backend", "serial"]),
            ("bem", ["bem", CAVITY, "--backend", "serial"],
             ["bem", os.path.join(ROOT, "tests/data/cli/bem_zero_frequency.toml"), "--backend", "serial"])):
        out = os.path.join(work, f"{name}.h5")
        rc, text = tremor(good + ["-o", out])
        assert rc == 0, text
        before = digest(out)
        rc, text = tremor(refused + ["-o", out])
        check(rc == 1 and "error:" in text, f"{name}: the refused model: {rc}: {text}")
        check(digest(out) == before and not os.path.exists(out + ".partial"),
              f"{name}: the refused model changed the earlier result file")
        check(f"{name}.h5 is kept as it was" in text, f"{name}: does not say the file was kept: {text}")


def case_output_names_input(work):
    """-o naming a file the model reads (however spelled, or through a hard link; or its .partial
    or .xmf) is refused before any work, naming both, and the input is untouched."""
    model = os.path.join(work, "same.toml")
    shutil.copy(TINY, model)
    os.mkdir(os.path.join(work, "sub"))
    os.link(model, os.path.join(work, "alias.h5"))
    # A model reading an Abaqus mesh and a signal table whose name is a result's temporary file.
    shutil.copy(os.path.join(ROOT, "tests/data/model/block.inp"), os.path.join(work, "block.inp"))
    with open(os.path.join(work, "sig.h5.partial"), "w") as f:
        f.write("0,0\n1e-6,1\n2e-6,0\n")
    with open(os.path.join(ROOT, "tests/data/model/block_inp.toml")) as f:
        text = f.read()
    text += ('\n[explicit]\nduration = 2e-6\n\n[[source]]\nposition = [0.0, 0.0, 0.0]\n'
             'direction = [0.0, 0.0, 1.0]\nsignal = { kind = "tabulated", file = "sig.h5.partial" }\n')
    mesh_model = os.path.join(work, "mesh.toml")
    with open(mesh_model, "w") as f:
        f.write(text)
    bem_model = os.path.join(work, "cavity.toml")
    shutil.copy(os.path.join(ROOT, "tests/data/cli/bem_open_cavity.toml"), bem_model)
    shutil.copy(os.path.join(ROOT, "tests/data/cli/bem_patch.msh"), os.path.join(work, "bem_patch.msh"))
    cases = [
        (run_args(model, model), model),
        (run_args(model, os.path.join(work, "sub", "..", "same.toml")), model),
        (run_args(model, os.path.join(work, "alias.h5")), model),
        (run_args(mesh_model, os.path.join(work, "block.inp")), os.path.join(work, "block.inp")),
        (run_args(mesh_model, os.path.join(work, "sig.h5")), os.path.join(work, "sig.h5.partial")),
        (["static", model, "-o", model, "--backend", "serial"], model),
        (["bem", bem_model, "-o", bem_model, "--backend", "serial"], bem_model),
        (["bem", bem_model, "-o", os.path.join(work, "bem_patch.msh"), "--backend", "serial"],
         os.path.join(work, "bem_patch.msh")),
        (["bem", bem_model, "-o", os.path.join(work, "b.h5"), "--csv", bem_model, "--backend", "serial"], bem_model),
    ]
    for args, input_file in cases:
        before = digest(input_file)
        rc, text = tremor(args)
        where = " ".join(os.path.relpath(a, work) if a.startswith(work) else a for a in args)
        check(rc == 1 and "refusing to write" in text and os.path.basename(input_file) in text,
              f"{where}: not refused naming the input: {rc}: {text}")
        check("pre-flight" not in text and "summary" not in text, f"{where}: refused only after the work: {text}")
        check(digest(input_file) == before, f"{where}: the input {input_file} changed")
    leftovers = sorted(f for f in os.listdir(work) if f.endswith((".xmf", ".h5")) or f.endswith(".toml.partial"))
    check(leftovers == ["alias.h5"], f"the refusals left files: {leftovers}")


def case_xmf_output(work):
    """-o naming a .xmf file: its XDMF file would be itself, written over the results; refused."""
    for args in (run_args(TINY, os.path.join(work, "out.xmf")),
                 run_args(TINY, os.path.join(work, "out.XMF")),
                 ["static", CANTILEVER, "-o", os.path.join(work, "out.xmf"), "--backend", "serial"],
                 ["bem", CAVITY, "-o", os.path.join(work, "out.xmf"), "--backend", "serial"]):
        rc, text = tremor(args)
        check(rc == 1 and "XDMF file" in text and "refusing" in text, f"{args[:2]} -o .xmf: {rc}: {text}")
        check(os.listdir(work) == [], f"{args[:2]} -o .xmf: left {os.listdir(work)}")


def case_resume_drops_images(work):
    """A map made of an interrupted run's file covers only its first part: --resume removes
    /images (and says so), so the finished file holds none made of partial histories."""
    out = os.path.join(work, "r.h5")
    options = ["--duration", "2e-5", "--checkpoint-every", "100"]
    rc, text = tremor(run_args(TINY, out, *options, "--stop-at-step", "150"))
    check(rc == 130 and status_of(out) == "incomplete", f"the interrupted run: {rc}: {text}")
    with h5py.File(out, "r+") as f:  # as tremor image leaves it
        f.create_dataset("images/probe/map", data=np.ones((2, 2)))
    rc, text = tremor(run_args(TINY, out, *options, "--resume"))
    check(rc == 0 and status_of(out) == "complete", f"the resumed run: {rc}: {text}")
    check("/images removed" in text, f"the resumed run does not say it removed /images: {text}")
    with h5py.File(out, "r") as f:
        check("images" not in f, "the finished file keeps the maps of the partial run")


CASES = {name[5:]: f for name, f in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    case = sys.argv[2]
    work = tempfile.mkdtemp(prefix=f"tremor-fault-{case}-")
    try:
        CASES[case](work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s) in {case}")
        sys.exit(1)
    print(f"{case}: passed")
