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
