#!/usr/bin/python3
"""The event's SAC traces, the basin's against the crust's alone.

    examples/quake-basin-3d/plot_quake.py BASIN_SAC_DIR ROCK_SAC_DIR [-o DIR]

Reads the SAC files `tremor export --format sac` wrote (quake.<NET>.<STA>.v<axis>.sac) with a
reader of SAC's binary header written here (NVHDR 6: 70 floats, 40 integers, 8-character
strings), their station and event from the headers (KSTNM, KNETWK, STLA/STLO: the station's y and
x in the model's frame; EVLA/EVLO the event's; KEVNM its name), and writes:

- DIR/map.png: the basin's outline (its depth from make_field.py), the stations and the epicentre;
- DIR/section.png: the vertical velocity along the line of stations (y = 8 km) against x, the
  basin's run over the crust's, every trace scaled by the crust's largest peak, and each
  station's peak ground velocity (the horizontal and vertical components' magnitude) in both.

It prints each station's peak ground velocity in both runs and their ratio. Needs numpy and
matplotlib (Debian's python3-matplotlib)."""
import argparse
import glob
import os
import struct
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_field import floor  # noqa: E402  (the basin's outline, as the field was written)


def read_sac(path):
    data = open(path, "rb").read()
    floats = struct.unpack_from("<70f", data, 0)
    ints = struct.unpack_from("<40i", data, 280)
    text = data[440:632].decode("ascii")
    npts = ints[9]
    header = {"delta": floats[0], "b": floats[5], "stla": floats[31], "stlo": floats[32], "evla": floats[35],
              "evlo": floats[36], "evel": floats[37], "kstnm": text[0:8].strip(), "kevnm": text[8:24].strip(),
              "knetwk": text[168:176].strip()}
    return header, np.frombuffer(data, "<f4", npts, 632).astype(float)


def read_dir(folder):
    """{station: (header, {axis: samples})} of the quake.* traces in `folder`."""
    stations = {}
    for path in sorted(glob.glob(os.path.join(folder, "quake.*.v[xyz].sac"))):
        header, y = read_sac(path)
        axis = path[-5]
        stations.setdefault(header["kstnm"], (header, {}))[1][axis] = y
    if not stations:
        sys.exit(f"{folder}: no quake.*.sac traces (tremor export RESULT -o {folder} --format sac)")
    return stations


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("basin")
    parser.add_argument("rock")
    parser.add_argument("-o", "--output", default=".")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    basin, rock = read_dir(args.basin), read_dir(args.rock)
    some = next(iter(basin.values()))[0]
    epicentre = (some["evlo"], some["evla"])

    # The map.
    fig, ax = plt.subplots(figsize=(5.5, 5.0), constrained_layout=True)
    x = np.linspace(0.0, 16000.0, 321)
    X, Y = np.meshgrid(x, x)
    depth = -floor(X, Y)
    levels = [1.0, 300.0, 600.0, 900.0, 1200.0]
    c = ax.contourf(X / 1e3, Y / 1e3, depth, levels=levels, cmap="YlOrBr")
    fig.colorbar(c, ax=ax, label="basin depth (m)")
    for name, (h, _) in basin.items():
        ax.plot(h["stlo"] / 1e3, h["stla"] / 1e3, "v", color="k")
        ax.annotate(name, (h["stlo"] / 1e3, h["stla"] / 1e3), textcoords="offset points", xytext=(0, 6), fontsize=7,
                    ha="center")
    ax.plot(epicentre[0] / 1e3, epicentre[1] / 1e3, "*", color="r", markersize=14)
    ax.annotate(f"{some['kevnm']} ({-some['evel'] / 1e3:.0f} km deep)", (epicentre[0] / 1e3, epicentre[1] / 1e3),
                textcoords="offset points", xytext=(6, -12), fontsize=8, color="r")
    ax.set_xlim(0, 16)
    ax.set_ylim(0, 16)
    ax.set_xlabel("x, east (km)")
    ax.set_ylabel("y, north (km)")
    ax.set_title("stations and the epicentre")
    fig.savefig(os.path.join(args.output, "map.png"), dpi=120)

    # The record section along y = 8 km and the peak ground velocities.
    line = sorted((h["stlo"], name) for name, (h, _) in basin.items() if abs(h["stla"] - 8000.0) < 1.0)
    scale = max(np.abs(rock[name][1]["z"]).max() for _, name in line)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.0, 8.0), constrained_layout=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
    spacing = 1.0  # km between traces
    print("station  x (km)  PGV basin (mm/s)  PGV crust (mm/s)  ratio")
    xs, ratios, pgv_b, pgv_r = [], [], [], []
    for xk, name in line:
        hb, vb = basin[name]
        hr, vr = rock[name]
        t = hb["b"] + hb["delta"] * np.arange(len(vb["z"]))
        top.plot(t, xk / 1e3 + 0.9 * spacing * vr["z"] / scale, color="0.55", lw=1.0)
        top.plot(t, xk / 1e3 + 0.9 * spacing * vb["z"] / scale, color="C3", lw=1.0)
        pb = np.sqrt(vb["x"] ** 2 + vb["y"] ** 2 + vb["z"] ** 2).max()
        pr = np.sqrt(vr["x"] ** 2 + vr["y"] ** 2 + vr["z"] ** 2).max()
        xs.append(xk / 1e3)
        pgv_b.append(1e3 * pb)
        pgv_r.append(1e3 * pr)
        ratios.append(pb / pr)
        print(f"{name:7s}  {xk / 1e3:6.1f}  {1e3 * pb:16.3f}  {1e3 * pr:16.3f}  {pb / pr:5.2f}")
    for edge in (10000.0 - 3500.0, 10000.0 + 3500.0):
        top.axhline(edge / 1e3, color="C1", ls=":", lw=1)
    top.plot([], [], color="C3", label="with the basin")
    top.plot([], [], color="0.55", label="crust alone")
    top.set_xlabel("time (s)")
    top.set_ylabel("station x (km): vertical velocity")
    top.set_title("vertical velocity along y = 8 km (the basin between the dotted lines)")
    top.legend(loc="upper left", fontsize=8)
    bottom.plot(xs, pgv_b, "o-", color="C3", label="with the basin")
    bottom.plot(xs, pgv_r, "o-", color="0.55", label="crust alone")
    bottom.axvspan(6.5, 13.5, color="C1", alpha=0.15, label="basin")
    bottom.set_xlabel("station x (km)")
    bottom.set_ylabel("peak ground velocity (mm/s)")
    bottom.legend(fontsize=8)
    fig.savefig(os.path.join(args.output, "section.png"), dpi=120)


if __name__ == "__main__":
    main()
