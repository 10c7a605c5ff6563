#!/usr/bin/env python3
"""A fuzzer of the `tremor` Python package's public API: tremor.run, Simulation (and its runs),
Model (loaded, built table by table, saved), Mesh (of arrays, and the generators), static, bem,
open, the signals, called with hostile arguments (wrong types, NaN and infinities, negatives, huge
ints, malformed arrays and tables, bad paths) on tiny models, from a seed, so every finding repeats.

Each call runs in a child process forked for it (a crash is a signal, caught here with the call
that made it) under a time limit (a hang). Every argument value is known good, bad or either;
a call must:
  - end, with no signal and no hang;
  - with a bad value, raise tremor.Error, TypeError or ValueError whose message names the argument
    (or the key or value at fault): never a pybind11 message ("incompatible function arguments",
    "Unable to cast"), nor IndexError, KeyError, AttributeError, RuntimeError, OverflowError...;
  - with only good values, work (a run "complete", a mesh with elements, a model that checks);
  - with "either" values, work or raise as a bad value does.
A call that breaks a rule is printed with the Python statement that reproduces it (and written to
--findings DIR, one file per finding); the exit status is 1 when there was any.

usage: python_fuzz.py --seconds S [--seed N] [--findings DIR] [--timeout T]
       python_fuzz.py --replay FILE...     (a finding's file: its statement, run again)
(run from the repository root with PYTHONPATH=build/python; exit 77 where the package is not built)
"""
import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import textwrap
import time
import traceback

try:
    import numpy  # noqa: F401 (the package needs it; the children use it)
    import tremor
except ImportError as error:
    print(f"skipped: the tremor package cannot be imported here ({error}); build it and set PYTHONPATH=build/python")
    sys.exit(77)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# What a child has at hand: the package, numpy, and small models made afresh for each call (so that
# one call's changes never reach the next). WORK is a folder of the call's own.
PRELUDE = textwrap.dedent('''
    import math, os, pathlib, threading
    import numpy as np
    import tremor
    TINY = os.path.join(ROOT, "tests", "data", "cli", "tiny.toml")
    CANTILEVER = os.path.join(ROOT, "examples", "cantilever-3d", "model.toml")
    BEM = os.path.join(ROOT, "tests", "data", "cli", "bem_small.toml")

    def tiny():
        return tremor.Model.load(TINY)

    def built():
        m = tremor.Model(title="fuzz")
        m.set_mesh(generator="rectangle", element="quad4", size=[0.004, 0.002], divisions=[4, 2])
        m.add_material(name="steel", density=7850.0, youngs_modulus=210e9, poisson_ratio=0.3)
        m.add_section(element_set="all", material="steel", formulation="plane_strain")
        m.add_source(position=[0.0, 0.002], direction=[0.0, -1.0], signal=tremor.tone_burst(1e6, 2))
        m.add_receiver(name="probe", positions=[[0.004, 0.002]])
        m.set_explicit(duration=2e-7)
        return m

    def variant(frequency):
        return tiny().without("source").add_source(node_set="source", direction=[0.0, -1.0],
                                                   signal=tremor.tone_burst(frequency, 3))

    def other_material():
        m = tiny()
        m.add_material(name="al", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33)
        return m

    def cantilever():
        m = tremor.Model.load(CANTILEVER)
        m.set_mesh(generator="box", element="hex8", size=[1.0, 0.1, 0.1], divisions=[4, 1, 1])
        return m

    def sim():
        return tremor.Simulation(tiny(), backend="serial")

    def square_nodes():
        return np.array([[0.0, 0.0], [1e-3, 0.0], [1e-3, 1e-3], [0.0, 1e-3], [2e-3, 0.0], [2e-3, 1e-3]])

    def result():
        out = os.path.join(WORK, "r.h5")
        tremor.run(tiny(), backend="serial", duration=2e-7, output=out)
        return tremor.open(out)

    def raising(step, steps, time):
        raise ValueError("stop here")

    def shared_runs(n):
        # Two threads on one set-up: each run its own variant's histories, or the one-run-at-a-time refusal.
        s = sim()
        variants = [variant(4e5), variant(6e5)]
        expected = [s.run(v, duration=1e-6).histories["probe"].values for v in variants]
        wrong = []
        def sweep(k):
            for _ in range(n):
                try:
                    got = s.run(variants[k], duration=1e-6, check_every=1).histories["probe"].values
                except tremor.Error as e:
                    if "one run at a time" not in str(e):
                        raise
                    continue
                if not np.array_equal(got, expected[k]):
                    wrong.append(k)
        threads = [threading.Thread(target=sweep, args=(k,)) for k in (0, 1)]
        for t in threads: t.start()
        for t in threads: t.join()
        if wrong:
            raise AssertionError(f"runs of variants {wrong} returned another variant's histories")
        return "complete"
''')

GOOD, BAD, EITHER = "good", "bad", "either"


def g(*sources):
    return [(s, GOOD) for s in sources]


def b(*sources):
    return [(s, BAD) for s in sources]


def e(*sources):
    return [(s, EITHER) for s in sources]


# Values every numeric argument meets.
NOT_NUMBERS = b("'1e-7'", "True", "[1e-7]", "{'x': 1}", "b'1'", "complex(1, 0)", "object()", "np.array([1.0, 2.0])")
NON_FINITE = b("float('nan')", "math.inf", "-math.inf", "np.float32('nan')", "np.float64('-inf')", "2**2000", "-2**2000",
               "10**400")
WHOLE_BAD = b("0", "-1", "3.7", "2.0", "2**31", "2**63 - 1", "2**63", "2**64", "-2**63", "'10'", "True",
              "np.float64(3.0)", "np.uint64(2**64 - 1)", "float('nan')")
TEXT_BAD = b("3", "None", "b'serial'", "['serial']", "3.5")
# Inputs: also system files that are not models. Outputs stay inside the call's folder.
PATH_BAD = b("3", "None", "b'/tmp/x'", "''", "'\\0'", "'a\\0b.h5'", "['x.h5']", "os.path.join(WORK, 'no', 'such', 'x.h5')",
             "WORK", "'/dev/null'", "'/proc/self/status'")
OUTPUT_BAD = [v for v in PATH_BAD[:9] if v[0] != "None"] + b("os.path.join(WORK, 'fifo.h5') if os.mkfifo(os.path.join(WORK, 'fifo.h5')) is None else 0")

BACKENDS = g("'serial'", "'openmp'", "'auto'") + e("'cuda'") + b("''", "'gpu'", "'SERIAL'", "'x' * 300") + TEXT_BAD[:3]
PRECISIONS = g("None", "'double'", "'float'") + b("'quad'", "''", "1", "b'float'")
OPERATORS = (g("None") + e("'assembled'", "'csr'", "'ell'", "'matrix_free'", "'sem'", "'partitioned'", "'cusparse'",
                           "'block_ell'")
             + b("'nonsense'", "''", "3"))
DURATIONS = (g("None", "1e-7", "2e-7", "np.float32(1e-7)", "np.float64(3e-7)") + e("5e-324", "1e300", "1e12")
             + b("0", "-1", "-1e-9", "-0.0") + NON_FINITE + NOT_NUMBERS[:-1])
TIME_STEPS = g("None") + e("1e-9", "1e-6", "5e-324", "1e-300") + b("0", "-1e-9") + NON_FINITE + NOT_NUMBERS[:6]
CHECK_EVERY = g("100", "1", "np.int64(7)", "2**31 - 1") + WHOLE_BAD + b("None")
PROGRESS = g("None", "lambda step, steps, time: None") + e("raising", "lambda: None", "print") + b("3", "'print'", "[]")
OUTPUTS = g("None", "os.path.join(WORK, 'out.h5')", "pathlib.Path(WORK) / 'p.h5'") + OUTPUT_BAD

SPECS = {}


def spec(name, template, args, check="x is not None", weight=1):
    """An entry point: `template` is a statement with {arg} slots; args: name -> pool of (source, tag),
    the first good value of each the default; `check` an expression on the result x that good input
    must make true."""
    SPECS[name] = dict(template=template, args=args, check=check, weight=weight)


spec("run", "x = tremor.run({model}, backend={backend}, precision={precision}, operator={operator}, "
            "duration={duration}, dt={dt}, check_every={check_every}, progress={progress}, output={output})",
     dict(model=g("tiny()", "built()") + b("None", "3", "TINY", "tremor.Mesh.rectangle([0.01, 0.01], [2, 2])"),
          backend=BACKENDS, precision=PRECISIONS, operator=OPERATORS, duration=DURATIONS, dt=TIME_STEPS,
          check_every=CHECK_EVERY, progress=PROGRESS, output=OUTPUTS),
     check="x.status == 'complete' and x.steps > 0", weight=4)

spec("simulation", "x = tremor.Simulation({model}, backend={backend}, precision={precision}, operator={operator}, "
                   "dt={dt})",
     dict(model=g("tiny()", "built()") + b("None", "'tiny.toml'", "tremor.Model()"),
          backend=BACKENDS, precision=PRECISIONS, operator=OPERATORS, dt=TIME_STEPS),
     check="x.dt > 0 and x.n_dofs > 0", weight=2)

spec("simulation_run", "s = sim(); x = s.run({variant}, duration={duration}, check_every={check_every}, "
                       "progress={progress})",
     dict(variant=g("None", "tiny()", "variant(4e5)") + b("3", "'tiny.toml'", "other_material()", "tremor.Model()",
                                                          "built()"),
          duration=DURATIONS, check_every=CHECK_EVERY, progress=PROGRESS),
     check="x.status == 'complete'", weight=3)

spec("load", "x = tremor.Model.load({path}, order={order}); x.check()",
     dict(path=g("TINY", "pathlib.Path(TINY)", "os.path.join(ROOT, 'tests', 'data', 'abaqus', 'plate_cpe4r.inp')")
          + e("junk('toml')", "junk('inp')", "junk('msh')", "os.path.join(ROOT, 'tests', 'data', 'cli', 'bad_material.toml')")
          + b("os.path.join(WORK, 'none.toml')", "WORK", "'/dev/zero'", "os.path.join(WORK, 'x.txt')") + PATH_BAD[:7],
          order=g("None", "1", "2", "np.int32(2)") + b("-1", "0", "9", "2.5", "'2'", "2**63", "True", "float('nan')")),
     check="x.n_nodes > 0", weight=2)

ARRAY_VALUES = e("[]", "[[]]", "[[0, 1], [2]]", "np.zeros((0, 4))", "np.zeros((2, 2, 2))", "'abc'", "3", "None",
                 "[[0, 1, 2, 2**70]]", "[[0.5, 1, 2, 3]]", "[[float('nan'), 1, 2, 3]]", "[[-1, 1, 2, 3]]",
                 "[[0, 1, 2, 3, 4]]", "np.array([[0, 1, 2, 3]], dtype=np.uint64) + np.uint64(2**63)",
                 "[[True, False, True, False]]", "[['a', 'b', 'c', 'd']]", "np.array([[0, 1, 2, 3]], dtype=object)",
                 "[[0, 1, 2, 3]] * 100000", "{'x': 1}")
SETS = (g("None", "{}", "{'left': [0, 3]}", "{'left': np.array([0, 3])}")
        + e("{'left': [2**63 - 1]}", "{'left': [-1]}", "{'left': [0.5]}", "{'left': [[0]]}", "{'': [0]}",
            "{'left': 'abc'}", "{'left': None}", "{'left': [2**64]}", "{'left': [float('inf')]}")
        + b("{3: [0]}", "[('left', [0])]", "'left'", "3"))
FACES = (g("None", "{'bottom': [[0, 0]]}")
         + e("{'bottom': [[0, 4]]}", "{'bottom': [[0, -1]]}", "{'bottom': [[1, 0]]}", "{'bottom': [[0, 2**40]]}",
             "{'bottom': [0, 0]}", "{'bottom': [[0, 0, 0]]}", "{'bottom': [[2**63 - 1, 0]]}", "{'bottom': []}")
         + b("{None: [[0, 0]]}", "[[0, 0]]"))
spec("mesh", "x = tremor.Mesh({nodes}, {elements}, {element}, node_sets={node_sets}, element_sets={element_sets}, "
             "surfaces={surfaces}, node_labels={node_labels}, element_labels={element_labels})",
     dict(nodes=g("square_nodes()") + e("square_nodes()[:, :1]", "np.zeros((6, 3))", "square_nodes() * float('nan')",
                                        "square_nodes().tolist()") + ARRAY_VALUES[:8],
          elements=g("[[0, 1, 2, 3]]", "np.array([[0, 1, 2, 3], [1, 4, 5, 2]])", "[[0.0, 1.0, 2.0, 3.0]]")
          + ARRAY_VALUES,
          element=g("'quad4'") + e("'hex8'", "'tri3'", "'quad9'", "'QUAD4'") + b("''", "'quad99'", "4", "None",
                                                                                      "['quad4']"),
          node_sets=SETS, element_sets=g("None", "{'first': [0]}") + SETS[4:], surfaces=FACES,
          node_labels=g("None") + e("[1, 2, 3, 4, 5, 6]", "[1, 1, 1, 1, 1, 1]", "[0, -1, 2**63 - 1, 4, 5, 6]",
                                    "[1, 2]", "[1.5] * 6", "'abc'", "[2**64] * 6"),
          element_labels=g("None") + e("[7]", "[7, 8]", "[-1]", "[2.5]", "[2**63]", "'x'")),
     check="x.n_elements > 0", weight=3)

spec("mesh_blocks", "x = tremor.Mesh(square_nodes(), blocks={blocks})",
     dict(blocks=g("[('quad4', [[0, 1, 2, 3]])]", "[('quad4', [[0, 1, 2, 3]], [5])]", "[['quad4', [[0, 1, 2, 3]]]]")
          + e("[('quad4', [[0, 1, 2, 3]]), ('tri3', [[1, 4, 5]])]", "[]", "[('quad4', [[0, 1, 2, 3]], None)]")
          + b("[('quad4',)]", "[('quad4', [[0, 1, 2, 3]], None, 1)]", "[()]", "['quad4']", "[None]", "[(4, [[0, 1, 2, 3]])]",
              "'quad4'", "3", "[('quad4', [[0, 1, 2, 3]], [1, 2])]")),
     check="x.n_elements > 0")

GENERATOR_SIZES = g("[0.01, 0.01]") + e("[0.01, 0.01, 0.01]", "[0.01]", "[float('nan'), 0.01]", "[-0.01, 0.01]",
                                        "[0, 0.01]", "[1e308, 1e308]", "'abc'", "None", "[[0.01], [0.01]]", "[2**70, 1]")
GENERATOR_DIVISIONS = g("[2, 2]") + e("[0, 2]", "[-1, 2]", "[2.5, 2]", "[2**31, 2]", "[2**63, 2]", "[100000, 100000]",
                                      "[2]", "[2, 2, 2]", "'2'", "None", "[True, 2]")
spec("rectangle", "x = tremor.Mesh.rectangle(size={size}, divisions={divisions}, element={element}, origin={origin}, "
                  "grading={grading})",
     dict(size=GENERATOR_SIZES, divisions=GENERATOR_DIVISIONS,
          element=g("'quad4'", "'quad8'") + e("'hex8'", "''", "3", "None"),
          origin=g("None", "[0.0, 0.0]") + e("[float('nan'), 0]", "[0]", "'x'", "[1e308, 1e308]"),
          grading=g("None") + e("[1.0, 1.0]", "[0, 1]", "[-1, 1]", "[float('inf'), 1]", "'x'", "[1e300, 1]")),
     check="x.n_elements > 0")

# Model tables built in Python: one key of one table changed to a hostile value; the reader must
# refuse what it cannot take, naming the key, and nothing may crash.
TABLE_VALUES = e("float('nan')", "math.inf", "-1", "0", "1e308", "-1e308", "5e-324", "2**63 - 1", "2**64", "2**2000",
                 "'abc'", "''", "None", "True", "[]", "[1, 2, 3, 4]", "[float('nan'), 0]", "{'a': 1}", "{3: 1}",
                 "np.array([1.0, 2.0])", "np.float32(1)", "np.int64(-1)", "'\\0'", "'\\u00e9' * 1000", "object()",
                 "[[1, 2], [3]]", "b'x'", "(1, 2)", "{1, 2}", "[None]", "[[[[[[1]]]]]]", "{'kind': 'tabulated'}",
                 "np.zeros((2, 2))", "'x' * 100000")
spec("tables", "m = built(); m.{method}({key}={value}); x = m.check()",
     dict(method=g("set_explicit") + e("add_material", "add_source", "add_receiver", "set_explicit", "set_mesh", "add_section",
                                        "add_node_set", "set_output", "add_absorbing", "add_traction",
                                        "add_body_force", "add_prescribed_displacement", "add_shot", "add_transducer",
                                        "add_element_set", "add_surface", "add_defect", "set_static"),
          key=g("duration") + e("name", "density", "youngs_modulus", "poisson_ratio", "duration", "position", "direction", "signal",
                            "positions", "divisions", "size", "element", "generator", "order", "node_set", "material",
                            "record", "every", "safety", "time_step", "min", "max", "amplitude", "thickness",
                            "snapshot_every", "nodes", "densty", "frequency", "components", "surface", "gravity"),
          value=g("1e-7") + TABLE_VALUES),
     check="x is not None", weight=3)

spec("tables_run", "m = built(); m.{method}({key}={value}); x = tremor.run(m, backend='serial')",
     dict(method=e("set_explicit", "add_source", "add_receiver", "add_material"),
          key=e("duration", "time_step", "safety", "signal", "amplitude", "direction", "position", "record", "every",
                "positions", "density", "youngs_modulus"),
          value=TABLE_VALUES),
     check="x.status == 'complete'")

spec("static", "x = tremor.static({model}, backend={backend}, precision={precision}, preconditioner={preconditioner}, "
               "tolerance={tolerance}, max_iterations={max_iterations}, output={output})",
     dict(model=g("cantilever()") + b("None", "CANTILEVER", "3"),
          backend=BACKENDS, precision=PRECISIONS,
          preconditioner=g("None", "'jacobi'", "'block_jacobi'", "'none'") + b("'ilu'", "''", "3"),
          tolerance=g("None", "1e-6") + e("0.5", "1", "1e-300", "2", "5e-324") + b("0", "-1e-6") + NON_FINITE
          + NOT_NUMBERS[:5],
          max_iterations=g("None", "1000") + e("1", "10") + WHOLE_BAD,
          output=OUTPUTS),
     check="x.displacement.shape[1] == 3", weight=2)

spec("bem", "x = tremor.bem({path}, backend={backend}, elements={elements}, allow_coarse={allow_coarse}, "
            "output={output})",
     dict(path=g("BEM", "pathlib.Path(BEM)") + e("TINY", "junk('toml')") + PATH_BAD[:8],
          backend=BACKENDS, elements=g("None", "'constant'") + e("'linear'") + b("'quadratic'", "''", "3"),
          allow_coarse=g("False", "True", "np.bool_(False)") + b("0", "'no'", "None", "[]"),
          output=OUTPUTS),
     check="x.status == 'complete'")

spec("open", "x = tremor.open({path}); x.close()",
     dict(path=e("TINY", "junk('h5')", "os.path.join(WORK, 'none.h5')", "WORK", "'/dev/zero'") + PATH_BAD[:7]),
     check="True")

spec("result", "r = result(); x = r.{call}; r.close()",
     dict(call=g("histories['probe'].quantity('displacement')")
          + e("snapshot(0)", "snapshot(-1)", "snapshot(2**63)", "snapshot(-2**70)", "histories['probe'].quantity('speed')",
              "histories['probe'].quantity(3)")
          + b("snapshot(1.5)", "snapshot('0')", "snapshot(None)", "snapshot(True)")),
     check="x is not None")

spec("signals", "x = tremor.{signal}; m = built().without('source'); "
                "m.add_source(position=[0.0, 0.002], direction=[0.0, -1.0], signal=x); m.check()",
     dict(signal=g("tone_burst(1e6, 3)", "ricker(1e6)", "gaussian(1e12)", "tabulated([0, 1e-6], [0, 1])",
                   "ricker(np.float32(1e6), centre=1e-6)")
          + e("tone_burst(float('nan'), 3)", "tone_burst(-1, 3)", "tone_burst(1e6, 0)", "tone_burst(2**2000, 3)",
              "ricker(0)", "gaussian(-1)", "tabulated([1, 0], [0, 1])", "tabulated([], [])",
              "tabulated([0, float('nan')], [0, 1])", "tabulated([[0, 1]], [[0, 1]])")
          + b("tone_burst('1e6', 3)", "tone_burst(None, 3)", "ricker([1e6])", "gaussian(1j)", "tabulated(['a'], [1])",
              "tabulated([0, 1], [0])", "tabulated(3, 4)", "tone_burst(1e6, True)")),
     check="True")

spec("methods", "m = {model}; x = m.{call}",
     dict(model=g("built()", "tiny()"),
          call=g("without('source')", "copy()", "to_toml()", "save(os.path.join(WORK, 's.toml'))")
          + e("without('nothing')", "without('mesh.node_set')", "save(os.path.join(WORK, 'no', 's.toml'))",
              "save(WORK)", "to_toml(WORK)", "save(os.path.join(WORK, 's.toml'), mesh_file='m.inp')")
          + b("without(3)", "without(None)", "save(3)", "save(None)", "save('')", "to_toml(3)", "save('a\\0b')",
              "save(os.path.join(WORK, 's.toml'), mesh_file=3)")),
     check="x is not None")

spec("threads", "x = shared_runs({runs})", dict(runs=g("2", "3")), check="x == 'complete'", weight=1)

# Messages that are pybind11's own, or Python's about the package's internals: never a user's.
INTERNAL = ("incompatible function arguments", "Unable to cast", "incompatible constructor arguments",
            "The following argument types are supported", "object has no attribute", "Invoked with",
            "_tremor.", "unhashable type")
ALLOWED = {"tremor.Error", "TypeError", "ValueError"}
# Where Python's own error is the documented answer: a result file that is not one (OSError and
# its kind, naming the path), a snapshot beyond the file's (IndexError), a history's missing
# quantity (KeyError); a progress callback's own exception is raised from the run.
DOCUMENTED = {"open": {"OSError", "FileNotFoundError", "IsADirectoryError", "PermissionError"},
              "result": {"IndexError", "KeyError"}}


def exception_name(error):
    kind = type(error)
    return "tremor.Error" if kind is tremor.Error else kind.__name__


def child(statement, work, pipe):
    """In the forked child: runs the statement, reports its outcome as JSON through the pipe."""
    outcome = {}
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        namespace = {"ROOT": ROOT, "WORK": work}
        exec(PRELUDE, namespace)

        def junk(extension):
            path = os.path.join(work, f"junk.{extension}")
            with open(path, "wb") as f:
                f.write(bytes(random.Random(len(extension)).getrandbits(8) for _ in range(300)))
            return path

        namespace["junk"] = junk
        exec(statement, namespace)
        outcome = {"raised": None}
    except BaseException as error:  # noqa: BLE001 (every outcome is reported)
        outcome = {"raised": exception_name(error), "message": str(error)[:2000],
                   "trace": traceback.format_exc()[-3000:]}
    else:
        try:
            outcome["checked"] = bool(eval(namespace["__check_expression__"], namespace))
        except BaseException as error:  # noqa: BLE001
            outcome["checked"] = False
            outcome["check_error"] = f"{exception_name(error)}: {error}"
    os.write(pipe, json.dumps(outcome, default=str).encode())
    os._exit(0)


def run_call(statement, check, timeout):
    """Forks a child for the statement; returns (outcome dict or None, how it ended)."""
    work = tempfile.mkdtemp(prefix="tremor-pyfuzz-")
    read, write = os.pipe()
    full = f"__check_expression__ = {check!r}\n{statement}"
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.setpgid(0, 0)
        try:
            child(full, work, write)
        finally:
            os._exit(3)
    os.close(write)
    os.set_blocking(read, False)
    chunks, status, started = [], None, time.monotonic()
    while True:
        try:
            chunk = os.read(read, 1 << 16)
            if chunk:
                chunks.append(chunk)
        except BlockingIOError:
            pass
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - started > timeout:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            os.close(read)
            shutil.rmtree(work, ignore_errors=True)
            return None, f"hang: no end within {timeout:g} s"
        time.sleep(0.002)
    while True:
        try:
            chunk = os.read(read, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    shutil.rmtree(work, ignore_errors=True)
    if os.WIFSIGNALED(status):
        return None, f"crash: signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
    if os.WEXITSTATUS(status) != 0 or not chunks:
        return None, f"crash: the child exited with status {os.WEXITSTATUS(status)} and no outcome"
    return json.loads(b"".join(chunks)), "ended"


def judge(entry, outcome, arguments):
    """A finding's description, or None when the outcome follows the rules."""
    tags = {tag for source, tag in arguments.values()}
    bad_names = names_of(arguments)
    raised = outcome.get("raised")
    if raised is None:
        if BAD in tags:
            return f"accepted: {', '.join(bad_names)} should have been refused"
        if not outcome.get("checked"):
            why = outcome.get("check_error", "the result failed its check")
            return f"good input did not work: {why}" if GOOD in tags and EITHER not in tags else None
        return None
    message = outcome.get("message", "")
    if raised == "AssertionError" and entry == "threads":
        return f"threads: {message}"
    if GOOD in tags and EITHER not in tags and BAD not in tags:
        return f"good input raised {raised}: {message}"
    allowed = ALLOWED | DOCUMENTED.get(entry, set())
    if raised not in allowed:
        return f"raised {raised} (not tremor.Error, TypeError or ValueError): {message}"
    for words in INTERNAL:
        if words in message:
            return f"a message of the binding's internals ({words!r}): {message}"
    if not message.strip():
        return f"raised {raised} with no message"
    if BAD in tags and EITHER not in tags and unnamed(message, arguments):
        return f"the refusal does not name {', '.join(unnamed(message, arguments))}: {raised}: {message}"
    return None


def names_of(arguments):
    return [f"{name}={source}" for name, (source, tag) in arguments.items() if tag == BAD]


# The words that name an argument in a refusal, where the message says more than its name (a file's
# own message names the file; a mesh's, its block or set).
ALIASES = {"model": ("model",), "variant": ("model", "run"), "path": ("path", "file", "folder", "such"),
           "output": ("output", "file", "folder", "fifo", "such"), "elements": ("connectivity", "block", "element"),
           "nodes": ("nodes", "coordinates"), "blocks": ("block",), "node_sets": ("node set", "node_sets"),
           "element_sets": ("element set", "element_sets"), "surfaces": ("surface",),
           "element": ("element", "block"), "call": ("index", "snapshot", "without", "path", "mesh_file", "folder",
                                                     "table", "file"),
           "signal": ("signal", "times", "values", "frequency", "cycles", "sharpness", "centre", "tabulated")}


def unnamed(message, arguments):
    """The bad arguments a refusal does not name (none named at all: a finding)."""
    bad = [name for name, (source, tag) in arguments.items() if tag == BAD]
    text = message.lower()
    for name in bad:
        if any(word in text for word in ALIASES.get(name, (name,))):
            return []
    return bad


def generate(rng):
    """One call: an entry point, its arguments (1-3 changed from their defaults), the statement."""
    names = list(SPECS)
    entry = rng.choices(names, weights=[SPECS[n]["weight"] for n in names])[0]
    s = SPECS[entry]
    arguments = {name: pool[0] for name, pool in s["args"].items()}
    changed = rng.sample(list(arguments), k=min(len(arguments), rng.choice((1, 1, 1, 2, 3))))
    for name in changed:
        arguments[name] = rng.choice(s["args"][name])
    statement = s["template"].format(**{name: source for name, (source, tag) in arguments.items()})
    return entry, arguments, statement


def report(findings_dir, entry, statement, finding, seed, index):
    print(f"FINDING [{entry}] {finding}\n    {statement}", flush=True)
    if findings_dir:
        os.makedirs(findings_dir, exist_ok=True)
        path = os.path.join(findings_dir, f"{entry}-{seed}-{index}.json")
        with open(path, "w") as f:
            json.dump({"entry": entry, "statement": statement, "finding": finding,
                       "check": SPECS[entry]["check"], "seed": seed, "call": index}, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to make new calls")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a call may take")
    parser.add_argument("--findings", help="folder for one file per finding")
    parser.add_argument("--replay", nargs="+", help="findings' files to run again")
    options = parser.parse_args()
    os.chdir(ROOT)

    if options.replay:
        failed = 0
        for path in options.replay:
            with open(path) as f:
                kept = json.load(f)
            outcome, ended = run_call(kept["statement"], kept["check"], options.timeout)
            print(f"{path}: {ended}: {json.dumps(outcome)[:400] if outcome else ''}")
            failed += outcome is None or outcome.get("raised") not in (None, "tremor.Error", "TypeError", "ValueError")
        return 1 if failed else 0

    rng = random.Random(options.seed)
    deadline = time.monotonic() + options.seconds
    calls, findings, tally = 0, 0, {}
    while time.monotonic() < deadline:
        entry, arguments, statement = generate(rng)
        outcome, ended = run_call(statement, SPECS[entry]["check"], options.timeout)
        calls += 1
        finding = ended if outcome is None else judge(entry, outcome, arguments)
        key = (outcome or {}).get("raised") or ("ok" if outcome else ended.split(":")[0])
        tally[key] = tally.get(key, 0) + 1
        if finding:
            findings += 1
            report(options.findings, entry, statement, finding, options.seed, calls)
    print(f"{calls} calls from seed {options.seed} in {options.seconds:g} s: {findings} finding(s); outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
