"""A run from Python against the same run from the command line: the time loop's speed
(DOF-steps/s, as `tremor run` prints it and tremor.Run.dof_steps_per_second holds it) of one
model, alternately through `tremor run` and tremor.run, and of the same model's runs on a kept
set-up (tremor.Simulation), with the set-up times of each (docs/python.md, docs/benchmarks.md).

    PYTHONPATH=build/python python3 bench/python_vs_cli.py MODEL --cli build/bin/tremor
        [--backend cuda] [--precision float] [--duration S] [--repeats 3]

The model runs without its [output] snapshots either way (a run from Python writes no file; the
command line writes its histories to a scratch file). Prints a line per run and the ratio of the
means.
"""
import argparse
import os
import re
import subprocess
import tempfile

import tremor


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--cli", default="tremor")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--precision", default=None)
    parser.add_argument("--duration", type=float, default=None)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    model = tremor.Model.load(args.model).without("output")
    scratch = tempfile.mkdtemp()
    path = model.save(os.path.join(scratch, "model.toml"))
    options = ["--backend", args.backend]
    if args.precision:
        options += ["--precision", args.precision]
    if args.duration:
        options += ["--duration", repr(args.duration)]
    cli, python, kept = [], [], []
    sim = tremor.Simulation(model, backend=args.backend, precision=args.precision)
    print(f"model {args.model}: {sim.n_dofs} DOF, {sim.backend}, {sim.precision}, {sim.operator}; kept set-up "
          f"{sim.setup_seconds:.2f} s")
    for r in range(args.repeats):
        output = os.path.join(scratch, f"run{r}.h5")
        out = subprocess.run([args.cli, "run", path, *options, "-o", output], capture_output=True, text=True,
                             check=True).stdout
        speed = float(re.search(r"^  speed\s+(\S+) DOF-steps/s", out, re.M).group(1))
        setup = float(re.search(r"^  set-up\s+(\S+) s to the first step", out, re.M).group(1))
        os.remove(output)
        cli.append(speed)
        print(f"  command line  {speed:.4e} DOF-steps/s  (set-up {setup:.2f} s)", flush=True)
        run = tremor.run(model, backend=args.backend, precision=args.precision, duration=args.duration)
        python.append(run.dof_steps_per_second)
        print(f"  tremor.run    {run.dof_steps_per_second:.4e} DOF-steps/s  (set-up {run.setup_seconds:.2f} s, "
              f"{run.steps} steps)", flush=True)
        again = sim.run(duration=args.duration)
        kept.append(again.dof_steps_per_second)
        print(f"  Simulation    {again.dof_steps_per_second:.4e} DOF-steps/s  (its own set-up "
              f"{again.setup_seconds * 1e3:.1f} ms)", flush=True)
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    print(f"tremor.run / command line: {mean(python) / mean(cli):.4f}; Simulation.run / command line: "
          f"{mean(kept) / mean(cli):.4f}")


if __name__ == "__main__":
    main()
