"""What ``paperworks train`` is asked to do: one validated settings object, from flags or a YAML file.

Every field has a docstring and is echoed into ``DIR/train.json``; a bad value is a one-line
``UserError`` naming the field (or flag) before anything is created.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from paperworks.core.errors import UserError

ESTIMATORS = ("otb", "grpo", "dr_grpo", "rloo")
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class TrainSettings(BaseModel):
    """Settings of one training run (``paperworks train``; the YAML form takes the same names)."""

    model_config = ConfigDict(extra="forbid")

    workflow: str = Field(description="The workflow whose runs are the rollouts (e.g. agent).")
    suite: str = Field(description="Training problems: 'gen:NAME' (a procedural generator, e.g. gen:arith) "
                                   "or a suite name/folder holding training items.")
    eval_suite: str = Field(description="The suite the trained adapter is evaluated on (never trained on).")
    model: str = Field("local/smollm2-135m", description="The embedded model to train (local/...).")
    estimator: Literal["otb", "grpo", "dr_grpo", "rloo"] = Field("grpo", description="Advantage estimator.")
    group_size: int = Field(4, ge=2, le=64, description="Rollouts per problem (N).")
    batch: int = Field(8, ge=1, le=512, description="Problems per step.")
    steps: int = Field(20, ge=0, le=100_000, description="RL steps (optimiser updates).")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="Seed of problems, sampling, LoRA init and batching.")
    lr: float = Field(2e-4, gt=0, le=1.0, description="AdamW learning rate of the LoRA parameters (RL).")
    lora_rank: int = Field(16, ge=1, le=256, description="LoRA rank.")
    lora_alpha: float = Field(32.0, gt=0, description="LoRA alpha (scale alpha / rank).")
    lora_targets: list[str] = Field(default_factory=lambda: list(LORA_TARGETS),
                                    description="Linear layers adapted.")
    temperature: float = Field(1.0, gt=0, le=2.0, description="Sampling temperature of the rollouts.")
    is_cap: float = Field(2.0, ge=0, description="Truncation of the per-token importance weight (0: off).")
    max_grad_norm: float = Field(1.0, gt=0, description="Gradient clipping norm.")
    checkpointing: bool = Field(True, description="Activation checkpointing in the updates: each decoder layer "
                                                  "is recomputed in the backward pass (about 0.4-0.65x the "
                                                  "update's memory for about 1.3x its time).")
    micro_batch_tokens: int = Field(2048, ge=64, le=1_000_000, description="Most padded tokens in one "
                                                                         "forward/backward pass of an update.")
    concurrency: int = Field(8, ge=1, le=64, description="Rollouts in flight at once (the engine batches them).")
    eval_concurrency: int | None = Field(None, ge=1, le=64, description="Samples in flight in the held-out and "
                                         "final evals (None: as concurrency). 1 makes greedy evals "
                                         "bit-reproducible: llama.cpp's output for a request depends on the "
                                         "requests batched beside it.")
    config: dict[str, Any] = Field(default_factory=dict, description="Workflow settings (-c) over the suite's.")
    gen: dict[str, Any] = Field(default_factory=dict, description="Generation settings (--gen) of the rollouts.")
    shaping: dict[str, float] = Field(default_factory=dict,
                                      description="Declared shaping terms added to the judge's reward, "
                                                  "e.g. {tool_format: 0.1} or SPADA's {compiled: 0.2}: "
                                                  "tool_format or a sub-metric of the suite's scorer; off "
                                                  "by default, reported apart.")
    sft_from: str | None = Field(None, description="Supervised warm start first: 'oracle' (scripted oracle "
                                                   "trajectories of generated problems) or an adapter folder.")
    sft_examples: int = Field(256, ge=1, le=100_000, description="Generated problems for the warm start.")
    sft_epochs: int = Field(2, ge=1, le=100, description="Passes over the warm-start examples.")
    sft_batch: int = Field(16, ge=1, le=1024, description="Warm-start examples per optimiser step.")
    sft_lr: float = Field(5e-4, gt=0, le=1.0, description="Warm-start learning rate.")
    heldout: int = Field(32, ge=0, le=10_000, description="Generated held-out problems (other seeds, other "
                                                          "phrasings) scored greedily every eval_every steps.")
    eval_every: int = Field(5, ge=0, description="Steps between held-out evaluations (0: only at the end).")
    checkpoint_every: int = Field(1, ge=1, description="Steps between checkpoints.")
    final_eval: bool = Field(True, description="Evaluate base and trained adapter on the whole eval suite.")
    keep: Literal["last", "best_heldout"] = Field(
        "last", description="Which adapter the final eval and eval_model use: the last one, or the one with the "
                            "best generated held-out accuracy (earliest on ties; selection on generated problems, "
                            "never on the eval suite; kept in DIR/adapter_best with its step in best.json).")
    eval_limit: int | None = Field(None, ge=1, le=1_000_000, description="Evaluate base and trained adapter on "
                                   "the first N items of the eval suite, in suite order (None: all of them).")
    time_budget_s: float | None = Field(None, gt=0, description="Stop (with a checkpoint) after this many "
                                                                "seconds of training.")

    @field_validator("model")
    @classmethod
    def _trainable(cls, value: str) -> str:
        if not value.startswith("local/"):
            raise ValueError(f"'{value}' cannot be trained here: only the embedded local/... models have weights "
                             "on this machine (a remote API serves no gradients)")
        if "@" in value:
            raise ValueError(f"'{value}' already names an adapter; train the base model (use --sft-from DIR "
                             "to start from an adapter)")
        return value

    @field_validator("shaping")
    @classmethod
    def _shaping(cls, value: dict[str, float]) -> dict[str, float]:
        bad = {k: w for k, w in value.items() if not math.isfinite(w) or abs(w) > 10}
        if bad:
            raise ValueError(f"shaping weights must be finite numbers in [-10, 10], got {bad}")
        return value

    @field_validator("lora_targets")
    @classmethod
    def _targets(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if v not in LORA_TARGETS]
        if bad or not value:
            raise ValueError(f"unknown LoRA target(s) {bad}; known: {', '.join(LORA_TARGETS)}")
        return value


def settings_from(values: dict[str, Any], where: str = "train settings") -> TrainSettings:
    """Validated settings; a one-line ``UserError`` naming the field otherwise."""
    try:
        return TrainSettings.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        field_name = ".".join(str(p) for p in err.get("loc", ())) or "?"
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise UserError(f"{where}: {field_name}: {msg} (got {err.get('input')!r:.80})") from None


def read_yaml(path: str) -> dict[str, Any]:
    """A YAML file of settings (the same names as the flags, with underscores); one-line errors."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise UserError(f"{path}:{line} not valid YAML") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return {str(k).replace("-", "_"): v for k, v in data.items()}
