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
    with pytest.raises(TypeError, match="speed"):
        tremor.total_focusing(fmc, elements, DT, extent=args["extent"], pixels=(4, 4), speed="fast")
    bad = fmc.copy()
    bad[0, 1, 5] = np.nan
    with pytest.raises(tremor.Error, match="A-scan 0 -> 1, sample 5"):
        tremor.total_focusing(bad, elements, DT, **args)
