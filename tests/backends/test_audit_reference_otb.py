"""Audit: OTB estimators against an independent numpy float64 reference, and bad input raising one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paperworks.backends._validate import BackendInputError  # noqa: E402
from paperworks.backends.otb.estimators import (  # noqa: E402
    compute_advantages,
    logit_gradient_proxy,
    otb_advantages,
    outcome_token_rewards,
    token_logprobs,
)
from paperworks.core.errors import UserError  # noqa: E402


def _ref(estimator: str, scores: np.ndarray, lengths: np.ndarray, groups: np.ndarray, w: np.ndarray | None,
         t_max: int) -> np.ndarray:
    """Brute force from the definitions: outcome reward on the last token, G_t = R on every valid token."""
    b = len(scores)
    scores = np.where(lengths > 0, scores, 0.0)  # an empty response has no token to carry its reward
    out = np.zeros((b, t_max))
    for i in range(b):
        members = [j for j in range(b) if groups[j] == groups[i]]
        n = len(members)
        others = [scores[j] for j in members if j != i]
        for t in range(lengths[i]):
            if estimator == "none" or n == 1:
                base, scale = 0.0, 1.0
            elif estimator in ("grpo", "dr_grpo"):
                vals = np.array([scores[j] for j in members])
                base = vals.mean()
                scale = vals.std(ddof=1) + 1e-6 if estimator == "grpo" else 1.0
            elif estimator == "rloo":
                base, scale = float(np.mean(others)), 1.0
            else:  # otb: B*_t = sum_j G_j W_j(t) / sum_j W_j(t) over members still running at t
                assert w is not None
                num = den = 0.0
                for j in members:
                    if t < lengths[j]:
                        big_w = w[j, : t + 1].sum()
                        num += scores[j] * big_w
                        den += big_w
                base, scale = num / (den + 1e-8), 1.0  # verl's eps, the default
            out[i, t] = (scores[i] - base) / scale
    return out


def _batch(seed: int, dtype: torch.dtype = torch.float32):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    b, t_max, v = int(rng.integers(1, 10)), int(rng.integers(1, 7)), 9
    lengths = rng.integers(0, t_max + 1, b)
    lengths[0] = t_max
    groups = rng.integers(0, 3, b) * 5 - 4
    scores = rng.choice([0.0, 1.0, rng.normal()], size=b)  # ties are common
    logits = 4 * rng.normal(size=(b, t_max, v))
    tokens = rng.integers(0, v, (b, t_max))
    mask = (np.arange(t_max)[None, :] < lengths[:, None]).astype(float)
    return scores, lengths, groups, logits, tokens, mask, t_max


@pytest.mark.parametrize("seed", range(25))
def test_all_estimators_match_numpy_reference(seed: int) -> None:
    scores, lengths, groups, logits, tokens, mask, t_max = _batch(seed)
    pi = np.exp(logits - logits.max(-1, keepdims=True))
    pi /= pi.sum(-1, keepdims=True)
    onehot = np.eye(logits.shape[-1])[tokens]
    w = ((pi - onehot) ** 2).sum(-1)  # ||softmax - onehot||^2 = 1 - 2 pi_y + sum pi^2
    for dt in (torch.float32, torch.float64):
        tl = torch.tensor(logits, dtype=dt)
        proxy = logit_gradient_proxy(tl, torch.tensor(tokens))
        assert np.allclose(proxy.double().numpy(), w, rtol=1e-5, atol=1e-7)
        m = torch.tensor(mask, dtype=dt)
        r = outcome_token_rewards(torch.tensor(scores, dtype=dt), m)
        for est in ("none", "grpo", "dr_grpo", "rloo", "otb"):
            got = compute_advantages(est, r, m, torch.tensor(groups), proxy)
            assert got.dtype == dt
            tol = 1e-10 if dt == torch.float64 else 2e-5
            s_dt = torch.tensor(scores, dtype=dt).double().numpy()
            assert np.allclose(got.double().numpy(), _ref(est, s_dt, lengths, groups, w, t_max), atol=tol,
                               rtol=tol), (seed, est, dt)


def test_otb_eps_zero_is_exact_and_never_nan() -> None:
    # Every proxy ~1e-12 (pi_y ~ 1): with eps=0 the baseline is the exact weighted mean (verl's 1e-8 pulls it to 0)
    mask = torch.ones(2, 2, dtype=torch.float64)
    r = outcome_token_rewards(torch.tensor([1.0, 3.0], dtype=torch.float64), mask)
    proxy = torch.tensor([[1e-12, 1e-12], [3e-12, 3e-12]], dtype=torch.float64)
    adv = otb_advantages(r, mask, torch.tensor([0, 0]), proxy, eps=0.0)
    base = (1 * 1 + 3 * 3) / 4  # t=0 weights 1:3; t=1 cumulative weights 2:6, same ratio
    assert torch.allclose(adv, torch.tensor([[1 - base, 1 - base], [3 - base, 3 - base]], dtype=torch.float64))
    assert torch.allclose(otb_advantages(r, mask, torch.tensor([0, 0]), proxy), r.flip(-1).cumsum(-1).flip(-1),
                          rtol=1e-2)  # the default eps=1e-8 (verl's) leaves almost no baseline here
    # a position where every response of the group has ended: 0/0 was NaN with eps=0, now baseline 0
    short = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    adv0 = otb_advantages(outcome_token_rewards(torch.tensor([1.0, 0.0]), short), short, torch.tensor([0, 0]),
                          torch.ones(2, 2), eps=0.0)
    assert not bool(adv0.isnan().any()) and torch.allclose(adv0, torch.tensor([[0.5, 0.0], [-0.5, 0.0]]))
    # identical responses: advantage exactly 0 with eps=0
    same = otb_advantages(torch.ones(3, 2).t(), torch.ones(3, 2).t(), torch.tensor([0, 0]), torch.ones(3, 2).t(),
                          eps=0.0)
    assert torch.all(same == 0)


def test_float64_input_keeps_float64_precision() -> None:
    mask = torch.ones(2, 1, dtype=torch.float64)
    r = torch.tensor([[1.0 + 1e-12], [1.0]], dtype=torch.float64)
    adv = compute_advantages("dr_grpo", r, mask, torch.tensor([0, 0]))
    assert adv.dtype == torch.float64 and adv[0, 0].item() == pytest.approx(0.5e-12, rel=1e-3)


def test_proxy_of_ruled_out_and_single_token_vocabularies() -> None:
    z = torch.tensor([[0.0, float("-inf"), 1.0]])
    p = torch.softmax(torch.tensor([0.0, 1.0], dtype=torch.float64), -1)
    assert logit_gradient_proxy(z, torch.tensor([1])).item() == pytest.approx(1 + (p**2).sum().item(), rel=1e-6)
    assert logit_gradient_proxy(torch.zeros(2, 1), torch.tensor([0, 0])).tolist() == [0.0, 0.0]


MASK = torch.ones(2, 3)
R = torch.ones(2, 3)
G = torch.tensor([0, 0])
P = torch.ones(2, 3)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: compute_advantages("grpo", R, torch.ones(2, 1), G), "response_mask has shape"),
    (lambda: compute_advantages("otb", R, torch.ones(1, 3), G, P), "response_mask has shape"),
    (lambda: compute_advantages("rloo", R, MASK, torch.tensor([0, 0, 1])), "group_ids has shape"),
    (lambda: compute_advantages("otb", R, MASK, G, torch.ones(2, 1)), "proxy has shape"),
    (lambda: compute_advantages("otb", R, MASK, G, P, is_weights=torch.ones(3)), "is_weights has shape"),
    (lambda: compute_advantages("grpo", torch.tensor([[float("nan"), 0, 0], [1, 1, 1.0]]), MASK, G),
     "token_rewards contains NaN"),
    (lambda: compute_advantages("otb", R, MASK, G, torch.full((2, 3), float("inf"))), "proxy contains NaN"),
    (lambda: compute_advantages("otb", R, MASK, G, -P), "proxy must be non-negative"),
    (lambda: compute_advantages("grpo", R, MASK, torch.tensor([0.5, 0.5])), "group_ids must be an integer"),
    (lambda: compute_advantages("grpo", R, 2 * MASK, G), "response_mask must hold only 0 and 1"),
    (lambda: compute_advantages("none", torch.ones(3), torch.ones(3), G), "token_rewards must be 2-D"),
    (lambda: outcome_token_rewards(torch.ones(2, 1), MASK), "scores has shape"),
    (lambda: outcome_token_rewards(torch.tensor([1.0, float("nan")]), MASK), "scores contains NaN"),
    (lambda: logit_gradient_proxy(torch.randn(2, 3, 5), torch.zeros(2, 2, dtype=torch.long)), "tokens has shape"),
    (lambda: logit_gradient_proxy(torch.randn(2, 3, 5), torch.full((2, 3), 5)), "outside the vocabulary"),
    (lambda: logit_gradient_proxy(torch.randn(2, 5), torch.zeros(2)), "tokens must be an integer"),
    (lambda: logit_gradient_proxy(torch.tensor([[0.0, float("nan")]]), torch.tensor([0])), "logits contain NaN"),
    (lambda: token_logprobs(torch.randn(2, 3, 5), torch.zeros(2, dtype=torch.long)), "tokens has shape"),
])
def test_bad_input_raises_one_line_error(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BackendInputError, match=match) as info:
        call()
    assert isinstance(info.value, ValueError) and isinstance(info.value, UserError)
    assert "\n" not in str(info.value)


def test_edge_shapes() -> None:
    empty = compute_advantages("otb", torch.ones(0, 3), torch.ones(0, 3), torch.zeros(0, dtype=torch.long),
                               torch.ones(0, 3))
    assert empty.shape == (0, 3)
    # an all-masked row gets zero advantage and does not move its group's baseline
    mask = torch.tensor([[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    r = outcome_token_rewards(torch.tensor([1.0, 9.0, 0.0]), mask)
    for est in ("grpo", "dr_grpo", "rloo", "otb"):
        adv = compute_advantages(est, r, mask, torch.tensor([0, 1, 0]), torch.ones(3, 2))
        assert torch.all(adv[1] == 0)
    adv = compute_advantages("otb", r, mask, torch.tensor([0, 0, 0]), torch.ones(3, 2))
    assert torch.allclose(adv[0], torch.tensor([0.5, 0.5])) and torch.all(adv[1] == 0)
