"""The policy-gradient trainer on a tiny randomly initialised policy."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.otb.policy import CharTokenizer, sft_warm_start, tiny_policy  # noqa: E402
from paperworks.backends.otb.repro import expected_reward  # noqa: E402
from paperworks.backends.otb.rollout import sample_groups  # noqa: E402
from paperworks.backends.otb.tasks import ArithmeticTask, RepeatTask  # noqa: E402
from paperworks.backends.otb.trainer import PolicyGradientTrainer, RLConfig  # noqa: E402

TOK = CharTokenizer()


@pytest.fixture(scope="module")
def warm() -> torch.nn.Module:
    """A tiny policy that solves RepeatTask(max_len=4) part of the time."""
    torch.set_num_threads(1)
    model = tiny_policy(TOK.vocab_size, hidden=32, seed=0)
    sft_warm_start(model, TOK, RepeatTask(max_len=4), steps=60, noise=0.6, batch_size=32)
    return model


def test_tasks_score_verifiably() -> None:
    arith, rep = ArithmeticTask(), RepeatTask()
    assert arith.reward("12+7=", " 19 ") == 1.0 and arith("12+7=", "18") == 0.0
    assert rep.reward("b3:", "bbb") == 1.0 and rep.reward("b3:", "bbbb") == 0.0
    with pytest.raises(ValueError, match="a\\+b="):
        arith.answer("twelve")


def test_sampling_counts_tokens_exactly(warm: torch.nn.Module) -> None:
    ro = sample_groups(warm, TOK, ["a3:", "b12:"], 3, max_new_tokens=6, generator=torch.Generator().manual_seed(0))
    assert ro.response_mask.shape[0] == 6 and ro.group_ids.tolist() == [0, 0, 0, 1, 1, 1]
    ended = [int(TOK.eos_token_id in row[: int(m.sum())]) for row, m in zip(ro.response_ids.tolist(),
                                                                           ro.response_mask, strict=True)]
    assert ro.response_tokens == sum(len(r) for r in ro.responses) + sum(ended)
    assert ro.prompt_tokens == 3 * 3 + 3 * 4
    assert all(int(m.sum()) <= 6 for m in ro.response_mask)


def test_trainer_raises_reward_seeded(warm: torch.nn.Module) -> None:
    task = RepeatTask(max_len=4)
    eval_set = [f"{c}{k}:" for c in "abcd" for k in range(1, 5)]
    model = copy.deepcopy(warm)
    before = expected_reward(model, TOK, task, eval_set)
    trainer = PolicyGradientTrainer(model, TOK, task, RLConfig(estimator="otb", group_size=4, prompts_per_step=8,
                                                               max_new_tokens=8, lr=1e-3, seed=0))
    history = trainer.train(task.prompts, steps=40)
    after = expected_reward(model, TOK, task, eval_set)
    assert after > before + 0.15, (before, after)
    assert history[-1].tokens_total == sum(h.response_tokens for h in history)
    # Seeded: the same run again gives the same first steps.
    again = PolicyGradientTrainer(copy.deepcopy(warm), TOK, task, RLConfig(estimator="otb", group_size=4,
                                                                           prompts_per_step=8, max_new_tokens=8,
                                                                           lr=1e-3, seed=0))
    first = again.train(task.prompts, steps=3)
    assert [h.reward_mean for h in first] == [h.reward_mean for h in history[:3]]
    assert [h.response_tokens for h in first] == [h.response_tokens for h in history[:3]]


@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "rloo", "none"])
def test_every_estimator_steps(warm: torch.nn.Module, estimator: str) -> None:
    task = RepeatTask(max_len=4)
    trainer = PolicyGradientTrainer(copy.deepcopy(warm), TOK, task, RLConfig(estimator=estimator, max_new_tokens=6,
                                                                             prompts_per_step=2))
    stats = trainer.step(task.prompts(trainer.rng, 2))
    assert stats.response_tokens > 0 and stats.time_s["proxy"] == 0.0


def test_lora_with_kl_keeps_base_weights(warm: torch.nn.Module) -> None:
    pytest.importorskip("peft")
    from paperworks.backends.otb.lora import LoRALinear

    task = RepeatTask(max_len=4)
    model = copy.deepcopy(warm)
    base = {k: v.clone() for k, v in model.state_dict().items()}
    cfg = RLConfig(estimator="otb", lora_rank=4, kl_coef=0.1, updates_per_batch=2, micro_batch_size=5,
                   max_new_tokens=6, prompts_per_step=3, lr=1e-2)
    trainer = PolicyGradientTrainer(model, TOK, task, cfg)
    assert any(isinstance(m, LoRALinear) for m in model.modules())
    for _ in range(3):
        stats = trainer.step(task.prompts(trainer.rng, 3))
    assert stats.kl >= 0.0
    state = model.state_dict()
    for k, v in base.items():
        key = k.replace("q_proj.weight", "q_proj.base_layer.weight").replace("v_proj.weight",
                                                                        "v_proj.base_layer.weight")
        assert torch.equal(state[key], v), k
    assert any(p.detach().abs().sum().item() > 0 for n, p in model.named_parameters() if ".lora_B." in n)


def test_config_is_checked(warm: torch.nn.Module) -> None:
    with pytest.raises(ValueError, match="RLConfig.estimator"):
        PolicyGradientTrainer(warm, TOK, RepeatTask(), RLConfig(estimator="ppo"))
