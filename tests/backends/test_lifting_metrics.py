"""Stochastic Lifting metrics against closed forms; systems against their exact laws; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paperworks.backends.lifting.metrics import energy_distance, per_time, sliced_w2, w2_1d
from paperworks.backends.lifting.systems import make_system, ou_exact_transition, transitions
from paperworks.core.errors import UserError


def test_w2_1d_exact_small_cases() -> None:
    assert w2_1d(np.array([1.0, 0.0]), np.array([3.0, 1.0])) == pytest.approx(math.sqrt((1 + 4) / 2))
    # unequal sizes: half the mass of y sits at 0 (cost 0), half at 2 (cost 4)
    assert w2_1d(np.array([0.0]), np.array([0.0, 2.0])) == pytest.approx(math.sqrt(2.0))
    # thirds against halves: quantile pieces [0,1/3]: 0-0, [1/3,1/2]: 1-0, [1/2,2/3]: 1-4, [2/3,1]: 2-4
    want = math.sqrt(1 / 6 * 1 + 1 / 6 * 9 + 1 / 3 * 4)
    assert w2_1d(np.array([0.0, 1.0, 2.0]), np.array([0.0, 4.0])) == pytest.approx(want)


def test_w2_1d_between_gaussians_matches_closed_form() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0.0, 1.0, 20000)
    y = rng.normal(1.0, 2.0, 20000)
    # W2(N(m1, s1^2), N(m2, s2^2)) = sqrt((m1 - m2)^2 + (s1 - s2)^2)
    assert w2_1d(x, y) == pytest.approx(math.sqrt(2.0), abs=0.04)


def test_sliced_w2_of_shifted_gaussians() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20000, 2))
    y = rng.normal(size=(20000, 2)) + np.array([2.0, 0.0])
    # per direction v the 1-D W2^2 is (v.m)^2; averaged over the circle: |m|^2 / 2
    assert sliced_w2(x, y, n_projections=512) == pytest.approx(2.0 / math.sqrt(2.0), abs=0.05)
    assert sliced_w2(x[:, :1], y[:, :1]) == pytest.approx(w2_1d(x[:, 0], y[:, 0]))


def _mean_abs_normal(mu: float, s: float) -> float:
    """E|Z| for Z ~ N(mu, s^2)."""
    phi = 0.5 * (1 + math.erf(-mu / (s * math.sqrt(2))))
    return s * math.sqrt(2 / math.pi) * math.exp(-mu ** 2 / (2 * s ** 2)) + mu * (1 - 2 * phi)


def test_energy_distance_between_gaussians_matches_closed_form() -> None:
    from statistics import NormalDist

    # quantile samples: no sampling noise in the mean
    q = np.array([NormalDist().inv_cdf((i + 0.5) / 3000) for i in range(3000)])
    x, y = q, q + 1.0
    want = 2 * _mean_abs_normal(1.0, math.sqrt(2.0)) - 2 * (2 / math.sqrt(math.pi))
    assert energy_distance(x, y) == pytest.approx(want, abs=0.005)
    # two points: 2|0 - 1| - 0 - 0
    assert energy_distance(np.array([0.0]), np.array([1.0])) == pytest.approx(2.0)
    assert energy_distance(x, x) == pytest.approx(0.0, abs=1e-9)


def test_per_time_applies_the_metric_at_each_time() -> None:
    a = np.zeros((4, 3, 1))
    b = np.arange(3, dtype=float)[None, :, None] + np.zeros((4, 3, 1))
    assert per_time(w2_1d, a, b).tolist() == pytest.approx([0.0, 1.0, 2.0])


def test_ou_simulator_matches_its_exact_transition() -> None:
    sde = make_system("ou")
    rng = np.random.default_rng(3)
    paths = sde.simulate(np.full((20000, 1), 1.5), 5, rng)
    mean, std = ou_exact_transition(np.array(1.5), sde, 5)
    assert paths[:, 5, 0].mean() == pytest.approx(float(mean), abs=0.01)
    assert paths[:, 5, 0].std() == pytest.approx(std, rel=0.03)
    x, y = transitions(paths[:3])
    assert x.shape == (15, 1) and np.array_equal(y[0], paths[0, 1]) and np.array_equal(x[1], paths[0, 1])


def test_bad_input_raises_user_error() -> None:
    with pytest.raises(UserError, match="dimensions differ"):
        sliced_w2(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(UserError, match="non-empty"):
        w2_1d(np.zeros(0), np.zeros(2))
    with pytest.raises(UserError, match="unknown system"):
        make_system("lorenz")
    with pytest.raises(UserError, match="dt_obs"):
        make_system("ou", dt_obs=-1.0)
