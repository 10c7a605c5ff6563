#!/usr/bin/python3
"""Overlay the A-scans of the attenuating and the elastic PMMA plate, and compare their echoes.

    examples/ndt-attenuating-plate-2d/plot_comparison.py ATTENUATING.h5 ELASTIC.h5 [-o DIR]

Reads /histories/probe of both result files (docs/output-format.md) with h5py. The A-scan is the
vertical displacement averaged over the probe's face (the trapezoidal rule over its 13 points).
Writes:

- DIR/ascan.png: the two A-scans overlaid, and their envelopes in dB against the elastic run's
  first back-wall echo;
- DIR/echoes.png: (a) the amplitude spectra of the back-wall echoes B1 to B5, each scaled to its
  own peak; (b) the spectral ratio ln |A_att(f) / A_el(f)| of each echo, against
  -pi f n 2d / (Q_P c_p); (c) B1 and B5 of the attenuating run, each scaled to its own peak and
  centred on its envelope's peak.

It also prints, per echo, its arrival (the envelope's peak) in each run, its peak-to-peak amplitude
against the elastic one, the centre frequency (the centroid of the energy spectrum), the RMS
duration, and the Q_P that the spectral ratio's slope gives. Needs numpy, h5py and matplotlib
(Debian's python3-h5py and python3-matplotlib).
"""
import argparse
import os

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

THICKNESS = 0.005       # m, the plate's
C_P = 2730.0            # m/s, the P speed of model.toml at its reference frequency
Q_P = 50.0              # model.toml's
T0 = 1.5 / 2e6          # s: the Ricker's centre (1.5 / its 2 MHz peak)
ROUND_TRIP = 2 * THICKNESS / C_P
ECHOES = 5
HALF_WINDOW = 1.5e-6    # s: each echo's window, centred on T0 + n ROUND_TRIP
NFFT = 1 << 14


def read(path):
    with h5py.File(path, "r") as f:
        g = f["histories/probe"]
        quantities = [q.decode() if isinstance(q, bytes) else q for q in g.attrs["quantities"]]
        uy = g["values"][:, :, quantities.index("displacement"), 1]  # [sample][point]
        x = g["positions"][:, 0]
        return g["time"][:], np.trapz(uy, x, axis=1) / (x[-1] - x[0])


def envelope(x):
    """|analytic signal| of x, by the FFT (the Hilbert transform without scipy)."""
    n = len(x)
    h = np.zeros(n)
    h[0] = 1.0
    h[1:(n + 1) // 2] = 2.0
    if n % 2 == 0:
        h[n // 2] = 1.0
    return np.abs(np.fft.ifft(np.fft.fft(x) * h))


def echo(t, u, n):
    """Echo n (0: the probe's own pulse) of the A-scan u: its window, Hann-tapered spectrum, and
    figures."""
    w = np.abs(t - (T0 + n * ROUND_TRIP)) < HALF_WINDOW
    seg = u[w]
    spectrum = np.abs(np.fft.rfft(seg * np.hanning(len(seg)), NFFT))
    f = np.fft.rfftfreq(NFFT, t[1] - t[0])
    e = envelope(u)[w]
    tw = t[w]
    tc = (tw * e ** 2).sum() / (e ** 2).sum()
    return dict(window=w, f=f, spectrum=spectrum, arrival=tw[e.argmax()], pp=seg.max() - seg.min(),
                centre=(f * spectrum ** 2).sum() / (spectrum ** 2).sum(),
                duration=np.sqrt(((tw - tc) ** 2 * e ** 2).sum() / (e ** 2).sum()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("attenuating", help="result file of model.toml")
    parser.add_argument("elastic", help="result file of elastic.toml")
    parser.add_argument("-o", "--out", default=".", help="folder for the PNG files (default: .)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    t, ua = read(args.attenuating)
    te, ue = read(args.elastic)
    n = min(len(t), len(te))
    if not np.allclose(t[:n], te[:n]):
        raise SystemExit("the two runs sample different times: give both models the same time_step")
    t, ua, ue = t[:n], ua[:n], ue[:n]

    print(f"{'echo':>4} {'arrival el':>11} {'att':>9}   {'p-p att/el':>10}   {'f_c el':>9} {'att':>9}   "
          f"{'dur el':>7} {'att':>7}   {'Q_P':>5}")
    att, ela, q = [], [], []
    for k in range(ECHOES + 1):
        a, e = echo(t, ua, k), echo(t, ue, k)
        att.append(a)
        ela.append(e)
        band = (a["f"] > 0.7e6) & (a["f"] < 3.0e6)
        slope = np.polyfit(a["f"][band], np.log(a["spectrum"][band] / e["spectrum"][band]), 1)[0] if k else 0
        q.append(-np.pi * k * 2 * THICKNESS / (C_P * slope) if k else np.nan)
        print(f"{'B%d' % k if k else 'T':>4} {e['arrival'] * 1e6:8.3f} us {a['arrival'] * 1e6:6.3f} us   "
              f"{20 * np.log10(a['pp'] / e['pp']):+7.2f} dB   "
              f"{e['centre'] / 1e6:5.2f} MHz {a['centre'] / 1e6:5.2f} MHz   "
              f"{e['duration'] * 1e9:4.0f} ns {a['duration'] * 1e9:4.0f} ns   {f'{q[-1]:5.1f}' if k else '    -'}")

    # ascan.png
    fig, axes = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
    ax = axes[0]
    ax.plot(t * 1e6, ue * 1e9, color="k", lw=0.8, label="elastic")
    ax.plot(t * 1e6, ua * 1e9, color="tab:red", lw=0.9, label="attenuating")
    top = 1.15 * np.abs(ue).max() * 1e9
    for k in range(1, ECHOES + 1):
        loss = 20 * np.log10(att[k]["pp"] / ela[k]["pp"])
        ax.text(T0 * 1e6 + k * ROUND_TRIP * 1e6, top * 0.95, f"B{k}\n{loss:+.1f} dB",
                ha="center", va="top", fontsize=8, color="tab:red")
    ax.text(T0 * 1e6, top * 0.95, "T", ha="center", va="top", fontsize=8)
    ax.set_ylim(-top, top)
    ax.set_ylabel("mean $u_y$ under the probe (nm)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("A-scan: the probe's pulse T, then the back-wall echoes B1-B5 (red: attenuating against elastic)")
    ax = axes[1]
    reference = ela[1]["pp"] / 2
    for u, colour, label in ((ue, "k", "elastic"), (ua, "tab:red", "attenuating")):
        ax.plot(t * 1e6, 20 * np.log10(np.maximum(envelope(u) / reference, 1e-6)), color=colour, lw=0.8, label=label)
    for echoes, colour in ((ela, "k"), (att, "tab:red")):
        ax.plot([e["arrival"] * 1e6 for e in echoes[1:]], [20 * np.log10(e["pp"] / 2 / reference) for e in echoes[1:]],
                "o--", color=colour, ms=4, lw=0.8)
    ax.set_ylim(-45, 5)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("envelope (dB re B1, elastic)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title("envelopes; points: half the echoes' peak-to-peak amplitude")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "ascan.png"), dpi=80)
    plt.close(fig)
    print(os.path.join(args.out, "ascan.png"))

    # echoes.png
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.4))
    colours = plt.cm.plasma(np.linspace(0, 0.8, ECHOES))
    f = att[1]["f"]
    band = f < 5e6
    ax = axes[0]
    for k in range(1, ECHOES + 1):
        a, e = att[k], ela[k]
        ax.plot(f[band] / 1e6, e["spectrum"][band] / e["spectrum"].max(), ":", color=colours[k - 1], lw=0.9)
        ax.plot(f[band] / 1e6, a["spectrum"][band] / a["spectrum"].max(), color=colours[k - 1], lw=1.2,
                label=f"B{k}: {a['centre'] / 1e6:.2f} MHz (elastic {e['centre'] / 1e6:.2f})")
    ax.set_xlabel("frequency (MHz)")
    ax.set_ylabel("amplitude spectrum / its peak")
    ax.legend(fontsize=7, title="attenuating (dotted: elastic); centre", title_fontsize=7)
    ax.grid(alpha=0.3)
    ax.set_title("(a) spectra of the back-wall echoes")
    ax = axes[1]
    band = (f > 0.3e6) & (f < 4e6)
    for k in range(1, ECHOES + 1):
        ax.plot(f[band] / 1e6, np.log(att[k]["spectrum"][band] / ela[k]["spectrum"][band]), color=colours[k - 1],
                lw=1.2, label=f"B{k}: Q_P {q[k]:.0f}")
        ax.plot(f[band] / 1e6, -np.pi * f[band] * k * 2 * THICKNESS / (Q_P * C_P), "--", color=colours[k - 1], lw=0.8)
    ax.set_xlabel("frequency (MHz)")
    ax.set_ylabel("ln |A_att / A_el|")
    ax.legend(fontsize=7, title="fitted over 0.7-3 MHz", title_fontsize=7)
    ax.grid(alpha=0.3)
    ax.set_title(f"(b) spectral ratio; dashed: -pi f n 2d / ({Q_P:.0f} c_p)", fontsize=10)
    ax = axes[2]
    for k, colour in ((1, colours[0]), (ECHOES, colours[-1])):
        a = att[k]
        w = a["window"]
        ax.plot((t[w] - a["arrival"]) * 1e6, ua[w] / np.abs(ua[w]).max(), color=colour, lw=1.2,
                label=f"B{k}: RMS duration {a['duration'] * 1e9:.0f} ns")
    ax.set_xlabel("time from the envelope's peak (us)")
    ax.set_ylabel("mean $u_y$ / its peak")
    ax.set_xlim(-1.2, 1.2)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    ax.set_title("(c) first and fifth echo, attenuating")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "echoes.png"), dpi=80)
    plt.close(fig)
    print(os.path.join(args.out, "echoes.png"))


if __name__ == "__main__":
    main()
