#!/usr/bin/python3
"""Overlay the geophone traces of the attenuating and the elastic run of the layered half-space.

    examples/seismic-attenuation-2d/plot_comparison.py ATTENUATING.h5 ELASTIC.h5 [-o DIR]

Reads /histories/geophones of both result files (docs/output-format.md) with h5py and writes:

- DIR/traces.png: the vertical and horizontal velocity at each geophone, as a record section;
  each pair of traces is scaled by the elastic trace's peak, and the attenuating trace's peak
  against it is written beside it;
- DIR/attenuation.png: (a) that peak ratio against offset, for the whole trace (the surface wave)
  and for the first arrivals alone; (b) the spectral ratio |V_att(f) / V_el(f)| of the surface
  wave (vertical velocity, the same tapered window in both runs) at four offsets, in dB, against
  exp(-pi f x / (Q c)); (c) the change of phase velocity that the phase of that ratio gives, against
  ln(f / f_r) / (pi Q); (d) the surface wave at the farthest geophone, each run scaled to its own
  peak.

It also prints, per geophone, the peak ratios and the surface wave's centre frequency and RMS
duration in each run; and per frequency the Q and the change of phase velocity that the spectral
ratios' growth with offset give. Needs numpy, h5py and matplotlib (Debian's python3-h5py and
python3-matplotlib).
"""
import argparse
import os

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

F_R = 8.0               # Hz: the Ricker's peak, the reference frequency of model.toml's speeds
T0 = 1.5 / F_R          # s: the Ricker's centre
Q_S = 30.0              # the sediment's Q_S in model.toml, for the reference curves
SURFACE_SPEED = 740.0   # m/s: the surface wave's speed, from its peaks in the elastic run
FIRST_SPEED = 1200.0    # m/s: what arrives before t0 + offset / this is taken as "first arrivals"


def read(path):
    with h5py.File(path, "r") as f:
        g = f["histories/geophones"]
        quantities = [q.decode() if isinstance(q, bytes) else q for q in g.attrs["quantities"]]
        v = g["values"][:, :, quantities.index("velocity"), :]  # [sample][geophone][x, y]
        return g["time"][:], v, g["positions"][:, 0]


def envelope(x):
    """|analytic signal| of x, by the FFT (the Hilbert transform without scipy)."""
    n = len(x)
    h = np.zeros(n)
    h[0] = 1.0
    h[1:(n + 1) // 2] = 2.0
    if n % 2 == 0:
        h[n // 2] = 1.0
    return np.abs(np.fft.ifft(np.fft.fft(x) * h))


def surface_window(t, x, ramp=0.1):
    """A window over the surface wave at offset x, from 0.25 s before its arrival at
    SURFACE_SPEED to 0.5 s after it (its dispersed tail), with cosine ramps of 0.1 s."""
    a, b = T0 + x / SURFACE_SPEED - 0.25, T0 + x / SURFACE_SPEED + 0.5
    w = ((t >= a) & (t <= b)).astype(float)
    up, down = (t >= a) & (t < a + ramp), (t > b - ramp) & (t <= b)
    w[up] = 0.5 - 0.5 * np.cos(np.pi * (t[up] - a) / ramp)
    w[down] = 0.5 - 0.5 * np.cos(np.pi * (b - t[down]) / ramp)
    return w


def centre_frequency_and_duration(t, u):
    """The centroid of the energy spectrum and the RMS duration of the envelope's energy."""
    e2 = envelope(u) ** 2
    tc = (t * e2).sum() / e2.sum()
    duration = np.sqrt(((t - tc) ** 2 * e2).sum() / e2.sum())
    spectrum = np.abs(np.fft.rfft(u, 8192)) ** 2
    f = np.fft.rfftfreq(8192, t[1] - t[0])
    return (f * spectrum).sum() / spectrum.sum(), duration


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("attenuating", help="result file of model.toml")
    parser.add_argument("elastic", help="result file of elastic.toml")
    parser.add_argument("-o", "--out", default=".", help="folder for the PNG files (default: .)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    t, va, offsets = read(args.attenuating)
    te, ve, _ = read(args.elastic)
    n = min(len(t), len(te))
    if not np.allclose(t[:n], te[:n]):
        raise SystemExit("the two runs sample different times: give both models the same time_step")
    t, va, ve = t[:n], va[:n], ve[:n]
    spacing = np.diff(offsets).min()

    # Per geophone: peak ratios; the surface wave's centre frequency and duration in each run.
    rows = []
    print(f"{'offset':>7} {'peak ratio':>10} {'first':>6}   {'f_c el':>8} {'f_c att':>8}   "
          f"{'dur el':>7} {'dur att':>7}")
    for i, x in enumerate(offsets):
        a, e = va[:, i, 1], ve[:, i, 1]
        first = t < T0 + x / FIRST_SPEED
        w = surface_window(t, x)
        fc_e, du_e = centre_frequency_and_duration(t, e * w)
        fc_a, du_a = centre_frequency_and_duration(t, a * w)
        rows.append(dict(peak=np.abs(a).max() / np.abs(e).max(),
                         first=np.abs(a[first]).max() / np.abs(e[first]).max(),
                         fc_e=fc_e, fc_a=fc_a, du_e=du_e, du_a=du_a))
        r = rows[-1]
        print(f"{x:5.0f} m {r['peak']:10.3f} {r['first']:6.3f}   {fc_e:5.2f} Hz {fc_a:5.2f} Hz   "
              f"{du_e * 1e3:4.0f} ms {du_a * 1e3:4.0f} ms")

    # Spectral ratios of the windowed surface wave (vertical velocity). With V ~ exp(-i k x),
    # ln |V_att / V_el| = -pi f x / (Q c) and arg(V_att / V_el) = -2 pi f x (1/c_att - 1/c_el):
    # their slopes along the offset give Q and the change of phase velocity at each frequency.
    nfft = 8192
    f = np.fft.rfftfreq(nfft, t[1] - t[0])
    ratio = np.array([np.fft.rfft(va[:, i, 1] * surface_window(t, x), nfft)
                      / np.fft.rfft(ve[:, i, 1] * surface_window(t, x), nfft) for i, x in enumerate(offsets)])
    fit = np.flatnonzero((f >= 5.0) & (f <= 18.0))
    q_fit, dc_fit = [], []
    for k in fit:
        q_fit.append(-np.pi * f[k] / (SURFACE_SPEED * np.polyfit(offsets, np.log(np.abs(ratio[:, k])), 1)[0]))
        # numpy's FFT of a delay tau is exp(-2 pi i f tau): the phase grows as -2 pi f (tau_att - tau_el)
        phase_slope = np.polyfit(offsets, np.unwrap(np.angle(ratio[:, k])), 1)[0]
        dc_fit.append(phase_slope / (2 * np.pi * f[k]) * SURFACE_SPEED)
    q_fit, dc_fit = np.array(q_fit), np.array(dc_fit)
    print(f"from the spectral ratios' slopes along the offset (surface wave speed {SURFACE_SPEED:.0f} m/s):")
    for fk in (5.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0):
        j = np.argmin(np.abs(f[fit] - fk))
        print(f"  {f[fit][j]:5.1f} Hz  Q {q_fit[j]:5.1f}   phase velocity {100 * dc_fit[j]:+.2f}%"
              f"   (ln(f / {F_R:.0f} Hz) / (pi {Q_S:.0f}): {100 * np.log(f[fit][j] / F_R) / (np.pi * Q_S):+.2f}%)")

    # traces.png: the record sections.
    fig, axes = plt.subplots(1, 2, figsize=(11, 6.5), sharey=True)
    for ax, c, name in ((axes[0], 1, "vertical velocity $v_y$"), (axes[1], 0, "horizontal velocity $v_x$")):
        for i, x in enumerate(offsets):
            scale = 0.45 * spacing / np.abs(ve[:, i, c]).max()
            ax.plot(t, x + scale * ve[:, i, c], color="k", lw=0.7, label="elastic" if i == 0 else None)
            ax.plot(t, x + scale * va[:, i, c], color="tab:red", lw=0.8,
                    label="attenuating" if i == 0 else None)
            ax.text(t[-1], x, f" x{np.abs(va[:, i, c]).max() / np.abs(ve[:, i, c]).max():.2f}",
                    va="center", fontsize=8, color="tab:red")
        ax.plot(T0 + offsets / SURFACE_SPEED, offsets, ":", color="tab:blue", lw=1,
                label=f"{SURFACE_SPEED:.0f} m/s")
        ax.set_title(name)
        ax.set_xlabel("time (s)")
        ax.set_xlim(0, t[-1] * 1.08)
    axes[0].set_ylabel("offset (m); each pair scaled by the elastic trace's peak")
    axes[0].set_ylim(offsets[0] - spacing, offsets[-1] + spacing)
    axes[0].invert_yaxis()
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle("geophones: elastic (black) and attenuating (red); red numbers: the peaks' ratio")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "traces.png"), dpi=80)
    plt.close(fig)
    print(os.path.join(args.out, "traces.png"))

    # attenuation.png
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    ax = axes[0, 0]
    ax.plot(offsets, [r["peak"] for r in rows], "o-", color="tab:red", label="whole trace: the surface wave")
    ax.plot(offsets, [r["first"] for r in rows], "s--", color="tab:gray",
            label=f"first arrivals (before offset / {FIRST_SPEED:.0f} m/s)")
    ax.set_xlabel("offset (m)")
    ax.set_ylabel("peak $|v_y|$, attenuating / elastic")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("(a) amplitude against offset")

    ax = axes[0, 1]
    band = (f >= 2.0) & (f <= 20.0)
    chosen = [i for i in range(len(offsets)) if i % 2 == 1]
    colours = plt.cm.viridis(np.linspace(0, 0.85, len(chosen)))
    for colour, i in zip(colours, chosen):
        x = offsets[i]
        ax.plot(f[band], 20 * np.log10(np.abs(ratio[i, band])), color=colour, lw=1.2, label=f"{x:.0f} m")
        ax.plot(f[band], -20 / np.log(10) * np.pi * f[band] * x / (Q_S * SURFACE_SPEED), "--", color=colour, lw=0.8)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("|V_att / V_el| (dB)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left", title="surface wave at", title_fontsize=8)
    ax.set_title(f"(b) spectral ratio; dashed: exp(-pi f x / ({Q_S:.0f} x {SURFACE_SPEED:.0f} m/s))", fontsize=10)

    ax = axes[1, 0]
    ax.plot(f[fit], 100 * dc_fit, color="tab:red", lw=1.5, label="from the phase of the spectral ratios")
    ff = np.linspace(f[fit][0], f[fit][-1], 100)
    ax.plot(ff, 100 * np.log(ff / F_R) / (np.pi * Q_S), "k--", lw=1,
            label=f"ln(f / {F_R:.0f} Hz) / ({Q_S:.0f} pi), constant Q")
    ax.axhline(0, color="gray", lw=0.5)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("phase velocity, attenuating / elastic - 1 (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("(c) velocity dispersion of the surface wave")

    ax = axes[1, 1]
    i = len(offsets) - 1
    w = surface_window(t, offsets[i]) > 0
    for u, colour, label, key in ((ve[:, i, 1], "k", "elastic", "_e"), (va[:, i, 1], "tab:red", "attenuating", "_a")):
        r = rows[i]
        ax.plot(t[w], u[w] / np.abs(u[w]).max(), color=colour, lw=1,
                label=f"{label}: centre {r['fc' + key]:.1f} Hz, RMS duration {r['du' + key] * 1e3:.0f} ms")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("$v_y$ / its peak")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(f"(d) the surface wave at {offsets[i]:.0f} m, each scaled to its peak")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "attenuation.png"), dpi=80)
    plt.close(fig)
    print(os.path.join(args.out, "attenuation.png"))


if __name__ == "__main__":
    main()
