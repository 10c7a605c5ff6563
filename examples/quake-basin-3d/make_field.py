#!/usr/bin/python3
"""Writes basin.h5, the material field of model.toml: a sedimentary basin in a crust, on a grid of
250 m (x, y from 0 to 16 km, z from -6 km to the surface at 0), in the layout tremor reads
(docs/model-file.md, "Material fields"): 1D datasets x, y and z, and vp, vs and rho of shape
(nz, ny, nx), float32 (gzip-compressed: HDF5 reads it as it is).

The basin is an elliptical bowl 7 km along x and 5 km along y, 1.2 km deep at its centre
(10 km, 8 km). Its sediment stiffens with depth d below the surface: c_s = 1200 + 0.5 d m/s,
c_p = 2400 + 1.0 d m/s, rho = 2100 kg/m^3. The crust around it: c_p 6000, c_s 3460 m/s,
rho 2700 kg/m^3 above 3 km depth, and 6400, 3700 m/s, 2800 kg/m^3 below.

    examples/quake-basin-3d/make_field.py [-o basin.h5]

Needs numpy and h5py (Debian's python3-h5py)."""
import argparse
import os

import h5py
import numpy as np

CENTRE = (10000.0, 8000.0)             # m
HALF_AXES = (3500.0, 2500.0)           # m
DEPTH = 1200.0                         # m


def floor(x, y):
    """The basin's floor (z, m) under (x, y): an elliptic paraboloid, the surface (0) outside it."""
    s = np.clip(1.0 - ((x - CENTRE[0]) / HALF_AXES[0]) ** 2 - ((y - CENTRE[1]) / HALF_AXES[1]) ** 2, 0.0, None)
    return -DEPTH * s


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "basin.h5"))
    args = parser.parse_args()
    x = np.arange(0.0, 16000.0 + 1.0, 250.0)
    y = np.arange(0.0, 16000.0 + 1.0, 250.0)
    z = np.arange(-6000.0, 0.0 + 1.0, 250.0)
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")  # (nz, ny, nx): x varies fastest
    sediment = Z > floor(X, Y)
    d = -Z
    deep = Z < -3000.0
    vp = np.where(sediment, 2400.0 + 1.0 * d, np.where(deep, 6400.0, 6000.0))
    vs = np.where(sediment, 1200.0 + 0.5 * d, np.where(deep, 3700.0, 3460.0))
    rho = np.where(sediment, 2100.0, np.where(deep, 2800.0, 2700.0))
    with h5py.File(args.output, "w") as f:
        f["x"], f["y"], f["z"] = x, y, z
        for name, values in (("vp", vp), ("vs", vs), ("rho", rho)):
            f.create_dataset(name, data=values.astype(np.float32), compression="gzip")
    print(f"{args.output}: {len(x)} x {len(y)} x {len(z)} points, {int(sediment.sum())} of them in the basin")


if __name__ == "__main__":
    main()
