"""The foundation's vertical dynamic stiffness over the static one against Luco & Westmann's.

Run the models first (from the repository root), then plot what they wrote:

    build/bin/tremor bem examples/bem-foundation/disc.toml -o disc.h5
    build/bin/tremor bem examples/bem-foundation/large.toml -o large.h5    # on a GPU
    python3 examples/bem-foundation/plot.py disc.h5 large.h5 -o stiffness.png

Each file is `tremor bem`'s HDF5 result (docs/output-format.md, /bem). The foundation is the set
of elements whose z displacement is prescribed; its radius a is its corners' farthest from its
centre, the static stiffness 4 G a / (1 - nu) from the soil's moduli in the file's /bem
attributes, and a0 = omega a / c_s. K = F_z / u_z, F_z the force on the set (the file's first), u_z the
prescribed displacement. The reference is Luco & Westmann's (1971) integral equation for a rigid
disc in relaxed contact with a half-space of nu = 1/3 and 5% hysteretic damping, solved in
tests/verification/bem_foundation_test.cpp (BemFoundation.RigidDiscMatchesLucoWestmann).
"""
import argparse
import math
import os

import numpy as np

# Luco & Westmann (1971), nu = 1/3, damping ratio 0.05: a0 -> K / K_static
# (tests/verification/bem_foundation_test.cpp).
LUCO_WESTMANN = {
    0.5: 0.9496 + 0.4969j,
    1.0: 0.8453 + 0.9236j,
    1.5: 0.7106 + 1.4039j,
    2.0: 0.5824 + 1.9434j,
}


def stiffness(path):
    """a0 and K / K_static per frequency of one result file, and the file's element count."""
    import h5py

    with h5py.File(path, "r") as file:
        bem = file["bem"]
        density = float(bem.attrs["density"])
        shear = float(bem.attrs["shear_modulus"])
        lame = float(bem.attrs["lame_lambda"])
        if not (density > 0 and shear > 0):
            raise SystemExit(f"{path}: /bem density {density}, shear_modulus {shear}: expected positive numbers")
        nu = lame / (2.0 * (lame + shear))
        prescribed = bem["elements/prescribed"][:]
        foundation = prescribed[:, 2] == 1
        if not foundation.any():
            raise SystemExit(f"{path}: no element has a prescribed z displacement (the foundation)")
        # The rim's vertices lie on the circle (the generator's O-grid): the farthest from the centre.
        corners = file["mesh/coordinates"][:][np.unique(bem["elements/connectivity"][:][foundation])]
        radius = float(np.linalg.norm(corners[:, :2] - corners[:, :2].mean(axis=0), axis=1).max())
        frequency = bem["frequency"][:]
        force = bem["force_real"][:, 0, 2] + 1j * bem["force_imag"][:, 0, 2]
        uz = bem["displacement_real"][:, :, 2][:, foundation].mean(axis=1)
        n_elements = int(bem.attrs["n_elements"])
    static = 4.0 * shear * radius / (1.0 - nu)
    a0 = 2.0 * math.pi * frequency * radius / math.sqrt(shear / density)
    return a0, force / uz / static, n_elements


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="tremor bem result files (.h5)")
    parser.add_argument("-o", "--output", default="stiffness.png")
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    reference = np.array(sorted(LUCO_WESTMANN))
    values = np.array([LUCO_WESTMANN[a] for a in reference])
    for part, axis, name in ((np.real, axes[0], "Re K / K_static"), (np.imag, axes[1], "Im K / K_static")):
        axis.plot(reference, part(values), "ko", markersize=7, fillstyle="none", label="Luco & Westmann (1971)")
        axis.set_xlabel("a0 = omega a / c_s")
        axis.set_ylabel(name)
        axis.grid(alpha=0.3)
    for path in args.results:
        a0, k, n = stiffness(path)
        label = f"{os.path.basename(path)}: {n:,} elements"
        for part, axis in ((np.real, axes[0]), (np.imag, axes[1])):
            axis.plot(a0, part(k), "x-", label=label)
        for a, value in zip(a0, k):
            nearest = min(LUCO_WESTMANN, key=lambda r: abs(r - a))
            ref = LUCO_WESTMANN[nearest]
            note = ""
            if abs(nearest - a) < 0.01:
                note = f"  ({100 * (value.real / ref.real - 1):+.1f}%, {100 * (value.imag / ref.imag - 1):+.1f}%)"
            print(f"{path}: a0 {a:.3f}: K / K_static = {value.real:.4f} {value.imag:+.4f}i{note}")
    axes[0].legend(fontsize=8)
    figure.suptitle("Rigid circular foundation on a half-space (nu = 1/3, 5% damping): vertical stiffness")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
