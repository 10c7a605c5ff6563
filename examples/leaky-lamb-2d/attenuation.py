#!/usr/bin/python3
"""The leaky A0 mode's decay and speed against the root of its dispersion relation, for
examples/leaky-lamb-2d.

Reads /histories/x14 and /histories/x22 from a result file of model.toml: the vertical
displacement through the plate at 14 and 22 mm. Takes the antisymmetric part (the mean of the two
faces' u_y), its Fourier transform at 1 MHz through a Hann window 8 us long centred on the burst as
A0 carries it (and cut before the water's own wave from the source arrives, at x / c_f), and from
the two spectra the attenuation alpha = ln(|U14| / |U22|) / 8 mm and the phase velocity. Prints
them beside the leaky root; exits 1 when alpha is more than 5% off it.

The root: k = k' + i alpha at 1 MHz of the Rayleigh-Lamb equation of a plate loaded by a fluid on
both faces (antisymmetric potentials phi = A sinh(q y), psi = B cosh(s y) in the plate, a wave
radiating away in the water; the normal displacement continuous, sigma_yy = -p and sigma_xy = 0 at
the faces), followed by Newton's method from the free plate's A0 as the fluid's density rises from
0 to the water's.

Usage: attenuation.py RESULT.h5
"""
import sys

import h5py
import numpy as np

C_P, C_S, RHO_S = 6320.0, 3130.0, 2700.0   # aluminium
C_F, RHO_F = 1480.0, 1000.0                # water
D = 0.5e-3                                 # m: half the thickness
F0, CYCLES = 1e6, 4
X1, X2 = 14e-3, 22e-3


def secular(k, w, rho_f):
    """The determinant of the three conditions at y = d in (A, B, F)."""
    mu = RHO_S * C_S ** 2
    lam = RHO_S * C_P ** 2 - 2 * mu
    q = np.sqrt(k * k - w * w / C_P ** 2 + 0j)
    s = np.sqrt(k * k - w * w / C_S ** 2 + 0j)
    k_f = np.sqrt(w * w / C_F ** 2 - k * k + 0j)  # principal root: outgoing
    m = np.array([[q * np.cosh(q * D), -1j * k * np.cosh(s * D), -1j * k_f],
                  [(-lam * w * w / C_P ** 2 + 2 * mu * q * q) * np.sinh(q * D), -2j * mu * k * s * np.sinh(s * D),
                   rho_f * w * w],
                  [2j * k * q * np.cosh(q * D), (s * s + k * k) * np.cosh(s * D), 0.0]])
    return np.linalg.det(m)


def newton(k, w, rho_f):
    for _ in range(100):
        h = 1e-7 * abs(k)
        dk = secular(k, w, rho_f) / ((secular(k + h, w, rho_f) - secular(k - h, w, rho_f)) / (2 * h))
        k -= dk
        if abs(dk) < 1e-13 * abs(k):
            break
    return k


def leaky_a0(w):
    """The free plate's A0 (the last sign change of the Rayleigh-Lamb function, scanning k down
    from 8 w / c_S), then the water's density added in 40 steps."""
    def rayleigh_lamb(k):
        q, s = np.sqrt(k * k - w * w / C_P ** 2), np.sqrt(k * k - w * w / C_S ** 2)
        return (k * k + s * s) ** 2 * np.tanh(q * D) - 4 * k * k * q * s * np.tanh(s * D)
    ks = np.linspace(8 * w / C_S, w / C_S * (1 + 1e-9), 4001)
    values = rayleigh_lamb(ks)
    i = np.flatnonzero(np.sign(values[1:]) != np.sign(values[0]))[0]
    k = complex(ks[i])
    for rho in np.linspace(0.0, RHO_F, 41):
        k = newton(k, w, rho)
    return k


def spectrum(path, name, x, group_velocity):
    with h5py.File(path, "r") as f:
        h = f[f"histories/{name}"]
        t = h["time"][:]
        values = h["values"][:, :, 0, 1]  # u_y at each node through the thickness
        y = f["mesh/coordinates"][h["node_indices"][:], 1]
    a = 0.5 * (values[:, np.argmax(y)] + values[:, np.argmin(y)])
    r = (t - (x / group_velocity + CYCLES / 2 / F0)) / (8 / F0) + 0.5
    window = np.where((r > 0) & (r < 1) & (t <= x / C_F), np.sin(np.pi * r) ** 2, 0.0)
    return np.sum(a * window * np.exp(-2j * np.pi * F0 * t)) * (t[1] - t[0])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    w = 2 * np.pi * F0
    k = leaky_a0(w)
    dw = 1e-4 * w
    group_velocity = 2 * dw / (leaky_a0(w + dw) - leaky_a0(w - dw)).real
    u1 = spectrum(sys.argv[1], "x14", X1, group_velocity)
    u2 = spectrum(sys.argv[1], "x22", X2, group_velocity)
    alpha = np.log(abs(u1) / abs(u2)) / (X2 - X1)
    phase = np.angle(u1 / u2)
    turns = np.round((k.real * (X2 - X1) - phase) / (2 * np.pi))  # whole turns: the root's
    speed = w * (X2 - X1) / (phase + 2 * np.pi * turns)
    print(f"{'':24s} {'measured':>10s} {'leaky root':>11s} {'error':>8s}")
    print(f"{'attenuation, Np/m':24s} {alpha:10.2f} {k.imag:11.2f} {100 * (alpha / k.imag - 1):+7.2f}%")
    print(f"{'attenuation, dB/mm':24s} {alpha * 20 / np.log(10) / 1e3:10.3f} {k.imag * 20 / np.log(10) / 1e3:11.3f}")
    print(f"{'phase velocity, m/s':24s} {speed:10.1f} {w / k.real:11.1f} {100 * (speed * k.real / w - 1):+7.2f}%")
    print(f"(group velocity {group_velocity:.0f} m/s; the free plate's A0 {w / newton(k, w, 0.0).real:.1f} m/s)")
    if abs(alpha / k.imag - 1) > 0.05:
        sys.exit("the attenuation is more than 5% off the leaky root")


if __name__ == "__main__":
    main()
