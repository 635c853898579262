"""Audit: the lifting backend's distances against independent references (W2 by a transport linear program,
energy distance by scipy), and non-finite / mis-shaped input raising one-line errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.stats import energy_distance as scipy_energy

from paperworks.backends.lifting.metrics import energy_distance, per_time, sliced_w2, w2_1d
from paperworks.core.errors import UserError


def _w2_lp(x: np.ndarray, y: np.ndarray) -> float:
    """W2 from its definition: the optimal transport plan between uniform weights, by linear programming."""
    s = max(float(np.abs(np.concatenate([x, y])).max()), 1e-300)  # the LP solver's tolerances are absolute
    x, y = x / s, y / s
    n, m = len(x), len(y)
    a_eq = np.vstack([np.kron(np.eye(n), np.ones(m)), np.kron(np.ones(n), np.eye(m))])
    b_eq = np.concatenate([np.full(n, 1 / n), np.full(m, 1 / m)])
    res = linprog(((x[:, None] - y[None, :]) ** 2).ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return float(np.sqrt(max(res.fun, 0.0))) * s


def test_w2_and_energy_match_independent_references() -> None:
    rng = np.random.default_rng(0)
    for _ in range(150):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        scale = 10 ** rng.uniform(-3, 3)
        x = rng.normal(size=n) * scale
        y = rng.normal(size=m) * scale + rng.choice([0.0, scale])
        if rng.random() < 0.3:  # ties
            x, y = np.round(x / scale) * scale, np.round(y / scale) * scale
        assert w2_1d(x, y) == pytest.approx(_w2_lp(x, y), rel=1e-6, abs=1e-9 * scale)
        assert energy_distance(x, y) == pytest.approx(scipy_energy(x, y) ** 2, rel=1e-8, abs=1e-12 * scale)
    z = rng.normal(size=5)
    assert w2_1d(z, z) == 0.0 and energy_distance(z, z) == pytest.approx(0.0, abs=1e-12)
    assert w2_1d(np.arange(3), np.arange(3.0)) == 0.0  # ints accepted


def test_sliced_w2_equals_mean_of_projected_w2() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3)) + 1
    v = np.random.default_rng(7).normal(size=(5, 3))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    ref = np.sqrt(np.mean([_w2_lp(x @ d, y @ d) ** 2 for d in v]))
    assert sliced_w2(x, y, n_projections=5, seed=7) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: w2_1d(np.array([np.nan, 1.0]), np.zeros(2)), "NaN or infinity"),  # was nan
    (lambda: energy_distance(np.array([np.inf]), np.zeros(1)), "NaN or infinity"),  # was 0.0
    (lambda: sliced_w2(np.full((3, 2), np.nan), np.zeros((3, 2))), "NaN or infinity"),
    (lambda: per_time(w2_1d, np.full((2, 1, 1), np.nan), np.zeros((2, 1, 1))), "NaN or infinity"),
    (lambda: w2_1d(np.zeros((3, 2)), np.zeros((3, 2))), "expected 1-D samples"),  # was raveled to 6 samples
    (lambda: w2_1d(np.array([1j]), np.zeros(1)), "real numbers"),  # imaginary part was dropped
    (lambda: w2_1d(np.array(["a"]), np.zeros(1)), "real numbers"),
    (lambda: sliced_w2(np.zeros((3, 2)), np.zeros((3, 2)), n_projections=2.5), "n_projections"),  # type: ignore[arg-type]
    (lambda: energy_distance(np.zeros(0), np.zeros(1)), "non-empty"),
])
def test_bad_input_raises_one_line_error(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError, match=match) as info:
        call()
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)


def test_repro_scores_a_diverged_rollout_as_infinite() -> None:
    from paperworks.backends.lifting.repro import _w2_or_inf

    gen = np.zeros((4, 3, 1))
    gen[0, 2, 0] = np.inf
    out = _w2_or_inf(gen, np.ones((4, 3, 1)))
    assert out.tolist() == [1.0, 1.0, np.inf]
