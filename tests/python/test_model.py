"""Models built in Python (tremor.Model's tables, tremor.Mesh of arrays), saved and read back, and
kept set-ups (tremor.Simulation): the same checks and messages as the model file, the same model
after a round trip through model.save and `tremor run`, and runs of a kept set-up equal to
tremor.run of the same model, bit for bit."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import tremor

CLI = os.environ.get("TREMOR_CLI", "tremor")
HERE = os.path.abspath(__file__)


def strip(divisions=(40, 8), element="quad4", **material):
    """A 100 x 20 mm steel strip in plane strain, a tone burst at its left edge, a probe at its right;
    `material`: keys added to the steel (Rayleigh damping, attenuation)."""
    model = tremor.Model(title="strip")
    model.set_mesh(generator="rectangle", element=element, size=[0.1, 0.02], divisions=list(divisions))
    model.add_material(name="steel", density=7850.0, youngs_modulus=210e9, poisson_ratio=0.3, **material)
    model.add_section(element_set="all", material="steel", formulation="plane_strain")
    model.add_source(position=[0.0, 0.01], direction=[1.0, 0.0], signal=tremor.tone_burst(200e3, 3))
    model.add_receiver(name="probe", positions=[[0.1, 0.01]], record=["displacement", "velocity"])
    model.set_explicit(duration=25e-6)
    return model


def probe_values(run):
    return run.histories["probe"].values


def test_a_built_model_runs_as_its_saved_file_does(tmp_path):
    model = strip()
    assert model.n_nodes == 41 * 9 and model.dim == 2 and model.receivers == ["probe"]
    run = tremor.run(model, backend="serial")
    assert run.status == "complete"
    assert np.abs(probe_values(run)).max() > 0.0  # the burst arrived
    path = model.save(tmp_path / "strip.toml")
    back = tremor.Model.load(path)
    assert back.tables == model.tables  # the same tables read back
    np.testing.assert_array_equal(probe_values(tremor.run(back, backend="serial")), probe_values(run))
    # The command line reads the saved file to the same run: equal arrays (the same arithmetic).
    out = tmp_path / "strip.h5"
    subprocess.run([CLI, "run", str(path), "--backend", "serial", "-o", str(out)], check=True, capture_output=True)
    np.testing.assert_array_equal(tremor.open(str(out)).histories["probe"].values, probe_values(run))


def test_the_readers_messages_name_the_python_line():
    model = strip()
    model.add_material(name="al", densty=2700.0)
    line = None
    with open(HERE) as f:
        for number, text in enumerate(f, 1):
            if "densty=2700.0" in text and "add_material" in text:
                line = number
                break
    with pytest.raises(tremor.Error, match=rf"test_model\.py:{line}: \[\[material\]\] #2: unknown key 'densty'; "
                                           r"did you mean 'density'\?"):
        model.check()
    with pytest.raises(tremor.Error, match="the model has no mesh"):
        tremor.Model().check()
    with pytest.raises(tremor.Error, match="tabulated signal takes times and values of one length"):
        tremor.tabulated([0.0, 1.0], [0.0])


def test_a_fluid_material_is_built_read_back_and_refused_by_the_solver(tmp_path):
    model = tremor.Model(title="tank")
    model.set_mesh(generator="rectangle", element="quad4", size=[0.02, 0.02], divisions=[4, 4])
    model.add_material(name="water", kind="fluid", density=1000.0, sound_speed=1480.0)
    model.set_explicit(duration=1e-6)
    model.check()
    back = tremor.Model.load(model.save(tmp_path / "tank.toml"))
    assert back.tables == model.tables
    with pytest.raises(tremor.Error, match="the model has no solid element: a fluid runs coupled to a solid"):
        tremor.run(model, backend="serial")
    model.add_material(name="oil", kind="fluid", density=900.0, sound_speed=1400.0, shear_modulus=1e6)
    with pytest.raises(tremor.Error, match="'shear_modulus' is not a fluid's"):
        model.check()


def water_over_steel(title, divisions):
    """20 x 20 mm of quad4 cells, divisions a side: water above y = 10 mm, steel below."""
    model = tremor.Model(title=title)
    model.set_mesh(generator="rectangle", element="quad4", size=[0.02, 0.02], divisions=[divisions, divisions])
    model.add_element_set(name="water", min=[0.0, 0.01], max=[0.02, 0.02])
    model.add_element_set(name="steel", min=[0.0, 0.0], max=[0.02, 0.01])
    model.add_material(name="water", kind="fluid", density=1000.0, sound_speed=1480.0)
    model.add_material(name="steel", density=7850.0, youngs_modulus=210e9, poisson_ratio=0.3)
    model.add_section(element_set="water", material="water")
    model.add_section(element_set="steel", material="steel", formulation="plane_strain")
    return model


def test_water_over_steel_is_built_with_a_free_surface_and_records_pressure():
    """A volume source in water over steel, the water's top a pressure-release surface: the
    receivers of pressure on it record 0 (held), one just below it the wave."""
    model = water_over_steel("tank", 20)
    model.add_pressure_release(node_set="ymax")
    model.add_source(position=[0.01, 0.017], volume=1e-9, signal=tremor.ricker(200e3))
    model.add_receiver(name="surface", node_set="ymax", record=["pressure"])
    model.add_receiver(name="below", positions=[[0.01, 0.019]], record=["pressure"])
    model.set_explicit(duration=9e-6)
    run = tremor.run(model, backend="serial")
    assert run.status == "complete", run.message
    assert run.histories["surface"].values.shape[1:] == (21, 1, 1)
    assert np.all(run.histories["surface"].values == 0.0)
    assert np.max(np.abs(run.histories["below"].values)) > 1.0  # Pa: 1 mm^3 at 200 kHz, 2 mm away


def test_a_piston_is_built_on_the_waters_top_and_drives_it():
    """A piston 8 mm wide on the water's top, driven by a 500 kHz Ricker of 10 mm/s: the pressure at
    the middle of its face peaks at rho c v = 14.8 kPa, the plane wave in front of the face (within
    10%: 3.6% above it here, as the edges' waves, 4 mm away, begin to arrive)."""
    model = water_over_steel("probe", 100)
    model.add_transducer(name="probe", mode="piston", surface="ymax", position=[0.01, 0.02], radius=0.004,
                         amplitude=0.01, signal=tremor.ricker(5e5))
    model.add_receiver(name="face", positions=[[0.01, 0.02]], record=["pressure"])
    model.set_explicit(duration=5e-6)
    run = tremor.run(model, backend="serial")
    assert run.status == "complete", run.message
    peak = np.abs(run.histories["face"].values).max()
    assert abs(peak / (1000.0 * 1480.0 * 0.01) - 1.0) < 0.1, peak


def test_a_simulation_of_water_over_steel_moves_its_source():
    """A kept set-up of water over steel with a free surface: a run equals tremor.run of the same
    model, bit for bit, and a run with the source moved and other receivers equals tremor.run of
    that model."""
    model = water_over_steel("tank", 20)
    model.add_pressure_release(node_set="ymax")
    model.add_source(position=[0.01, 0.017], volume=1e-9, signal=tremor.ricker(200e3))
    model.add_receiver(name="below", positions=[[0.01, 0.019]], record=["pressure"])
    model.add_receiver(name="steel", positions=[[0.01, 0.008]], record=["velocity"])
    model.set_explicit(duration=9e-6)
    sim = tremor.Simulation(model, backend="serial")
    moved = model.without("source", "receiver")
    moved.add_source(position=[0.006, 0.014], volume=1e-9, signal=tremor.ricker(250e3))
    moved.add_receiver(name="water", positions=[[0.012, 0.015]], record=["velocity"])
    for m in (model, moved):
        ours, theirs = sim.run(m), tremor.run(m, backend="serial")
        assert ours.status == "complete", ours.message
        assert sorted(ours.histories) == sorted(theirs.histories)
        for key, history in theirs.histories.items():
            np.testing.assert_array_equal(ours.histories[key].values, history.values, err_msg=key)
            assert np.abs(history.values).max() > 0.0, key


def test_numpy_values_and_signals():
    model = strip()
    times = np.linspace(0.0, 10e-6, 41)
    values = np.sin(2 * np.pi * 200e3 * times) * np.sin(np.pi * times / 10e-6) ** 2
    by_table = model.without("source").add_source(position=np.array([0.0, 0.01]), direction=np.array([1.0, 0.0]),
                                                  signal=(times, values))
    by_rows = model.without("source").add_source(position=[0.0, 0.01], direction=[1.0, 0.0],
                                                 signal=np.stack([times, values], axis=1))
    a, b = tremor.run(by_table, backend="serial"), tremor.run(by_rows, backend="serial")
    np.testing.assert_array_equal(probe_values(a), probe_values(b))
    assert np.abs(probe_values(a)).max() > 0.0
    assert "source" not in model.without("source").tables  # without() leaves the model itself alone
    assert "source" in model.tables


def test_a_mesh_of_arrays(tmp_path):
    box = tremor.Mesh.box(size=[0.01, 0.01, 0.002], divisions=[5, 5, 2])
    assert box.n_nodes == 6 * 6 * 3 and box.n_elements == 50
    nodes, hexes = box.nodes, box.blocks[0][1]
    mesh = tremor.Mesh(nodes, hexes, element="hex8", node_sets={"TOP": box.node_sets["zmax"]},
                       surfaces={"BASE": box.surfaces["zmin"]})
    model = tremor.Model(mesh=mesh)
    model.add_material(name="al", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33)
    model.add_source(node_set="TOP", direction=[0.0, 0.0, 1.0], signal=tremor.ricker(1e6))
    model.add_traction(surface="BASE", pressure=1.0, signal=tremor.ricker(1e6))
    model.add_receiver(name="top", node_set="TOP")
    model.set_explicit(duration=2e-6)
    run = tremor.run(model, backend="serial")
    path = model.save(tmp_path / "arrays.toml")
    assert os.path.exists(tmp_path / "arrays.inp")  # the mesh beside it, which [mesh] names
    back = tremor.Model.load(path)
    np.testing.assert_array_equal(back.mesh.nodes, nodes)
    np.testing.assert_array_equal(tremor.run(back, backend="serial").histories["top"].values,
                                  run.histories["top"].values)
    # The mesh's own checks, naming the item.
    with pytest.raises(tremor.Error, match=r"element 3 refers to node index 999; the mesh has 108 nodes"):
        bad = hexes.copy()
        bad[3, 2] = 999
        tremor.Mesh(nodes, bad, element="hex8")
    with pytest.raises(tremor.Error, match=r"the connectivity must be an array of shape \[n\]\[8\]"):
        tremor.Mesh(nodes, hexes[:, :4], element="hex8")
    with pytest.raises(tremor.Error, match="block 1: "):
        tremor.Mesh(nodes, hexes, element="hex9")
    with pytest.raises(tremor.Error, match="coordinates must be finite"):
        tremor.Mesh(np.where(nodes == nodes.max(), np.nan, nodes), hexes, element="hex8")
    # Set names the Abaqus input would not keep are refused before anything is written.
    lower = tremor.Model(mesh=tremor.Mesh(nodes, hexes, element="hex8", node_sets={"top": box.node_sets["zmax"]}))
    lower.add_material(name="al", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33)
    with pytest.raises(tremor.Error, match="upper"):
        lower.save(tmp_path / "lower.toml")
    assert not os.path.exists(tmp_path / "lower.toml")


def test_a_kept_set_up_runs_as_tremor_run_does():
    model = strip(divisions=(120, 24))
    sim = tremor.Simulation(model, backend="serial")
    for frequency in (150e3, 250e3):
        variant = model.without("source").add_source(position=[0.0, 0.01], direction=[1.0, 0.0],
                                                     signal=tremor.tone_burst(frequency, 3))
        kept, fresh = sim.run(variant), tremor.run(variant, backend="serial")
        np.testing.assert_array_equal(probe_values(kept), probe_values(fresh))
        assert kept.steps == fresh.steps and kept.dt == fresh.dt == sim.dt
    again = sim.run()  # the set-up's own model, from rest again
    np.testing.assert_array_equal(probe_values(again), probe_values(tremor.run(model, backend="serial")))
    shorter = sim.run(duration=10e-6)
    assert shorter.time < again.time
    # What the set-up holds cannot change, and the message says so.
    with pytest.raises(tremor.Error, match=r"changes \[\[material\]\]"):
        sim.run(model.copy().add_material(name="al", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33))
    with pytest.raises(tremor.Error, match=r"changes \[explicit\]"):
        sim.run(model.copy().set_explicit(safety_factor=0.5))


def test_a_kept_set_up_skips_the_set_up():
    # A 3D plate whose set-up (elements, K assembled, the stable step) costs far more than a run's
    # loads and receivers: a run of the kept set-up takes a small part of it (measured 0.1%;
    # a fifth leaves room for a loaded machine).
    model = tremor.Model()
    model.set_mesh(generator="box", element="hex8", size=[0.04, 0.04, 0.004], divisions=[40, 40, 4])
    model.add_material(name="al", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33)
    model.add_source(position=[0.02, 0.02, 0.004], direction=[0.0, 0.0, -1.0], signal=tremor.tone_burst(500e3, 3))
    model.add_receiver(name="probe", positions=[[0.03, 0.02, 0.004]])
    model.set_explicit(duration=3e-7)  # a few steps of about 0.1 us
    sim = tremor.Simulation(model, backend="openmp", operator="assembled")
    runs = [sim.run() for _ in range(3)]
    assert all(r.status == "complete" for r in runs)
    assert max(r.setup_seconds for r in runs[1:]) < 0.2 * sim.setup_seconds, (
        [r.setup_seconds for r in runs], sim.setup_seconds)


def test_snapshots_come_back_as_the_command_line_writes_them(tmp_path):
    model = strip().set_output(snapshot_every=20, snapshot_fields=["displacement", "velocity"],
                               snapshot_node_set="xmax")
    run = tremor.run(model, backend="serial")
    nodes = model.mesh.node_sets["xmax"]
    np.testing.assert_array_equal(run.snapshot_nodes, nodes)
    assert [s["step"] for s in run.snapshots] == list(range(0, run.steps, 20))  # none at the last step
    path = model.save(tmp_path / "strip.toml")
    out = tmp_path / "strip.h5"
    subprocess.run([CLI, "run", str(path), "--backend", "serial", "-o", str(out)], check=True, capture_output=True)
    with tremor.open(str(out)) as result:
        assert len(result.snapshot_times) == len(run.snapshots)
        for k, snapshot in enumerate(run.snapshots):
            written = result.snapshot(k)
            assert written["time"] == snapshot["time"]
            # The same field the file holds, bit for bit: the same run and the same copy.
            np.testing.assert_array_equal(written["displacement"], snapshot["displacement"])
            np.testing.assert_array_equal(written["velocity"], snapshot["velocity"])
    assert np.abs(run.snapshots[-1]["displacement"]).max() > 0.0  # the burst reached the far edge
    assert tremor.run(strip(), backend="serial").snapshots == []  # none asked for, none taken


def test_losses_set_from_python_damp_the_burst(tmp_path):
    """damping_beta and q_p/q_s from the builder: the burst arrives weaker than without, the stable step
    shortens with beta, and the saved file runs the same."""
    elastic = tremor.run(strip(), backend="serial")
    damped = tremor.run(strip(damping_beta=2e-8), backend="serial")
    peak = np.abs(probe_values(elastic)).max()
    assert np.abs(probe_values(damped)).max() < 0.9 * peak  # beta omega^2 / 2 ~ 4e4 1/s over ~20 us
    assert damped.dt < elastic.dt  # the lagged damping's stable step
    gll_elastic = tremor.run(strip(element="quad-gll2"), backend="serial")
    attenuating = strip(element="quad-gll2", q_p=20, q_s=10)
    gll_q = tremor.run(attenuating, backend="serial")
    assert gll_q.operator == "sem"
    # Q_S 10 over ~3 wavelengths: exp(-pi N / Q) ~ 0.4 for the shear part; the P arrival loses less.
    assert np.abs(probe_values(gll_q)).max() < 0.9 * np.abs(probe_values(gll_elastic)).max()
    path = attenuating.save(tmp_path / "q.toml")
    np.testing.assert_array_equal(probe_values(tremor.run(tremor.Model.load(path), backend="serial")),
                                  probe_values(gll_q))
    with pytest.raises(tremor.Error, match=r"'q_s' is 1; expected a quality factor within \(1, 100000\)"):
        tremor.run(strip(element="quad-gll2", q_p=20, q_s=1), backend="serial")
    # Coarse-grained memory variables: the same losses within 10% of the peak (their Q is within ~2% of
    # the full solids' on the verification column; at Q_S 10 over ~6 wavelengths, exp(-pi N / Q), 2% of
    # Q is 4% of the amplitude); a boolean the saved file keeps.
    coarse = strip(element="quad-gll2", q_p=20, q_s=10, q_coarse_grained=True)
    gll_coarse = tremor.run(coarse, backend="serial")
    full_values, coarse_values = probe_values(gll_q), probe_values(gll_coarse)
    assert np.abs(coarse_values - full_values).max() < 0.1 * np.abs(full_values).max()
    assert not np.array_equal(coarse_values, full_values)
    np.testing.assert_array_equal(probe_values(tremor.run(tremor.Model.load(coarse.save(tmp_path / "c.toml")),
                                                          backend="serial")), coarse_values)


def test_a_pml_set_from_python_absorbs_the_far_end(tmp_path):
    """[[absorbing]] kind = "pml" from the builder: at a receiver halfway along the strip, what the
    far end sends back, measured against a strip three times as long (whose end sends nothing back
    in time), is far smaller with a PML there than with the free end; the saved file runs the same.
    The three take the PML's step (its grid damping shortens the stable step a little)."""
    def model(length=0.1, lined=False, time_step=None):
        m = strip()
        m.set_mesh(generator="rectangle", element="quad4", size=[length, 0.02], divisions=[int(round(length / 0.0025)), 8])
        m.add_receiver(name="mid", positions=[[0.05, 0.01]])
        # the free end's echo (the plate's slower modes) within it
        m.set_explicit(duration=80e-6, time_step=time_step)
        if lined:
            m.add_absorbing(kind="pml", faces=["xmax"], thickness=0.02)
        return m
    lined = tremor.run(model(lined=True), backend="serial")
    dt = lined.dt
    mid = {name: tremor.run(m, backend="serial").histories["mid"].values
           for name, m in (("reference", model(0.3, time_step=dt)), ("free", model(time_step=dt)),
                           ("pml", model(lined=True, time_step=dt)))}
    np.testing.assert_array_equal(mid["pml"], lined.histories["mid"].values)
    echo_free = np.abs(mid["free"] - mid["reference"]).max()
    echo_pml = np.abs(mid["pml"] - mid["reference"]).max()
    assert echo_free > 0.3 * np.abs(mid["reference"]).max()  # a free end sends much back
    # A coarse strip (a plate: its modes, the layer 2/3 of a P wavelength): 0.024 measured.
    assert echo_pml < 0.05 * echo_free
    path = model(lined=True, time_step=dt).save(tmp_path / "pml.toml")
    np.testing.assert_array_equal(tremor.run(tremor.Model.load(path), backend="serial").histories["mid"].values,
                                  mid["pml"])


def test_holes_notches_and_cracks_are_cut_from_python(tmp_path):
    """[[mesh.hole]], [[mesh.notch]] and [[mesh.crack]] through add_hole, add_notch and add_crack: cut
    into the strip of 1 mm cells, and kept in the result file for images to outline."""
    model = strip(divisions=(100, 20))
    model.add_hole(name="sdh", centre=[0.03, 0.01], radius=1.5e-3)
    model.add_notch(name="slot", bottom=[0.0505, 0.015], axis=[0.0, 1.0], width=1e-3)
    model.add_crack(name="crack", points=[[0.07, 0.0], [0.07, 0.008]])
    assert model.n_nodes == 101 * 21 - 1 + 8  # the hole's middle node gone (the notch's all kept), the crack opened
    out = tmp_path / "strip.h5"
    subprocess.run([CLI, "run", str(model.save(tmp_path / "strip.toml")), "--backend", "serial", "-o", str(out)],
                   check=True, capture_output=True)
    with h5py.File(out, "r") as f:
        np.testing.assert_allclose(f["mesh/cracks/crack/points"][...], [[0.07, 0.0, 0.0], [0.07, 0.008, 0.0]])
        assert list(f["mesh/cracks/crack/pieces"][...]) == [2]
        assert list(f["mesh/holes"].attrs["names"]) == ["sdh"]
        np.testing.assert_allclose(f["mesh/notches"][0, :6], [0.0505, 0.015, 0.0, 0.0, 1.0, 0.0])
        assert f["mesh/notches"][0, 9] == pytest.approx(1e-3)


def test_a_material_field_is_kept_where_the_model_is_saved(tmp_path):
    """A [[material]] field's path is the model file's folder's: saved elsewhere, it is rebased, and
    the model read back samples the same grid (two layers: two materials) and runs as before."""
    source = os.path.join(os.environ.get("TREMOR_SOURCE_DIR", "."), "tests", "data", "fields", "layers.toml")
    model = tremor.Model.load(source)
    os.makedirs(tmp_path / "elsewhere")
    saved = model.save(tmp_path / "elsewhere" / "layers.toml")
    text = open(saved).read()
    assert 'field = "' + os.path.relpath(os.path.join(os.path.dirname(source), "layers.csv"),
                                         tmp_path / "elsewhere") + '"' in text
    back = tremor.Model.load(str(saved))
    first = tremor.run(model, backend="serial")
    again = tremor.run(back, backend="serial")
    assert np.array_equal(probe_values_of(first), probe_values_of(again))
    assert np.abs(probe_values_of(first)).max() > 0.0


def probe_values_of(run):
    return run.histories["r"].values
