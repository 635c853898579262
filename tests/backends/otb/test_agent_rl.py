"""Policy-gradient updates from recorded agent trajectories (backends/otb/agent_rl.py), on a tiny Llama."""

from __future__ import annotations

import math

import pytest
import torch

from paperworks.backends.otb.agent_rl import (
    AgentPolicy,
    Call,
    LoRASettings,
    Trajectory,
    UpdateSettings,
    advantages_for,
)
from paperworks.backends.otb.policy import tiny_policy

LORA = LoRASettings(rank=4, alpha=8.0, targets=("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                                "down_proj"))


def _policy(seed: int = 0, bf16: bool = False) -> AgentPolicy:
    model = tiny_policy(vocab_size=40, hidden=32, layers=2, heads=4, seed=seed)
    policy = AgentPolicy(model, LORA, lr=1e-2, seed=seed, bf16=bf16)
    with torch.no_grad():  # non-zero adapters, so that the prefix path carries LoRA gradients too
        for p in policy.params:
            p.normal_(0, 0.2)
    return policy


def _call(prompt: list[int], completion: list[int], logprob: float = -1.0, proxy: float = 1.0) -> Call:
    return Call(prompt, completion, [logprob] * len(completion), [proxy] * len(completion))


def test_grpo_advantages_are_the_group_zscore_on_every_call() -> None:
    """Group 0 rewards (1, 0): mean 0.5, unbiased std sqrt(0.5) -> ±0.5/0.7071 = ±0.7071 on every token of every
    call of the trajectory; group 1 rewards (1, 1) -> 0."""
    trajs = [Trajectory(0, 1.0, [_call([1, 2], [3, 4]), _call([1, 2, 5], [6])]),
             Trajectory(0, 0.0, [_call([1, 2], [7])]),
             Trajectory(1, 1.0, [_call([1], [2, 3])]), Trajectory(1, 1.0, [_call([1], [2])])]
    adv = advantages_for(trajs, "grpo")
    expected = 0.5 / (math.sqrt(0.5) + 1e-6)
    assert torch.allclose(adv[0][0], torch.full((2,), expected), atol=1e-5)
    assert torch.allclose(adv[0][1], torch.full((1,), expected), atol=1e-5)
    assert torch.allclose(adv[1][0], torch.full((1,), -expected), atol=1e-5)
    assert float(adv[2][0].abs().sum()) == 0.0 and float(adv[3][0].abs().sum()) == 0.0


def test_rloo_and_dr_grpo_by_hand() -> None:
    """Rewards (1, 0, 0) in one group: RLOO 1 - 0 = 1, 0 - 0.5 = -0.5; Dr.GRPO 1 - 1/3 = 2/3, -1/3."""
    trajs = [Trajectory(0, r, [_call([1], [2])]) for r in (1.0, 0.0, 0.0)]
    rloo = [float(a[0][0]) for a in advantages_for(trajs, "rloo")]
    assert rloo == pytest.approx([1.0, -0.5, -0.5])
    dr = [float(a[0][0]) for a in advantages_for(trajs, "dr_grpo")]
    assert dr == pytest.approx([2 / 3, -1 / 3, -1 / 3])


def test_otb_baseline_uses_the_recorded_proxies_across_calls() -> None:
    """Two trajectories in one group, the calls' tokens concatenated per trajectory.
    A: reward 1, tokens with proxies (1, 3) over two calls; B: reward 0, one token with proxy 2.
    Cumulative W: A (1, 4), B (2, 0-masked). Position 0: baseline (1·1 + 0·2)/(1 + 2) = 1/3;
    position 1: only A runs -> baseline = A's own return 1 (zero_tail off) -> advantage 0."""
    a = Trajectory(0, 1.0, [Call([1], [5], [-1.0], [1.0]), Call([1, 5, 9], [6], [-1.0], [3.0])])
    b = Trajectory(0, 0.0, [Call([1], [7], [-1.0], [2.0])])
    adv = advantages_for([a, b], "otb")
    assert float(adv[0][0][0]) == pytest.approx(1 - 1 / 3, abs=1e-6)
    assert float(adv[0][1][0]) == pytest.approx(0.0, abs=1e-6)
    assert float(adv[1][0][0]) == pytest.approx(0 - 1 / 3, abs=1e-6)


@pytest.mark.parametrize("same_prompt", [False, True])
def test_shared_prefix_gives_the_same_logprobs_and_gradients(same_prompt: bool) -> None:
    """One pass over the shared prefix equals separate full passes, values and LoRA gradients; also when the
    prompts are identical (the prompt's last token must stay outside the shared part: its logits predict
    the first completion token)."""
    policy = _policy()
    prefix = list(range(1, 21))
    items = [(prefix + ([21, 22] if same_prompt else [21 + i, 22]), [30 + i, 31, 25]) for i in range(3)]

    def run(shared: bool) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        policy.model.zero_grad()
        lps = policy._token_logprobs(items) if shared else [policy._token_logprobs([it])[0] for it in items]
        sum(lp.sum() for lp in lps).backward()
        return [lp.detach() for lp in lps], [p.grad.clone() for p in policy.params if p.grad is not None]

    a, ga = run(True)
    b, gb = run(False)
    assert len(ga) == len(policy.params) == len(gb)
    for x, y in zip(a, b, strict=True):
        assert torch.allclose(x, y, atol=1e-5)
    for x, y in zip(ga, gb, strict=True):
        assert torch.allclose(x, y, atol=1e-5, rtol=1e-4)


def test_rl_step_raises_the_rewarded_completion_and_lowers_the_other() -> None:
    """A group of two with rewards 1 and 0 on the same prompt: one step moves log π of the rewarded
    completion up and of the other down; the behaviour log-probabilities are the policy's own, so the
    reported mismatch is ~0 and nothing is truncated."""
    policy = _policy()
    prompt, good, bad = [1, 2, 3, 4], [10, 11], [12, 13]
    before = policy.sequence_logprobs([(prompt, good), (prompt, bad)])
    trajs = [Trajectory(0, 1.0, [Call(prompt, good, before[0], [1.0, 1.0])]),
             Trajectory(0, 0.0, [Call(prompt, bad, before[1], [1.0, 1.0])])]
    stats = policy.rl_step(trajs, UpdateSettings(estimator="grpo", lr=0.002))
    after = policy.sequence_logprobs([(prompt, good), (prompt, bad)])
    assert sum(after[0]) > sum(before[0]) and sum(after[1]) < sum(before[1])
    assert stats["mismatch_abs"] < 1e-4 and stats["truncated_share"] == 0.0
    assert stats["calls_trained"] == 2 and stats["tokens_trained"] == 4


def test_truncated_importance_weight_caps_the_gradient() -> None:
    """With behaviour log-probabilities far below the policy's (ratio e^5), every weight is the cap: the
    gradient with cap 2 is exactly twice the gradient with cap 1, and every token counts as truncated."""
    grads = []
    for cap in (1.0, 2.0):
        policy = _policy()
        prompt, comp, other = [1, 2, 3], [7, 8], [9]
        own = policy.sequence_logprobs([(prompt, comp), (prompt, other)])
        trajs = [Trajectory(0, 1.0, [Call(prompt, comp, [x - 5 for x in own[0]], [1.0, 1.0])]),
                 Trajectory(0, 0.0, [Call(prompt, other, [x - 5 for x in own[1]], [1.0])])]
        settings = UpdateSettings(estimator="dr_grpo", lr=0.0, is_cap=cap, max_grad_norm=1e9)
        stats = policy.rl_step(trajs, settings)
        assert stats["truncated_share"] == pytest.approx(1.0)
        assert stats["mismatch_logratio"] == pytest.approx(5.0, abs=1e-3)
        grads.append(torch.cat([p.grad.flatten() for p in policy.params if p.grad is not None]))
    assert float(grads[0].abs().sum()) > 0
    assert torch.allclose(grads[1], 2 * grads[0], atol=1e-7, rtol=1e-4)


def test_no_signal_no_update() -> None:
    """A group whose rollouts all got the same reward trains nothing (GRPO advantage 0)."""
    policy = _policy()
    trajs = [Trajectory(0, 1.0, [_call([1, 2], [3])]), Trajectory(0, 1.0, [_call([1, 2], [4])])]
    before = [p.detach().clone() for p in policy.params]
    stats = policy.rl_step(trajs, UpdateSettings(estimator="grpo"))
    assert stats["calls_trained"] == 0
    assert all(torch.equal(a, b) for a, b in zip(before, policy.params, strict=True))


def test_adapter_and_state_round_trip(tmp_path) -> None:
    """save_adapter/load_adapter restore the same outputs; the PEFT key names are PeftModel's."""
    from safetensors.torch import load_file

    policy = _policy(seed=1)
    items = [([1, 2, 3], [4, 5])]
    want = policy.sequence_logprobs(items)
    policy.save_adapter(tmp_path / "adapter")
    keys = list(load_file(str(tmp_path / "adapter" / "adapter_model.safetensors")))
    assert all(k.startswith("base_model.model.") and k.endswith((".lora_A.weight", ".lora_B.weight")) for k in keys)
    other = _policy(seed=1)  # the same base model, other adapter weights
    with torch.no_grad():
        for p in other.params:
            p.normal_(0, 0.2)
    assert other.sequence_logprobs(items)[0] != pytest.approx(want[0], abs=1e-3)
    other.load_adapter(tmp_path / "adapter")
    assert other.sequence_logprobs(items)[0] == pytest.approx(want[0], abs=1e-6)


def test_bf16_stored_frozen_weights_give_the_autocast_values_and_gradients(monkeypatch) -> None:
    """Under bf16 autocast every frozen linear weight is cast to bf16 at each call; storing it in bf16 once
    (to save that copy's memory) must give exactly the same log-probabilities and LoRA gradients, while the
    trained factors, the embeddings and the norms stay fp32."""
    import paperworks.backends.otb.agent_rl as agent_rl

    stored = _policy(bf16=True)
    monkeypatch.setattr(agent_rl, "_store_frozen_linears_bf16", lambda model: None)
    cast = _policy(bf16=True)
    for a, b in zip(stored.params, cast.params, strict=True):
        assert a.dtype == torch.float32
        with torch.no_grad():
            b.copy_(a)
    layer = stored.model.model.layers[0]
    assert layer.mlp.down_proj.base_layer.weight.dtype == torch.bfloat16
    assert cast.model.model.layers[0].mlp.down_proj.base_layer.weight.dtype == torch.float32
    assert stored.model.model.embed_tokens.weight.dtype == torch.float32
    assert layer.input_layernorm.weight.dtype == torch.float32
    items = [([1, 2, 3, 4, 5, 6], [7, 8, 9]), ([1, 2, 3, 4, 5, 10], [11, 12])]

    def run(policy: AgentPolicy) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        policy.model.zero_grad()
        lps = policy._token_logprobs(items)
        sum(lp.sum() for lp in lps).backward()
        return [lp.detach() for lp in lps], [p.grad.clone() for p in policy.params]

    a, ga = run(stored)
    b, gb = run(cast)
    for x, y in zip(a + ga, b + gb, strict=True):
        assert torch.equal(x, y)


@pytest.mark.parametrize(("same_prefix", "bf16"), [(True, False), (False, False), (True, True)])
def test_activation_checkpointing_gives_the_same_logprobs_and_gradients(same_prefix: bool, bf16: bool) -> None:
    """Recomputing each decoder layer in the backward pass must give the values and LoRA gradients of the
    pass that kept its activations, also through the shared-prefix cache (which each layer appends to in
    place: a recomputation that did not put the cache entry back would see the rows' keys twice). After the
    pass the layers' own forward methods are back, and each layer ran once more (its recomputation)."""
    policy = _policy(bf16=bf16)
    runs: list[int] = []
    policy.model.model.layers[1].mlp.register_forward_pre_hook(lambda *_: runs.append(1))
    prefix = list(range(1, 21)) if same_prefix else []
    items = [(prefix + [21 + i, 22, 23 + i], [30 + i, 31, 25, 26 + i]) for i in range(3)]
    items.append((prefix + [5], [6, 7]))

    def run(checkpointing: bool) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        policy.model.zero_grad()
        runs.clear()
        lps = policy._token_logprobs(items, checkpointing=checkpointing)
        sum((k + 1) * lp.sum() for k, lp in enumerate(lps)).backward()
        return [lp.detach() for lp in lps], [p.grad.clone() for p in policy.params]

    a, ga = run(True)
    recomputed = len(runs)
    assert all("forward" not in layer.__dict__ for layer in policy.model.model.layers)
    b, gb = run(False)
    assert recomputed == len(runs) + 1
    assert len(ga) == len(policy.params)
    for x, y in zip(a + ga, b + gb, strict=True):
        assert torch.allclose(x, y, atol=1e-6, rtol=1e-5)
    assert any(float(g.abs().sum()) > 0 for g in ga)


def test_checkpointed_rl_step_equals_the_plain_one() -> None:
    """One whole rl_step with and without checkpointing, from the same policy: the same statistics and the
    same updated adapter."""
    trajs = [Trajectory(0, 1.0, [_call(list(range(1, 19)) + [20], [21, 22, 23], -3.0, 1.0)]),
             Trajectory(0, 0.0, [_call(list(range(1, 19)) + [24], [25, 26], -3.0, 1.0)])]
    out = []
    for checkpointing in (True, False):
        policy = _policy(seed=3)
        stats = policy.rl_step(trajs, UpdateSettings(estimator="grpo", lr=1e-2, checkpointing=checkpointing))
        out.append((stats, [p.detach().clone() for p in policy.params]))
    (s1, p1), (s2, p2) = out
    assert s1["loss"] == pytest.approx(s2["loss"], rel=1e-5) and s1["grad_norm"] > 0
    for x, y in zip(p1, p2, strict=True):
        assert torch.allclose(x, y, atol=1e-6)


@pytest.mark.parametrize(("bf16", "temperature"), [(False, 1.0), (True, 1.0), (False, 0.7)])
def test_chunked_vocabulary_projection_gives_the_same_logprobs_and_gradients(bf16: bool, temperature: float) -> None:
    """The loss over the vocabulary taken 3 completion rows at a time (each chunk recomputed in the backward
    pass) gives the values and LoRA gradients of the whole projection at once; the head runs once more per
    chunk with gradients (its recomputation) and once per chunk without them."""
    policy = _policy(bf16=bf16)
    heads: list[int] = []
    policy.model.lm_head.register_forward_pre_hook(lambda *_: heads.append(1))
    items = [([1, 2, 3 + i], [30 + i, 31, 25, 26 + i, 7]) for i in range(3)] + [([5], [6, 7])]
    rows = sum(len(c) for _, c in items)  # 17 rows: chunks of 3, 3, 3, 3, 3, 2

    def run(chunk: int) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        policy.loss_chunk_rows = chunk
        policy.model.zero_grad()
        heads.clear()
        lps = policy._token_logprobs(items, temperature=temperature, checkpointing=True)
        sum((k + 1) * lp.sum() for k, lp in enumerate(lps)).backward()
        return [lp.detach() for lp in lps], [p.grad.clone() for p in policy.params]

    a, ga = run(3)
    assert len(heads) == 2 * math.ceil(rows / 3)
    b, gb = run(0)
    assert len(heads) == 1
    for x, y in zip(a + ga, b + gb, strict=True):
        assert torch.allclose(x, y, atol=1e-6, rtol=1e-5)
    assert any(float(g.abs().sum()) > 0 for g in ga)
    policy.loss_chunk_rows = 3
    heads.clear()
    with torch.no_grad():
        c = policy._token_logprobs(items, temperature=temperature)
    assert len(heads) == math.ceil(rows / 3)
    for x, y in zip(c, b, strict=True):
        assert torch.allclose(x, y, atol=1e-6, rtol=1e-5)
