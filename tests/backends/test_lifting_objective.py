"""The lifting objective as the authors define it (julesberman/stochastic_lifting; see
``paperworks.backends.lifting.definitions``), checked on small hand-made inputs whose values are worked out by
hand: the loss, the fixed label per transition, fresh labels at rollout, the cosine schedule and AdamW's weight
decay, the trajectory W2 (mean over all times), the one-step spread diagnostic and the size overrides."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def test_loss_on_a_two_sample_batch_averages_over_batch_and_coordinates() -> None:
    from paperworks.backends.lifting.train import lifting_loss

    pred = torch.tensor([[1.0, 2.0], [0.0, 0.0]])
    y = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
    # squared errors 1, 4 | 1, 1: their mean over the 4 entries is 7/4 (a per-row sum, then mean, gives 7/2)
    assert float(lifting_loss(pred, y)) == pytest.approx(1.75)


def _spy_model(label_dim: int):
    from paperworks.backends.lifting.model import LiftedMLP

    class Spy(LiftedMLP):
        seen: list[tuple[float, tuple[float, ...]]]

        def forward(self, x, xi=None):
            if xi is not None:
                self.seen.extend((float(a[0]), tuple(b.tolist())) for a, b in zip(x, xi, strict=True))
            return super().forward(x, xi)

    model = Spy(1, label_dim, width=8, depth=1)
    model.seen = []
    return model


def test_each_transition_keeps_one_label_for_all_of_training() -> None:
    from paperworks.backends.lifting.train import TrainConfig, fit

    x = np.arange(6, dtype=float)[:, None]  # transition i has state i
    y = x + 1.0
    model = _spy_model(2)
    fit(model, x, y, TrainConfig(steps=40, batch=2, seed=3))
    by_state: dict[float, set[tuple[float, ...]]] = {}
    for state, label in model.seen:
        by_state.setdefault(state, set()).add(label)
    assert len(by_state) == 6  # minibatches of 2 with replacement reached every transition in 40 steps
    assert all(len(labels) == 1 for labels in by_state.values())  # one fixed label each
    # the labels are the N(0, I) draw of the seeded generator, row i for transition i
    want = torch.randn(6, 2, generator=torch.Generator().manual_seed(3))
    for i in range(6):
        assert next(iter(by_state[float(i)])) == pytest.approx(tuple(want[i].tolist()))


def test_rollout_draws_a_fresh_label_for_every_row_at_every_step() -> None:
    from paperworks.backends.lifting.train import rollout

    model = _spy_model(3)
    paths = rollout(model, np.zeros((4, 1)), 3, seed=0)
    assert paths.shape == (4, 4, 1)
    labels = [lab for _, lab in model.seen]
    assert len(labels) == 12 and len(set(labels)) == 12  # 4 rows x 3 steps, all different


def test_cosine_schedule_and_weight_decay_of_the_optimiser(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.backends.lifting.model import LiftedMLP
    from paperworks.backends.lifting.train import TrainConfig, cosine_lr, fit

    # lr (1 + cos(pi k / K)) / 2 by hand, K = 4, lr = 0.1
    assert [cosine_lr(k, 4, 0.1) for k in range(5)] == pytest.approx(
        [0.1, 0.1 * (1 + math.sqrt(0.5)) / 2, 0.05, 0.1 * (1 - math.sqrt(0.5)) / 2, 0.0])
    seen: list[tuple[float, float]] = []
    original = torch.optim.AdamW.step

    def spy_step(self, *args, **kwargs):
        seen.append((self.param_groups[0]["lr"], self.param_groups[0]["weight_decay"]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.AdamW, "step", spy_step)
    fit(LiftedMLP(1, 2, width=4, depth=1), np.zeros((3, 1)), np.ones((3, 1)), TrainConfig(steps=4, lr=0.1))
    assert [lr for lr, _ in seen] == pytest.approx([0.1, 0.1 * (1 + math.sqrt(0.5)) / 2, 0.05,
                                                    0.1 * (1 - math.sqrt(0.5)) / 2])
    assert all(wd == 1e-4 for _, wd in seen)


def test_trajectory_w2_is_the_mean_over_all_times_including_the_first() -> None:
    from paperworks.backends.lifting.metrics import sliced_w2, trajectory_w2

    gen = np.array([[0.0, 0.0, 3.0], [1.0, 2.0, 0.0]])[:, :, None]  # 2 samples, 3 times, 1-D
    ref = np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])[:, :, None]
    # t0: {0,1} vs {0,1} -> 0; t1: sorted (0,2) vs (1,1) -> sqrt((1+1)/2) = 1; t2: (0,3) vs (0,0) -> sqrt(9/2)
    per_t, mean = trajectory_w2(gen, ref)
    assert per_t.tolist() == pytest.approx([0.0, 1.0, math.sqrt(4.5)])
    assert mean == pytest.approx((1.0 + math.sqrt(4.5)) / 3)
    # in 2-D the directions at time t are those of seed `seed + t`
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    per_t2, _ = trajectory_w2(np.stack([a, a], 1), np.stack([b, b], 1), n_projections=3, seed=7)
    assert per_t2.tolist() == pytest.approx([sliced_w2(a, b, 3, 7), sliced_w2(a, b, 3, 8)])
    assert per_t2[0] != per_t2[1]


def test_one_step_spread_of_a_model_with_a_known_spread() -> None:
    from torch import nn

    from paperworks.backends.lifting.repro import one_step_spread
    from paperworks.backends.lifting.systems import make_system, ou_exact_transition

    sde = make_system("ou")
    _, s = ou_exact_transition(np.zeros(1), sde)

    class TwiceTheNoise(nn.Module):
        @torch.no_grad()
        def sample(self, x, generator=None):
            return x + 2 * s * torch.randn(x.shape, generator=generator)

    ratio = one_step_spread(TwiceTheNoise(), sde, np.zeros((4, 1)), 20000, seed=0)
    assert ratio == pytest.approx(2.0, rel=0.03)  # 2 s over the simulator's s (Euler-Maruyama, 20 substeps)


def test_size_overrides() -> None:
    from paperworks.backends.lifting.repro import LiftingReproConfig, with_overrides
    from paperworks.core.errors import UserError

    cfg = with_overrides(LiftingReproConfig(), "reported_seeds=20/21, steps=50,lr=0.01")
    assert cfg.reported_seeds == (20, 21) and cfg.steps == 50 and cfg.lr == 0.01
    assert all(type(v) is int for v in (*cfg.reported_seeds, cfg.steps))  # seeds and sizes stay integers
    with pytest.raises(UserError, match="not name=value"):
        with_overrides(LiftingReproConfig(), "widht=3")
    with pytest.raises(UserError, match="expected int"):
        with_overrides(LiftingReproConfig(), "steps=many")
