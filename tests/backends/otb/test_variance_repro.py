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


QUICK_RESULTS = Path(__file__).resolve().parents[3] / "benchmarks" / "results" / "repro_otb_quick" / "results.json"
"""The committed seeded quick run (``paperworks repro otb --quick --out benchmarks/results/repro_otb_quick``)."""


def _first_reach(curve: dict[str, list[float]], target: float) -> float | None:
    """Tokens at which a mean reward curve first reaches ``target`` (written here, not imported)."""
    return next((t for t, r in zip(curve["tokens"], curve["mean"], strict=True) if r >= target), None)


@pytest.mark.slow
def test_repro_quick(tmp_path: Path) -> None:
    from paperworks.backends.repro import run_repro

    result, path = run_repro("otb", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "otb" and data["quick"] is True
    assert data["command"] == f"paperworks repro otb --quick --out {tmp_path}"
    for plot in ("variance.png", "reward_vs_tokens_repeat.png"):
        assert (tmp_path / plot).stat().st_size > 1000
    figs = {k: v["value"] for k, v in data["figures"].items()}
    assert data["figures"]["var_ratio_otb_to_grpo_repeat"]["paper"]
    # (a) the variance figures are the diagnostic's trace-of-covariance ratios, and RLOO's advantages are N/(N-1)
    # times Dr.GRPO's, so its variance is (4/3)^2 times as large
    var = data["extra"]["variance"]["repeat"]
    tr = var["trace_cov"]
    for est in ("none", "rloo", "dr_grpo", "otb"):
        assert figs[f"var_ratio_{est}_to_grpo_repeat"] == pytest.approx(tr[est] / tr["grpo"], abs=6e-4)
    assert figs["var_ratio_otb_to_dr_grpo_repeat"] == pytest.approx(tr["otb"] / tr["dr_grpo"], abs=6e-4)
    assert tr["rloo"] / tr["dr_grpo"] == pytest.approx((4 / 3) ** 2, rel=1e-3)
    # (b) token savings and final rewards recomputed from the raw curves
    curves = data["extra"]["curves_repeat"]
    final32, total32 = curves["GRPO N=32"]["mean"][-1], curves["GRPO N=32"]["tokens"][-1]
    assert len({c["mean"][0] for c in curves.values()}) == 1  # every run starts from the same warm-started policy
    for label, tag in (("OTB N=4", "otb"), ("GRPO N=4", "grpo")):
        for frac, suffix in ((1.0, ""), (0.95, "_95pct")):
            reach = _first_reach(curves[label], frac * final32)
            got = figs[f"token_savings_{tag}_n4_vs_grpo_n32{suffix}_repeat"]
            assert got == (None if reach is None else pytest.approx(1 - reach / total32, abs=1e-3))
        key = f"final_reward_{tag}_n4_repeat"
        assert figs[key] == pytest.approx(curves[label]["mean"][-1], abs=1e-3)
        assert 0 <= figs[key] <= 1
    assert 0 <= figs["otb_advantage_share_of_step_repeat"] < 0.2
    # the seeded run agrees with the committed one (tolerances allow another machine's float rounding)
    ref = {k: v["value"] for k, v in json.loads(QUICK_RESULTS.read_text())["figures"].items()}
    assert set(ref) == set(figs)
    for key in ("var_ratio_otb_to_grpo_repeat", "var_ratio_dr_grpo_to_grpo_repeat", "var_ratio_otb_to_dr_grpo_repeat",
                "var_ratio_none_to_grpo_repeat"):
        assert figs[key] == pytest.approx(ref[key], rel=0.1), key
    for key in ("final_reward_otb_n4_repeat", "final_reward_grpo_n4_repeat", "final_reward_grpo_n32_repeat"):
        assert figs[key] == pytest.approx(ref[key], abs=0.1), key
