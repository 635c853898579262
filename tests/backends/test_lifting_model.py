"""The lifted map on Ornstein–Uhlenbeck: near interpolation in training, and rollouts (fresh labels) whose law
matches the exact OU law, where the deterministic regressor collapses; the conv net and the Gaussian head."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _exact_w2(sample: np.ndarray, mean: float, std: float) -> float:
    """W2 between the Gaussian fitted to ``sample`` and N(mean, std^2) (closed form for Gaussians)."""
    return math.hypot(float(sample.mean()) - mean, float(sample.std()) - std)


@pytest.mark.slow
def test_lifted_ou_rollout_matches_the_exact_law() -> None:
    from paperworks.backends.lifting.model import LiftedMLP
    from paperworks.backends.lifting.systems import make_system, ou_exact_transition, transitions
    from paperworks.backends.lifting.train import TrainConfig, fit, relative_train_error, rollout

    torch.set_num_threads(1)
    sde = make_system("ou")  # theta 1, sigma 0.5, dt 0.2
    rng = np.random.default_rng(0)
    x, y = transitions(sde.simulate(sde.initial(50, rng), 10, rng))
    x0 = 1.5 + 0.1 * rng.normal(size=(2000, 1))
    w2: dict[int, list[float]] = {}
    for m in (0, 32):
        torch.manual_seed(0)
        model = LiftedMLP(1, m, width=64, depth=3)
        fit(model, x, y, TrainConfig(steps=1500, lr=3e-3, seed=0))
        if m:
            assert relative_train_error(model, x, y, seed=0) < 1e-2  # near interpolation
        paths = rollout(model, x0, 10, seed=0)
        w2[m] = []
        for k in (1, 5, 10):
            mean, std = ou_exact_transition(np.array(1.5), sde, k)
            std_tot = math.sqrt(std ** 2 + (0.1 * math.exp(-k * sde.dt_obs)) ** 2)  # initial spread 0.1
            w2[m].append(_exact_w2(paths[:, k, 0], float(mean), std_tot))
    # measured (seed 0): lifted [0.07, 0.12, 0.04], deterministic [0.14, 0.31, 0.34]
    assert max(w2[32]) < 0.2
    assert min(w2[0][1:]) > 0.25
    assert all(a < 0.6 * b for a, b in zip(w2[32], w2[0], strict=True))


def test_gaussian_head_learns_the_ou_transition_std() -> None:
    from paperworks.backends.lifting.model import GaussianHead
    from paperworks.backends.lifting.systems import make_system, ou_exact_transition
    from paperworks.backends.lifting.train import TrainConfig, fit

    torch.set_num_threads(1)
    sde = make_system("ou")
    rng = np.random.default_rng(1)
    x = rng.uniform(-1.5, 1.5, size=(2000, 1))
    y = sde.step(x, rng)
    torch.manual_seed(0)
    model = GaussianHead(1, width=32, depth=2)
    fit(model, x, y, TrainConfig(steps=600, lr=1e-2))
    with torch.no_grad():
        mean, log_s = model.mean_logstd(torch.tensor([[0.0], [1.0]]))
    want_mean, want_std = ou_exact_transition(np.array([0.0, 1.0]), sde, 1)
    assert mean[:, 0].tolist() == pytest.approx(want_mean.tolist(), abs=0.05)
    assert log_s.exp()[:, 0].tolist() == pytest.approx([want_std, want_std], rel=0.15)
    draws = model.sample(torch.zeros(4000, 1), torch.Generator().manual_seed(0))[:, 0]
    assert float(draws.std()) == pytest.approx(want_std, rel=0.2)


def test_lifted_conv_net_interpolates_fields_and_samples_diverse_ones() -> None:
    from paperworks.backends.lifting.model import LiftedConv1d
    from paperworks.backends.lifting.train import TrainConfig, fit, relative_train_error

    torch.set_num_threads(1)
    rng = np.random.default_rng(2)
    x = rng.normal(size=(32, 16))
    y = 0.9 * x + 0.3 * rng.normal(size=(32, 16))  # a noisy contraction of the field
    torch.manual_seed(0)
    model = LiftedConv1d(label_dim=32, channels=32, depth=3)
    fit(model, x, y, TrainConfig(steps=400, lr=3e-3))
    assert relative_train_error(model, x, y) < 0.05
    draws = torch.stack([model.sample(torch.tensor(x[:1], dtype=torch.float32)) for _ in range(20)])
    assert float(draws.std(0).mean()) > 0.05  # fresh labels give different next fields


def test_bad_model_settings_raise_user_error() -> None:
    from paperworks.backends.lifting.model import LiftedMLP
    from paperworks.backends.lifting.train import TrainConfig, fit
    from paperworks.core.errors import UserError

    with pytest.raises(UserError, match="inject"):
        LiftedMLP(1, 4, inject="add")
    with pytest.raises(UserError, match="steps"):
        fit(LiftedMLP(1, 4), np.zeros((3, 1)), np.zeros((3, 1)), TrainConfig(steps=0))


def test_embedded_label_injection_interpolates_and_varies_with_the_label() -> None:
    from paperworks.backends.lifting.model import LiftedMLP
    from paperworks.backends.lifting.train import TrainConfig, fit, relative_train_error

    torch.set_num_threads(1)
    rng = np.random.default_rng(4)
    x = rng.normal(size=(200, 1))
    y = 0.8 * x + 0.4 * rng.normal(size=(200, 1))
    torch.manual_seed(0)
    model = LiftedMLP(1, 16, width=64, depth=2, inject="embed")
    fit(model, x, y, TrainConfig(steps=800, lr=3e-3))
    assert relative_train_error(model, x, y) < 0.05  # the label alone tells transitions of equal x apart
    draws = model.sample(torch.zeros(500, 1), torch.Generator().manual_seed(1))
    assert float(draws.std()) > 0.1  # fresh labels spread the next state
