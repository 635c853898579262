"""The variance diagnostic and ``paperworks repro otb --quick``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.otb.policy import CharTokenizer, sft_warm_start, tiny_policy  # noqa: E402
from paperworks.backends.otb.tasks import RepeatTask  # noqa: E402
from paperworks.backends.otb.variance import VarianceConfig, _trajectory_grads, gradient_variance  # noqa: E402

TOK = CharTokenizer()


def _policy() -> torch.nn.Module:
    torch.set_num_threads(1)
    model = tiny_policy(TOK.vocab_size, hidden=32, seed=0)
    sft_warm_start(model, TOK, RepeatTask(max_len=4), steps=30, noise=0.6, batch_size=32)
    return model


def test_trajectory_grads_match_autograd() -> None:
    model = _policy()
    ids = torch.tensor([0, 0, 2 + 13, 2 + 3, 2 + 12, 2 + 13, 2 + 13, 1, 0])  # "a3:" left-padded, "aa" EOS pad
    attn = torch.tensor([0, 0, 1, 1, 1, 1, 1, 1, 0])
    adv = torch.tensor([[1.0, 2.0, -1.0, 0.0], [0.5, 0.5, 0.5, 0.0]])
    theta = {n: p.detach() for n, p in model.named_parameters()}
    got = _trajectory_grads(model, theta, ids, attn, 5, adv, 1.0)
    seq = ids[attn.bool()].unsqueeze(0)
    logp = torch.log_softmax(model(input_ids=seq).logits[0, 2:-1], -1).gather(-1, seq[0, 3:, None]).squeeze(-1)
    for e in range(2):
        grads = torch.autograd.grad((logp * adv[e, :3]).sum(), list(model.parameters()), retain_graph=True)
        flat = torch.cat([g.reshape(-1) for g in grads])
        assert torch.allclose(got[e], flat, atol=1e-5)


def test_gradient_variance_invariants() -> None:
    model = _policy()
    task = RepeatTask(max_len=4)
    res = gradient_variance(model, TOK, task.prompts, task, VarianceConfig(groups=24, blocks=2, group_size=4,
                                                                           max_new_tokens=6))
    assert res.ratio_to["grpo"]["grpo"] == pytest.approx(1.0)
    # RLOO's advantages are N/(N-1) times Dr.GRPO's, so its variance is (4/3)^2 times as large.
    assert res.ratio_to["dr_grpo"]["rloo"] == pytest.approx((4 / 3) ** 2, rel=1e-3)
    assert res.tokens > 0 and set(res.trace_cov) == {"none", "grpo", "dr_grpo", "rloo", "otb"}
    assert all(v >= 0 for v in res.trace_cov.values())


def test_repro_quick(tmp_path: Path) -> None:
    from paperworks.backends.repro import run_repro

    result, path = run_repro("otb", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "otb" and data["quick"] is True
    for plot in ("variance.png", "reward_vs_tokens_repeat.png"):
        assert (tmp_path / plot).stat().st_size > 1000
    figs = data["figures"]
    assert figs["var_ratio_otb_to_grpo_repeat"]["paper"]
    assert "token_savings_otb_n4_vs_grpo_n32_repeat" in figs
    assert 0 <= figs["otb_advantage_share_of_step_repeat"]["value"] < 1
