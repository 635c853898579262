"""Slow: the trainer and the variance diagnostic on the embedded SmolLM2-135M with its own tokenizer."""

from __future__ import annotations

import copy
import re

import pytest

torch = pytest.importorskip("torch")


@pytest.mark.slow
def test_smollm2_lora_step_and_variance() -> None:
    pytest.importorskip("peft")
    from paperworks.backends.otb.tasks import ArithmeticTask
    from paperworks.backends.otb.trainer import PolicyGradientTrainer, RLConfig
    from paperworks.backends.otb.variance import VarianceConfig, gradient_variance
    from paperworks.models.local import get_local_model

    local = get_local_model()
    model = copy.deepcopy(local.model)  # the process-wide instance must stay unadapted
    task = ArithmeticTask(max_operand=9)

    def first_number(prompt: str, response: str) -> float:
        m = re.match(r"\s*(\d+)", response)
        return 1.0 if m and m.group(1) == task.answer(prompt) else 0.0

    trainer = PolicyGradientTrainer(model, local.tokenizer, first_number,
                                    RLConfig(estimator="otb", group_size=2, prompts_per_step=2, max_new_tokens=4,
                                             lora_rank=4, kl_coef=0.05))
    stats = trainer.step(task.prompts(trainer.rng, 2))
    assert 0 < stats.response_tokens <= 16 and stats.time_s["proxy"] > 0
    res = gradient_variance(model, local.tokenizer, task.prompts, first_number,
                            VarianceConfig(groups=2, blocks=1, group_size=2, max_new_tokens=3))
    assert res.n_params == sum(p.numel() for p in trainer.params)
    assert all(v >= 0 for v in res.trace_cov.values())
