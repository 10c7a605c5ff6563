"""Models for tremor's solvers: read from files, or built in Python from the model file's tables
and keys (docs/model-file.md), with the model file's checks and messages.

    model = tremor.Model(title="plate")
    model.set_mesh(generator="box", element="hex8", size=[0.1, 0.1, 0.002], divisions=[50, 50, 1])
    model.add_material(name="aluminium", density=2700.0, youngs_modulus=70e9, poisson_ratio=0.33)
    model.add_source(position=[0.05, 0.05, 0.002], direction=[0, 0, -1],
                     signal=tremor.tone_burst(200e3, 5))
    model.add_receiver(name="probe", positions=[[0.08, 0.05, 0.002]])
    model.set_explicit(duration=40e-6)
    model.save("plate.toml")              # `tremor run plate.toml` reads the same model back

A model is compiled by the reader of `tremor run` when it is used (run, save, its counts and its
mesh): a key the reader refuses raises tremor.Error naming the Python line that set it.
"""
import copy
import json
import math
import os
import re
import sys
import tomllib

import numpy as np

from . import _tremor
from ._tremor import Error

# The name a model built in Python has in the reader's messages.
_BUILT = "<python model>"
# Keys whose values are paths, resolved against the model file's folder.
_PATH_KEYS = ("file", "blocks", "map", "field", "cmtsolution", "forcesolution", "stations")


# A signal's numbers are checked for their type here (TypeError naming the argument) and for their
# range by the model file's reader when the model is used (tremor.Error naming the Python line).
_real = _tremor._real


def tone_burst(frequency, cycles):
    """A Hann-windowed tone burst of `cycles` cycles at `frequency` Hz (a signal table)."""
    return {"kind": "tone_burst", "frequency": _real("frequency", frequency), "cycles": _real("cycles", cycles)}


def ricker(frequency, centre=None):
    """A Ricker wavelet peaking at `frequency` Hz, centred at `centre` s (default 1.5 / frequency)."""
    out = {"kind": "ricker", "frequency": _real("frequency", frequency)}
    if centre is not None:
        out["centre"] = _real("centre", centre)
    return out


def gaussian(sharpness, centre=None):
    """exp(-sharpness (t - centre)^2) (a signal table)."""
    out = {"kind": "gaussian", "sharpness": _real("sharpness", sharpness)}
    if centre is not None:
        out["centre"] = _real("centre", centre)
    return out


def _reals(name, value):
    """An array of numbers as floats; anything else raises tremor.Error naming it."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError) as error:
        raise Error(f"{name} must be an array of numbers ({error})") from None
    return array


def tabulated(times, values):
    """A signal through the points (times[i], values[i]), linear between them, 0 outside."""
    times, values = _reals("times", times), _reals("values", values)
    if times.shape != values.shape or times.ndim != 1:
        raise Error(f"a tabulated signal takes times and values of one length, got shapes {times.shape} and "
                    f"{values.shape}")
    return {"kind": "tabulated", "points": np.stack([times, values], axis=1)}


def _signal(value):
    """A signal given as a table, an array of [time, value] rows or a pair (times, values)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, tuple) and len(value) == 2:
        return tabulated(*value)
    if isinstance(value, (str, bytes)):
        raise Error(f"a signal is a table (tremor.tone_burst(...), ricker, gaussian), an array of [time, value] rows "
                    f"or a pair (times, values), got {type(value).__name__} {value!r:.60}")
    array = _reals("signal", value)
    if array.ndim == 2 and array.shape[1] == 2:
        return {"kind": "tabulated", "points": array}
    raise Error("a signal is a table (tremor.tone_burst(...), ricker, gaussian), an array of [time, value] rows or "
                f"a pair (times, values), got {type(value).__name__}")


class Mesh:
    """A mesh: nodes [n][dim] (m), element blocks, node and element sets (0-based indices) and
    surfaces ([faces][2]: element index, local face number, mesh/faces.hpp's numbering).

        mesh = tremor.Mesh(nodes, elements, element="hex8", node_sets={"top": [...]})
        mesh = tremor.Mesh(nodes, blocks=[("hex8", hexes), ("tet4", tets)])
        mesh = tremor.Mesh.box(size=[0.1, 0.1, 0.002], divisions=[50, 50, 1])   # the generator's

    Node orders within elements are tremor's (docs/elements.md). Labels default to 1, 2, ... Checked
    as a mesh file is: indices in range, sets and faces valid, one dimension.
    """

    def __init__(self, nodes, elements=None, element=None, *, blocks=None, node_labels=None, element_labels=None,
                 node_sets=None, element_sets=None, surfaces=None):
        if blocks is None:
            if elements is None or element is None:
                raise TypeError('tremor.Mesh takes nodes and elements with their type (element="hex8"), or '
                                "blocks=[(element, connectivity), ...]")
            blocks = [(element, elements, element_labels)]
        if not isinstance(blocks, (list, tuple)):
            raise TypeError(f"blocks: must be a list of (element, connectivity[, labels]), got "
                            f"{type(blocks).__name__}")
        blocks = [tuple(b) if isinstance(b, (list, tuple)) else b for b in blocks]  # the binding checks each
        self._mesh = _tremor._mesh(nodes, node_labels, blocks, _sets("node_sets", node_sets),
                                   _sets("element_sets", element_sets), _sets("surfaces", surfaces))

    @classmethod
    def _of(cls, compiled):
        mesh = cls.__new__(cls)
        mesh._mesh = compiled
        return mesh

    @classmethod
    def box(cls, size, divisions, element="hex8", origin=None, grading=None):
        """The box generator's mesh (docs/model-file.md, [mesh]), as arrays."""
        return cls._generated("box", element, size, divisions, origin, grading)

    @classmethod
    def rectangle(cls, size, divisions, element="quad4", origin=None, grading=None):
        """The rectangle generator's mesh, as arrays."""
        return cls._generated("rectangle", element, size, divisions, origin, grading)

    @classmethod
    def _generated(cls, generator, element, size, divisions, origin, grading):
        keys = {"generator": generator, "element": element, "size": size, "divisions": divisions}
        if origin is not None:
            keys["origin"] = origin
        if grading is not None:
            keys["grading"] = grading
        text = _toml({"mesh": keys})
        compiled = _tremor._compile(text, f"tremor.Mesh.{generator}", os.getcwd(), None, None)
        return cls._of(compiled.mesh)

    dim = property(lambda self: self._mesh.dim)
    n_nodes = property(lambda self: self._mesh.n_nodes)
    n_elements = property(lambda self: self._mesh.n_elements)
    nodes = property(lambda self: self._mesh.nodes, doc="[nodes][dim], m (a copy)")
    node_labels = property(lambda self: self._mesh.node_labels)
    blocks = property(lambda self: self._mesh.blocks, doc="[(element, connectivity, labels)]")
    node_sets = property(lambda self: self._mesh.node_sets)
    element_sets = property(lambda self: self._mesh.element_sets)
    surfaces = property(lambda self: self._mesh.surfaces)

    def __repr__(self):
        kinds = ", ".join(b[0] for b in self.blocks)
        return f"<tremor.Mesh: {self.dim}D, {self.n_nodes} nodes, {self.n_elements} elements ({kinds})>"


def _sets(name, sets):
    """Named sets (a dict: name -> indices) as a dict."""
    if sets is None:
        return {}
    if not isinstance(sets, dict):
        raise TypeError(f"{name}: must be a dict of name -> indices, got {type(sets).__name__}")
    return dict(sets)


def _caller():
    """file:line of the user's code that called a Model method."""
    frame = sys._getframe(1)
    here = os.path.dirname(os.path.abspath(__file__))
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "<python>"


class Model:
    """A model for tremor's solvers (docs/python.md): loaded with Model.load(path), or built here
    table by table with the model file's keys (docs/model-file.md is the reference for every key).

    The tables of many (material, section, source, transducer, shot, traction, body_force,
    prescribed_displacement, receiver, absorbing, pressure_release, and the mesh's node_set,
    element_set, surface and defect) are appended by add_<table>(**keys); the single ones
    (explicit, static, output) are set by set_<table>(**keys), which keeps the keys set before
    (None removes one). set_mesh(...) takes the [mesh] keys or a tremor.Mesh of arrays. Signals may
    be given as tables (tremor.tone_burst) or numpy arrays of [time, value] rows.
    """

    _MANY = ("material", "section", "source", "transducer", "shot", "traction", "body_force",
             "prescribed_displacement", "receiver", "absorbing", "pressure_release")
    _MESH_MANY = ("node_set", "element_set", "surface", "defect", "hole", "notch", "crack")
    _ONE = ("explicit", "static", "output")

    def __init__(self, title=None, mesh=None, **mesh_keys):
        self._doc = {}
        if title is not None:
            self._doc["title"] = str(title)
        self._mesh = None  # a tremor.Mesh given as arrays
        self._base = os.getcwd()  # relative paths in the tables are relative to this folder
        self._order = None
        self._file = None  # (text, path) of the model file loaded, while unchanged
        self._opaque = None  # the path of an Abaqus input or Gmsh mesh loaded as a whole
        self._origins = {}  # (table, index) -> where it was set
        self._compiled = None
        if mesh is not None or mesh_keys:
            self.set_mesh(mesh, **mesh_keys)

    @classmethod
    def load(cls, path, order=None):
        """Reads a model file (.toml), an Abaqus/CalculiX input (.inp) or a Gmsh mesh (.msh) with
        the readers of `tremor run`; order raises the mesh to GLL elements of that order."""
        compiled = _tremor._Model.load(path, order)  # the CLI's checks and messages, the arguments' first
        path = os.fspath(path)
        model = cls()
        model._order = None if order is None else int(order)
        model._compiled = compiled
        if not path.endswith(".toml"):
            model._opaque = path
            return model
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        base = os.path.dirname(os.path.abspath(path))
        model._doc = tomllib.loads(text)
        model._base = base
        model._file = (text, path)
        for key in list(model._doc):
            if key in cls._MANY:
                for i in range(len(model._doc[key])):
                    model._origins[(key, i)] = path
        return model

    # -- the tables ----------------------------------------------------------------------------

    def _changed(self):
        if self._opaque:
            raise Error(f"{self._opaque}: a model read from an Abaqus input or a Gmsh mesh is changed in that file; to "
                        f"build on its mesh, start a model here with set_mesh(file={self._opaque!r})")
        self._file = None
        self._compiled = None

    def set_mesh(self, mesh=None, **keys):
        """[mesh]: the generator's keys (generator="box", element="hex8", size=..., divisions=...),
        file="part.inp" (.inp or .msh, relative to the working folder), or a tremor.Mesh; order=P
        raises it to GLL elements of order P. Replaces the mesh and keeps the mesh's sets and defects."""
        self._changed()
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh takes a tremor.Mesh, got {type(mesh).__name__}")
        old = self._doc.get("mesh", {})
        table = {k: v for k, v in old.items() if k in self._MESH_MANY}
        table.update(_clean(keys))
        self._doc["mesh"] = table
        self._mesh = mesh
        self._origins[("mesh", None)] = _caller()
        return self

    def _add(self, table, keys, within_mesh=False):
        self._changed()
        if keys.get("signal") is not None:
            keys = dict(keys, signal=_signal(keys["signal"]))
        keys = _clean(keys)
        owner = self._doc.setdefault("mesh", {}) if within_mesh else self._doc
        tables = owner.setdefault(table, [])
        tables.append(keys)
        self._origins[(("mesh." if within_mesh else "") + table, len(tables) - 1)] = _caller()
        return self

    def _set(self, table, keys):
        self._changed()
        current = self._doc.setdefault(table, {})
        for key, value in _clean(keys, keep_none=True).items():
            if value is None:
                current.pop(key, None)
            else:
                current[key] = value
        self._origins[(table, None)] = _caller()
        return self

    def copy(self):
        """An independent copy (its tables changed without changing this model)."""
        if self._opaque:
            self._changed()
        other = copy.copy(self)
        other._doc = copy.deepcopy(self._doc)
        other._origins = dict(self._origins)
        return other

    def without(self, *tables):
        """A copy without the named tables ("source", "receiver", "mesh.node_set", ...): the start of
        a variant with other loads or receivers."""
        other = self.copy()
        other._changed()
        for name in tables:
            if not isinstance(name, str):
                raise TypeError(f"without: a table's name must be a string, got {type(name).__name__} {name!r:.60}")
            owner, key = (other._doc.get("mesh", {}), name[5:]) if name.startswith("mesh.") else (other._doc, name)
            owner.pop(key, None)
        return other

    def set_title(self, title):
        self._changed()
        self._doc["title"] = str(title)
        return self

    # -- the compiled model ----------------------------------------------------------------------

    def _model(self):
        """The model as the reader of `tremor run` makes it (compiled once per change)."""
        if self._compiled is None:
            if "mesh" not in self._doc and self._mesh is None:
                raise Error("the model has no mesh: set_mesh(generator=..., ...), set_mesh(file=...) or "
                            "set_mesh(tremor.Mesh(...))")
            text, lines = _toml(self._doc, with_lines=True)
            try:
                self._compiled = _tremor._compile(text, _BUILT, self._base, self._order,
                                                  self._mesh._mesh if self._mesh is not None else None)
            except Error as e:
                raise Error(self._where(str(e), lines)) from None
        return self._compiled

    def _identity(self):
        """(path, bytes) naming and identifying the model in a result file's metadata: the file
        loaded while unchanged, else the model file's text of the tables built here."""
        if self._opaque:
            with open(self._opaque, "rb") as f:
                return self._opaque, f.read()
        if self._file is not None:
            return self._file[1], self._file[0].encode("utf-8")
        return _BUILT, _toml(self._doc).encode("utf-8")

    def _where(self, message, lines):
        """The reader's "<python model>:LINE: ..." as "where the table was set: ..."."""
        match = re.match(re.escape(_BUILT) + r":(\d+): (.*)", message, re.S)
        if not match:
            return message
        line, rest = int(match.group(1)), match.group(2)
        origin = None
        for first, key in lines:
            if first <= line:
                origin = self._origins.get(key)
        return f"{origin or _BUILT}: {rest}"

    def check(self):
        """Compiles the model now: raises tremor.Error as `tremor run` would refuse it."""
        self._model()
        return self

    title = property(lambda self: self._model().title)
    source = property(lambda self: self._model().source)
    dim = property(lambda self: self._model().dim)
    n_nodes = property(lambda self: self._model().n_nodes)
    n_elements = property(lambda self: self._model().n_elements)
    n_dofs = property(lambda self: self._model().n_dofs)
    receivers = property(lambda self: self._model().receivers)
    shots = property(lambda self: self._model().shots)

    @property
    def mesh(self):
        """The mesh as the solvers see it (order raised, box sets and defects applied): a tremor.Mesh."""
        return Mesh._of(self._model().mesh)

    @property
    def tables(self):
        """The model file's tables as a dict (a copy; None for a model read from .inp or .msh)."""
        return None if self._opaque else copy.deepcopy(self._doc)

    def __repr__(self):
        m = self._model()
        return f"<tremor.Model {m.source}: {m.dim}D, {m.n_nodes} nodes, {m.n_elements} elements>"

    # -- saving ----------------------------------------------------------------------------------

    def to_toml(self, folder=None):
        """The model file's text, paths relative to `folder` (default: the working folder)."""
        if self._opaque:
            raise Error(f"{self._opaque}: a model read from an Abaqus input or a Gmsh mesh has no model file; "
                        "tremor run reads that file itself")
        folder = os.path.abspath(os.getcwd() if folder is None else _tremor._path("folder", folder))
        return _toml(_rebased(self._doc, self._base, folder))

    def save(self, path, mesh_file=None):
        """Writes the model file `path` (atomically) that `tremor run` reads back to this model. A
        mesh given as arrays goes beside it as an Abaqus input (mesh_file, default the model's
        name with .inp), which its [mesh] names. Returns the path."""
        path = _tremor._path("path", path)
        if mesh_file is not None:
            mesh_file = _tremor._path("mesh_file", mesh_file)
        self._model()  # a model the reader refuses is not written
        if self._opaque:
            self.to_toml()
        folder = os.path.dirname(os.path.abspath(path))
        doc = _rebased(self._doc, self._base, folder)
        if self._order is not None:
            doc.setdefault("mesh", {})["order"] = self._order
        if self._mesh is not None:
            mesh_path = mesh_file or os.path.splitext(os.path.basename(path))[0] + ".inp"
            _tremor._write_mesh(self._mesh._mesh, os.path.join(folder, mesh_path))
            doc["mesh"] = {"file": mesh_path, **doc.get("mesh", {})}
        _tremor._write_text(path, _toml(doc), "model file")
        return path


# The tables a run of a kept set-up gives (io::read_excitation_buffer): the rest is the set-up's.
_RUN_TABLES = ("source", "traction", "body_force", "prescribed_displacement", "receiver", "transducer", "shot")


def _run_tables(model):
    """The tables of `model` a Simulation's run takes, and the rest (the set-up's)."""
    run, rest = {}, {}
    for key, value in model._doc.items():
        if key in _RUN_TABLES:
            run[key] = value
        elif key == "explicit":
            if "duration" in value:
                run["explicit"] = {"duration": value["duration"]}
            rest["explicit"] = {k: v for k, v in value.items() if k != "duration"}
        elif key not in ("title", "output"):
            rest[key] = value
    return run, rest


def _table_adder(table, within_mesh):
    def add(self, **keys):
        return self._add(table, keys, within_mesh)
    where = f"[[mesh.{table}]]" if within_mesh else f"[[{table}]]"
    add.__doc__ = f"Appends a {where} table with these keys (docs/model-file.md); returns the model."
    add.__name__ = f"add_{table}"
    return add


def _table_setter(table):
    def set_table(self, **keys):
        return self._set(table, keys)
    set_table.__doc__ = (f"Sets keys of the [{table}] table (docs/model-file.md), keeping those set before; "
                         "None removes a key. Returns the model.")
    set_table.__name__ = f"set_{table}"
    return set_table


for _name in Model._MANY:
    setattr(Model, f"add_{_name}", _table_adder(_name, False))
for _name in Model._MESH_MANY:
    setattr(Model, f"add_{_name}", _table_adder(_name, True))
for _name in Model._ONE:
    setattr(Model, f"set_{_name}", _table_setter(_name))


# -- the model file's text -------------------------------------------------------------------------

def _clean(keys, keep_none=False):
    """Keys with numpy values turned into Python ones (lists, floats, ints)."""
    out = {}
    for key, value in keys.items():
        if value is None and not keep_none:
            continue
        out[key] = _plain(value)
    return out


def _plain(value):
    if isinstance(value, np.ndarray):
        _check_text_size(value)
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_text_size(array):
    """Refuses, before any text is made of it, an array whose numbers cannot fit the model text's
    limit even written as briefly as they can be: each float takes 3 characters at least ("0.0")
    and each number 1, with ", " between them."""
    shortest = 5 if array.dtype.kind in "fc" else 3
    if array.size * shortest > _tremor.largest_model_text:
        raise Error(f"an array of {array.size:,} numbers takes at least {array.size * shortest:,} bytes of a "
                    f"model's text, more than the {_tremor.largest_model_text:,} a model holds (model files "
                    "and models built in Python alike); give fewer points, or a tabulated signal as a CSV "
                    "file (signal = { kind = \"tabulated\", file = ... })")


def _rebased(doc, base, folder):
    """A copy of the tables whose relative paths, relative to `base`, are made relative to `folder`."""
    def walk(value, key=None):
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if key in _PATH_KEYS and isinstance(value, str) and not os.path.isabs(value):
            return os.path.relpath(os.path.join(base, value), folder)
        return value
    return walk(doc)


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key):
    if not isinstance(key, str):
        raise Error(f"a model file's keys are strings, got {type(key).__name__} {key!r:.60}")
    return key if _BARE.match(key) else json.dumps(key)


def _value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)  # the shortest text that reads back to the same double
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise Error(f"a model file holds numbers, strings, booleans, lists and tables, not {type(value).__name__} "
                f"({value!r})")


def _toml(doc, with_lines=False):
    """The model file's text of the tables `doc`; with_lines, also [(first line, (table, index))]
    of each table written, for messages."""
    out, lines = [], []

    def tables(value):
        return isinstance(value, list) and value and all(isinstance(v, dict) for v in value)

    def keys(table, top=False):
        for key, value in table.items():
            if not tables(value) and not (top and isinstance(value, dict)):
                out.append(f"{_key(key)} = {_value(_plain(value))}")

    def arrays(table, prefix):
        for key, value in table.items():
            if tables(value):
                for i, item in enumerate(value):
                    out.append("")
                    lines.append((len(out) + 1, (prefix + key, i)))
                    out.append(f"[[{prefix}{key}]]")
                    keys(item)
                    arrays(item, f"{prefix}{key}.")

    lines.append((1, ("title", None)))
    keys(doc, top=True)
    first = ["mesh", "explicit", "static", "output"]
    for name in first + [k for k in doc if k not in first]:
        value = doc.get(name)
        if isinstance(value, dict):
            out.append("")
            lines.append((len(out) + 1, (name, None)))
            out.append(f"[{_key(name)}]")
            keys(value)
            arrays(value, f"{name}.")
    arrays(doc, "")
    text = "\n".join(out) + "\n"
    return (text, lines) if with_lines else text


class Simulation:
    """One set-up of a model (stiffness operator, lumped mass, integrator, time step: the costly
    part of a run), kept for many runs, each from rest with its own loads, receivers, shots and
    duration: a parametric sweep pays the set-up once.

        sim = tremor.Simulation(model, backend="cuda", precision="float")
        for f in (100e3, 150e3, 200e3):
            variant = model.without("source").add_source(..., signal=tremor.tone_burst(f, 5))
            run = sim.run(variant)          # a tremor.Run, as tremor.run(variant) returns

    A run's model may differ from the set-up's only in its [[source]], [[traction]], [[body_force]],
    [[prescribed_displacement]] (on the same DOFs), [[receiver]], [[transducer]] and [[shot]]
    tables and its [explicit] duration; anything else raises tremor.Error naming the table. Each
    run's histories equal tremor.run's for the same model, bit for bit. One domain; no snapshots.
    """

    def __init__(self, model, backend="auto", precision=None, operator=None, dt=None):
        if not isinstance(model, Model):
            raise TypeError(f"tremor.Simulation takes a tremor.Model, got {type(model).__name__}")
        self._model = model.copy() if not model._opaque else model
        self._sim = _tremor._Simulation(self._model._model(), backend, precision, operator, dt)
        self._setup = None if model._opaque else _run_tables(self._model)[1]

    setup_seconds = property(lambda self: self._sim.setup_seconds, doc="s: the set-up, made once")
    dt = property(lambda self: self._sim.dt)
    n_dofs = property(lambda self: self._sim.n_dofs)
    backend = property(lambda self: self._sim.backend)
    precision = property(lambda self: self._sim.precision)
    operator = property(lambda self: self._sim.operator)

    def run(self, model=None, duration=None, check_every=100, progress=None):
        """Steps `model` (default: the set-up's own) from rest on the kept set-up and returns a
        tremor.Run (setup_seconds: the run's loads and receivers only). duration (s) overrides
        the model's; progress and Ctrl-C as for tremor.run."""
        from . import _run_of  # the package's Run, built from the solver's record
        if model is None:
            out = self._sim.run(None, _BUILT, "", duration, check_every, progress)
            return _run_of(out)
        if not isinstance(model, Model):
            raise TypeError(f"Simulation.run takes a tremor.Model, got {type(model).__name__}")
        if model._opaque or self._setup is None:
            raise Error("a Simulation of a model read from an Abaqus input or a Gmsh mesh runs that model only: "
                        "call run() without a model")
        run, rest = _run_tables(model)
        for key in sorted(set(rest) | set(self._setup)):
            if rest.get(key) != self._setup.get(key) and not (key == "explicit" and not rest.get(key)
                                                              and not self._setup.get(key)):
                where = f"[{key}]" if isinstance(rest.get(key, self._setup.get(key)), dict) else f"[[{key}]]"
                raise Error(f"the run's model changes {where}, which the Simulation's set-up holds: a run changes "
                            f"only {', '.join(_RUN_TABLES)} and the [explicit] duration")
        if model._mesh is not self._model._mesh:
            raise Error("the run's model has another tremor.Mesh than the Simulation's set-up")
        text, lines = _toml(_rebased(run, model._base, self._model._base), with_lines=True)
        try:
            out = self._sim.run(text, _BUILT, self._model._base, duration, check_every, progress)
        except Error as e:
            raise Error(model._where(str(e), lines)) from None
        return _run_of(out)
