"""DR2Seg policy shapes and gradients, the GRPO advantages it trains with, and seeded determinism."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.dr2seg.policy import DescribePolicy, decode, encode_scenes  # noqa: E402
from paperworks.backends.dr2seg.rewards import RewardWeights  # noqa: E402
from paperworks.backends.dr2seg.scenes import N_WORDS, VOCAB, make_scene  # noqa: E402
from paperworks.backends.dr2seg.train import GRPOConfig, evaluate, train_grpo, warm_start  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def _scenes(n: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    return [make_scene(rng) for _ in range(n)]


def test_policy_shapes_masks_and_gradients() -> None:
    torch.manual_seed(0)
    pol = DescribePolicy(hidden=32, layers=1, max_len=5)
    scenes = _scenes(6)
    obj, present, query = encode_scenes(scenes)
    assert obj.shape == (6, 6, 10) and present.sum(1).tolist() == [len(s.objects) for s in scenes]
    tokens, mask = pol.sample(obj, present, query, generator=torch.Generator().manual_seed(0))
    assert tokens.shape[0] == 6 and tokens.shape[1] <= 5
    for row, toks in zip(decode(tokens, mask), scenes, strict=True):
        assert row[-1].startswith("@") and all(not t.startswith("@") for t in row[:-1])  # ends with one pointer
        assert int(row[-1][1:]) < len(toks.objects)  # never points at an absent slot
    logits = pol(obj, present, query, tokens)
    assert logits.shape == (6, tokens.shape[1], len(VOCAB))
    last = logits[:, 4] if logits.shape[1] == 5 else None
    if last is not None:
        assert torch.isinf(last[:, :N_WORDS]).all()  # the last step may only point
    # absent objects get -inf pointer logits
    absent = ~present
    assert torch.isinf(logits[:, 0, N_WORDS:][absent]).all()
    lp = torch.log_softmax(logits, -1).gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    (lp * mask).sum().backward()
    grads = [p.grad for p in pol.parameters()]
    assert all(g is not None and torch.isfinite(g).all() for g in grads)
    assert pol.encoder.layers[0].self_attn.in_proj_weight.grad.abs().sum() > 0
    assert pol.ptr_k.weight.grad.abs().sum() > 0


def test_grpo_advantages_group_normalised_by_hand() -> None:
    # the estimator the trainer imports from the OTB backend: (R - mean) / (unbiased std + eps), per group
    from paperworks.backends.otb.estimators import compute_advantages, outcome_token_rewards

    scores = torch.tensor([1.0, 0.0, 2.0, 2.0, 5.0, 5.0])
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 0], [1, 1, 0], [1, 0, 0]]).float()
    groups = torch.tensor([0, 0, 0, 0, 1, 1])
    adv = compute_advantages("grpo", outcome_token_rewards(scores, mask), mask, groups)
    std = (sum((x - 1.25) ** 2 for x in (1.0, 0.0, 2.0, 2.0)) / 3) ** 0.5
    assert adv[0, 0].item() == pytest.approx((1 - 1.25) / std, rel=1e-4)
    assert adv[2].tolist() == pytest.approx([0.75 / std] * 3, rel=1e-4)
    assert adv[0, 2] == 0 and adv[4].abs().sum() == 0  # padding, and a group with equal rewards


def test_training_is_seeded_and_deterministic() -> None:
    torch.set_num_threads(1)
    eval_set = _scenes(32, seed=5)

    def once() -> tuple[list[dict[str, float]], list]:
        torch.manual_seed(0)
        pol = DescribePolicy(hidden=32, layers=1, max_len=6)
        warm_start(pol, steps=5, batch_size=16, seed=0)
        cfg = GRPOConfig(steps=4, scenes_per_step=4, group_size=4, weights=RewardWeights(1, 1, 0.5), seed=3)
        hist = train_grpo(pol, cfg, eval_set)
        return hist, [p.detach().clone() for p in pol.parameters()]

    h1, p1 = once()
    h2, p2 = once()
    assert h1 == h2
    assert all(torch.equal(a, b) for a, b in zip(p1, p2, strict=True))
    assert 0.0 <= h1[-1]["eval_iou"] <= 1.0 and h1[-1]["eval_words"] <= 5


def test_warm_start_learns_the_verbose_trace() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    pol = DescribePolicy(hidden=32, layers=1)
    losses = warm_start(pol, steps=60, batch_size=32, noise=0.0, seed=0)
    assert losses[-1] < 0.6 * losses[0]
    ev = evaluate(pol, _scenes(64, seed=7))
    assert ev["words"] > 4  # imitates the long traces


def test_bad_config_raises_user_error() -> None:
    with pytest.raises(UserError, match="group_size"):
        GRPOConfig(group_size=0)
    with pytest.raises(UserError, match="noise"):
        warm_start(DescribePolicy(hidden=16, layers=1), steps=1, noise=2.0)
