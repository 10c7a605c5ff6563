#!/usr/bin/python3
"""The basin's record section against the granite's, and the basin's amplification.

    examples/basin-field-2d/plot_basin.py BASIN.h5 ROCK.h5 [-o DIR]

Reads /histories/geophones of both result files (docs/output-format.md) with h5py and writes:

- DIR/traces.png: the vertical velocity at each geophone, the basin's run over the granite's,
  every trace scaled by the largest peak of the granite's run, with the basin's outline beneath;
- DIR/amplification.png: (a) at each geophone the peak velocity (the magnitude of the horizontal
  and vertical components) of the basin's run over the granite's, and the basin's depth under it;
  (b) the duration of shaking, the time between the first and last moments the velocity's
  magnitude exceeds 10% of that geophone's peak, in both runs.

It also prints both per geophone. Needs numpy, h5py and matplotlib (Debian's python3-h5py and
python3-matplotlib)."""
import argparse
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_field import floor  # noqa: E402  (the basin's outline, as the field was written)


def read(path):
    with h5py.File(path, "r") as f:
        g = f["histories/geophones"]
        quantities = [q.decode() if isinstance(q, bytes) else q for q in g.attrs["quantities"]]
        v = g["values"][:, :, quantities.index("velocity"), :]  # [sample][geophone][x, y]
        return g["time"][:], v, g["positions"][:, 0]


def shaking(t, speed, fraction=0.1):
    """From the first to the last sample where `speed` exceeds `fraction` of its peak, s."""
    above = np.nonzero(speed >= fraction * speed.max())[0]
    return t[above[-1]] - t[above[0]]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("basin")
    parser.add_argument("rock")
    parser.add_argument("-o", "--output", default=".")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    t, basin, x = read(args.basin)
    t_rock, rock, x_rock = read(args.rock)
    if not (np.array_equal(t, t_rock) and np.array_equal(x, x_rock)):
        sys.exit("the two result files do not share their sample times and geophones")
    speed_basin = np.linalg.norm(basin, axis=2)
    speed_rock = np.linalg.norm(rock, axis=2)
    peak_basin, peak_rock = speed_basin.max(axis=0), speed_rock.max(axis=0)
    ratio = peak_basin / peak_rock
    duration_basin = np.array([shaking(t, speed_basin[:, k]) for k in range(len(x))])
    duration_rock = np.array([shaking(t, speed_rock[:, k]) for k in range(len(x))])
    print(" offset  basin depth  peak ratio  shaking basin  granite")
    for k in range(len(x)):
        print(f"{x[k]:6.0f} m  {-floor(x[k]):8.0f} m  {ratio[k]:9.2f}  {duration_basin[k]:11.2f} s  {duration_rock[k]:5.2f} s")

    scale = np.abs(rock[:, :, 1]).max()
    fig, ax = plt.subplots(figsize=(8, 9))
    spacing = x[1] - x[0]
    for k in range(len(x)):
        ax.plot(t, x[k] + 0.45 * spacing * rock[:, k, 1] / scale, color="0.6", lw=0.8,
                label="granite alone" if k == 0 else None)
        ax.plot(t, x[k] + 0.45 * spacing * basin[:, k, 1] / scale, color="C3", lw=0.8,
                label="with the basin" if k == 0 else None)
    inside = x[-floor(x) > 0]
    ax.axhspan(inside.min() - spacing / 2, inside.max() + spacing / 2, color="C1", alpha=0.08, lw=0,
               label="over the basin")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("geophone offset x (m); vertical velocity, scaled by the granite's largest peak")
    ax.set_xlim(t[0], t[-1])
    ax.legend(loc="lower right")
    ax.set_title("vertical velocity at the surface: basin and granite")
    fig.tight_layout()
    fig.savefig(os.path.join(args.output, "traces.png"), dpi=120)

    fig, (a, b) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    a.plot(x, ratio, "o-", color="C3", label="peak velocity, basin / granite")
    a.axhline(1.0, color="0.6", lw=0.8)
    a.set_ylabel("amplification")
    depth = a.twinx()
    xs = np.linspace(x.min(), x.max(), 400)
    depth.fill_between(xs, 0, floor(xs), color="C1", alpha=0.15)
    depth.set_ylim(-1000, 0)
    depth.set_ylabel("basin floor (m)")
    a.legend(loc="upper right")
    a.set_title("(a) the basin's amplification")
    b.plot(x, duration_basin, "o-", color="C3", label="with the basin")
    b.plot(x, duration_rock, "s-", color="0.5", label="granite alone")
    b.set_xlabel("geophone offset x (m)")
    b.set_ylabel("shaking above 10% of the peak (s)")
    b.legend()
    b.set_title("(b) duration of shaking")
    fig.tight_layout()
    fig.savefig(os.path.join(args.output, "amplification.png"), dpi=120)


if __name__ == "__main__":
    main()
