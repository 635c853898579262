"""The oracle reconstructor (linear MMSE from the sensor readings) on hand-made fields; the expected numbers are
the worked examples of ``paperworks.backends.laser.oracle``'s docstring."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.laser.oracle import FieldStats, bilinear_weights, field_stats, oracle_reconstruct
from paperworks.core.errors import UserError

C0 = np.array([[1, .5, .5, 0], [.5, 1, 0, .5], [.5, 0, 1, .5], [0, .5, .5, 1]])


def _field(values: list[float]) -> np.ndarray:
    """One episode of one 2 × 2 frame whose flat (x·2 + y) values are ``values``."""
    return np.array(values, dtype=float).reshape(1, 1, 2, 2)


def test_one_sensor_on_a_pixel_and_between_pixels() -> None:
    stats = FieldStats.from_lags(np.zeros(4), [C0])
    # the true field only matters through the reading at the sensor: 2 at pixel (0, 0)
    rec = oracle_reconstruct(_field([2, 7, -1, 4]), np.array([[[[0.0, 0.0]]]]), stats)
    np.testing.assert_allclose(rec.reshape(4), [2, 1, 1, 0])
    # halfway between pixels 0 (value 2) and 2 (value 4): reading 3
    rec = oracle_reconstruct(_field([2, 7, 4, 4]), np.array([[[[0.5, 0.0]]]]), stats)
    np.testing.assert_allclose(rec.reshape(4), [3, 1, 3, 1])
    # a non-zero mean shifts reading and estimate alike
    shifted = FieldStats.from_lags(np.full(4, 10.0), [C0])
    rec = oracle_reconstruct(_field([12, 7, -1, 4]), np.array([[[[0.0, 0.0]]]]), shifted)
    np.testing.assert_allclose(rec.reshape(4), [12, 11, 11, 10])


def test_space_time_window_uses_earlier_readings() -> None:
    c1 = np.zeros((4, 4))
    c1[1, 0] = 1.0  # u_t[1] = u_{t-1}[0]
    stats = FieldStats.from_lags(np.zeros(4), [np.eye(4), c1])
    fields = np.array([[5, 0, 0, 0], [0, 5, 0, 2]], dtype=float).reshape(1, 2, 2, 2)
    tracks = np.array([[[0.0, 0.0]], [[1.0, 1.0]]]).reshape(1, 2, 1, 2)  # pixel 0 at t-1, pixel 3 at t
    np.testing.assert_allclose(oracle_reconstruct(fields, tracks, stats, window=2)[0, 1].reshape(4), [0, 5, 0, 2])
    np.testing.assert_allclose(oracle_reconstruct(fields, tracks, stats, window=1)[0, 1].reshape(4), [0, 0, 0, 2])
    # correlated readings across frames: Cov(y_{t-1}, y_t) = C_1[3, 0], the lag covariance in the right order
    c1 = np.zeros((4, 4))
    c1[1, 0], c1[3, 0] = 0.8, 0.5
    rec = oracle_reconstruct(fields, tracks, FieldStats.from_lags(np.zeros(4), [np.eye(4), c1]), window=2)
    np.testing.assert_allclose(rec[0, 1].reshape(4), [0, 64 / 15, 0, 2])


def test_field_stats_by_hand() -> None:
    # one episode, frames e_0, e_1, e_2; window 2: the samples are t = 1, 2, so u_t is e_1 or e_2 (mean
    # (0, .5, .5, 0)) and u_{t-1} is e_0 or e_1 (mean (.5, .5, 0, 0)); centred, t = 1 gives a_0 = (0, .5, -.5, 0),
    # a_1 = (.5, -.5, 0, 0) and t = 2 their negatives, so Cov(u_t, u_{t-1}) = a_0 a_1^T has [1, 0] = .25,
    # [0, 1] = 0, [1, 1] = -.25, [2, 0] = -.25, and Var(u_t[1]) = .25
    fields = np.eye(4)[:3].reshape(1, 3, 2, 2)
    stats = field_stats(fields, window=2)
    np.testing.assert_allclose(stats.mean, [[0, .5, .5, 0], [.5, .5, 0, 0]])
    c01 = stats.blocks[0, 1]
    assert (c01[1, 0], c01[0, 1], c01[1, 1], c01[2, 0]) == pytest.approx((.25, 0, -.25, -.25))
    np.testing.assert_allclose(stats.blocks[1, 0], c01.T)
    assert stats.blocks[0, 0][1, 1] == pytest.approx(.25)
    # window 1: every frame is a sample, mean (1/3, 1/3, 1/3, 0), Var(u[0]) = (4/9 + 1/9 + 1/9) / 3
    one = field_stats(fields, window=1)
    np.testing.assert_allclose(one.mean, [[1 / 3, 1 / 3, 1 / 3, 0]])
    assert one.blocks[0, 0][0, 0] == pytest.approx(2 / 9)
    # the joint estimate is positive semi-definite
    rng = np.random.default_rng(2)
    big = field_stats(rng.normal(size=(3, 5, 2, 2)).cumsum(1), window=3)
    joint = big.blocks.transpose(0, 2, 1, 3).reshape(12, 12)
    assert np.linalg.eigvalsh(joint).min() > -1e-10


def test_exact_when_the_field_lies_in_the_span_of_the_readings() -> None:
    # fields drawn from a 2-dimensional Gaussian model on a 4 x 4 grid; 2 well-placed sensors recover them exactly
    rng = np.random.default_rng(0)
    modes = rng.normal(size=(16, 2))
    train = (rng.normal(size=(400, 2)) @ modes.T).reshape(100, 4, 4, 4)
    stats = field_stats(train, window=1)
    test = (rng.normal(size=(6, 2)) @ modes.T).reshape(2, 3, 4, 4)
    tracks = np.broadcast_to(np.array([[0.0, 0.0], [2.0, 3.0]]), (2, 3, 2, 2))
    rec = oracle_reconstruct(test, tracks, stats, nugget=1e-9)
    np.testing.assert_allclose(rec, test, atol=1e-5)


@pytest.mark.slow  # imports torch
def test_weights_match_observe_and_bad_inputs_raise() -> None:
    torch = pytest.importorskip("torch")
    from paperworks.backends.laser.sensors import observe

    rng = np.random.default_rng(1)
    field = rng.normal(size=(5, 5))
    pos = rng.uniform(0, 5, size=(7, 2))
    idx, w = bilinear_weights(pos, 5)
    ours = (field.reshape(-1)[idx] * w).sum(-1)
    ref = observe(torch.from_numpy(field)[None], torch.from_numpy(pos)[None])[0].numpy()
    np.testing.assert_allclose(ours, ref, atol=1e-12)
    stats = FieldStats.from_lags(np.zeros(4), [C0])
    with pytest.raises(UserError, match="window"):
        oracle_reconstruct(_field([0, 0, 0, 0]), np.zeros((1, 1, 1, 2)), stats, window=2)
    with pytest.raises(UserError, match="share E and T"):
        oracle_reconstruct(_field([0, 0, 0, 0]), np.zeros((1, 2, 1, 2)), stats)
    with pytest.raises(UserError, match="window"):
        field_stats(np.zeros((1, 2, 2, 2)), window=3)
