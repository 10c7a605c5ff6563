"""tremor.plot (docs/python.md) and the command line over it, tools/plot_histories.py: each plot a
PNG of the expected size, and the refusals."""
import os
import subprocess
import sys

import pytest

import tremor
import tremor.plot

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TREMOR_CLI", "tremor")
DATA = os.path.join(ROOT, "tests", "data", "cli")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def run(model, output, *more):
    subprocess.run([CLI, "run", os.path.join(DATA, model), "--backend", "serial", "-o", str(output), *more],
                   capture_output=True, check=True)


def test_history_snapshot_and_map(tmp_path):
    run("snapshots.toml", tmp_path / "snap.h5")
    with tremor.open(tmp_path / "snap.h5") as result:
        probe = result.histories["probe"]
        assert png_size(tremor.plot.history(probe, tmp_path / "probe.png")) == (960, 624)  # 2D: 8 x 5.2 in at 120 dpi
        assert png_size(tremor.plot.snapshot(result, -1, tmp_path / "last.png", component="x")) == (960, 720)
        with pytest.raises(KeyError):
            tremor.plot.history(probe, tmp_path / "v.png", quantity="acceleration")
        with pytest.raises(ValueError, match="no z component"):
            tremor.plot.snapshot(result, 0, tmp_path / "z.png", component="z")
    run("water_on_steel.toml", tmp_path / "water.h5")
    with tremor.open(tmp_path / "water.h5") as result:  # the water's pressure, the steel left out
        assert png_size(tremor.plot.snapshot(result, -1, tmp_path / "p.png", component="pressure")) == (960, 720)
    with tremor.open(tmp_path / "snap.h5") as result:
        with pytest.raises(ValueError, match="the snapshots hold no pressure"):
            tremor.plot.snapshot(result, 0, tmp_path / "p.png", component="pressure")
    run("shots_plate.toml", tmp_path / "shots.h5")
    subprocess.run([CLI, "image", str(tmp_path / "shots.h5"), "-o", str(tmp_path)], capture_output=True, check=True)
    with tremor.open(tmp_path / "shots.h5") as result:
        assert png_size(tremor.plot.map(result, "s0.area", tmp_path / "map.png")) == (840, 720)


def test_the_command_line(tmp_path):
    run("shots_plate.toml", tmp_path / "shots.h5")
    tool = os.path.join(ROOT, "tools", "plot_histories.py")
    done = subprocess.run([sys.executable, tool, str(tmp_path / "shots.h5"), "-o", str(tmp_path / "plots")],
                          capture_output=True, text=True, check=True)
    assert sorted(os.listdir(tmp_path / "plots")) == ["a0.area.png", "a0.probe.png", "s0.area.png", "s0.probe.png"]
    assert "a0.probe.png" in done.stdout
    refused = subprocess.run([sys.executable, tool, str(tmp_path / "shots.h5"), "--history", "nothere"],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "no history 'nothere'" in refused.stderr


def test_the_command_line_plots_what_each_history_records(tmp_path):
    # Without --quantity each history is plotted in its first quantity: the hydrophones' pressure,
    # the steel receiver's velocity; with one, the histories without it are skipped, saying so.
    run("water_on_steel.toml", tmp_path / "water.h5")
    tool = os.path.join(ROOT, "tools", "plot_histories.py")
    done = subprocess.run([sys.executable, tool, str(tmp_path / "water.h5"), "-o", str(tmp_path / "plots")],
                          capture_output=True, text=True, check=True)
    assert sorted(os.listdir(tmp_path / "plots")) == ["hydrophone.png", "near_interface.png", "steel.png"]
    assert "skipped" not in done.stderr
    only = subprocess.run([sys.executable, tool, str(tmp_path / "water.h5"), "-o", str(tmp_path / "velocity"),
                           "--quantity", "velocity"], capture_output=True, text=True, check=True)
    assert sorted(os.listdir(tmp_path / "velocity")) == ["steel.png"]
    assert "hydrophone: records pressure, not velocity; skipped" in only.stderr
