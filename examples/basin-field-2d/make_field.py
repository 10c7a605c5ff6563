#!/usr/bin/python3
"""Writes basin.h5, the material field of model.toml: a sedimentary basin in granite, on a grid of
20 m (x from -200 to 2200 m, y from -600 m to the surface at 0), in the layout tremor reads
(docs/model-file.md, "Material fields"): 1D datasets x and y, and vp, vs, rho, q_p and q_s of
shape (ny, nx), float32.

The basin is a bowl 1400 m wide and 300 m deep under x = 1000 m. Its sediment stiffens with
depth d below the surface: c_s = 350 + 1.0 d m/s, c_p = 1800 + 2.0 d m/s, rho = 1900 kg/m^3,
Q_S 25 and Q_P 50; the granite around it has c_p 4500, c_s 2600 m/s, rho 2650, Q_P 400, Q_S 200.

    examples/basin-field-2d/make_field.py [-o basin.h5]

Needs numpy and h5py (Debian's python3-h5py)."""
import argparse
import os

import h5py
import numpy as np

CENTRE, HALF_WIDTH, DEPTH = 1000.0, 700.0, 300.0   # m: the bowl


def floor(x):
    """The basin's floor (y, m) under x: a parabola, the surface (0) outside the bowl."""
    s = np.clip(1.0 - ((x - CENTRE) / HALF_WIDTH) ** 2, 0.0, None)
    return -DEPTH * s


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "basin.h5"))
    args = parser.parse_args()
    x = np.arange(-200.0, 2200.0 + 1.0, 20.0)
    y = np.arange(-600.0, 0.0 + 1.0, 20.0)
    Y, X = np.meshgrid(y, x, indexing="ij")  # (ny, nx): x varies fastest
    sediment = Y > floor(X)
    d = -Y
    vp = np.where(sediment, 1800.0 + 2.0 * d, 4500.0)
    vs = np.where(sediment, 350.0 + 1.0 * d, 2600.0)
    rho = np.where(sediment, 1900.0, 2650.0)
    q_p = np.where(sediment, 50.0, 400.0)
    q_s = np.where(sediment, 25.0, 200.0)
    with h5py.File(args.output, "w") as f:
        f["x"] = x
        f["y"] = y
        for name, values in (("vp", vp), ("vs", vs), ("rho", rho), ("q_p", q_p), ("q_s", q_s)):
            f[name] = values.astype(np.float32)
    print(f"{args.output}: {len(x)} x {len(y)} points, {int(sediment.sum())} of them in the basin")


if __name__ == "__main__":
    main()
