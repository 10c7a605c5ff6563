"""The examples that run in seconds, run as their READMEs say, their scripts' checks passing."""
import os
import subprocess
import sys

ROOT = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TREMOR_CLI", "tremor")


def test_leaky_lamb(tmp_path):
    """examples/leaky-lamb-2d: the A0 mode's attenuation within 5% of the leaky root
    (attenuation.py exits 1 otherwise); 0.5% and 0.03% on the phase velocity here."""
    folder = os.path.join(ROOT, "examples", "leaky-lamb-2d")
    result = tmp_path / "leaky.h5"
    subprocess.run([CLI, "run", os.path.join(folder, "model.toml"), "-o", str(result)], check=True,
                   capture_output=True)
    out = subprocess.run([sys.executable, os.path.join(folder, "attenuation.py"), str(result)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = {line.split("  ")[0].strip(): line.split() for line in out.stdout.splitlines()}
    alpha = lines["attenuation, Np/m"]
    assert abs(float(alpha[2]) / float(alpha[3]) - 1.0) < 0.02, out.stdout  # measured / root
    speed = lines["phase velocity, m/s"]
    assert abs(float(speed[3]) / float(speed[4]) - 1.0) < 0.01, out.stdout


def test_basin_field(tmp_path):
    """examples/basin-field-2d, its first 1.5 s: the gridded basin amplifies the shot's waves over
    its western slope (twice the granite's peak velocity, 2.26 at 700 m as in the README's 4 s),
    leaves them alone west of it and shadows them east of it (0.35-0.48). (The granite's direct S
    wave peaks at 1800-2000 m at 1.2-1.3 s, the Ricker's centre and 0.7-0.8 s of travel: a run of
    1.2 s ends before it and gives 0.53-0.65 there.)"""
    folder = os.path.join(ROOT, "examples", "basin-field-2d")
    results = {}
    for name in ("model", "rock"):
        results[name] = tmp_path / f"{name}.h5"
        subprocess.run([CLI, "run", os.path.join(folder, f"{name}.toml"), "-o", str(results[name]), "--duration", "1.5"],
                       check=True, capture_output=True)
    out = subprocess.run([sys.executable, os.path.join(folder, "plot_basin.py"), str(results["model"]),
                          str(results["rock"]), "-o", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    ratio = {float(line.split()[0]): float(line.split()[4]) for line in out.stdout.splitlines()[1:]}
    assert abs(ratio[0.0] - 1.0) < 0.05, out.stdout  # west of the basin: the granite's waves
    assert max(ratio[x] for x in (500.0, 600.0, 700.0, 800.0)) > 1.8, out.stdout  # the slope amplifies
    assert max(ratio[x] for x in (1800.0, 1900.0, 2000.0)) < 0.6, out.stdout  # its shadow
    assert (tmp_path / "traces.png").exists() and (tmp_path / "amplification.png").exists()
