"""The tremor Python package (docs/python.md), run by ctest with pytest: models read with the
command line's checks and messages, runs in memory against the command line's result file for the
same model, interruption, shots, and result files read back."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tremor

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TREMOR_CLI", "tremor")
TINY = os.path.join(ROOT, "tests", "data", "cli", "tiny.toml")
SHOTS = os.path.join(ROOT, "tests", "data", "cli", "shots_plate.toml")


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=True)


def test_model_load():
    model = tremor.Model.load(TINY)
    assert model.dim == 2
    assert model.n_nodes == 41 * 9  # 40 x 8 quad4 cells
    assert model.n_dofs == 2 * model.n_nodes
    assert model.title == "tiny strip for the cli tests"
    assert model.receivers == ["probe"]
    assert "tiny.toml" in repr(model)
    raised = tremor.Model.load(TINY, order=2)
    assert raised.n_nodes == 81 * 17  # the same mesh raised to GLL order 2


def test_errors_carry_the_command_lines_text(tmp_path):
    with pytest.raises(tremor.Error, match="missing.toml: no such model file"):
        tremor.Model.load(str(tmp_path / "missing.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text(open(TINY).read().replace("density = 7850.0", "densty = 7850.0"))
    with pytest.raises(tremor.Error, match=r"bad\.toml:[0-9]+: .*unknown key 'densty'; did you mean 'density'\?"):
        tremor.Model.load(str(bad))
    model = tremor.Model.load(TINY)
    with pytest.raises(tremor.Error, match="precision"):
        tremor.run(model, backend="serial", precision="half")
    with pytest.raises(TypeError):
        tremor.run(TINY)


def test_run_equals_the_command_lines_result(tmp_path):
    model = tremor.Model.load(TINY)
    run = tremor.run(model, backend="serial")
    assert run.status == "complete"
    assert run.backend == "serial" and run.precision == "double"
    assert run.n_dofs == model.n_dofs
    probe = run.histories["probe"]
    assert probe.quantities == ["displacement"]
    assert probe.values.shape == (len(probe.times), 1, 1, 2)
    assert np.abs(probe.values).max() > 0.0  # the burst arrived
    output = tmp_path / "tiny.h5"
    cli("run", TINY, "--backend", "serial", "-o", str(output))
    with tremor.open(output) as result:
        assert result.status == "complete"
        written = result.histories["probe"]
        # The same solver, settings and backend: the same bits.
        np.testing.assert_array_equal(written.times, probe.times)
        np.testing.assert_array_equal(written.values, probe.values)
        np.testing.assert_array_equal(written.node_labels, probe.node_labels)
        assert written.units == ["m"]
        assert result.metadata["backend"] == "serial"


def test_progress_and_interruption():
    model = tremor.Model.load(TINY)
    seen = []
    run = tremor.run(model, backend="serial", check_every=10, progress=lambda step, steps, t: seen.append(step))
    assert seen[0] == 10 and seen[-1] == run.steps
    assert all(b - a == 10 for a, b in zip(seen[:-2], seen[1:-1]))

    def stop(step, steps, t):
        if step >= 30:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        tremor.run(model, backend="serial", check_every=10, progress=stop)


def test_shots(tmp_path):
    model = tremor.Model.load(SHOTS)
    assert model.shots == ["a0", "s0"]
    run = tremor.run(model, backend="serial")
    assert run.histories == {}
    assert sorted(run.shots) == ["a0", "s0"]
    area = run.shots["s0"]["area"]
    assert area.positions.shape == (17 * 17, 3)
    output = tmp_path / "shots.h5"
    cli("run", SHOTS, "--backend", "serial", "-o", str(output))
    with tremor.open(output) as result:  # closed before tremor image writes to the file
        np.testing.assert_array_equal(result.shots["s0"]["area"].values, area.values)
        np.testing.assert_array_equal(result.shots["a0"]["probe"].quantity("velocity"),
                                      run.shots["a0"]["probe"].quantity("velocity"))
    with pytest.raises(KeyError, match="records displacement, not velocity"):
        area.quantity("velocity")
    cli("image", str(output), "-o", str(tmp_path))
    cli("image", str(output), "--shot", "a0,s0", "--combine", "both", "-o", str(tmp_path))
    with tremor.open(output) as result:
        assert result.images["a0.area"].shape == (17, 17)
        # The combined map is the sum of the shots' envelope peaks (each image is normalised by
        # its own peak, kept beside it), normalised: to rounding.
        peak = {name: result.h5["images"][name].attrs["peak"] for name in ("a0.area", "s0.area")}
        total = result.images["a0.area"] * peak["a0.area"] + result.images["s0.area"] * peak["s0.area"]
        np.testing.assert_allclose(result.images["both.area"], total / total.max(), rtol=0, atol=1e-12)
        assert result.h5["images"]["both.area"].attrs["shots"] == "a0, s0"


def test_static_equals_the_command_lines_result(tmp_path):
    model = tremor.Model.load(os.path.join(ROOT, "examples", "cantilever-3d", "model.toml"))
    solution = tremor.static(model, backend="serial")
    assert solution.converged and solution.status == "converged"
    assert solution.displacement.shape == (model.n_nodes, 3) and solution.stress.shape == (model.n_nodes, 6)
    assert solution.relative_residual <= solution.tolerance
    output = tmp_path / "cantilever.h5"
    cli("static", os.path.join(ROOT, "examples", "cantilever-3d", "model.toml"), "--backend", "serial",
        "-o", str(output))
    with tremor.open(output) as result:
        written = result.h5["static"]
        # The same solve on the same backend: the same bits.
        np.testing.assert_array_equal(written["displacement"][:], solution.displacement)
        np.testing.assert_array_equal(written["stress"][:], solution.stress)
        np.testing.assert_array_equal(written["reaction_force"][:], solution.reaction)
        assert written.attrs["iterations"] == solution.iterations
    # The reactions balance the applied load: to the solve's residual (tolerance 1e-8 of ||f||),
    # well inside 1e-6 of the total applied force.
    total = np.abs(solution.applied).sum()
    assert total > 0.0
    np.testing.assert_allclose(solution.reaction.sum(axis=0), -solution.applied.sum(axis=0), rtol=0, atol=1e-6 * total)
    free = tremor.Model.load(os.path.join(ROOT, "tests", "data", "cli", "static_free.toml"))
    with pytest.raises(tremor.Error, match="can still"):
        tremor.static(free, backend="serial")


def test_bem_equals_the_command_lines_result(tmp_path):
    model = os.path.join(ROOT, "examples", "bem-cavity", "model.toml")
    solution = tremor.bem(model, backend="serial")
    assert solution.status == "complete"
    assert [f["frequency"] for f in solution.frequencies] == [25.0, 50.0]
    n = len(solution.areas)
    assert solution.centroids.shape == (n, 3) and solution.frequencies[0]["displacement"].shape == (n, 3)
    output = tmp_path / "cavity.h5"
    cli("bem", model, "--backend", "serial", "-o", str(output))
    with tremor.open(output) as result:
        written = result.h5["bem"]
        np.testing.assert_array_equal(written["frequency"][:], [25.0, 50.0])
        for k, f in enumerate(solution.frequencies):
            # The same assembly and solve on the same backend: the same bits.
            np.testing.assert_array_equal(written["displacement_real"][k], f["displacement"].real)
            np.testing.assert_array_equal(written["displacement_imag"][k], f["displacement"].imag)
            np.testing.assert_array_equal(written["traction_real"][k], f["traction"].real)
        np.testing.assert_array_equal(written["elements/centroids"][:], solution.centroids)
    with pytest.raises(tremor.Error, match="no such"):
        tremor.bem(tmp_path / "none.toml")


def test_open_refuses_what_is_not_a_result(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such result file"):
        tremor.open(tmp_path / "none.h5")
    text = tmp_path / "text.h5"
    text.write_text("not hdf5")
    with pytest.raises(OSError, match="not a tremor result file"):
        tremor.open(text)


def test_snapshots(tmp_path):
    model = os.path.join(ROOT, "tests", "data", "cli", "snapshots.toml")
    output = tmp_path / "snapshots.h5"
    cli("run", model, "--backend", "serial", "-o", str(output))
    result = tremor.open(output)
    assert len(result.snapshot_times) > 2
    last = result.snapshot(-1)
    assert last["time"] == result.snapshot_times[-1]
    assert last["displacement"].ndim == 2
    with pytest.raises(IndexError):
        result.snapshot(len(result.snapshot_times))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))
