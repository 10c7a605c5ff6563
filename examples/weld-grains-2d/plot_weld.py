#!/usr/bin/python3
"""The beam through the grained weld against the isotropic one.

    examples/weld-grains-2d/plot_weld.py GRAINS.h5 ISOTROPIC.h5 [-o DIR] [--time T]

Reads both result files (docs/output-format.md) with h5py and writes:

- DIR/beam.png: the displacement magnitude snapshot nearest T (default 4 us) of each run, the
  weld's outline dashed, and under the grained run its grains (each element's material row,
  /mesh/blocks/block_0/material);
- DIR/bottom.png: the peak vertical displacement along the bottom surface in both runs, and where
  each peaks.

It prints where the beam's peak lands on the bottom in each run and the skew angle that shift
makes over the block's depth. Needs numpy, h5py and matplotlib (Debian's python3-h5py and
python3-matplotlib)."""
import argparse
import math
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

WELD = (0.014, 0.026)  # m: the weld's x range (model.toml)
DEPTH = 0.025          # m: the block's depth; the probe sits on top at x = 20 mm


def grid_of(coordinates, values):
    """Node values on the rectangle's regular grid (rows y, columns x)."""
    step = np.min(np.diff(np.unique(coordinates[:, 0])))
    i = np.rint(coordinates[:, 0] / step).astype(int)
    j = np.rint(coordinates[:, 1] / step).astype(int)
    image = np.full((j.max() + 1, i.max() + 1), np.nan)
    image[j, i] = values
    return image


def read(path, time):
    with h5py.File(path, "r") as f:
        xy = f["mesh/coordinates"][()]
        times = f["snapshots/time"][()]
        k = int(np.argmin(np.abs(times - time)))
        magnitude = f["snapshots/magnitude"][f"{k:06d}"][()]
        block = f["mesh/blocks/block_0"]
        rows = block["material"][()] if "material" in block else None
        cells = block["connectivity"][()]
        bottom = f["histories/bottom"]
        x = xy[bottom["node_indices"][()], 0]
        peak = np.abs(bottom["values"][:, :, 0, 1]).max(axis=0)
    order = np.argsort(x)
    return dict(xy=xy, image=grid_of(xy, magnitude), time=times[k], rows=rows, cells=cells, x=x[order],
                peak=peak[order])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("grains")
    parser.add_argument("isotropic")
    parser.add_argument("-o", "--output", default=".")
    parser.add_argument("--time", type=float, default=4e-6)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    grains, isotropic = read(args.grains, args.time), read(args.isotropic, args.time)
    if grains["rows"] is None:
        sys.exit(f"{args.grains}: no /mesh/blocks/block_0/material: not a grained run")

    extent = [0.0, 1e3 * grains["xy"][:, 0].max(), 0.0, 1e3 * grains["xy"][:, 1].max()]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), constrained_layout=True)
    # The grains: each element's row, its cells coloured by it in the weld (rows 0..2 are sections).
    centres = grains["xy"][grains["cells"]].mean(axis=1)
    in_weld = grains["rows"] >= 3
    row_image = grid_of(centres - centres.min(axis=0), np.where(in_weld, grains["rows"] % 20, np.nan))
    axes[0].imshow(row_image, origin="lower", extent=extent, cmap="tab20", interpolation="nearest")
    axes[0].set_title(f"the weld's grains ({len(np.unique(grains['rows'][in_weld]))} columns)")
    vmax = np.nanmax(isotropic["image"])
    for ax, run, name in ((axes[1], grains, "grained weld"), (axes[2], isotropic, "isotropic weld (Hill)")):
        ax.imshow(run["image"], origin="lower", extent=extent, cmap="magma", vmin=0.0, vmax=vmax)
        ax.set_title(f"|u| at {1e6 * run['time']:.1f} us, {name}")
    for ax in axes:
        for x in WELD:
            ax.axvline(1e3 * x, color="w" if ax is not axes[0] else "k", ls="--", lw=0.8)
        ax.plot([17, 23], [25, 25], color="c", lw=4)
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("y (mm)")
    fig.savefig(os.path.join(args.output, "beam.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(7.5, 3.6), constrained_layout=True)
    shifts = {}
    for run, name, colour in ((isotropic, "isotropic weld", "0.5"), (grains, "grained weld", "C3")):
        at = run["x"][np.argmax(run["peak"])]
        shifts[name] = at
        ax.plot(1e3 * run["x"], 1e12 * run["peak"], color=colour, label=f"{name}: peak at x = {1e3 * at:.2f} mm")
        ax.axvline(1e3 * at, color=colour, ls=":")
    ax.axvline(20.0, color="c", lw=1, label="under the probe")
    ax.set_xlabel("x on the bottom surface (mm)")
    ax.set_ylabel("peak |u_y| (pm)")
    ax.legend(fontsize=8)
    fig.savefig(os.path.join(args.output, "bottom.png"), dpi=120)

    shift = shifts["grained weld"] - shifts["isotropic weld"]
    print(f"bottom peak: isotropic weld at x = {1e3 * shifts['isotropic weld']:.2f} mm, grained weld at "
          f"x = {1e3 * shifts['grained weld']:.2f} mm: a shift of {1e3 * shift:+.2f} mm over {1e3 * DEPTH:.0f} mm, "
          f"a skew of {math.degrees(math.atan2(shift, DEPTH)):+.1f} degrees")


if __name__ == "__main__":
    main()
