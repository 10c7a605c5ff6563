#!/usr/bin/env python3
"""Plot the histories (and optionally one snapshot) of a tremor result file.

Layout of the file: docs/output-format.md. Needs Debian's python3-h5py and python3-matplotlib.

    tools/plot_histories.py RESULT.h5 [-o DIR] [--history NAME ...] [--quantity displacement]
                            [--snapshot INDEX]

Writes DIR/<history>.png (one panel per component, one line per node, labelled with the node
ids of the input file) and, with --snapshot, DIR/snapshot_<INDEX>.png (displacement magnitude
on the snapshot nodes; 2D meshes are drawn as a coloured triangulation, 3D ones as points).
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


def plot_history(group, name, quantity, out_dir):
    quantities = list(group.attrs["quantities"])
    if quantity not in quantities:
        print(f"{name}: records {', '.join(quantities)}, not {quantity}; skipped", file=sys.stderr)
        return None
    q = quantities.index(quantity)
    dim = int(group.attrs["dimension"])
    time = group["time"][:]
    values = group["values"][:, :, q, :]  # [sample][node][component]
    labels = group["node_labels"][:]
    fig, axes = plt.subplots(dim, 1, sharex=True, figsize=(8, 2.2 * dim + 0.8), squeeze=False)
    for c in range(dim):
        ax = axes[c][0]
        for n, label in enumerate(labels):
            ax.plot(time * 1e6, values[:, n, c], label=f"node {label}", linewidth=1)
        ax.set_ylabel(f"{LETTERS[quantity]}{AXES[c]} ({UNITS[quantity]})")
        ax.grid(True, alpha=0.3)
    axes[-1][0].set_xlabel("time (µs)")
    if len(labels) <= 10:
        axes[0][0].legend(loc="upper right", fontsize="small")
    fig.suptitle(f"{name}: {quantity}")
    fig.tight_layout()
    path = os.path.join(out_dir, f"{name}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_snapshot(result, index, out_dir):
    snapshots = result["snapshots"]
    times = snapshots["time"][:]
    if not 0 <= index < len(times):
        raise SystemExit(f"snapshot {index} does not exist (the file has {len(times)})")
    displacement = snapshots["displacement"][f"{index:06d}"][:]
    magnitude = np.linalg.norm(displacement, axis=1)
    if int(snapshots.attrs["all_nodes"]):
        coordinates = result["mesh/coordinates"][:]
        cells = [result[f"mesh/blocks/{b}"] for b in result["mesh/blocks"]]
        cells = [g["linear_cells"][:] if "linear_cells" in g else g["connectivity"][:] for g in cells]
    else:
        coordinates = snapshots["mesh/coordinates"][:]
        cells = [snapshots["mesh"][name][:] for name in snapshots["mesh"] if name.startswith("block_")]
    fig, ax = plt.subplots(figsize=(8, 6))
    if coordinates.shape[1] == 2 and cells:
        # Split every cell into triangles over its corner nodes (the first 3 or 4).
        triangles = []
        for block in cells:
            corners = 3 if block.shape[1] in (3, 6) else 4
            triangles.append(block[:, [0, 1, 2]])
            if corners == 4:
                triangles.append(block[:, [0, 2, 3]])
        triangulation = mtri.Triangulation(coordinates[:, 0], coordinates[:, 1], np.vstack(triangles))
        image = ax.tripcolor(triangulation, magnitude, shading="gouraud", cmap="viridis")
        ax.set_aspect("equal")
    else:
        image = ax.scatter(coordinates[:, 0], coordinates[:, 1], c=magnitude, s=4, cmap="viridis")
        ax.set_aspect("equal")
    fig.colorbar(image, ax=ax, label="|u| (m)")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(f"snapshot {index}, t = {times[index] * 1e6:.4g} µs")
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
    parser.add_argument("--snapshot", type=int, help="also plot snapshot INDEX (0-based)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with h5py.File(args.result, "r") as result:
        status = result["metadata"].attrs["status"]
        if status != "complete":
            print(f"{args.result}: run status is '{status}'", file=sys.stderr)
        histories = result["histories"]
        for name in args.history or list(histories):
            if name not in histories:
                raise SystemExit(f"{args.result}: no history '{name}' (has: {', '.join(histories) or 'none'})")
            path = plot_history(histories[name], name, args.quantity, args.out)
            if path:
                print(path)
        if args.snapshot is not None:
            print(plot_snapshot(result, args.snapshot, args.out))


if __name__ == "__main__":
    main()
