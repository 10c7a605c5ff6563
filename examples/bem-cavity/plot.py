"""The cavity's interior displacements against the analytic solution, per element type.

Run the model with each element type first (from the repository root):

    for e in constant linear quadratic; do
      build/bin/tremor bem examples/bem-cavity/model.toml --elements $e -o cavity-$e.h5 --csv cavity-$e.csv
    done
    python3 examples/bem-cavity/plot.py cavity-constant.csv cavity-linear.csv cavity-quadratic.csv -o cavity.png

Each CSV is `tremor bem --csv`'s (a row per frequency and interior point). The analytic radial
displacement is the README's: u_r(r) = A f'(r), f(r) = exp(-i k_p r) / r, A from sigma_rr(a) = -p,
moduli times 1 + 2 i beta.
"""
import argparse
import csv
import math
import os

import numpy as np

RADIUS, PRESSURE = 1.0, 1.0e5
DENSITY, LAME, SHEAR, BETA = 2000.0, 1.0e8, 1.0e8, 0.05


def analytic_radial(r, frequency):
    omega = 2.0 * math.pi * frequency
    lam, mu = LAME * (1 + 2j * BETA), SHEAR * (1 + 2j * BETA)
    kp = omega * np.sqrt(DENSITY / (lam + 2 * mu))
    if kp.imag > 0:
        kp = -kp  # Im k_p < 0: the wave decays outwards (time factor exp(i omega t))
    f = lambda x: np.exp(-1j * kp * x) / x
    df = lambda x: -(1j * kp + 1.0 / x) * f(x)
    amplitude = -PRESSURE / (-4 * mu * df(RADIUS) / RADIUS - DENSITY * omega**2 * f(RADIUS))
    return amplitude * df(r)


def read(path):
    rows = {}
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            x = np.array([float(row["x"]), float(row["y"]), float(row["z"])])
            u = np.array([complex(float(row[f"u{c}_re"]), float(row[f"u{c}_im"])) for c in "xyz"])
            r = float(np.linalg.norm(x))
            rows.setdefault(float(row["frequency"]), []).append((r, u @ (x / r)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="tremor bem --csv files, one per element type")
    parser.add_argument("-o", "--output", default="cavity.png")
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {os.path.splitext(os.path.basename(p))[0].split("-")[-1]: read(p) for p in args.csv}
    frequencies = sorted(next(iter(runs.values())))
    figure, axes = plt.subplots(2, len(frequencies), figsize=(5.5 * len(frequencies), 7), squeeze=False)
    for column, frequency in enumerate(frequencies):
        dense_r = np.linspace(1.5, 4.0, 200)
        exact = analytic_radial(dense_r, frequency)
        top, bottom = axes[0][column], axes[1][column]
        top.plot(dense_r, np.abs(exact) * 1e6, "k-", label="analytic")
        for name, run in runs.items():
            r = np.array([p[0] for p in run[frequency]])
            u = np.array([p[1] for p in run[frequency]])
            error = np.abs(u - analytic_radial(r, frequency)) / np.abs(analytic_radial(r, frequency))
            top.plot(r, np.abs(u) * 1e6, "o", label=name)
            bottom.semilogy(r, error * 100, "o-", label=name)
            print(f"{name:10s} {frequency:5g} Hz: error {100 * error.min():.2f}% .. {100 * error.max():.2f}%")
        top.set_title(f"{frequency:g} Hz")
        top.set_ylabel("|u_r| (um)")
        bottom.set_ylabel("|u - u_analytic| / |u_analytic| (%)")
        bottom.set_xlabel("r / a")
        top.legend()
        bottom.legend()
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
