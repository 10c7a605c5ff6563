#!/usr/bin/python3
"""The echoes in the probe's A-scan against ray theory, for examples/immersion-2d.

Reads /histories/probe from a result file of model.toml, takes the pressure's envelope (the
magnitude of its analytic signal, by FFT), finds its peak in a window around each echo's ray-theory
time and prints the two side by side; exits 1 when an echo is missing (its peak under 1% of the
front wall's) or more than a tenth of a burst away from its ray time.

Ray theory at normal incidence: the water path d_w = 4 mm at c_w = 1480 m/s, the steel's P speed
c_p = 6001 m/s (E 210 GPa, nu 0.3, rho 7850), the hole's top 4.25 mm below the front wall, the back
wall 8 mm. The burst's envelope peaks 2.5 cycles (0.5 us) after it starts.

Usage: arrivals.py RESULT.h5
"""
import sys

import h5py
import numpy as np

C_W, C_P = 1480.0, 6001.0
WATER, HOLE_TOP, THICKNESS = 4e-3, 4.25e-3, 8e-3
BURST = 5 / 5e6   # s: the tone burst's length
PEAK = BURST / 2  # s: its envelope's peak after its start
ECHOES = (("front wall", 2 * WATER / C_W),
          ("hole", 2 * WATER / C_W + 2 * HOLE_TOP / C_P),
          ("back wall", 2 * WATER / C_W + 2 * THICKNESS / C_P))


def envelope(values):
    n = len(values)
    spectrum = np.fft.fft(values)
    weights = np.zeros(n)
    weights[0] = 1.0
    weights[1:(n + 1) // 2] = 2.0
    if n % 2 == 0:
        weights[n // 2] = 1.0
    return np.abs(np.fft.ifft(spectrum * weights))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with h5py.File(sys.argv[1], "r") as f:
        probe = f["histories/probe"]
        t = probe["time"][:]
        p = probe["values"][:, 0, 0, 0]
    e = envelope(p)
    first = None
    failed = False
    print(f"{'echo':12s} {'ray theory':>12s} {'A-scan':>10s} {'peak, Pa':>10s}")
    for name, start in ECHOES:
        expected = start + PEAK
        window = (t > expected - 0.5 * BURST) & (t < expected + 0.5 * BURST)
        if not window.any():
            print(f"{name:12s} {expected * 1e6:10.3f} us  (after the run's end)")
            failed = True
            continue
        k = np.flatnonzero(window)[np.argmax(e[window])]
        first = first or e[k]
        late = abs(t[k] - expected) > 0.1 * BURST
        weak = e[k] < 0.01 * first
        failed |= late or weak
        print(f"{name:12s} {expected * 1e6:10.3f} us {t[k] * 1e6:8.3f} us {e[k]:10.4g}"
              + ("  (late or early)" if late else "") + ("  (missing)" if weak else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
