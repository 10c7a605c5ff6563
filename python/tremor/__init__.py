"""tremor from Python: models, explicit runs, static and boundary-element solutions and result
files as numpy arrays (docs/python.md).

    import tremor
    model = tremor.Model.load("tests/data/cli/tiny.toml")   # or built here: tremor.Model(), set_mesh, add_...
    run = tremor.run(model, backend="openmp")
    probe = run.histories["probe"]          # probe.times [s], probe.values [sample][point][quantity][xyz]
    result = tremor.open("plate.h5")        # a result file written by `tremor run`
"""
from dataclasses import dataclass, field

import numpy as np

from ._tremor import Error, version
from ._tremor import _bem, _index, _real, _run, _static, _total_focusing
from .model import Mesh, Model, Simulation, gaussian, ricker, tabulated, tone_burst
from .results import History, Result, open  # noqa: A004 (tremor.open reads a result file)

__all__ = ["Bem", "Error", "History", "Mesh", "Model", "Result", "Run", "Static", "bem", "gaussian", "open", "ricker",
           "run", "Simulation", "static", "tabulated", "tone_burst", "total_focusing", "version"]


@dataclass
class Run:
    """What tremor.run returns: the run's record and its histories, in memory."""

    status: str  # "complete", "failed" (the solution blew up: see message) or "stopped"
    message: str
    dt: float  # s
    steps: int  # steps taken (a model with shots: the last shot's)
    time: float  # s reached
    wall_seconds: float  # of the time loop
    setup_seconds: float
    dof_steps_per_second: float
    n_dofs: int
    backend: str
    precision: str
    operator: str
    histories: dict = field(default_factory=dict)  # name -> History (a model without shots)
    shots: dict = field(default_factory=dict)  # shot name -> {name -> History}
    # The model's [output] snapshots: each {"step", "time", "displacement": [nodes][dim] (m),
    # "velocity": [nodes][dim] (m/s) or None, "pressure": [nodes] (Pa; NaN at the nodes only solid
    # elements hold) or None}, at snapshot_nodes (0-based; None: every node).
    # Empty when the run wrote a result file: its snapshots are there (tremor.open(run.output)).
    snapshots: list = field(default_factory=list)
    snapshot_nodes: np.ndarray = None
    output: str = None  # the result file written (output=...), or None


def _history(d):
    return History(name=d["name"], times=np.asarray(d["times"]), values=np.asarray(d["values"]),
                   quantities=list(d["quantities"]), node_labels=d.get("node_labels"), positions=d.get("positions"))


def run(model, backend="auto", precision=None, operator=None, duration=None, dt=None, check_every=100,
        progress=None, output=None):
    """Runs the explicit solver on `model` (a tremor.Model) and returns a Run.

    backend: "auto" (CUDA when a GPU is usable, else OpenMP), "serial", "openmp" or "cuda";
    precision ("double", "float"), operator (a name of `tremor run --operator`), duration and dt
    (s) override the model file's. progress(step, steps, time) is called every check_every steps;
    an exception it raises, or Ctrl-C, stops the run there and is raised here. tremor's refusals
    raise tremor.Error with the command line's text.

    output: a result file (docs/output-format.md) written as the run goes, as `tremor run -o
    output` writes it: atomically (`output.partial` until the run ends), finished as "complete",
    "incomplete" (stopped: Ctrl-C, or the progress callback raised) or "failed: why". The
    histories come back in memory as well; the snapshots are in the file only.
    """
    if not isinstance(model, Model):
        raise TypeError(f"tremor.run takes a tremor.Model, got {type(model).__name__}")
    compiled = model._model()
    path, text = model._identity() if output is not None else ("", b"")
    return _run_of(_run(compiled, backend, precision, operator, duration, dt, check_every, progress, output, path,
                        text))


def _run_of(out):
    histories = {name: _history(h) for name, h in out.pop("histories").items()}
    shots = {shot: {name: _history(h) for name, h in hs.items()} for shot, hs in out.pop("shots").items()}
    return Run(histories=histories, shots=shots, **out)


@dataclass
class Static:
    """What tremor.static returns: the solution node by node, with the solve's record."""

    displacement: np.ndarray  # [nodes][dim], m
    stress: np.ndarray  # [nodes][Voigt: xx, yy, xy (+zz in 2D) or xx, yy, zz, yz, xz, xy], Pa
    von_mises: np.ndarray  # [nodes], Pa
    reaction: np.ndarray  # [nodes][dim], N: K u - f at constrained DOFs, 0 elsewhere
    applied: np.ndarray  # [nodes][dim], N
    converged: bool
    status: str
    iterations: int
    relative_residual: float
    residual_history: np.ndarray
    n_dofs: int
    backend: str
    precision: str
    preconditioner: str
    tolerance: float
    warnings: list


def static(model, backend="auto", precision=None, preconditioner=None, tolerance=None, max_iterations=None,
           output=None):
    """Solves K u = f for `model` (a tremor.Model with a static step, docs/static.md) and returns a
    Static. The options override the model's [static] settings as `tremor static`'s do; a singular
    model raises tremor.Error naming what can still move. A solve that does not converge returns its
    last iterate with converged False, as the command line writes it. Ctrl-C stops the solve between
    iterations (KeyboardInterrupt). output: the result file `tremor static -o output` writes,
    finished as "complete", "failed: why" (not converged) or "incomplete" (Ctrl-C)."""
    if not isinstance(model, Model):
        raise TypeError(f"tremor.static takes a tremor.Model, got {type(model).__name__}")
    compiled = model._model()
    path, text = model._identity() if output is not None else ("", b"")
    return Static(**_static(compiled, backend, precision, preconditioner, tolerance, max_iterations, output, path,
                            text))


@dataclass
class Bem:
    """What tremor.bem returns: the surface's elements and, per frequency solved, the complex
    amplitudes (of e^{+i omega t}) of the boundary-element solution."""

    status: str  # "complete", "failed" (a frequency's solve failed: see message) or "stopped"
    message: str
    centroids: np.ndarray  # [elements][3], m: the collocation points
    normals: np.ndarray  # [elements][3], out of the solid
    areas: np.ndarray  # [elements], m^2
    interior_points: np.ndarray  # [points][3], m
    force_sets: list  # the sets with a prescribed displacement, whose forces each frequency reports
    frequencies: list  # per frequency solved: a dict of frequency (Hz), displacement and traction
    #   [elements][3] (m, Pa), interior [points][3] (m), forces [sets][3] (N), stiffness [sets][3]
    #   (N/m, NaN where no displacement is given), reciprocal_condition (dense; NaN with the
    #   hierarchical matrix), gmres_iterations (hmatrix; 0 when dense), wall_seconds
    setup_seconds: float
    solve_seconds: float
    backend: str


def bem(path, backend="auto", elements=None, allow_coarse=False, output=None, solver=None, tolerance=None):
    """Solves the frequency-domain boundary-element model of the [bem] model file `path`
    (docs/bem.md) at each of its frequencies and returns a Bem. elements: "constant", "linear" or
    "quadratic"; solver: "auto", "dense" or "hmatrix"; tolerance: the hierarchical matrix's relative
    accuracy, in (0, 0.1); each overrides the model's. Ctrl-C stops the run between frequencies
    (KeyboardInterrupt); a model refused (a mesh too coarse, unless allow_coarse) raises tremor.Error
    with the command line's text. output: the result file `tremor bem -o output` writes, each
    frequency as it is solved, finished as "complete", "incomplete" (Ctrl-C) or "failed: at F Hz:
    why"."""
    return Bem(**_bem(path, backend, elements, solver, tolerance, allow_coarse, output))


def total_focusing(fmc, elements, dt, extent, pixels, speed, t0=0.0):
    """The total focusing method (docs/python.md, "Imaging full-matrix capture"): the image I(x, z)
    = |sum_ij h_ij(|p - e_i| / c_t + |p - e_j| / c_r)| of a full-matrix capture, h_ij the analytic
    signal of the A-scan from element i to element j.

    fmc: [transmitter][receiver][sample]; elements: [n][2], the elements' centres (m) in the image's
    plane (x along the array, z into the part); dt: s between samples; extent: ((x_min, x_max),
    (z_min, z_max)) in m; pixels: (nx, nz); speed: one speed for both legs (m/s) or (c_transmit,
    c_receive); t0: the first sample's time (s), counted from the instant a wave leaves the
    transmitter in the image's reckoning (a burst's centre: minus its time after the record's
    start). Returns the image as an array [nz][nx], unnormalised.
    """
    data = np.ascontiguousarray(fmc, dtype=float)
    if data.ndim != 3 or data.shape[0] != data.shape[1] or data.shape[2] == 0:
        raise Error(f"fmc: must be an array [n][n][samples] of n transmitters and receivers, got shape {data.shape}")
    centres = np.ascontiguousarray(elements, dtype=float)
    if centres.shape != (data.shape[0], 2):
        raise Error(f"elements: must be an array [{data.shape[0]}][2] of the elements' centres (x, z), got shape "
                    f"{centres.shape}")
    try:
        (x_min, x_max), (z_min, z_max) = extent
        nx, nz = pixels
    except (TypeError, ValueError):
        raise Error(f"extent and pixels: must be ((x_min, x_max), (z_min, z_max)) and (nx, nz), got {extent!r} and "
                    f"{pixels!r}") from None
    nx, nz = _index("pixels", nx), _index("pixels", nz)
    # (A reversed or empty extent would image nothing: refused as `tremor image --extent` is.)
    if not (_real("extent", x_max) > _real("extent", x_min) and _real("extent", z_max) > _real("extent", z_min)):
        raise Error(f"extent: must be ((x_min, x_max), (z_min, z_max)) with each max above its min, got {extent!r}")
    if not (1 <= nx <= 2**31 - 1 and 1 <= nz <= 2**31 - 1):
        raise Error(f"pixels: must be two whole numbers from 1 to 2^31 - 1, got ({nx}, {nz})")
    speeds = (speed, speed) if np.ndim(speed) == 0 else tuple(speed)
    if len(speeds) != 2:
        raise Error(f"speed: must be one speed or (c_transmit, c_receive), got {speed!r}")
    return _total_focusing(data.ravel(), centres.ravel(), data.shape[2], _real("t0", t0), _real("dt", dt), nx, nz,
                           [_real("extent", x_min), _real("extent", z_min)],
                           [_real("extent", x_max), _real("extent", z_max)], _real("speed", speeds[0]),
                           _real("speed", speeds[1]))
