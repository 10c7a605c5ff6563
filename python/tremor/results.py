"""Result files of `tremor run` read as numpy arrays (layout: docs/output-format.md).

    result = tremor.open("plate.h5")
    result.status                      # "complete", "incomplete" or "failed: ..."
    probe = result.histories["probe"]  # a History; a model with shots: result.shots["A0"]["area"]
    result.images["A0.area"]           # the maps of `tremor image`; "tfm/probe/L-L" its TFM images
    capture = result.fmc["probe"]      # an array's full-matrix capture: capture.data [tx][rx][sample]
    u = result.snapshot(3)             # {"time": t, "displacement": [nodes][dim], ...}
"""
from dataclasses import dataclass

import numpy as np

from ._tremor import _index, _path

UNITS = {"displacement": "m", "velocity": "m/s", "acceleration": "m/s^2", "pressure": "Pa"}


@dataclass
class History:
    """One history: times [samples] (s) and values [samples][points][quantities][components]: the
    mesh's dimension of components for motion, one for a fluid's pressure (recorded alone)."""

    name: str
    times: np.ndarray
    values: np.ndarray
    quantities: list  # "displacement", "velocity", "acceleration"; or "pressure": the third axis of values
    node_labels: np.ndarray = None  # at nodes: their labels in the input file
    positions: np.ndarray = None  # at positions: [points][dim], m

    @property
    def units(self):
        """The unit of each quantity, in the order of `quantities`."""
        return [UNITS[q] for q in self.quantities]

    def quantity(self, name):
        """values of one quantity: [samples][points][components]."""
        if name not in self.quantities:
            raise KeyError(f"history '{self.name}' records {', '.join(self.quantities)}, not {name}")
        return self.values[:, :, self.quantities.index(name), :]


@dataclass
class Fmc:
    """An array's full-matrix capture (/fmc/<array>): data [transmitter][receiver][sample], the
    mean displacement of the receiver's footprint along the inward normal (m), or an immersed
    array's mean pressure over it (Pa; attrs["quantity"] says which), sample k at t0 + k dt; rows
    of shots not run are NaN or absent. `attrs` holds the group's attributes (pitch, width,
    length, rows, row_pitch, depth, signal_peak, longitudinal_speed, shear_speed, sound_speed,
    interface_depth, ...). A matrix array's elements stand in attrs["rows"] rows along `direction`,
    element k in row k // columns; `elevation` points across them (the rows' way)."""

    name: str
    data: np.ndarray
    elements: np.ndarray  # [elements][3], m: the elements' centres
    centre: np.ndarray
    direction: np.ndarray  # along the array
    normal: np.ndarray  # inward
    elevation: np.ndarray  # across the array: the way its rows step (a matrix array's)
    dt: float
    t0: float
    attrs: dict

    @property
    def times(self):
        """The samples' times, s."""
        return self.t0 + self.dt * np.arange(self.data.shape[2])

    @property
    def positions(self):
        """The elements' centres along the array, m from its centre: what tremor.total_focusing takes."""
        return (self.elements - self.centre) @ self.direction

    @property
    def across(self):
        """The elements' centres across the array (along `elevation`), m from its centre: 0 for a
        linear array, each row's offset for a matrix array."""
        return (self.elements - self.centre) @ self.elevation


def _fmc(name, group):
    attrs = {key: _plain(value) for key, value in group.attrs.items()}
    return Fmc(name=name, data=group["data"][()], elements=group["elements"][()], centre=group["centre"][()],
               direction=group["direction"][()], normal=group["normal"][()],
               elevation=group["elevation"][()] if "elevation" in group else np.zeros(3), dt=float(attrs["dt"]),
               t0=float(attrs["t0"]), attrs=attrs)


def _datasets(group, prefix=""):
    """The datasets under `group` by their paths below it ("A0.area", "tfm/probe/L-L")."""
    out = {}
    for name, item in group.items():
        if hasattr(item, "shape"):
            out[prefix + name] = item[:]
        else:
            out.update(_datasets(item, prefix + name + "/"))
    return out


def _history(name, group):
    return History(name=name, times=group["time"][:], values=group["values"][:],
                   quantities=[str(q) for q in group.attrs["quantities"]],
                   node_labels=group["node_labels"][:] if "node_labels" in group else None,
                   positions=group["positions"][:] if "positions" in group else None)


class Result:
    """A result file, read when opened (histories, images) or on demand (snapshots)."""

    def __init__(self, path):
        import h5py  # Debian's python3-h5py

        self.path = _path("path", path)  # str or os.PathLike, else TypeError naming it
        try:
            self._file = h5py.File(self.path, "r")
        except FileNotFoundError:
            raise FileNotFoundError(f"{self.path}: no such result file") from None
        except OSError as error:
            raise OSError(f"{self.path}: not a tremor result file ({error})") from None
        self.h5 = self._file  # the open h5py.File, for what a Result does not expose
        if "metadata" not in self._file:
            raise OSError(f"{self.path}: not a tremor result file (no /metadata)")
        self.metadata = {key: _plain(value) for key, value in self._file["metadata"].attrs.items()}
        self.status = self.metadata.get("status", "")
        self.histories = {name: _history(name, group) for name, group in self._file.get("histories", {}).items()}
        self.shots = {shot: {name: _history(name, group) for name, group in g["histories"].items()}
                      for shot, g in self._file.get("shots", {}).items()}
        self.images = _datasets(self._file["images"]) if "images" in self._file else {}
        self.fmc = {name: _fmc(name, group) for name, group in self._file.get("fmc", {}).items()}
        snapshots = self._file.get("snapshots")
        self.snapshot_times = snapshots["time"][:] if snapshots is not None and "time" in snapshots else np.zeros(0)

    def snapshot(self, index):
        """Snapshot `index` (negative counts from the end): time and each field recorded."""
        index = _index("index", index)  # an int (3.7 is no index), else TypeError naming it
        n = len(self.snapshot_times)
        if not -n <= index < n:
            raise IndexError(f"{self.path}: snapshot {index} does not exist (the file has {n})")
        index %= n
        snapshots = self._file["snapshots"]
        out = {"time": float(self.snapshot_times[index])}
        for field in ("displacement", "magnitude", "velocity", "pressure"):
            if field in snapshots:
                out[field] = snapshots[field][f"{index:06d}"][:]
        return out

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"<tremor.Result {self.path}: {self.status}, {len(self.histories)} histories, "
                f"{len(self.shots)} shots, {len(self.snapshot_times)} snapshots>")


def _plain(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray) and value.size == 1:
        return value.item()
    if isinstance(value, np.generic):
        return value.item()
    return value


def open(path):  # noqa: A001 (tremor.open, as the package's users call it)
    """Reads a result file written by tremor (docs/output-format.md)."""
    return Result(path)

