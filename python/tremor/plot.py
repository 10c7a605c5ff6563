"""Plots of tremor's results with matplotlib (Debian's python3-matplotlib): a history's traces, a
snapshot's field and a map of `tremor image`, each written as a PNG file.

    import tremor, tremor.plot
    with tremor.open("plate.h5") as result:
        tremor.plot.history(result.histories["probe"], "probe.png")
        tremor.plot.snapshot(result, -1, "last.png", component="z")
        tremor.plot.map(result, "A0.area", "A0.png")
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import numpy as np  # noqa: E402

from .results import UNITS  # noqa: E402

AXES = "xyz"
LETTERS = {"displacement": "u", "velocity": "v", "acceleration": "a", "pressure": "p"}  # as in the CSV columns


def time_unit(times):
    """A scale and unit that show `times` (s) as numbers of a readable size."""
    largest = float(np.max(np.abs(times))) if len(times) else 0.0
    for scale, unit in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms")):
        if largest * scale < 1e4 / 10:
            return scale, unit
    return 1.0, "s"



def history(h, path, quantity=None, title=None):
    """One panel per component, one line per node or position (labelled by the input file's node
    label, or the position's number and coordinates, as the CSV export names them). `quantity`:
    the history's first where None."""
    quantity = quantity or h.quantities[0]
    values = h.quantity(quantity)  # [sample][point][component]; KeyError when not recorded
    dim = values.shape[2]
    if h.positions is not None:
        labels = [f"p{i + 1} ({', '.join(f'{x:.4g}' for x in point)}) m" for i, point in enumerate(h.positions)]
    else:
        labels = [f"node {label}" for label in h.node_labels]
    scale, unit = time_unit(h.times)
    fig, axes = plt.subplots(dim, 1, sharex=True, figsize=(8, 2.2 * dim + 0.8), squeeze=False)
    for c in range(dim):
        ax = axes[c][0]
        for n, label in enumerate(labels):
            ax.plot(h.times * scale, values[:, n, c], label=label, linewidth=1)
        axis = "" if quantity == "pressure" else AXES[c]  # a scalar
        ax.set_ylabel(f"{LETTERS[quantity]}{axis} ({UNITS[quantity]})")
        ax.grid(True, alpha=0.3)
    axes[-1][0].set_xlabel(f"time ({unit})")
    if len(labels) <= 10:
        axes[0][0].legend(loc="upper right", fontsize="small")
    fig.suptitle(title or f"{h.name}: {quantity}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def snapshot(result, index, path, component="magnitude"):
    """The displacement magnitude, one signed component, or a fluid's pressure ("pressure"), on the
    snapshot's nodes: 2D meshes as a coloured triangulation of their elements, a 3D snapshot of
    nodes on one plane (a surface node set) in that plane, other 3D snapshots as points seen along
    z. The colour scale saturates at the 99.5th percentile. The pressure leaves out the solid's
    nodes (NaN in the file) and the cells that touch them."""
    times = result.snapshot_times
    fields = result.snapshot(index)  # IndexError when there is none
    displacement = fields["displacement"]
    index %= len(times)
    snapshots = result.h5["snapshots"]
    dim = displacement.shape[1]
    if component == "magnitude":
        field, label, cmap = np.linalg.norm(displacement, axis=1), "|u| (m)", "viridis"
    elif component == "pressure":
        if "pressure" not in fields:
            raise ValueError(f'{result.path}: the snapshots hold no pressure (snapshot_fields = ["pressure"] '
                             "in a model with a fluid)")
        field, label, cmap = fields["pressure"], "p (Pa)", "RdBu_r"
    else:
        c = AXES.index(component)
        if c >= dim:
            raise ValueError(f"a {dim}D snapshot has no {component} component")
        field, label, cmap = displacement[:, c], f"u{component} (m)", "RdBu_r"
    # The colour scale saturates at the 99.5th percentile of |field|, so that the few nodes next to
    # a point source do not hide the waves elsewhere; signed components are centred on zero.
    inside = np.isfinite(field)  # the pressure: the fluid's nodes
    if not inside.any():
        raise ValueError(f"{result.path}: snapshot {index} has no finite {component}")
    magnitude = np.abs(field[inside])
    extent = float(np.percentile(magnitude, 99.5)) or float(np.max(magnitude)) or 1.0
    limits = (0.0, extent) if component == "magnitude" else (-extent, extent)
    if int(snapshots.attrs["all_nodes"]):
        coordinates = result.h5["mesh/coordinates"][:]
        cells = [result.h5[f"mesh/blocks/{b}"] for b in result.h5["mesh/blocks"]]
        cells = [g["linear_cells"][:] if "linear_cells" in g else g["connectivity"][:] for g in cells]
    else:
        coordinates = snapshots["mesh/coordinates"][:]
        cells = [snapshots["mesh"][name][:] for name in snapshots["mesh"] if name.startswith("block_")]
    axes = (0, 1)
    triangles = None
    if dim == 2 and cells:
        # Split every cell into triangles over its corner nodes (the first 3 or 4).
        parts = []
        for block in cells:
            parts.append(block[:, [0, 1, 2]])
            if block.shape[1] not in (3, 6):
                parts.append(block[:, [0, 2, 3]])
        triangles = np.vstack(parts)
    elif dim == 3:
        span = coordinates.max(axis=0) - coordinates.min(axis=0)
        flat = int(np.argmin(span))
        if span[flat] <= 1e-9 * max(float(span.max()), 1e-300):  # nodes on one plane: draw it
            axes = tuple(a for a in range(3) if a != flat)
            triangles = "delaunay"
    fig, ax = plt.subplots(figsize=(8, 6))
    x, y = coordinates[:, axes[0]], coordinates[:, axes[1]]
    if triangles is not None:
        triangulation = mtri.Triangulation(x, y) if isinstance(triangles, str) else mtri.Triangulation(x, y, triangles)
        if not inside.all():
            triangulation.set_mask(~inside[triangulation.triangles].all(axis=1))
        image = ax.tripcolor(triangulation, np.where(inside, field, 0.0), shading="gouraud", cmap=cmap)
    else:
        image = ax.scatter(x[inside], y[inside], c=field[inside], s=4, cmap=cmap)
    image.set_clim(*limits)
    ax.set_aspect("equal")
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xlabel(f"{AXES[axes[0]]} (m)")
    ax.set_ylabel(f"{AXES[axes[1]]} (m)")
    scale, unit = time_unit(times)
    ax.set_title(f"snapshot {index}, t = {times[index] * scale:.4g} {unit}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path



def map(result, name, path):  # noqa: A001 (tremor.plot.map: a map of tremor image)
    """A map of `tremor image` (/images/<name>) over its grid's x and y, in mm, with the true
    footprint's outline where the model had defects."""
    values = result.images[name]
    shot, _, grid = name.rpartition(".")
    h = (result.shots.get(shot, {}) if shot else result.histories).get(grid)
    fig, ax = plt.subplots(figsize=(7, 6))
    extent = None
    if h is not None and h.positions is not None:
        x, y = h.positions[:, 0] * 1e3, h.positions[:, 1] * 1e3
        extent = (x.min(), x.max(), y.min(), y.max())
    image = ax.imshow(values, origin="lower", extent=extent, cmap="viridis", vmin=0.0, vmax=1.0)
    footprint = result.h5.get(f"{'shots/' + shot + '/' if shot else ''}histories/{grid}/footprint")
    if footprint is not None and extent is not None:
        mask = footprint[:].reshape(values.shape)
        ax.contour(mask, levels=[0.5], colors="white", linewidths=1, origin="lower", extent=extent)
    fig.colorbar(image, ax=ax, label="total displacement (normalised)")
    ax.set_xlabel("x (mm)" if extent else "x (points)")
    ax.set_ylabel("y (mm)" if extent else "y (points)")
    ax.set_title(name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
