"""The Python package on a GPU (run where one is usable; skipped otherwise, as in CI): runs on the
CUDA backend against the same runs on the CPU, through tremor.run and a kept set-up, with snapshots.

Tolerances are the parity suite's (tests/parity/explicit_parity.cpp): double 1e-10 of each
history's largest value, since the GPU contracts multiply-adds into FMAs and its atomic scatter
sums in another order (about 1e-13 relative after these runs); a wrong term shows at 1e-3 or more."""
import os

import numpy as np
import pytest

import tremor

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def on_gpu(run, *args, **kwargs):
    """run(*args, backend="cuda", **kwargs), or a skip where this build or machine has no GPU."""
    try:
        return run(*args, backend="cuda", **kwargs)
    except tremor.Error as e:
        if "CUDA" in str(e) or "usable device" in str(e):
            pytest.skip(str(e))
        raise


def expect_close(gpu, cpu, tolerance=1e-10):
    assert gpu.keys() == cpu.keys()
    for name in cpu:
        scale = np.abs(cpu[name].values).max()
        assert scale > 0.0, name  # the wave reached the receiver: a comparison that means something
        np.testing.assert_allclose(gpu[name].values, cpu[name].values, rtol=0, atol=tolerance * scale)


def plate(order):
    """A 2 mm aluminium plate of 1 mm bricks (raised to GLL order `order`), a tone burst on top, two
    receivers and snapshots of the top surface."""
    model = tremor.Model()
    model.set_mesh(generator="box", element="hex8", size=[0.02, 0.02, 0.002], divisions=[20, 20, 2],
                   order=order)
    model.add_material(name="al", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33)
    model.add_source(position=[0.01, 0.01, 0.002], direction=[0.0, 0.0, -1.0], signal=tremor.tone_burst(1e6, 3))
    model.add_receiver(name="probe", positions=[[0.014, 0.01, 0.002], [0.01, 0.005, 0.002]],
                       record=["displacement", "velocity"])
    model.set_output(snapshot_every=10, snapshot_node_set="zmax")
    model.set_explicit(duration=4e-6)
    return model


@pytest.mark.parametrize("order", [1, 4])
def test_a_gpu_run_equals_the_cpu_run(order):
    model = plate(order)
    gpu = on_gpu(tremor.run, model, precision="double")
    cpu = tremor.run(model, backend="openmp", precision="double")
    assert gpu.backend == "cuda" and gpu.steps == cpu.steps
    expect_close(gpu.histories, cpu.histories)
    assert len(gpu.snapshots) == len(cpu.snapshots) > 1
    for g, c in zip(gpu.snapshots, cpu.snapshots):
        scale = max(np.abs(c["displacement"]).max(), 1e-300)
        np.testing.assert_allclose(g["displacement"], c["displacement"], rtol=0, atol=1e-10 * scale)


def test_a_gpu_run_writes_its_result_file(tmp_path):
    model = plate(4)
    output = tmp_path / "gpu.h5"
    gpu = on_gpu(tremor.run, model, precision="double", output=output)
    assert gpu.status == "complete" and gpu.output == str(output)
    assert output.exists() and not (tmp_path / "gpu.h5.partial").exists()
    pytest.importorskip("h5py")  # to read the file back
    cpu = tremor.run(model, backend="openmp", precision="double")
    with tremor.open(output) as result:
        assert result.status == "complete" and result.metadata["backend"] == "cuda"
        for name, history in gpu.histories.items():
            np.testing.assert_array_equal(result.histories[name].values, history.values)  # what the run recorded
        assert len(result.snapshot_times) == len(cpu.snapshots) > 1
        for k, c in enumerate(cpu.snapshots):
            scale = max(np.abs(c["displacement"]).max(), 1e-300)
            np.testing.assert_allclose(result.snapshot(k)["displacement"], c["displacement"], rtol=0,
                                       atol=1e-10 * scale)


def test_a_kept_set_up_on_the_gpu():
    model = plate(4)
    sim = on_gpu(tremor.Simulation, model, precision="double")
    for frequency in (5e5, 1e6):
        variant = model.without("source").add_source(position=[0.01, 0.01, 0.002], direction=[0.0, 0.0, -1.0],
                                                     signal=tremor.tone_burst(frequency, 3))
        expect_close(sim.run(variant).histories, tremor.run(variant, backend="openmp", precision="double").histories)


@pytest.mark.parametrize("precision, tolerance", [("double", 1e-10), ("float", 1e-4)])
def test_matrix_free_in_tiles_through_python(precision, tolerance):
    """The GPU's matrix_free (elements in tiles, no K) through tremor.run and a kept set-up, against the
    CPU's assembled run: float to 1e-4 of each history's largest value (a 2^-24 unit roundoff, as the
    parity suite's float runs), double as above."""
    model = plate(1)
    gpu = on_gpu(tremor.run, model, precision=precision, operator="matrix_free")
    assert gpu.operator == "matrix_free" and gpu.precision == precision
    cpu = tremor.run(model, backend="openmp", precision=precision, operator="assembled")
    expect_close(gpu.histories, cpu.histories, tolerance)
    sim = on_gpu(tremor.Simulation, model, precision=precision, operator="matrix_free")
    assert sim.operator == "matrix_free"
    expect_close(sim.run().histories, cpu.histories, tolerance)
