"""tremor export --format sac|su: each trace read back by a reader written here from the formats'
specifications (SAC's header of 158 words, NVHDR 6; Seismic Unix's 240-byte SEG-Y trace header),
not from the writer's code, against the result file's histories read by h5py."""
import os
import struct
import subprocess

import h5py
import numpy as np

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TREMOR_CLI", "tremor")

# tests/data/cli/tiny.toml (a 2D strip, receiver "probe" at one node) and a receiver at two
# positions recording displacement and velocity.
LINE = '\n[[receiver]]\nname = "line"\npositions = [[0.01, 0.004], [0.0125, 0.002]]\nrecord = ["displacement", "velocity"]\n'


def model(tmp_path, extra=""):
    with open(os.path.join(ROOT, "tests", "data", "cli", "tiny.toml")) as f:
        text = f.read()
    path = tmp_path / "strip.toml"
    path.write_text(text + LINE + extra)
    return path


def tremor(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)


def run_and_export(tmp_path, model_file, result, fmt):
    """`tremor run` of model_file into tmp_path / result, then its export as `fmt` into tmp_path /
    fmt; returns the export's completed process."""
    run = tremor("run", model_file, "--backend", "serial", "-o", tmp_path / result)
    assert run.returncode == 0, run.stderr
    out = tremor("export", tmp_path / result, "-o", tmp_path / fmt, "--format", fmt)
    assert out.returncode == 0, out.stderr
    return out


def read_sac(path):
    """SAC binary, NVHDR 6, little-endian: 70 float32 words, 40 int32 words, 8-character strings
    (KEVNM 16) from byte 440, then NPTS float32 samples."""
    data = open(path, "rb").read()
    floats = struct.unpack_from("<70f", data, 0)
    ints = struct.unpack_from("<40i", data, 280)
    text = data[440:632].decode("ascii")
    header = {"delta": floats[0], "depmin": floats[1], "depmax": floats[2], "b": floats[5], "e": floats[6],
              "stla": floats[31], "stlo": floats[32], "stel": floats[33], "evla": floats[35], "evlo": floats[36],
              "evel": floats[37],
              "user": floats[40:43], "nvhdr": ints[6], "npts": ints[9], "iftype": ints[15], "idep": ints[16],
              "leven": ints[35], "kstnm": text[0:8].strip(), "kevnm": text[8:24].strip(),
              "kcmpnm": text[160:168].strip(), "knetwk": text[168:176].strip()}
    assert len(data) == 632 + 4 * header["npts"]
    return header, np.frombuffer(data, "<f4", header["npts"], 632)


def read_su(path):
    """Seismic Unix: per trace a 240-byte header (tracl int32 at 0, gelev at 40, scalel and scalco
    int16 at 68 and 70, gx, gy int32 at 80 and 84, ns and dt uint16 at 114 and 116, d1 and f1 float32
    at 180 and 184), then ns float32 samples; little-endian (this machine's)."""
    data = open(path, "rb").read()
    traces, at = [], 0
    while at < len(data):
        tracl, = struct.unpack_from("<i", data, at)
        gelev, = struct.unpack_from("<i", data, at + 40)
        scalel, scalco = struct.unpack_from("<hh", data, at + 68)
        gx, gy = struct.unpack_from("<ii", data, at + 80)
        ns, dt = struct.unpack_from("<HH", data, at + 114)
        d1, f1 = struct.unpack_from("<ff", data, at + 180)
        scale = lambda v, s: v / -s if s < 0 else v * max(s, 1)
        traces.append({"tracl": tracl, "ns": ns, "dt": dt, "d1": d1, "f1": f1, "gx": scale(gx, scalco),
                       "gy": scale(gy, scalco), "gelev": scale(gelev, scalel),
                       "samples": np.frombuffer(data, "<f4", ns, at + 240)})
        at += 240 + 4 * ns
    return traces


def test_sac_traces_are_the_histories(tmp_path):
    out = run_and_export(tmp_path, model(tmp_path), "strip.h5", "sac")
    with h5py.File(tmp_path / "strip.h5", "r") as f:
        line = f["histories/line"]
        times, values, positions = line["time"][()], line["values"][()], line["positions"][()]
        probe_label = int(f["histories/probe/node_labels"][0])
        probe_node = int(f["histories/probe/node_indices"][0])
        probe_xy = f["mesh/coordinates"][probe_node]
        probe = f["histories/probe/values"][()]
    names = sorted(os.listdir(tmp_path / "sac"))
    assert names == sorted([f"line.p{p}.{q}{c}.sac" for p in (1, 2) for q in "uv" for c in "xy"] +
                           [f"probe.{probe_label}.u{c}.sac" for c in "xy"])
    dt = times[1] - times[0]
    for p in (0, 1):
        for q, letter in enumerate("uv"):
            for c, axis in enumerate("xy"):
                header, y = read_sac(tmp_path / "sac" / f"line.p{p + 1}.{letter}{axis}.sac")
                # The samples are the history's in float32, exactly.
                np.testing.assert_array_equal(y, values[:, p, q, c].astype(np.float32))
                assert header["npts"] == len(times) and header["nvhdr"] == 6 and header["leven"] == 1
                assert header["iftype"] == 1 and header["idep"] == (6 if letter == "u" else 7)
                assert np.isclose(header["delta"], dt, rtol=1e-6) and header["b"] == 0.0
                assert np.isclose(header["e"], times[-1], rtol=1e-6)
                assert header["depmax"] == y.max() and header["depmin"] == y.min()
                assert header["kstnm"] == f"p{p + 1}" and header["knetwk"] == "line"
                assert header["kcmpnm"] == "BX" + axis.upper() and header["kevnm"] == "-12345"
                np.testing.assert_allclose(header["user"][:2], positions[p][:2], rtol=1e-6)
    header, y = read_sac(tmp_path / "sac" / f"probe.{probe_label}.uy.sac")
    np.testing.assert_array_equal(y, probe[:, 0, 0, 1].astype(np.float32))
    assert header["kstnm"] == str(probe_label)
    np.testing.assert_allclose(header["user"][:2], probe_xy, rtol=1e-6)


def test_su_traces_are_the_histories(tmp_path):
    out = run_and_export(tmp_path, model(tmp_path), "strip.h5", "su")
    # Samples every 62.7 ns: SU's dt (whole microseconds) cannot hold it, and the export says so.
    assert "line: samples every 6.27" in out.stderr and "d1 holds the interval exactly" in out.stderr
    with h5py.File(tmp_path / "strip.h5", "r") as f:
        times, values, positions = (f["histories/line/time"][()], f["histories/line/values"][()],
                                    f["histories/line/positions"][()])
    assert sorted(os.listdir(tmp_path / "su")) == sorted([f"line.{q}{c}.su" for q in "uv" for c in "xy"] +
                                                         ["probe.ux.su", "probe.uy.su"])
    traces = read_su(tmp_path / "su" / "line.vy.su")
    assert [t["tracl"] for t in traces] == [1, 2]
    for p, t in enumerate(traces):
        np.testing.assert_array_equal(t["samples"], values[:, p, 1, 1].astype(np.float32))
        assert t["ns"] == len(times) and t["dt"] == 0 and np.isclose(t["d1"], times[1] - times[0], rtol=1e-6)
        assert t["f1"] == 0.0
        # Coordinates in tenths of a millimetre.
        assert abs(t["gx"] - positions[p][0]) <= 0.5e-4 and abs(t["gy"] - positions[p][1]) <= 0.5e-4
        assert t["gelev"] == 0.0


def test_su_refuses_what_it_cannot_hold(tmp_path):
    # 66,000 samples: more than SU's 16-bit ns.
    run = tremor("run", model(tmp_path), "--backend", "serial", "--duration", "4.15e-3", "-o", tmp_path / "long.h5")
    assert run.returncode == 0, run.stderr
    out = tremor("export", tmp_path / "long.h5", "-o", tmp_path / "su", "--format", "su")
    assert out.returncode != 0
    assert "more than the 65,535 an SU trace holds" in out.stderr and "export it as sac" in out.stderr
    assert not os.path.exists(tmp_path / "su") or os.listdir(tmp_path / "su") == []
    bad = tremor("export", tmp_path / "long.h5", "-o", tmp_path / "x", "--format", "segd")
    assert bad.returncode != 0 and "--format" in bad.stderr


def read_asdf(path):
    """ASDF 1.0.3 (HDF5): the root's file_format "ASDF"; each waveform a dataset
    /Waveforms/NET.STA/NET.STA.LOC.CHA__START__END__TAG with attributes starttime (ns) and
    sampling_rate (Hz). Returns {(net, sta, loc, cha, tag): (starttime, rate, samples)}."""
    import re
    name = re.compile(r"^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]+)"
                      r"__(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)__(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)__([a-z0-9_]+)$")
    out = {}
    with h5py.File(path, "r") as f:
        assert f.attrs["file_format"] == b"ASDF" and f.attrs["file_format_version"] == b"1.0.3"
        for station, group in f["Waveforms"].items():
            for waveform, data in group.items():
                m = name.match(waveform)
                assert m, waveform
                assert f"{m[1]}.{m[2]}" == station
                out[(m[1], m[2], m[3], m[4], m[7])] = (int(data.attrs["starttime"]), float(data.attrs["sampling_rate"]),
                                                        data[()])
    return out


def test_asdf_holds_every_trace(tmp_path):
    out = run_and_export(tmp_path, model(tmp_path), "strip.h5", "asdf")
    assert os.listdir(tmp_path / "asdf") == ["strip.asdf.h5"]
    traces = read_asdf(tmp_path / "asdf" / "strip.asdf.h5")
    with h5py.File(tmp_path / "strip.h5", "r") as f:
        times, values = f["histories/line/time"][()], f["histories/line/values"][()]
        probe_label = int(f["histories/probe/node_labels"][0])
    assert len(traces) == 2 * 2 * 2 + 2  # line: 2 points x 2 quantities x 2 axes; probe: 2 axes
    for p in (0, 1):
        for q, tag in enumerate(["displacement", "velocity"]):
            for c, axis in enumerate("XY"):
                start, rate, y = traces[("line", f"p{p + 1}", "", "BX" + axis, tag)]
                assert y.dtype == np.float32 and start == 0
                np.testing.assert_array_equal(y, values[:, p, q, c].astype(np.float32))
                assert np.isclose(rate, 1.0 / (times[1] - times[0]), rtol=1e-9)
    assert ("probe", str(probe_label), "", "BXY", "displacement") in traces


def test_asdf_tags_a_shots_traces(tmp_path):
    """tests/data/cli/fmc_block.toml: 8 shots, each its own tag (the shot's name, then the quantity)."""
    run_and_export(tmp_path, os.path.join(ROOT, "tests", "data", "cli", "fmc_block.toml"), "fmc.h5", "asdf")
    traces = read_asdf(tmp_path / "asdf" / "fmc.asdf.h5")
    tags = sorted({key[4] for key in traces})
    assert tags == [f"probe_{k}_displacement" for k in range(8)]
    with h5py.File(tmp_path / "fmc.h5", "r") as f:
        values = f["shots/probe.3/histories/probe/values"][()]
    np.testing.assert_array_equal(traces[("probe", "p6", "", "BXY", "probe_3_displacement")][2],
                                  values[:, 5, 0, 1].astype(np.float32))


QUAKE = """[mesh]
generator = "box"
element = "hex8"
size = [2000, 2000, 1000]
divisions = [4, 4, 2]
[[material]]
name = "rock"
density = 2700
p_wave_speed = 6000
s_wave_speed = 3464
[explicit]
duration = 0.6
[[source]]
cmtsolution = "CMTSOLUTION"
[[receiver]]
name = "quake"
stations = "STATIONS"
record = ["velocity"]
"""

CMT = """PDE  2026 12 04 00 00 00.00  1000 1000 0.5 4.2 4.2 small
event name:       small
time shift:       0.0000
half duration:    0.2
latorUTM:       1000.0
longorUTM:      1000.0
depth:          0.5
Mrr:       1.000000e+20
Mtt:      -0.500000e+20
Mpp:      -0.500000e+20
Mrt:       0.300000e+20
Mrp:       0.000000
Mtp:       0.100000e+20
"""


def test_stations_name_the_traces_of_a_cmt_solution(tmp_path):
    """A CMTSOLUTION event recorded at a STATIONS file's stations: each SAC trace's KSTNM and KNETWK
    are its station's, each ASDF station group its NET.STA, and tremor info reads the event."""
    (tmp_path / "CMTSOLUTION").write_text(CMT)
    # x = longorUTM, y = latorUTM, z = the top (1000 m) less the burial.
    (tmp_path / "STATIONS").write_text("X20 DB 1000.0 1500.0 0.0 0.0\n# a buried one\nX30 DB 500.0 600.0 0.0 100.0\n")
    path = tmp_path / "quake.toml"
    path.write_text(QUAKE)
    info = tremor("info", path)
    assert info.returncode == 0, info.stderr
    # M0 = sqrt(M:M / 2) of the tensor in N m (1e-7 of dyne cm): sqrt((1 + 0.25 + 0.25 + 2 (0.09 + 0.01)) / 2) 1e13.
    m0 = np.sqrt((1.0 + 0.25 + 0.25 + 2 * (0.09 + 0.01)) / 2) * 1e13
    assert "small at (1000, 1000, 500)" in info.stdout and "moment tensor" in info.stdout, info.stdout
    assert f"Mw {2.0 / 3.0 * (np.log10(m0) - 9.1):.2f}" in info.stdout, info.stdout
    run_and_export(tmp_path, path, "quake.h5", "sac")
    with h5py.File(tmp_path / "quake.h5", "r") as f:
        group = f["histories/quake"]
        names = [n.decode() if isinstance(n, bytes) else n for n in group.attrs["point_names"]]
        values, positions = group["values"][()], group["positions"][()]
    assert names == ["DB.X20", "DB.X30"]
    np.testing.assert_array_equal(positions, [[1500.0, 1000.0, 1000.0], [600.0, 500.0, 900.0]])
    assert np.abs(values).max() > 0.0
    for p, station in enumerate(["X20", "X30"]):
        for c, axis in enumerate("xyz"):
            header, y = read_sac(tmp_path / "sac" / f"quake.DB.{station}.v{axis}.sac")
            assert header["kstnm"] == station and header["knetwk"] == "DB"
            # The station's and the event's places: latitude y, longitude x, elevation z (m).
            np.testing.assert_allclose([header["stlo"], header["stla"], header["stel"]], positions[p])
            assert header["kevnm"] == "small"
            np.testing.assert_allclose([header["evlo"], header["evla"], header["evel"]], [1000.0, 1000.0, 500.0])
            assert header["kcmpnm"] == "BX" + axis.upper() and header["idep"] == 7
            np.testing.assert_array_equal(y, values[:, p, 0, c].astype(np.float32))
    out = tremor("export", tmp_path / "quake.h5", "-o", tmp_path / "asdf", "--format", "asdf")
    assert out.returncode == 0, out.stderr
    traces = read_asdf(tmp_path / "asdf" / "quake.asdf.h5")
    assert ("DB", "X30", "", "BXZ", "velocity") in traces
    np.testing.assert_array_equal(traces[("DB", "X30", "", "BXZ", "velocity")][2], values[:, 1, 0, 2].astype(np.float32))
