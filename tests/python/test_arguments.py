"""The package's arguments checked as the command line checks its options (core/rules.hpp): a
value outside an option's bounds raises tremor.Error with the command line's words, a wrong type
TypeError naming the argument, never a pybind message or a silent conversion; the model text's size
limit of the model files; and a kept set-up run from several threads at once."""
import math
import os
import threading

import numpy as np
import pytest

import tremor

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
TINY = os.path.join(ROOT, "tests", "data", "cli", "tiny.toml")
CANTILEVER = os.path.join(ROOT, "examples", "cantilever-3d", "model.toml")
CAVITY = os.path.join(ROOT, "examples", "bem-cavity", "model.toml")


@pytest.fixture(scope="module")
def tiny():
    return tremor.Model.load(TINY)


@pytest.mark.parametrize("options, message", [
    ({"duration": math.nan}, "duration: must be a finite number above 0, got nan"),
    ({"duration": -1.0}, "duration: must be a finite number above 0, got -1"),
    ({"duration": 0}, "duration: must be a finite number above 0, got 0"),
    ({"duration": math.inf}, "duration: must be a finite number above 0, got inf"),
    ({"dt": math.nan}, "dt: must be a finite number above 0, got nan"),
    ({"dt": -1e-9}, "dt: must be a finite number above 0, got -1e-09"),
    ({"check_every": 0}, r"check_every: must be a whole number in \[1, 2147483647\], got 0"),
    ({"check_every": 2**63 - 1}, r"check_every: must be a whole number in \[1, 2147483647\], got 9223372036854775807"),
    ({"check_every": 2**64}, r"check_every: must be a whole number in \[1, 2147483647\], got 18446744073709551616"),
])
def test_run_overrides_follow_the_command_lines_rules(tiny, options, message):
    with pytest.raises(tremor.Error, match=f"^{message}$"):
        tremor.run(tiny, backend="serial", **options)


@pytest.mark.parametrize("options, message", [
    ({"duration": "5e-6"}, "duration: must be a number, got str '5e-6'"),
    ({"duration": True}, "duration: must be a number, got bool True"),
    ({"dt": [1e-9]}, r"dt: must be a number, got list \[1e-09\]"),
    ({"check_every": 3.7}, r"check_every: must be a whole number \(an int\), got float 3.7"),
    ({"backend": 3}, "backend: must be a string, got int 3"),
    ({"precision": b"float"}, "precision: must be a string, got bytes b'float'"),
    ({"output": 3}, r"output: must be a path \(str or os.PathLike\), got int 3"),
    ({"progress": "print"}, r"progress: must be a function \(step, steps, time\) or None, got str 'print'"),
])
def test_run_arguments_of_the_wrong_type_raise_type_error(tiny, options, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        tremor.run(tiny, **options)


@pytest.mark.parametrize("option", ["backend", "precision", "operator"])
def test_an_empty_choice_is_refused_not_read_as_the_default(tiny, option):
    with pytest.raises(tremor.Error, match=rf"^{option}: must be a name, got an empty string \(None: the default\)$"):
        tremor.run(tiny, **{"backend": "serial", option: ""})


def test_kept_set_ups_check_their_arguments(tiny):
    with pytest.raises(tremor.Error, match="^dt: must be a finite number above 0, got nan$"):
        tremor.Simulation(tiny, backend="serial", dt=math.nan)
    sim = tremor.Simulation(tiny, backend="serial")
    with pytest.raises(tremor.Error, match="^duration: must be a finite number above 0, got -5$"):
        sim.run(duration=-5)
    with pytest.raises(tremor.Error, match="^duration: must be a finite number above 0, got nan$"):
        sim.run(tiny, duration=math.nan)
    with pytest.raises(TypeError, match=r"^check_every: must be a whole number \(an int\), got float 2.5$"):
        sim.run(check_every=2.5)
    assert sim.run(duration=1e-7).status == "complete"  # a refused call leaves the set-up usable
    # An int beyond a double: refused as given, not as inf or -1.
    with pytest.raises(tremor.Error, match=r"^duration: must be a finite number above 0, got 135829852904938584927735142835926677860349384693174454974\.\.\.$"):
        sim.run(duration=2**1100)


def test_static_and_bem_arguments():
    cantilever = tremor.Model.load(CANTILEVER)
    with pytest.raises(tremor.Error, match="^tolerance: must be a finite number above 0, got nan$"):
        tremor.static(cantilever, backend="serial", tolerance=math.nan)
    with pytest.raises(tremor.Error, match=r"^max_iterations: must be a whole number in \[1, 1000000000\], got -1$"):
        tremor.static(cantilever, backend="serial", max_iterations=-1)
    with pytest.raises(TypeError, match=r"^max_iterations: must be a whole number \(an int\), got float 10.5$"):
        tremor.static(cantilever, backend="serial", max_iterations=10.5)
    with pytest.raises(tremor.Error, match="^elements: unknown element kind 'cubic'; expected \"constant\", "
                                           "\"linear\" or \"quadratic\"$"):
        tremor.bem(CAVITY, backend="serial", elements="cubic")  # not read as constant
    with pytest.raises(tremor.Error, match="^solver: unknown solver 'lu'; expected \"auto\", \"dense\" or "
                                           "\"hmatrix\"$"):
        tremor.bem(CAVITY, backend="serial", solver="lu")
    with pytest.raises(tremor.Error, match=r"^tolerance: 0.5 lies outside \(0, 0.1\)$"):
        tremor.bem(CAVITY, backend="serial", tolerance=0.5)
    # Names refused as the model file's are, after the origin of the model's [static] table.
    backends = "expected \"auto\", \"serial\", \"openmp\" or \"cuda\"$"
    with pytest.raises(tremor.Error, match="model.toml:21: unknown backend 'gpu'; " + backends):
        tremor.static(cantilever, backend="gpu")
    with pytest.raises(tremor.Error, match="model.toml:21: unknown preconditioner 'ilu'; expected \"none\", "
                                           "\"jacobi\" or \"block_jacobi\"$"):
        tremor.static(cantilever, backend="serial", preconditioner="ilu")
    with pytest.raises(tremor.Error, match="^unknown backend 'gpu'; " + backends):
        tremor.bem(CAVITY, backend="gpu")
    with pytest.raises(TypeError, match=r"^allow_coarse: must be True or False, got str 'no'$"):
        tremor.bem(CAVITY, backend="serial", allow_coarse="no")
    with pytest.raises(TypeError, match=r"^path: must be a path \(str or os.PathLike\), got NoneType None$"):
        tremor.bem(None)
    with pytest.raises(ValueError, match="^path: a path cannot hold a NUL character"):
        tremor.bem(CAVITY + "\0.txt")


def test_model_load_takes_the_orders_of_order():
    for order, error, message in ((-1, tremor.Error, r"order: must be a whole number in \[1, 8\], got -1"),
                                  (9, tremor.Error, r"order: must be a whole number in \[1, 8\], got 9"),
                                  (2.0, TypeError, r"order: must be a whole number \(an int\), got float 2.0"),
                                  ("2", TypeError, r"order: must be a whole number \(an int\), got str '2'")):
        with pytest.raises(error, match=f"^{message}$"):
            tremor.Model.load(TINY, order=order)
    with pytest.raises(TypeError, match=r"^path: must be a path \(str or os.PathLike\), got int 3$"):
        tremor.Model.load(3)
    assert tremor.Model.load(TINY, order=np.int64(2)).n_nodes == 81 * 17  # numpy's ints are ints


def square(**keys):
    """One quad4 of 1 x 1 mm (0-based node indices 0..3)."""
    nodes = np.array([[0.0, 0.0], [1e-3, 0.0], [1e-3, 1e-3], [0.0, 1e-3]])
    arguments = {"nodes": nodes, "elements": [[0, 1, 2, 3]], "element": "quad4"}
    arguments.update(keys)
    return tremor.Mesh(**arguments)


def test_mesh_indices_are_taken_exactly():
    assert square().n_elements == 1
    assert square(elements=np.array([[0.0, 1.0, 2.0, 3.0]])).n_elements == 1  # whole floats are indices
    with pytest.raises(tremor.Error, match=r"the connectivity must be an array of whole numbers \(item 2 is 2.7\)"):
        square(elements=[[0, 1, 2.7, 3]])
    with pytest.raises(tremor.Error, match="node set 'corner': item 0 is node index 9223372036854775807; the mesh has 4 "
                                           r"nodes \(indices from 0\)"):
        square(node_sets={"corner": [2**63 - 1]})
    with pytest.raises(tremor.Error, match=r"node set 'corner' must be an array of whole numbers"):
        square(node_sets={"corner": [2**64]})
    with pytest.raises(tremor.Error, match=r"surface 'edge' .*: row 0 is element index -1"):
        square(surfaces={"edge": [[-1, 0]]})
    with pytest.raises(tremor.Error, match=r"surface 'edge' .*: row 0 is face 4294967296 of element index 0, a quad4 with faces 0..3"):
        square(surfaces={"edge": [[0, 2**32]]})
    with pytest.raises(tremor.Error, match=r"element set 'e' must be an array of whole numbers \(got an array of bool\)"):
        square(element_sets={"e": [True]})


def test_malformed_meshes_raise_type_errors_naming_the_argument():
    nodes = np.array([[0.0, 0.0], [1e-3, 0.0], [1e-3, 1e-3], [0.0, 1e-3]])
    with pytest.raises(TypeError, match=r"^blocks\[0\]: must be a tuple \(element, connectivity\)"):
        tremor.Mesh(nodes, blocks=[("quad4",)])
    with pytest.raises(TypeError, match=r"^blocks\[0\]: the element: must be a string, got int 4$"):
        tremor.Mesh(nodes, blocks=[(4, [[0, 1, 2, 3]])])
    with pytest.raises(TypeError, match="^node_sets: must be a dict of name -> indices, got list$"):
        square(node_sets=[1, 2])
    with pytest.raises(TypeError, match="^node set: a name: must be a string, got int 1$"):
        square(node_sets={1: [0]})


def test_a_model_text_is_held_to_the_model_files_limit(tmp_path):
    limit = 64 << 20  # io/limits.hpp: the model files' limit, from a file or from Python
    model = tremor.Model(title="x" * limit)
    model.set_mesh(generator="rectangle", element="quad4", size=[0.01, 0.01], divisions=[1, 1])
    with pytest.raises(tremor.Error, match=rf"too large for a model file \(the limit is {limit}\)"):
        model.check()
    big = tmp_path / "big.toml"
    big.write_text(f'title = "{"x" * limit}"\n')
    with pytest.raises(tremor.Error, match=rf"big\.toml: {limit + 11} bytes is too large for a model file \(the limit "
                                           rf"is {limit}\)"):
        tremor.Model.load(big)


def test_an_array_too_large_for_the_model_text_is_refused_when_given(tiny):
    # 7M [time, value] rows: 14M floats, at least 5 bytes each in the text ("0.0, "), past the
    # 64 MiB limit, refused as the source is added instead of after writing some 300 MB of text.
    assert tremor._tremor.largest_model_text == 64 << 20
    times = np.linspace(0.0, 1e-5, 7_000_000)
    with pytest.raises(tremor.Error, match=r"an array of 14,000,000 numbers takes at least 70,000,000 bytes"):
        tiny.add_source(position=[0.0, 0.004], direction=[0.0, -1.0], signal=tremor.tabulated(times, times))


def test_a_kept_set_up_refuses_a_second_run_at_the_same_time(tiny):
    sim = tremor.Simulation(tiny, backend="serial")
    reference = sim.run(check_every=1).histories["probe"].values
    started, release = threading.Event(), threading.Event()
    outcome = {}

    def wait_in_the_first_step(step, steps, time):
        started.set()
        release.wait(30)

    def first():
        outcome["run"] = sim.run(check_every=1, progress=wait_in_the_first_step)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert started.wait(30)
        # The first run is inside its time loop (in its progress callback): a second is refused.
        with pytest.raises(tremor.Error, match="this set-up is running another run .* one run at a time"):
            sim.run()
    finally:
        release.set()
        thread.join(60)
    assert outcome["run"].status == "complete"
    np.testing.assert_array_equal(outcome["run"].histories["probe"].values, reference)  # undisturbed
    np.testing.assert_array_equal(sim.run().histories["probe"].values, reference)  # free again


def test_threads_sharing_a_set_up_get_their_own_histories_or_an_error(tiny):
    sim = tremor.Simulation(tiny, backend="serial")
    variants = [tiny.without("source").add_source(node_set="source", direction=[0.0, -1.0],
                                                  signal=tremor.tone_burst(f, 3)) for f in (4e5, 6e5)]
    expected = [sim.run(v).histories["probe"].values for v in variants]
    assert not np.array_equal(expected[0], expected[1])
    failures = []

    def sweep(k):
        for _ in range(6):
            try:
                values = sim.run(variants[k], check_every=1).histories["probe"].values
            except tremor.Error as error:
                if "one run at a time" not in str(error):
                    failures.append(str(error))
                continue
            if not np.array_equal(values, expected[k]):
                failures.append(f"variant {k} got other histories")

    threads = [threading.Thread(target=sweep, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures
