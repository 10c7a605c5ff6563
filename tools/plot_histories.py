#!/usr/bin/python3
"""Plot the histories (and optionally snapshots) of a tremor result file.

Layout of the file: docs/output-format.md. Needs Debian's python3-h5py and python3-matplotlib.

    tools/plot_histories.py RESULT.h5 [-o DIR] [--history NAME ...] [--quantity displacement]
                            [--snapshot INDEX ...] [--component magnitude|x|y|z]

Writes DIR/<history>.png (a shot's: DIR/<shot>.<history>.png; one panel per component, one line per node or position, labelled with
the node ids of the input file or the position's number and coordinates) and, for each
--snapshot (an index, or -1 for the last), DIR/snapshot_<INDEX>.png: the displacement magnitude,
or one signed component, on the snapshot nodes, the colour scale saturating at the 99.5th percentile. 2D meshes are drawn as a coloured triangulation
of their elements; a 3D snapshot of nodes on one plane (a surface node set) is drawn in that
plane; other 3D snapshots as points seen along z.
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import numpy as np  # noqa: E402

AXES = "xyz"
UNITS = {"displacement": "m", "velocity": "m/s", "acceleration": "m/s²"}
LETTERS = {"displacement": "u", "velocity": "v", "acceleration": "a"}  # as in the CSV columns


def time_unit(times):
    """A scale and unit that show `times` (s) as numbers of a readable size."""
    largest = float(np.max(np.abs(times))) if len(times) else 0.0
    for scale, unit in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms")):
        if largest * scale < 1e4 / 10:
            return scale, unit
    return 1.0, "s"


def plot_history(group, name, quantity, out_dir):
    quantities = list(group.attrs["quantities"])
    if quantity not in quantities:
        print(f"{name}: records {', '.join(quantities)}, not {quantity}; skipped", file=sys.stderr)
        return None
    q = quantities.index(quantity)
    dim = int(group.attrs["dimension"])
    time = group["time"][:]
    values = group["values"][:, :, q, :]  # [sample][node][component]
    if "positions" in group:  # a receiver at positions: number them as the CSV export does
        positions = group["positions"][:]
        labels = [f"p{i + 1} ({', '.join(f'{x:.4g}' for x in point)}) m" for i, point in enumerate(positions)]
    else:
        labels = [f"node {label}" for label in group["node_labels"][:]]
    scale, unit = time_unit(time)
    fig, axes = plt.subplots(dim, 1, sharex=True, figsize=(8, 2.2 * dim + 0.8), squeeze=False)
    for c in range(dim):
        ax = axes[c][0]
        for n, label in enumerate(labels):
            ax.plot(time * scale, values[:, n, c], label=label, linewidth=1)
        ax.set_ylabel(f"{LETTERS[quantity]}{AXES[c]} ({UNITS[quantity]})")
        ax.grid(True, alpha=0.3)
    axes[-1][0].set_xlabel(f"time ({unit})")
    if len(labels) <= 10:
        axes[0][0].legend(loc="upper right", fontsize="small")
    fig.suptitle(f"{name}: {quantity}")
    fig.tight_layout()
    path = os.path.join(out_dir, f"{name}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_snapshot(result, index, component, out_dir):
    snapshots = result["snapshots"]
    times = snapshots["time"][:]
    if index < 0:
        index += len(times)
    if not 0 <= index < len(times):
        raise SystemExit(f"snapshot {index} does not exist (the file has {len(times)})")
    displacement = snapshots["displacement"][f"{index:06d}"][:]
    dim = displacement.shape[1]
    if component == "magnitude":
        field, label, cmap = np.linalg.norm(displacement, axis=1), "|u| (m)", "viridis"
    else:
        c = AXES.index(component)
        if c >= dim:
            raise SystemExit(f"a {dim}D snapshot has no {component} component")
        field, label, cmap = displacement[:, c], f"u{component} (m)", "RdBu_r"
    # The colour scale saturates at the 99.5th percentile of |field|, so that the few nodes next to
    # a point source do not hide the waves elsewhere; signed components are centred on zero.
    extent = float(np.percentile(np.abs(field), 99.5)) or float(np.max(np.abs(field))) or 1.0
    limits = (0.0, extent) if component == "magnitude" else (-extent, extent)
    if int(snapshots.attrs["all_nodes"]):
        coordinates = result["mesh/coordinates"][:]
        cells = [result[f"mesh/blocks/{b}"] for b in result["mesh/blocks"]]
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
        image = ax.tripcolor(triangulation, field, shading="gouraud", cmap=cmap)
    else:
        image = ax.scatter(x, y, c=field, s=4, cmap=cmap)
    image.set_clim(*limits)
    ax.set_aspect("equal")
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xlabel(f"{AXES[axes[0]]} (m)")
    ax.set_ylabel(f"{AXES[axes[1]]} (m)")
    scale, unit = time_unit(times)
    ax.set_title(f"snapshot {index}, t = {times[index] * scale:.4g} {unit}")
    fig.tight_layout()
    path = os.path.join(out_dir, f"snapshot_{index}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result", help="result file (.h5) written by tremor run")
    parser.add_argument("-o", "--out", default=".", help="folder for the PNG files (default: .)")
    parser.add_argument("--history", action="append", help="history set to plot (default: all)")
    parser.add_argument("--quantity", default="displacement", choices=sorted(UNITS))
    parser.add_argument("--snapshot", type=int, action="append",
                        help="also plot snapshot INDEX (0-based; -1 is the last); may be repeated")
    parser.add_argument("--component", default="magnitude", choices=["magnitude", "x", "y", "z"],
                        help="what the snapshot plots show (default: the displacement magnitude)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with h5py.File(args.result, "r") as result:
        status = result["metadata"].attrs["status"]
        if status != "complete":
            print(f"{args.result}: run status is '{status}'", file=sys.stderr)
        # /histories, and each shot's as "<shot>.<history>" (a model with shots).
        histories = {name: group for name, group in result["histories"].items()}
        for shot, group in result.get("shots", {}).items():
            histories.update({f"{shot}.{name}": h for name, h in group["histories"].items()})
        for name in args.history or list(histories):
            if name not in histories:
                raise SystemExit(f"{args.result}: no history '{name}' (has: {', '.join(histories) or 'none'})")
            path = plot_history(histories[name], name, args.quantity, args.out)
            if path:
                print(path)
        for index in args.snapshot or []:
            print(plot_snapshot(result, index, args.component, args.out))


if __name__ == "__main__":
    main()
