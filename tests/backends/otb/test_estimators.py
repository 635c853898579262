"""Advantage estimators and the logit-gradient proxy."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.otb.estimators import (  # noqa: E402
    compute_advantages,
    logit_gradient_proxy,
    otb_advantages,
    outcome_token_rewards,
    reward_to_go,
    sum_pi_squared,
    token_logprobs,
)

MASK = torch.tensor([[1, 1, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=torch.float32)
SCORES = torch.tensor([1.0, 0.0, 1.0, 5.0])
GROUPS = torch.tensor([7, 7, 7, 3])  # a group of three and a group of one


def test_outcome_rewards_and_reward_to_go() -> None:
    r = outcome_token_rewards(SCORES, MASK)
    assert r.tolist() == [[0, 0, 1], [0, 0, 0], [0, 1, 0], [0, 0, 5]]
    assert reward_to_go(r, MASK).tolist() == [[1, 1, 1], [0, 0, 0], [1, 1, 0], [5, 5, 5]]


def test_group_estimators_hand_computed() -> None:
    r = outcome_token_rewards(SCORES, MASK)
    # group {1, 0, 1}: mean 2/3, unbiased std sqrt(1/3); the group of one keeps its score 5.
    dr = compute_advantages("dr_grpo", r, MASK, GROUPS)
    assert torch.allclose(dr[:, 0], torch.tensor([1 / 3, -2 / 3, 1 / 3, 5.0]))
    grpo = compute_advantages("grpo", r, MASK, GROUPS)
    s = (1 / 3) ** 0.5
    assert torch.allclose(grpo[:, 0], torch.tensor([(1 / 3) / s, (-2 / 3) / s, (1 / 3) / s, 5.0]), atol=1e-4)
    rloo = compute_advantages("rloo", r, MASK, GROUPS)  # leave-one-out means 1/2, 1, 1/2
    assert torch.allclose(rloo[:, 0], torch.tensor([0.5, -1.0, 0.5, 5.0]))
    none = compute_advantages("none", r, MASK, GROUPS)
    assert torch.equal(none, reward_to_go(r, MASK))
    for adv in (dr, grpo, rloo, none):
        assert torch.all(adv[MASK == 0] == 0)


def test_otb_hand_computed() -> None:
    # Proxy w = 1 - 2*pi + sum_pi_sq: choose pi and sum_pi_sq so that w is 1, 2 or 0.5 per token.
    pi = torch.tensor([[0.5, 0.5, 0.5], [0.5, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, 0.5, 0.5]])
    w = torch.tensor([[1.0, 1.0, 1.0], [2.0, 0.0, 0.0], [1.0, 0.5, 0.0], [1.0, 1.0, 1.0]])
    spsq = w - 1 + 2 * pi
    r = outcome_token_rewards(SCORES, MASK)
    adv = otb_advantages(r, MASK, GROUPS, torch.log(pi.clamp(min=1e-12)), spsq, zero_tail=False)
    # Cumulative W: row0 [1,2,3], row1 [2,-,-], row2 [1,1.5,-]; G: row0 1, row1 0, row2 1.
    b0 = (1 * 1 + 0 * 2 + 1 * 1) / (1 + 2 + 1)  # t=0: 0.5
    b1 = (1 * 2 + 1 * 1.5) / (2 + 1.5)  # t=1: rows 0 and 2 -> 1.0
    b2 = (1 * 3) / 3  # t=2: row 0 alone -> its own return
    expected = torch.tensor([[1 - b0, 1 - b1, 1 - b2], [0 - b0, 0, 0], [1 - b0, 1 - b1, 0], [5, 5, 5]])
    assert torch.allclose(adv, expected, atol=1e-6)
    # zero_tail: where only row 0 is still running (t=2), its baseline is 0, so the advantage is G.
    tail = otb_advantages(r, MASK, GROUPS, torch.log(pi.clamp(min=1e-12)), spsq, zero_tail=True)
    assert tail[0, 2] == pytest.approx(1.0)
    assert torch.allclose(tail[:, :2], expected[:, :2], atol=1e-6)


def test_otb_equals_group_mean_when_weights_equal() -> None:
    g = torch.Generator().manual_seed(0)
    b, t = 8, 6
    mask = torch.ones(b, t)
    scores = torch.rand(b, generator=g)
    groups = torch.arange(b) // 4
    logp = torch.full((b, t), -0.7)
    spsq = torch.full((b, t), 0.3)  # same w everywhere -> same W_t across a group at each t
    otb = compute_advantages("otb", outcome_token_rewards(scores, mask), mask, groups, logp, spsq)
    dr = compute_advantages("dr_grpo", outcome_token_rewards(scores, mask), mask, groups)
    assert torch.allclose(otb, dr, atol=1e-6)


def test_otb_group_of_one_has_zero_baseline() -> None:
    mask = torch.ones(1, 4)
    r = outcome_token_rewards(torch.tensor([0.75]), mask)
    adv = compute_advantages("otb", r, mask, torch.tensor([0]), torch.full((1, 4), -1.0), torch.full((1, 4), 0.2))
    assert torch.allclose(adv, torch.full((1, 4), 0.75))


def test_otb_needs_proxy_inputs_and_names_are_checked() -> None:
    mask = torch.ones(2, 2)
    with pytest.raises(ValueError, match="logprobs"):
        compute_advantages("otb", mask, mask, torch.tensor([0, 0]))
    with pytest.raises(ValueError, match="unknown estimator"):
        compute_advantages("ppo", mask, mask, torch.tensor([0, 0]))


def test_proxy_equals_autograd_squared_gradient_norm() -> None:
    g = torch.Generator().manual_seed(1)
    z = (3 * torch.randn(5, 7, 50, generator=g, dtype=torch.float64)).requires_grad_(True)
    y = torch.randint(0, 50, (5, 7), generator=g)
    logp, lse = token_logprobs(z.detach(), y)
    w = logit_gradient_proxy(logp.double(), sum_pi_squared(z.detach(), lse).double())
    ref = torch.empty(5, 7, dtype=torch.float64)
    for i in range(5):
        for j in range(7):
            (grad,) = torch.autograd.grad(torch.log_softmax(z[i, j], -1)[y[i, j]], z)
            ref[i, j] = (grad**2).sum()
    assert torch.allclose(w, ref, rtol=1e-5, atol=1e-6)
    assert torch.allclose(sum_pi_squared(z.detach()), (torch.softmax(z.detach(), -1) ** 2).sum(-1).float(), atol=1e-6)
