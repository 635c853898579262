"""Audit: laser's sensor model — periodic bilinear interpolation against a scalar loop, its gradients by
gradcheck (float64, off the grid lines where floor() is constant), the bounded move — and mismatched shapes
raising instead of silently spreading one batch's sensors over several fields."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.laser.sensors import bounded_move, observe  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def _ref(field: torch.Tensor, x: float, y: float) -> float:
    n = field.shape[-1]
    x0, y0 = math.floor(x), math.floor(y)
    fx, fy = x - x0, y - y0
    v = lambda i, j: float(field[i % n, j % n])  # noqa: E731
    return ((1 - fx) * (1 - fy) * v(x0, y0) + fx * (1 - fy) * v(x0 + 1, y0) + (1 - fx) * fy * v(x0, y0 + 1)
            + fx * fy * v(x0 + 1, y0 + 1))


def test_observe_matches_scalar_bilinear_reference() -> None:
    g = torch.Generator().manual_seed(0)
    field = torch.randn(3, 5, 5, generator=g, dtype=torch.float64)
    pos = torch.rand(3, 4, 2, generator=g, dtype=torch.float64) * 15 - 5  # outside [0, N) too: periodic
    got = observe(field, pos)
    for b in range(3):
        for k in range(4):
            want = _ref(field[b], float(pos[b, k, 0]), float(pos[b, k, 1]))
            assert float(got[b, k]) == pytest.approx(want, abs=1e-12)
    grid = torch.tensor([[[2.0, 3.0]]], dtype=torch.float64)
    assert float(observe(field[:1], grid)) == float(field[0, 2, 3])  # exact at grid points


def test_gradients_pass_gradcheck() -> None:
    g = torch.Generator().manual_seed(1)
    field = torch.randn(2, 4, 4, generator=g, dtype=torch.float64, requires_grad=True)
    pos = (torch.floor(torch.rand(2, 3, 2, generator=g, dtype=torch.float64) * 4) + 0.3
           + 0.4 * torch.rand(2, 3, 2, generator=g, dtype=torch.float64)).requires_grad_(True)
    assert torch.autograd.gradcheck(observe, (field, pos), eps=1e-6, atol=1e-7)
    raw = torch.randn(5, 2, generator=g, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda r: bounded_move(r, 1.5), (raw,), eps=1e-6, atol=1e-7)
    assert bool((bounded_move(raw.detach() * 100, 1.5).norm(dim=-1) < 1.5 + 1e-12).all())


@pytest.mark.parametrize(("field", "pos", "match"), [
    (torch.zeros(2, 5, 5), torch.zeros(4, 2), "leading shape"),  # was reshaped into 2 sensors per field
    (torch.zeros(2, 5, 5), torch.zeros(2, 3, 3), "pos must be"),
    (torch.zeros(4, 6), torch.zeros(1, 2), "field must be \\(\\.\\.\\., N, N\\)"),  # non-square was mis-reshaped
    (torch.zeros(1, 5, 5), torch.full((1, 1, 2), float("nan")), "NaN"),
])
def test_bad_shapes_raise(field: torch.Tensor, pos: torch.Tensor, match: str) -> None:
    with pytest.raises(UserError, match=match):
        observe(field, pos)
