#!/usr/bin/python3
"""Plot the histories (and optionally snapshots) of a tremor result file.

Layout of the file: docs/output-format.md. A command line over tremor.plot (docs/python.md): needs
the Python package (build/python, found from here when run in the repository) and Debian's
python3-h5py and python3-matplotlib.

    tools/plot_histories.py RESULT.h5 [-o DIR] [--history NAME ...] [--quantity QUANTITY]
                            [--snapshot INDEX ...] [--component magnitude|x|y|z]

Writes DIR/<history>.png (a shot's: DIR/<shot>.<history>.png; one panel per component, one line per node or position, labelled with
the node ids of the input file or the position's number and coordinates) and, for each
--snapshot (an index, or -1 for the last), DIR/snapshot_<INDEX>.png: the displacement magnitude,
or one signed component, on the snapshot nodes, the colour scale saturating at the 99.5th percentile. 2D meshes are drawn as a coloured triangulation
of their elements; a 3D snapshot of nodes on one plane (a surface node set) is drawn in that
plane; other 3D snapshots as points seen along z.
"""
import argparse
import os
import sys

try:
    import tremor
except ImportError:  # run from the repository: the package built in build/python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "python"))
    try:
        import tremor
    except ImportError:
        raise SystemExit("tools/plot_histories.py needs the tremor Python package: build it (scripts/build) "
                         "or set PYTHONPATH to a build's python folder") from None
import tremor.plot  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result", help="result file (.h5) written by tremor run")
    parser.add_argument("-o", "--out", default=".", help="folder for the PNG files (default: .)")
    parser.add_argument("--history", action="append", help="history set to plot (default: all)")
    parser.add_argument("--quantity", choices=sorted(tremor.results.UNITS),
                        help="what the history plots show (default: each history's first quantity)")
    parser.add_argument("--snapshot", type=int, action="append",
                        help="also plot snapshot INDEX (0-based; -1 is the last); may be repeated")
    parser.add_argument("--component", default="magnitude", choices=["magnitude", "x", "y", "z", "pressure"],
                        help="what the snapshot plots show (default: the displacement magnitude; pressure: "
                             "a fluid's)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    try:
        result = tremor.open(args.result)
    except OSError as error:
        raise SystemExit(str(error)) from None
    with result:
        if result.status != "complete":
            print(f"{args.result}: run status is '{result.status}'", file=sys.stderr)
        # /histories, and each shot's as "<shot>.<history>" (a model with shots).
        histories = dict(result.histories)
        for shot, shot_histories in result.shots.items():
            histories.update({f"{shot}.{name}": h for name, h in shot_histories.items()})
        for name in args.history or list(histories):
            if name not in histories:
                raise SystemExit(f"{args.result}: no history '{name}' (has: {', '.join(histories) or 'none'})")
            h = histories[name]
            quantity = args.quantity or h.quantities[0]
            if quantity not in h.quantities:
                print(f"{name}: records {', '.join(h.quantities)}, not {quantity}; skipped", file=sys.stderr)
                continue
            print(tremor.plot.history(h, os.path.join(args.out, f"{name}.png"), quantity,
                                      title=f"{name}: {quantity}"))
        for index in args.snapshot or []:
            n = len(result.snapshot_times)
            if -n <= index < 0:
                index += n  # named by its place in the file
            try:
                print(tremor.plot.snapshot(result, index, os.path.join(args.out, f"snapshot_{index}.png"),
                                           args.component))
            except (IndexError, ValueError) as error:
                raise SystemExit(str(error)) from None


if __name__ == "__main__":
    main()
