"""tremor.total_focusing (docs/python.md, "Imaging full-matrix capture") on a capture made here in
closed form: the echo of a point scatterer in steel, each A-scan a Gaussian-windowed 5 MHz burst
delayed by the path from transmitter to scatterer and back to receiver."""
import numpy as np
import pytest

import tremor

F, C = 5e6, 5900.0  # Hz, m/s
DT = 1.0 / (20 * F)
CENTRE, WIDTH = 0.5e-6, 0.15e-6  # s


def capture(scatterer, n=8, samples=800):
    elements = np.array([[(i - (n - 1) / 2) * 0.5e-3, 0.0] for i in range(n)])
    legs = np.hypot(elements[:, 0] - scatterer[0], elements[:, 1] - scatterer[1]) / C
    t = np.arange(samples) * DT
    delay = legs[:, None, None] + legs[None, :, None] + CENTRE
    burst = np.exp(-((t - delay) / WIDTH) ** 2) * np.cos(2 * np.pi * F * (t - delay))
    return burst, elements


def test_the_image_peaks_at_the_scatterer():
    fmc, elements = capture((1e-3, 8e-3))
    image = tremor.total_focusing(fmc, elements, DT, extent=((-2e-3, 4e-3), (5e-3, 11e-3)), pixels=(121, 121),
                                  speed=C, t0=-CENTRE)
    assert image.shape == (121, 121)
    z, x = np.unravel_index(np.argmax(image), image.shape)
    # Pixels of 0.05 mm: the scatterer is one; lambda / 5 is 0.24 mm.
    assert abs(-2e-3 + x * 0.05e-3 - 1e-3) < 0.24e-3 and abs(5e-3 + z * 0.05e-3 - 8e-3) < 0.24e-3
    # The 64 bursts' envelopes, 1 at their centres, summed in phase (within 5%: linear reading
    # between samples at 20 a period).
    assert image.max() == pytest.approx(64.0, rel=0.05)
    # One speed, or the two legs' speeds alike: the same image.
    same = tremor.total_focusing(fmc, elements, DT, ((-2e-3, 4e-3), (5e-3, 11e-3)), (121, 121), (C, C), t0=-CENTRE)
    assert np.array_equal(image, same)


def test_bad_input_is_refused():
    fmc, elements = capture((1e-3, 8e-3), n=4, samples=100)
    args = dict(extent=((-1e-3, 1e-3), (1e-3, 3e-3)), pixels=(4, 4), speed=C)
    with pytest.raises(tremor.Error, match="fmc"):
        tremor.total_focusing(fmc[:, :3], elements, DT, **args)
    with pytest.raises(tremor.Error, match="elements"):
        tremor.total_focusing(fmc, elements[:3], DT, **args)
    with pytest.raises(tremor.Error, match="sample interval"):
        tremor.total_focusing(fmc, elements, 0.0, **args)
    with pytest.raises(tremor.Error, match="speeds"):
        tremor.total_focusing(fmc, elements, DT, extent=args["extent"], pixels=(4, 4), speed=-C)
    with pytest.raises(tremor.Error, match="extent and pixels"):
        tremor.total_focusing(fmc, elements, DT, extent=(1e-3, 2e-3), pixels=(4, 4), speed=C)
    with pytest.raises(tremor.Error, match="pixels"):
        tremor.total_focusing(fmc, elements, DT, extent=args["extent"], pixels=(0, 4), speed=C)
    with pytest.raises(tremor.Error, match="each max above its min"):  # reversed: an empty image
        tremor.total_focusing(fmc, elements, DT, extent=((1e-3, -1e-3), (1e-3, 3e-3)), pixels=(4, 4), speed=C)
    with pytest.raises(TypeError, match="speed"):
        tremor.total_focusing(fmc, elements, DT, extent=args["extent"], pixels=(4, 4), speed="fast")
    bad = fmc.copy()
    bad[0, 1, 5] = np.nan
    with pytest.raises(tremor.Error, match="A-scan 0 -> 1, sample 5"):
        tremor.total_focusing(bad, elements, DT, **args)


def test_a_simulated_capture_reads_back_reciprocal_and_images(tmp_path):
    """tests/data/cli/fmc_block.toml: an 8-element array on a steel block, one shot per element;
    result.fmc["probe"] holds the capture, A-scan(i, j) = A-scan(j, i), and it images: the back
    wall, 15 mm down, is the brightest thing under the array in L-L."""
    import os
    root = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    model = os.path.join(root, "tests", "data", "cli", "fmc_block.toml")
    out = tmp_path / "block.h5"
    run = tremor.run(tremor.Model.load(model), backend="serial", output=out)
    assert run.status == "complete" and len(run.shots) == 8
    with tremor.open(out) as result:
        capture = result.fmc["probe"]
        assert capture.data.shape[:2] == (8, 8) and capture.data.shape[2] == len(capture.times)
        peak = np.abs(capture.data).max()
        assert peak > 0
        # Reciprocity: the load and the mean share their weights, so only rounding separates them.
        assert np.abs(capture.data - capture.data.transpose(1, 0, 2)).max() < 1e-6 * peak
        np.testing.assert_allclose(capture.positions, (np.arange(8) - 3.5) * 1e-3, atol=1e-12)
        np.testing.assert_array_equal(capture.normal, [0.0, -1.0, 0.0])
        # The shot's history of the array holds the same scans as the mean displacement vector.
        history = result.shots["probe.2"]["probe"]
        np.testing.assert_array_equal(-history.values[:, :, 0, 1].T, capture.data[2])
        c_l = capture.attrs["longitudinal_speed"]
        elements = np.stack([capture.positions, np.zeros(8)], axis=1)
        image = tremor.total_focusing(capture.data, elements, capture.dt, ((-4e-3, 4e-3), (10e-3, 17e-3)), (81, 71),
                                      c_l, t0=capture.t0 - capture.attrs["signal_peak"])
    z, x = np.unravel_index(np.argmax(image), image.shape)
    # The back wall at 15 mm (pixels of 0.1 mm; a quarter of the 6 mm wavelength).
    assert abs(10e-3 + z * 0.1e-3 - 15e-3) < 1.5e-3


def test_a_matrix_capture_reads_back_in_rows(tmp_path):
    """tests/data/cli/fmc_matrix.toml: a 2 x 2 matrix array on a 3D block, elements 1.5 mm apart
    both ways; result.fmc["matrix"] holds its 4 x 4 capture, the elements in 2 rows (positions
    along the array, offsets across it along `elevation`), reciprocal."""
    import os
    root = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    out = tmp_path / "matrix.h5"
    run = tremor.run(tremor.Model.load(os.path.join(root, "tests", "data", "cli", "fmc_matrix.toml")),
                     backend="serial", output=out)
    assert run.status == "complete" and len(run.shots) == 4
    with tremor.open(out) as result:
        capture = result.fmc["matrix"]
        assert capture.data.shape[:2] == (4, 4) and capture.attrs["rows"] == 2
        np.testing.assert_allclose(capture.positions, [-0.75e-3, 0.75e-3, -0.75e-3, 0.75e-3], atol=1e-12)
        np.testing.assert_allclose(capture.across, [-0.75e-3, -0.75e-3, 0.75e-3, 0.75e-3], atol=1e-12)
        assert abs(capture.elevation @ capture.direction) < 1e-12 and abs(capture.elevation @ capture.normal) < 1e-12
        peak = np.abs(capture.data).max()
        assert peak > 0 and np.abs(capture.data - capture.data.transpose(1, 0, 2)).max() < 1e-6 * peak


def test_the_holes_are_kept_for_the_images(tmp_path):
    """examples/array-tfm-2d/small.toml: its two side-drilled holes in /mesh/holes (centre, axis,
    radius), which tremor image --tfm outlines, with their names."""
    import os
    root = os.environ.get("TREMOR_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    model = os.path.join(root, "examples", "array-tfm-2d", "small.toml")
    out = tmp_path / "small.h5"
    assert tremor.run(tremor.Model.load(model), backend="openmp", output=out).status == "complete"
    with tremor.open(out) as result:
        holes = result.h5["mesh/holes"][()]
        assert [str(n) for n in result.h5["mesh/holes"].attrs["names"]] == ["sdh3", "sdh5"]
        np.testing.assert_allclose(holes[:, :2], [[0.006, 0.007], [0.01, 0.0045]], atol=1e-15)
        np.testing.assert_allclose(holes[:, 6], [0.2e-3, 0.2e-3])
