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
    # Per-token proxies w chosen by hand (1, 2 or 0.5).
    w = torch.tensor([[1.0, 1.0, 1.0], [2.0, 0.0, 0.0], [1.0, 0.5, 0.0], [1.0, 1.0, 1.0]])
    r = outcome_token_rewards(SCORES, MASK)
    adv = otb_advantages(r, MASK, GROUPS, w, zero_tail=False)
    # Cumulative W: row0 [1,2,3], row1 [2,-,-], row2 [1,1.5,-]; G: row0 1, row1 0, row2 1.
    b0 = (1 * 1 + 0 * 2 + 1 * 1) / (1 + 2 + 1)  # t=0: 0.5
    b1 = (1 * 2 + 1 * 1.5) / (2 + 1.5)  # t=1: rows 0 and 2 -> 1.0
    b2 = (1 * 3) / 3  # t=2: row 0 alone -> its own return
    expected = torch.tensor([[1 - b0, 1 - b1, 1 - b2], [0 - b0, 0, 0], [1 - b0, 1 - b1, 0], [5, 5, 5]])
    assert torch.allclose(adv, expected, atol=1e-6)
    # zero_tail: where only row 0 is still running (t=2), its baseline is 0, so the advantage is G.
    tail = otb_advantages(r, MASK, GROUPS, w, zero_tail=True)
    assert tail[0, 2] == pytest.approx(1.0)
    assert torch.allclose(tail[:, :2], expected[:, :2], atol=1e-6)


def test_otb_weight_is_cumulative() -> None:
    # Two responses of one group with different returns (G = 1 and 0). Row 0 has a large proxy at t=0 and a small
    # one at t=1; row 1 the reverse. Cumulative W at t=1: row0 4 + 1 = 5, row1 1 + 4 = 5 -> B*_1 = 0.5.
    # A per-token (non-cumulative) weight would give (1*1 + 0*4) / (1 + 4) = 0.2 instead.
    mask = torch.ones(2, 2)
    r = outcome_token_rewards(torch.tensor([1.0, 0.0]), mask)
    w = torch.tensor([[4.0, 1.0], [1.0, 4.0]])
    adv = otb_advantages(r, mask, torch.tensor([0, 0]), w)
    b0 = (1 * 4 + 0 * 1) / (4 + 1)  # 0.8 at t=0 (cumulative = per-token there)
    b1 = (1 * 5 + 0 * 5) / (5 + 5)  # 0.5 at t=1
    assert torch.allclose(adv, torch.tensor([[1 - b0, 1 - b1], [-b0, -b1]]), atol=1e-6)
    assert not torch.allclose(adv[:, 1], torch.tensor([1 - 0.2, -0.2]), atol=1e-3)


def _otb_reference(scores: list[float], lengths: list[int], groups: list[int], w: list[list[float]],
                   zero_tail: bool, eps: float = 1e-8) -> list[list[float]]:
    """OTB advantages from the definition, with plain Python loops (no tensors, nothing from the module):
    G_t = Σ_{j≥t} r_j with the outcome reward on the last token, W_t = Σ_{j≤t} w_j, and per group and position
    B*_t = Σ_i G_t W_t / (Σ_i W_t + eps) over the responses still running at t; 0 for a group of one."""
    b, t_max = len(scores), len(w[0])
    out = [[0.0] * t_max for _ in range(b)]
    for i in range(b):
        members = [k for k in range(b) if groups[k] == groups[i]]
        for t in range(lengths[i]):
            num = den = 0.0
            running = 0
            for k in members:
                if t < lengths[k]:
                    big_w = sum(w[k][j] for j in range(t + 1))
                    g = scores[k]  # the reward sits on the last token, so G_t is the score at every t < length
                    num += g * big_w
                    den += big_w
                    running += 1
            baseline = num / (den + eps)
            if len(members) == 1 or (zero_tail and running <= 1):
                baseline = 0.0
            out[i][t] = scores[i] - baseline
    return out


@pytest.mark.parametrize("seed", range(12))
def test_otb_matches_loop_reference_on_random_batches(seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    b, t_max, v = int(torch.randint(2, 13, (1,), generator=g)), int(torch.randint(1, 9, (1,), generator=g)), 11
    lengths = torch.randint(0, t_max + 1, (b,), generator=g)
    lengths[0] = t_max  # at least one full-length row
    mask = (torch.arange(t_max)[None, :] < lengths[:, None]).float()
    groups = torch.randint(0, 4, (b,), generator=g) * 7 - 3  # several groups, arbitrary ids, some of size one
    scores = torch.randn(b, generator=g)
    logits = 3 * torch.randn(b, t_max, v, generator=g)
    tokens = torch.randint(0, v, (b, t_max), generator=g)
    # the proxy from its definition, in float64: ||softmax(z) - onehot(y)||^2
    pi = torch.softmax(logits.double(), -1)
    w = ((pi - torch.nn.functional.one_hot(tokens, v).double()) ** 2).sum(-1)
    proxy = logit_gradient_proxy(logits, tokens)
    assert torch.allclose(proxy.double(), w, rtol=1e-5, atol=1e-7)
    for zero_tail in (False, True):
        got = compute_advantages("otb", outcome_token_rewards(scores, mask), mask, groups, proxy, zero_tail=zero_tail)
        ref = _otb_reference(scores.tolist(), lengths.tolist(), groups.tolist(), w.tolist(), zero_tail)
        assert torch.allclose(got.double(), torch.tensor(ref, dtype=torch.float64), atol=1e-5), (seed, zero_tail)


def test_otb_equals_group_mean_when_weights_equal() -> None:
    g = torch.Generator().manual_seed(0)
    b, t = 8, 6
    mask = torch.ones(b, t)
    scores = torch.rand(b, generator=g)
    groups = torch.arange(b) // 4
    proxy = torch.full((b, t), 0.3)  # same w everywhere -> same W_t across a group at each t
    otb = compute_advantages("otb", outcome_token_rewards(scores, mask), mask, groups, proxy)
    dr = compute_advantages("dr_grpo", outcome_token_rewards(scores, mask), mask, groups)
    assert torch.allclose(otb, dr, atol=1e-6)


def test_otb_group_of_one_has_zero_baseline() -> None:
    mask = torch.ones(1, 4)
    r = outcome_token_rewards(torch.tensor([0.75]), mask)
    adv = compute_advantages("otb", r, mask, torch.tensor([0]), torch.full((1, 4), 0.2))
    assert torch.allclose(adv, torch.full((1, 4), 0.75))


def test_otb_needs_proxy_inputs_and_names_are_checked() -> None:
    mask = torch.ones(2, 2)
    with pytest.raises(ValueError, match="proxy"):
        compute_advantages("otb", mask, mask, torch.tensor([0, 0]))
    with pytest.raises(ValueError, match="unknown estimator"):
        compute_advantages("ppo", mask, mask, torch.tensor([0, 0]))


def test_proxy_equals_autograd_squared_gradient_norm() -> None:
    g = torch.Generator().manual_seed(1)
    z = (3 * torch.randn(5, 7, 50, generator=g, dtype=torch.float64)).requires_grad_(True)
    y = torch.randint(0, 50, (5, 7), generator=g)
    _, lse = token_logprobs(z.detach(), y)
    w = logit_gradient_proxy(z.detach(), y, lse).double()
    ref = torch.empty(5, 7, dtype=torch.float64)
    for i in range(5):
        for j in range(7):
            (grad,) = torch.autograd.grad(torch.log_softmax(z[i, j], -1)[y[i, j]], z)
            ref[i, j] = (grad**2).sum()
    assert torch.allclose(w, ref, rtol=1e-5, atol=1e-6)
    assert torch.allclose(logit_gradient_proxy(z.detach(), y).double(), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("gap", [8.0, 12.0, 16.0, 20.0, 25.0, 30.0, 35.0])
def test_proxy_stays_accurate_as_pi_goes_to_one(gap: float) -> None:
    # The sampled token's logit is `gap` above 49 others: pi_y = 1 - O(e^-gap). 1 - 2*pi + sum(pi^2) cancels
    # to 0 or below in float32 here; the proxy must stay positive and match a float64 reference.
    g = torch.Generator().manual_seed(int(gap))
    z = torch.randn(4, 50, generator=g)
    y = torch.tensor([0, 3, 17, 49])
    z[torch.arange(4), y] += gap
    w = logit_gradient_proxy(z, y)
    assert w.dtype == torch.float32
    p = torch.softmax(z.double(), -1)  # float64 reference from its definition: (1 - pi_y)^2 + sum_{v != y} pi_v^2
    others = p.scatter(-1, y[:, None], 0.0)
    ref = others.sum(-1) ** 2 + (others**2).sum(-1)
    assert torch.all(w > 0)
    assert torch.allclose(w.double(), ref, rtol=1e-4, atol=0.0), (w, ref)
    if gap >= 12:  # what the textbook formula gives in float32: no significant digit left
        pi32 = torch.softmax(z, -1)
        naive = 1 - 2 * pi32.gather(-1, y[:, None]).squeeze(-1) + (pi32**2).sum(-1)
        assert not torch.allclose(naive.double(), ref, rtol=1e-2, atol=0.0)
