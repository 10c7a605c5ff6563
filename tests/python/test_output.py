"""tremor.run(..., output=path): the result file the command line writes, from Python, kept and
marked when a run is stopped, refused where the command refuses."""
import os
import signal
import subprocess
import sys

import h5py
import numpy as np
import pytest

import tremor

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TREMOR_CLI", "tremor")
DATA = os.path.join(ROOT, "tests", "data", "cli")
# Metadata that differs between two runs of the same model: when, how long, and which build.
RUN_TO_RUN = {"created", "wall_time", "git_commit"}


def datasets(path):
    """Every dataset of a result file, by name, as numpy arrays (wall times left out: they differ
    from run to run)."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, item):
            if isinstance(item, h5py.Dataset) and not name.endswith("_seconds"):
                out[name] = item[()]
        f.visititems(visit)
        metadata = {k: v for k, v in f["metadata"].attrs.items() if k not in RUN_TO_RUN}
    return out, metadata


def assert_same_file(a, b):
    data_a, meta_a = datasets(a)
    data_b, meta_b = datasets(b)
    assert sorted(data_a) == sorted(data_b)
    for name in data_a:
        # The same solver, settings and backend: the same bits, dataset by dataset.
        np.testing.assert_array_equal(data_a[name], data_b[name], err_msg=name)
    assert meta_a == meta_b


@pytest.mark.parametrize("name", ["snapshots.toml", "shots_plate.toml", "water_on_steel.toml"])
def test_the_file_is_the_command_lines(tmp_path, name):
    model = os.path.join(DATA, name)
    ours, theirs = tmp_path / "python.h5", tmp_path / "cli.h5"
    run = tremor.run(tremor.Model.load(model), backend="serial", output=ours)
    assert run.status == "complete" and run.output == str(ours)
    subprocess.run([CLI, "run", model, "--backend", "serial", "-o", str(theirs)], check=True, capture_output=True)
    assert_same_file(ours, theirs)
    assert not os.path.exists(str(ours) + ".partial")
    with tremor.open(ours) as result:
        assert result.status == "complete"
        for shot, histories in run.shots.items() or [(None, run.histories)]:
            written = result.shots[shot] if shot else result.histories
            for key, history in histories.items():
                np.testing.assert_array_equal(written[key].values, history.values)
        if name == "snapshots.toml":
            assert run.snapshots == []  # in the file only
            assert len(result.snapshot_times) > 2


def test_a_fluid_records_its_pressure(tmp_path):
    """The receivers of pressure of water_on_steel.toml: one component a point (Pa) in the run, the
    file and the CSV export; the pulse reaches the hydrophone 1 mm from the source after 1 mm of
    water (0.68 us) plus the Ricker's delay, and the steel's receiver beside it records velocity. Its
    snapshots of pressure hold the water's."""
    model = tremor.Model.load(os.path.join(DATA, "water_on_steel.toml"))
    output = tmp_path / "water.h5"
    run = tremor.run(model, backend="serial", output=output)
    assert run.status == "complete", run.message
    p = run.histories["hydrophone"]
    assert p.quantities == ["pressure"] and p.units == ["Pa"]
    assert p.values.shape == (run.steps, 1, 1, 1)  # every step but the last: p_k is known after step k + 1
    near = run.histories["near_interface"]
    assert near.values.shape == ((run.steps + 1) // 2, 2, 1, 1)  # steps 0, 2, ... below the last
    assert near.positions.shape == (2, 2)
    assert run.histories["steel"].quantities == ["velocity"]
    assert run.histories["steel"].values.shape[3] == 2
    # The Ricker's peak at 1.5 / f0 = 5 us, 1 mm away: its extreme a little after 5.7 us.
    peak = p.times[np.argmax(np.abs(p.values[:, 0, 0, 0]))]
    assert 5.0e-6 < peak < 6.5e-6, peak
    with tremor.open(output) as result:
        written = result.histories["hydrophone"]
        assert written.quantities == ["pressure"] and written.units == ["Pa"]
        np.testing.assert_array_equal(written.values, p.values)
        assert result.h5["histories/hydrophone/values"].attrs["units"][0] in (b"Pa", "Pa")
        # Snapshots: the pressure of the water's nodes (the interface's too), NaN at the steel's;
        # at the hydrophone's node the value it records at that step, bit for bit.
        y = result.h5["mesh/coordinates"][:, 1]
        water = y > 0.01 - 1e-9
        hydrophone = 30 * 41 + 20  # (10, 15) mm
        assert len(result.snapshot_times) == len(range(0, run.steps, 40))  # none at the last step
        for k, time in enumerate(result.snapshot_times):
            pressure = result.snapshot(k)["pressure"]
            assert pressure.shape == (41 * 41,)
            assert np.all(np.isnan(pressure[~water])) and np.all(np.isfinite(pressure[water]))
            assert pressure[hydrophone] == p.values[round(time / run.dt), 0, 0, 0]
        assert np.abs(result.snapshot(-1)["pressure"][water]).max() > 1.0  # Pa: the pulse is in the water
    subprocess.run([CLI, "export", str(output), "-o", str(tmp_path / "csv")], check=True, capture_output=True)
    with open(tmp_path / "csv" / "near_interface.csv") as f:
        assert f.readline().strip() == "time,p1_p,p2_p"


def test_a_stopped_run_keeps_its_file(tmp_path):
    model = tremor.Model.load(os.path.join(DATA, "snapshots.toml"))
    whole = tremor.run(model, backend="serial")
    output = tmp_path / "stopped.h5"

    def stop(step, steps, t):
        if step >= 30:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        tremor.run(model, backend="serial", check_every=10, progress=stop, output=output)
    with tremor.open(output) as result:
        assert result.status == "incomplete"
        assert result.metadata["step_count"] == 30
        for name, history in result.histories.items():
            # What was recorded up to the stop, as the whole run recorded it.
            n = len(history.times)
            assert 0 < n < len(whole.histories[name].times)
            np.testing.assert_array_equal(history.values, whole.histories[name].values[:n])
        assert 0 < len(result.snapshot_times) < 9

    def fail(step, steps, t):
        raise ValueError("a callback's own error")
    with pytest.raises(ValueError, match="a callback's own error"):
        tremor.run(model, backend="serial", check_every=10, progress=fail, output=output)
    with tremor.open(output) as result:
        assert result.status == "incomplete" and result.metadata["step_count"] == 10


def test_a_model_built_here(tmp_path):
    model = tremor.Model.load(os.path.join(DATA, "tiny.toml")).copy().set_title("built")
    output = tmp_path / "built.h5"
    run = tremor.run(model, backend="serial", output=output)
    with tremor.open(output) as result:
        assert result.metadata["model_path"] == "<python model>"
        assert result.metadata["model_title"] == "built"
        assert result.metadata["model_hash"].startswith("fnv1a64:")
        np.testing.assert_array_equal(result.histories["probe"].values, run.histories["probe"].values)


def test_static_and_bem_files_are_the_command_lines(tmp_path):
    cantilever = os.path.join(ROOT, "examples", "cantilever-3d", "model.toml")
    solution = tremor.static(tremor.Model.load(cantilever), backend="serial", output=tmp_path / "static.h5")
    assert solution.converged
    subprocess.run([CLI, "static", cantilever, "--backend", "serial", "-o", str(tmp_path / "static-cli.h5")],
                   check=True, capture_output=True)
    assert_same_file(tmp_path / "static.h5", tmp_path / "static-cli.h5")
    cavity = os.path.join(ROOT, "examples", "bem-cavity", "model.toml")
    solution = tremor.bem(cavity, backend="serial", output=tmp_path / "bem.h5")
    assert solution.status == "complete"
    subprocess.run([CLI, "bem", cavity, "--backend", "serial", "-o", str(tmp_path / "bem-cli.h5")],
                   check=True, capture_output=True)
    assert_same_file(tmp_path / "bem.h5", tmp_path / "bem-cli.h5")
    with tremor.open(tmp_path / "bem.h5") as result:
        assert result.status == "complete" and result.metadata["solver"] == "bem"
    # Not converged: the last iterate, written as failed, as the command writes it.
    capped = tremor.static(tremor.Model.load(cantilever), backend="serial", max_iterations=3,
                           output=tmp_path / "capped.h5")
    assert not capped.converged
    with tremor.open(tmp_path / "capped.h5") as result:
        assert result.status.startswith("failed: ")
        np.testing.assert_array_equal(result.h5["static"]["displacement"][:], capped.displacement)


def test_ctrl_c_stops_a_static_solve_and_keeps_its_iterate(tmp_path):
    model = tremor.Model.load(os.path.join(ROOT, "examples", "cantilever-3d", "model.toml"))

    def interrupt(*_):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGALRM, interrupt)
    # As Ctrl-C would, while CG iterates: 2 s, past the set-up (a small fraction of a second alone)
    # even on a machine busy with other tests, where 0.3 s could land before the first iteration.
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        # A tolerance no solve reaches: only the interruption ends it (about 1,000 iterations a
        # second here; the cap bounds the test should the interruption not work).
        with pytest.raises(KeyboardInterrupt):
            tremor.static(model, backend="serial", tolerance=1e-30, max_iterations=200_000, output=tmp_path / "s.h5")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with tremor.open(tmp_path / "s.h5") as result:
        assert result.status == "incomplete"
        assert 0 < result.h5["static"].attrs["iterations"] < 200_000


def test_refusals(tmp_path):
    model = tremor.Model.load(os.path.join(DATA, "tiny.toml"))
    missing = tmp_path / "no" / "such" / "folder" / "out.h5"
    with pytest.raises(tremor.Error, match="folder"):
        tremor.run(model, backend="serial", output=missing)
    # An interrupted command-line run's checkpoint is not overwritten by a run from here.
    output = tmp_path / "kept.h5"
    (tmp_path / "kept.h5.checkpoint").write_bytes(b"state")
    with pytest.raises(tremor.Error, match=r"kept\.h5\.checkpoint exists: .*--resume"):
        tremor.run(model, backend="serial", output=output)
    assert (tmp_path / "kept.h5.checkpoint").read_bytes() == b"state"
    assert not output.exists()
    # A refused model leaves no file behind.
    with pytest.raises(tremor.Error, match="precision"):
        tremor.run(model, backend="serial", precision="half", output=tmp_path / "refused.h5")
    assert not (tmp_path / "refused.h5").exists() and not (tmp_path / "refused.h5.partial").exists()



def test_outputs_that_would_lose_files(tmp_path):
    """The checks of the record layer, shared with the command line: an output that is the model
    file or whose XDMF file would be itself is refused, and a model refused after its output was
    claimed (a receiver grid off the plate) leaves an earlier result as it was."""
    model_file = tmp_path / "same.toml"
    model_file.write_bytes(open(os.path.join(DATA, "tiny.toml"), "rb").read())
    model = tremor.Model.load(str(model_file))
    with pytest.raises(tremor.Error, match="an input of this run"):
        tremor.run(model, backend="serial", output=model_file)
    assert model_file.read_bytes() == open(os.path.join(DATA, "tiny.toml"), "rb").read()
    with pytest.raises(tremor.Error, match="XDMF file"):
        tremor.run(model, backend="serial", output=tmp_path / "out.xmf")
    assert not (tmp_path / "out.xmf").exists()

    plate = open(os.path.join(DATA, "tiny_plate.toml")).read()
    grid = '\n[[receiver]]\nname = "area"\ngrid = {{ min = [{0}, {0}], max = [{1}, {1}], count = [3, 3], surface = "zmax" }}\n'
    on, off = tmp_path / "on.toml", tmp_path / "off.toml"
    on.write_text(plate + grid.format(-0.002, 0.0))
    off.write_text(plate + grid.format(0.5, 0.502))
    output = tmp_path / "out.h5"
    assert tremor.run(tremor.Model.load(str(on)), backend="serial", output=output).status == "complete"
    earlier = output.read_bytes()
    with pytest.raises(tremor.Error, match="not over surface"):
        tremor.run(tremor.Model.load(str(off)), backend="serial", output=output)
    assert output.read_bytes() == earlier and not (tmp_path / "out.h5.partial").exists()

if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))


def test_a_fluid_resumes_from_its_checkpoint(tmp_path):
    """water_on_steel.toml stopped at a checkpoint as the pulse crosses the water and resumed from
    the command line: the file holds what the whole run's does, bit for bit, in every history and
    snapshot (the checkpoint holds the water's potential, its receivers' waiting samples and the
    snapshot's rows of its motion)."""
    model = os.path.join(DATA, "water_on_steel.toml")
    common = ["--backend", "serial", "--check-every", "10"]
    whole, result = tmp_path / "whole.h5", tmp_path / "result.h5"
    subprocess.run([CLI, "run", model, "-o", str(whole)] + common, check=True, capture_output=True)
    with h5py.File(whole, "r") as f:
        steps = len(f["histories/hydrophone/time"])
    stop = steps // 2 // 10 * 10  # mid-run, as the Ricker (peak at 5 us of 8) is in the water
    stopped = subprocess.run([CLI, "run", model, "-o", str(result), "--checkpoint-every", str(stop // 2),
                              "--stop-at-step", str(stop)] + common, capture_output=True, text=True)
    assert stopped.returncode == 130, stopped.stdout + stopped.stderr
    assert os.path.exists(str(result) + ".checkpoint")
    with h5py.File(str(result) + ".checkpoint", "r") as f:
        assert f["fluid/current"].shape == (41 * 21,)  # the water's nodes, the interface's too
        assert np.abs(f["fluid/current"][()]).max() > 0.0  # the water moves: not a comparison of zeros
    resumed = subprocess.run([CLI, "run", model, "-o", str(result), "--resume"] + common,
                             capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming" in resumed.stdout
    ours, _ = datasets(result)
    theirs, _ = datasets(whole)
    kept = [name for name in theirs if name.startswith(("histories/", "snapshots/"))]
    assert any(name.startswith("snapshots/") for name in kept)
    assert sorted(kept) == sorted(name for name in ours if name.startswith(("histories/", "snapshots/")))
    for name in kept:
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


def test_a_fluid_decomposed_writes_one_domains_file(tmp_path):
    """water_on_steel.toml on 3 subdomains (each a part of the steel and of the water) from the
    command line: its file holds the one-domain run's histories and snapshots, the water's pressure
    and motion too, within 1e-12 of each dataset's largest value (sums at shared nodes in another
    order), NaN where the one-domain file has NaN (no pressure in the steel). Its checkpoint, of the
    whole water, resumes on one domain to the same file."""
    model = os.path.join(DATA, "water_on_steel.toml")
    common = ["--backend", "serial", "--check-every", "10"]
    one, split, resumed = tmp_path / "one.h5", tmp_path / "split.h5", tmp_path / "resumed.h5"
    subprocess.run([CLI, "run", model, "-o", str(one)] + common, check=True, capture_output=True)
    done = subprocess.run([CLI, "run", model, "-o", str(split), "--domains", "3"] + common, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "subdomains      3" in done.stdout

    def expect_close(path):
        ours, _ = datasets(path)
        theirs, _ = datasets(one)
        kept = [name for name in theirs if name.startswith(("histories/", "snapshots/")) and
                np.issubdtype(theirs[name].dtype, np.floating)]
        assert any(name.startswith("snapshots/pressure") for name in kept)
        for name in kept:
            want, got = theirs[name], ours[name]
            assert got.shape == want.shape, name
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
            finite = ~np.isnan(want)
            size = np.abs(want[finite]).max(initial=0.0)
            assert np.abs(got[finite] - want[finite]).max(initial=0.0) <= 1e-12 * size, name

    expect_close(split)
    with h5py.File(one, "r") as f:
        steps = len(f["histories/hydrophone/time"])
    stop = steps // 2 // 10 * 10  # mid-run, as the pulse is in the water
    stopped = subprocess.run([CLI, "run", model, "-o", str(resumed), "--domains", "3", "--checkpoint-every",
                              str(stop // 2), "--stop-at-step", str(stop)] + common, capture_output=True, text=True)
    assert stopped.returncode == 130, stopped.stdout + stopped.stderr
    again = subprocess.run([CLI, "run", model, "-o", str(resumed), "--resume"] + common, capture_output=True,
                           text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    expect_close(resumed)
