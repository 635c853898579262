"""LASER's sensing methods: the greedy uncertainty heuristic by hand, and the closed-loop scoring."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch

from paperworks.backends.laser.policies import greedy_targets, relative_l2, run_method, static_chooser
from paperworks.backends.laser.world import WorldModel, WorldModelConfig


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_greedy_moves_to_the_reachable_peak_and_spreads() -> None:
    var = np.ones((16, 16))
    var[5, 6] = 10.0  # reachable from (4, 5): distance √2
    var[12, 12] = 50.0  # out of reach
    out = greedy_targets(var, np.array([[4.0, 5.0], [4.0, 5.0]]), max_step=2.0, suppress=1.0)
    np.testing.assert_array_equal(out[0], [5.0, 6.0])
    # the second sensor's copy of the peak is suppressed to ~0, so it takes another point within reach
    assert tuple(out[1]) != (5.0, 6.0) and np.hypot(*(out[1] - [4.0, 5.0])) <= 2.0
    flat = greedy_targets(np.ones((8, 8)), np.array([[3.3, 2.7]]), max_step=1.5, suppress=1.0)
    np.testing.assert_allclose(flat[0], [3.3, 2.7])  # nothing better than where it is: stays
    wrap = np.ones((8, 8))
    wrap[0, 0] = 5.0
    np.testing.assert_array_equal(greedy_targets(wrap, np.array([[7.0, 7.0]]), 1.5, 1.0)[0], [0.0, 0.0])


def test_run_method_scores_the_decoded_mean() -> None:
    torch.manual_seed(0)
    wm = WorldModel(8, WorldModelConfig(latent=16, embed=16, hidden=32, splat_grid=4))
    fields = np.random.default_rng(0).normal(size=(3, 4, 8, 8)).astype(np.float32)
    start = np.random.default_rng(1).uniform(0, 8, size=(3, 2, 2))
    out = run_method(wm, fields, start, static_chooser())
    np.testing.assert_allclose(out["tracks"], np.broadcast_to(start[:, None], (3, 4, 2, 2)), rtol=1e-6)
    np.testing.assert_allclose(out["rel_l2"], relative_l2(out["recon"], fields), rtol=1e-5)
    truth = np.array([[3.0, 4.0], [0.0, 0.0]])  # by hand: ‖(0, 0, 0, 0) − u‖ / ‖u‖ = 1; ‖u/2 − u‖ / ‖u‖ = ½
    assert relative_l2(np.zeros_like(truth), truth) == pytest.approx(1.0)
    assert relative_l2(truth / 2, truth) == pytest.approx(0.5)


def test_imagined_reward_is_the_predicted_error_decrease() -> None:
    from paperworks.backends.laser.agent import imagine_step, predicted_error
    from paperworks.backends.laser.sensors import observe
    from paperworks.core.errors import UserError

    torch.manual_seed(2)
    wm = WorldModel(8, WorldModelConfig(latent=16, embed=16, hidden=32, splat_grid=4))
    h, pos, move = torch.randn(3, 16), torch.rand(3, 2, 2) * 8, torch.tensor([[[9.0, -0.5]] * 2] * 3)
    h2, p2, r = imagine_step(wm, h, pos, move, "posterior")
    np.testing.assert_allclose(p2.numpy(), np.mod(pos.numpy() + move.numpy(), 8.0), rtol=1e-6)  # wraps around
    hp = wm.prior(h)
    by_hand = wm.posterior(hp, observe(wm.decode(hp)[0], p2), p2)  # the forecast read where the sensors went
    torch.testing.assert_close(h2, by_hand)
    torch.testing.assert_close(r, predicted_error(wm, h) - predicted_error(wm, by_hand))
    _, _, ra = imagine_step(wm, h, pos, move, "assimilation")
    torch.testing.assert_close(ra, predicted_error(wm, hp) - predicted_error(wm, by_hand))
    with pytest.raises(UserError, match="reward"):
        imagine_step(wm, h, pos, move, "bogus")
