"""Cost of the OTB advantage (logit-gradient proxy + baseline) as a share of a training step, against GRPO.
Writes benchmarks/results/otb_overhead.json.

Runs the policy-gradient trainer for a few steps with each estimator on the embedded SmolLM2-135M (LoRA,
arithmetic prompts) and on the tiny test policy, and reports, from the trainer's per-phase timings:
- ``*_otb_share``: (proxy + OTB advantage) / OTB step time — the goal (issue 5) is <= 5%;
- ``*_grpo_adv_share``: GRPO's advantage / GRPO step time, for comparison;
- ``*_step_ratio_otb_to_grpo``: whole-step time ratio (noisy: sampling lengths differ between runs).
``--tiny-only`` skips SmolLM2 (for machines without the embedded model). Timings are wall-clock on one thread;
on a machine shared with other work they are noisy, but each share is measured within one run.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()


def measure(model: Any, tokenizer: Any, estimator: str, steps: int, warmup: int, **cfg: Any) -> dict[str, float]:
    """Median per-phase seconds over ``steps`` steps (after ``warmup``) of one estimator."""
    import copy

    from paperworks.backends.otb.tasks import ArithmeticTask
    from paperworks.backends.otb.trainer import PolicyGradientTrainer, RLConfig

    task = ArithmeticTask()
    trainer = PolicyGradientTrainer(copy.deepcopy(model), tokenizer, task, RLConfig(estimator=estimator, **cfg))
    hist = trainer.train(task.prompts, warmup + steps)[warmup:]
    phases = hist[0].time_s.keys()
    out = {k: statistics.median(h.time_s[k] for h in hist) for k in phases}
    out["step"] = statistics.median(sum(v for k, v in h.time_s.items() if k != "proxy") for h in hist)
    out["tokens_per_step"] = statistics.mean(h.response_tokens for h in hist)
    return out


def compare(prefix: str, model: Any, tokenizer: Any, steps: int, warmup: int, **cfg: Any) -> dict[str, Any]:
    """GRPO and OTB on the same model and settings."""
    grpo = measure(model, tokenizer, "grpo", steps, warmup, **cfg)
    otb = measure(model, tokenizer, "otb", steps, warmup, **cfg)
    share = (otb["proxy"] + otb["advantage"]) / otb["step"]
    return {
        f"{prefix}_otb_share": round(share, 5),
        f"{prefix}_otb_proxy_ms": round(1000 * otb["proxy"], 3),
        f"{prefix}_otb_advantage_ms": round(1000 * otb["advantage"], 3),
        f"{prefix}_grpo_adv_share": round(grpo["advantage"] / grpo["step"], 5),
        f"{prefix}_grpo_advantage_ms": round(1000 * grpo["advantage"], 3),
        f"{prefix}_otb_step_s": round(otb["step"], 4),
        f"{prefix}_grpo_step_s": round(grpo["step"], 4),
        f"{prefix}_step_ratio_otb_to_grpo": round(otb["step"] / grpo["step"], 3),
        f"{prefix}_tokens_per_step_otb": otb["tokens_per_step"],
        f"{prefix}_tokens_per_step_grpo": grpo["tokens_per_step"],
        f"{prefix}_settings": cfg,
    }


def main() -> None:
    from importlib import metadata

    import torch

    from paperworks.backends.otb.policy import CharTokenizer, tiny_policy

    result: dict[str, Any] = {"goal_share": 0.05}
    tok = CharTokenizer()
    torch.set_num_threads(1)  # tiny matrices gain nothing from a second thread
    result.update(compare("tiny", tiny_policy(tok.vocab_size), tok, steps=20, warmup=3, group_size=4,
                          prompts_per_step=8, max_new_tokens=8))
    if "--tiny-only" not in sys.argv:  # one thread too: on a shared machine a second OpenMP thread spins
        from paperworks.models.local import get_local_model

        local = get_local_model()
        result.update(compare("smollm2", local.model, local.tokenizer, steps=3, warmup=1, group_size=4,
                              prompts_per_step=4, max_new_tokens=24, lora_rank=8, micro_batch_size=16))
        result["smollm2_vocab"] = int(local.model.config.vocab_size)
    shares = [v for k, v in result.items() if k.endswith("_otb_share")]
    result["goal_met"] = all(s <= 0.05 for s in shares)
    result.update(cpu_count=os.cpu_count(), python=platform.python_version(), torch=metadata.version("torch"),
                  transformers=metadata.version("transformers"))
    out = ROOT / "benchmarks" / "results" / "otb_overhead.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
