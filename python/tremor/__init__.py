"""tremor from Python: models, explicit runs and result files as numpy arrays (docs/python.md).

    import tremor
    model = tremor.Model.load("examples/plate-2d/model.toml")
    run = tremor.run(model, backend="openmp")
    probe = run.histories["probe"]          # probe.times [s], probe.values [sample][point][quantity][xyz]
    result = tremor.open("plate.h5")        # a result file written by `tremor run`
"""
from dataclasses import dataclass, field

import numpy as np

from ._tremor import Error, Model, version
from ._tremor import _run
from .results import History, Result, open  # noqa: A004 (tremor.open reads a result file)

__all__ = ["Error", "History", "Model", "Result", "Run", "open", "run", "version"]


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


def _history(d):
    return History(name=d["name"], times=np.asarray(d["times"]), values=np.asarray(d["values"]),
                   quantities=list(d["quantities"]), node_labels=d.get("node_labels"), positions=d.get("positions"))


def run(model, backend="auto", precision=None, operator=None, duration=None, dt=None, check_every=100,
        progress=None):
    """Runs the explicit solver on `model` (a tremor.Model) and returns a Run.

    backend: "auto" (CUDA when a GPU is usable, else OpenMP), "serial", "openmp" or "cuda";
    precision ("double", "float"), operator (a name of `tremor run --operator`), duration and dt
    (s) override the model file's. progress(step, steps, time) is called every check_every steps;
    an exception it raises, or Ctrl-C, stops the run there and is raised here. tremor's refusals
    raise tremor.Error with the command line's text.
    """
    if not isinstance(model, Model):
        raise TypeError(f"tremor.run takes a tremor.Model, got {type(model).__name__}")
    out = _run(model, backend, precision, operator, duration, dt, int(check_every), progress)
    histories = {name: _history(h) for name, h in out.pop("histories").items()}
    shots = {shot: {name: _history(h) for name, h in hs.items()} for shot, hs in out.pop("shots").items()}
    return Run(histories=histories, shots=shots, **out)
