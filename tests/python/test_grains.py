"""A grained material's run: each element's material row in the result file (/mesh/blocks/block_0/
material) and the XDMF's cell attribute, read by h5py against the model's sections and grains."""
import os
import subprocess

import h5py
import numpy as np

CLI = os.environ.get("TREMOR_CLI", "tremor")

MODEL = """[mesh]
generator = "rectangle"
element = "quad4"
size = [0.02, 0.01]
divisions = [40, 20]
[[mesh.element_set]]
name = "left"
min = [0.0, 0.0]
max = [0.01, 0.01]
[[mesh.element_set]]
name = "right"
min = [0.01, 0.0]
max = [0.02, 0.01]
[[material]]
name = "steel"
density = 7850
youngs_modulus = 210e9
poisson_ratio = 0.3
[[material]]
name = "austenite"
density = 8000
stiffness = [216e9, 145e9, 145e9, 0, 0, 0, 216e9, 145e9, 0, 0, 0, 216e9, 0, 0, 0, 129e9, 0, 0, 129e9, 0, 129e9]
grains = { size = 0.002, seed = 5 }
[[section]]
element_set = "left"
material = "steel"
[[section]]
element_set = "right"
material = "austenite"
[explicit]
duration = 1e-7
[output]
snapshot_every = 10
"""


def test_each_elements_material_row_is_in_the_result_file(tmp_path):
    path = tmp_path / "grains.toml"
    path.write_text(MODEL)
    run = subprocess.run([CLI, "run", path, "--backend", "serial", "-o", tmp_path / "grains.h5"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with h5py.File(tmp_path / "grains.h5", "r") as f:
        block = f["mesh/blocks/block_0"]
        rows = block["material"][()]
        centres = f["mesh/coordinates"][()][block["connectivity"][()]].mean(axis=1)
    # Rows 0 and 1 the sections; the grained section's elements its grains, 2 and on: about
    # 0.01 x 0.01 / 0.002^2 = 25 of them (Voronoi cells holding an element).
    left = centres[:, 0] < 0.01
    assert np.all(rows[left] == 0)
    grains = np.unique(rows[~left])
    assert grains.min() >= 2 and 15 <= len(grains) <= 25
    # A grain is a cell: its elements lie together (each within two grain sizes of its centroid).
    for g in grains:
        at = centres[rows == g]
        assert np.linalg.norm(at - at.mean(axis=0), axis=1).max() < 0.004
    xdmf = (tmp_path / "grains.xmf").read_text()
    assert '<Attribute Name="material" AttributeType="Scalar" Center="Cell">' in xdmf
    assert "/mesh/blocks/block_0/material" in xdmf
