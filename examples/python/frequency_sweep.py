"""A0 in a 2 mm aluminium plate: the arrival time of the wave packet at a receiver, and its group
velocity between two receivers, against the source's frequency, from one kept set-up.

    PYTHONPATH=build/python python3 examples/python/frequency_sweep.py [--backend cuda] [--out DIR]

The model is examples/plate-a0-3d/model.toml (its snapshots left out). tremor.Simulation builds
the operator, mass and time step once; each frequency is one run of the same plate with another
tone burst, from rest. The arrival time is the peak of the Hilbert envelope of the out-of-plane
displacement, less the burst's own centre (cycles / 2f), looked for before the first echo from the plate's edge can
arrive; the group velocity is the receivers'
spacing over the difference of their arrival times. Writes sweep.png and sweep.csv.
"""
import argparse
import os
import time

import numpy as np

import tremor

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "plate-a0-3d", "model.toml")
CYCLES = 3
# Above A0's group velocity at these frequencies (under 3 km/s): the edges' first echo comes later.
FASTEST = 3200.0  # m/s
BULK = 6400.0  # m/s, faster than any wave in aluminium: nothing arrives before distance / BULK


def envelope_peak(times, signal, since, until):
    """The time of the largest value of the Hilbert envelope |analytic signal| (by FFT, the trace
    padded with zeros so that its end does not wrap onto its start) between `since` and `until` (s)."""
    n = 4 * len(signal)
    spectrum = np.fft.fft(signal, n)
    weights = np.zeros(n)
    weights[0] = 1.0
    weights[1:(n + 1) // 2] = 2.0
    if n % 2 == 0:
        weights[n // 2] = 1.0
    envelope = np.abs(np.fft.ifft(spectrum * weights))[:len(signal)]
    k = int(np.argmax(np.where((times > since) & (times < until), envelope, 0.0)))
    if 0 < k < len(signal) - 1:  # the parabola through the peak and its neighbours, for a time between samples
        a, b, c = envelope[k - 1], envelope[k], envelope[k + 1]
        shift = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c != 0 else 0.0
        return times[k] + shift * (times[1] - times[0])
    return times[k]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--frequencies", type=float, nargs="+", default=[120e3, 160e3, 200e3, 240e3, 280e3])
    parser.add_argument("--out", default=HERE)
    args = parser.parse_args()

    model = tremor.Model.load(MODEL).without("output")
    model.set_explicit(duration=45e-6)  # the slowest, longest burst (3 cycles at 120 kHz) passes the receivers
    started = time.perf_counter()
    sim = tremor.Simulation(model, backend=args.backend)
    print(f"set-up once: {sim.setup_seconds:.2f} s ({sim.n_dofs} DOF, {sim.backend}, {sim.precision}, "
          f"{sim.operator}, dt {sim.dt * 1e9:.1f} ns)")
    edge = model.mesh.nodes[:, 0].max()  # m: the nearest edge beyond the receivers, along +x
    positions = None
    rows = []
    for frequency in args.frequencies:
        variant = model.without("source").add_source(
            name="transducer", node_set="source", direction=[0.0, 0.0, -1.0], amplitude=1.0,
            signal=tremor.tone_burst(frequency, CYCLES))
        run = sim.run(variant)
        surface = run.histories["surface"]
        positions = surface.positions
        uz = surface.quantity("displacement")[:, :, 2]
        centre = CYCLES / (2.0 * frequency)
        arrivals = [envelope_peak(surface.times, uz[:, p], positions[p, 0] / BULK,
                                  centre + (2 * edge - positions[p, 0]) / FASTEST) - centre
                    for p in range(uz.shape[1])]
        velocity = (positions[-1, 0] - positions[0, 0]) / (arrivals[-1] - arrivals[0])
        rows.append((frequency, arrivals[-1], velocity, run.wall_seconds, run.setup_seconds))
        print(f"{frequency / 1e3:6.0f} kHz: arrival at x = {positions[-1, 0] * 1e3:.0f} mm {arrivals[-1] * 1e6:6.2f} us, "
              f"group velocity {velocity:6.0f} m/s  (run {run.wall_seconds:.2f} s, its loads and receivers "
              f"{run.setup_seconds * 1e3:.1f} ms)")
    print(f"whole sweep: {time.perf_counter() - started:.1f} s")

    table = np.array(rows)
    os.makedirs(args.out, exist_ok=True)
    np.savetxt(os.path.join(args.out, "sweep.csv"), table, delimiter=",", fmt="%.6g",
               header="frequency_Hz,arrival_s,group_velocity_m_per_s,run_wall_s,run_setup_s", comments="")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    left.plot(table[:, 0] / 1e3, table[:, 1] * 1e6, "o-")
    left.set(xlabel="frequency (kHz)", ylabel="arrival time (us)",
             title=f"A0 at x = {positions[-1, 0] * 1e3:.0f} mm")
    right.plot(table[:, 0] / 1e3, table[:, 2], "s-")
    right.set(xlabel="frequency (kHz)", ylabel="group velocity (m/s)",
              title=f"between x = {positions[0, 0] * 1e3:.0f} and {positions[-1, 0] * 1e3:.0f} mm")
    for axes in (left, right):
        axes.grid(alpha=0.3)
    figure.savefig(os.path.join(args.out, "sweep.png"), dpi=110)
    print(f"wrote {os.path.join(args.out, 'sweep.png')} and sweep.csv")


if __name__ == "__main__":
    main()
