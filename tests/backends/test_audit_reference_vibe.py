"""Audit: vibe's synchrony against scipy (Hilbert phase) and a numpy phase-locking value, for odd/even/length-1
signals and every float dtype; integer, empty and non-finite input no longer give truncated or NaN output."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
signal = pytest.importorskip("scipy.signal")

from paperworks.backends._validate import BackendInputError  # noqa: E402
from paperworks.backends.vibe.sync import hilbert_phase, phase_locking  # noqa: E402


@pytest.mark.parametrize("n", [1, 2, 5, 8, 33])
def test_hilbert_phase_and_plv_match_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    sig = rng.normal(size=(2, 3, n))
    ref = np.angle(signal.hilbert(sig, axis=-1))
    ours = hilbert_phase(torch.tensor(sig)).numpy()
    assert np.abs(np.angle(np.exp(1j * (ours - ref)))).max() < 1e-12
    plv = np.abs(np.exp(1j * (ref[:, :, None] - ref[:, None])).mean(-1))
    assert np.allclose(phase_locking(torch.tensor(sig)).numpy(), plv, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.int64])
def test_dtypes(dtype: torch.dtype) -> None:
    x = torch.tensor([[1, 0, -1, 0, 1, 0, -1, 0], [0, 1, 0, -1, 0, 1, 0, -1]]).to(dtype)
    phase = hilbert_phase(x)
    assert phase.is_floating_point()  # integer input was truncated to integer radians
    assert torch.allclose(phase[0].double(), torch.tensor([0, np.pi / 2, np.pi, -np.pi / 2] * 2, dtype=torch.float64),
                          atol=1e-2)
    plv = phase_locking(x)  # half precision used to raise in torch.polar
    assert plv.is_floating_point() and torch.allclose(plv.double(), torch.ones(2, 2, dtype=torch.float64), atol=1e-2)


@pytest.mark.parametrize(("x", "match"), [
    (torch.zeros(2, 0), "frames on the last axis"),
    (torch.randn(8), "at least 2-D"),
    (torch.full((2, 4), float("nan")), "NaN"),
])
def test_bad_signals_raise(x: torch.Tensor, match: str) -> None:
    with pytest.raises(BackendInputError, match=match):
        phase_locking(x)
