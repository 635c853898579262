"""Warm start and GRPO training of :class:`~paperworks.backends.dr2seg.policy.DescribePolicy`.

The warm start imitates verbose "overthinking" traces (:func:`~paperworks.backends.dr2seg.scenes.verbose_trace`:
filler, the query's reasoning restated with the anchor's attributes, then the target's attributes) with a
fraction of wrong pointers, standing in for a pretrained MLLM that reasons at length and is sometimes wrong.

GRPO: per step, ``scenes_per_step`` scenes, ``group_size`` rollouts each; rewards by
:func:`~paperworks.backends.dr2seg.rewards.reward`; advantages by the OTB backend's
``compute_advantages("grpo", ...)`` (group-normalised outcome reward broadcast over the sequence); one
on-policy update of the token-mean policy-gradient loss (the clipped surrogate at ratio 1). The OTB
``PolicyGradientTrainer`` itself is not used: it samples string prompts through a transformers causal LM,
while this policy reads a set of objects.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import torch
from torch import nn

from paperworks.backends.dr2seg.policy import DescribePolicy, decode, encode_scenes
from paperworks.backends.dr2seg.rewards import RewardWeights, reward
from paperworks.backends.dr2seg.scenes import TOKEN_ID, Scene, make_scene, verbose_trace
from paperworks.backends.otb.estimators import compute_advantages, outcome_token_rewards, token_logprobs
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


def _pad(rows: list[list[int]], width: int) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    return ids, mask


def _masked(logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logp`` with padded positions set to 0 (padding may sit where a word is forbidden, at −inf)."""
    return torch.where(mask > 0, logp, torch.zeros_like(logp))


def warm_start(policy: DescribePolicy, steps: int, noise: float = 0.3, batch_size: int = 64, lr: float = 3e-3,
               seed: int = 0, grid: int = 8) -> list[float]:
    """Teacher-forced training on verbose traces whose pointer is wrong with probability ``noise``;
    returns the loss curve."""
    if not 0.0 <= noise <= 1.0:
        raise UserError(f"dr2seg warm start: noise must be in [0, 1], got {noise}")
    rng = random.Random(seed)
    opt = torch.optim.AdamW(policy.parameters(), lr=lr)
    losses = []
    policy.train()
    for _ in range(steps):
        scenes = [make_scene(rng, grid) for _ in range(batch_size)]
        rows = []
        for s in scenes:
            ptr = s.target
            if rng.random() < noise:
                ptr = rng.choice([i for i in range(len(s.objects)) if i != s.target])
            words = verbose_trace(s, rng)[: policy.max_len - 1]
            rows.append([TOKEN_ID[w] for w in words] + [TOKEN_ID[f"@{ptr}"]])
        ids, mask = _pad(rows, max(len(r) for r in rows))
        logits = policy(*encode_scenes(scenes), ids)
        logp = _masked(token_logprobs(logits, ids)[0], mask)
        loss = -logp.sum() / mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        track("warm_start/loss", losses[-1], len(losses) - 1)
    policy.eval()
    return losses


@dataclass
class GRPOConfig:
    """Settings of :func:`train_grpo`."""

    steps: int = 200
    """Training steps."""
    scenes_per_step: int = 16
    """Scenes (prompts) per step."""
    group_size: int = 8
    """Rollouts per scene (GRPO's group)."""
    lr: float = 1e-3
    """AdamW learning rate."""
    weights: RewardWeights = field(default_factory=RewardWeights)
    """Reward terms."""
    max_grad_norm: float = 1.0
    """Gradient clipping by global norm."""
    seed: int = 0
    """Seeds scene order and sampling."""
    grid: int = 8
    """Board size."""

    def __post_init__(self) -> None:
        for name in ("steps", "scenes_per_step", "group_size"):
            if getattr(self, name) < 1:
                raise UserError(f"dr2seg GRPOConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not self.lr > 0:
            raise UserError(f"dr2seg GRPOConfig.lr must be > 0, got {self.lr}")


def grpo_step(policy: DescribePolicy, opt: torch.optim.Optimizer, scenes: list[Scene], cfg: GRPOConfig,
              gen: torch.Generator) -> dict[str, float]:
    """One GRPO step on ``scenes``; returns the batch's mean reward terms and description length."""
    rows = [s for s in scenes for _ in range(cfg.group_size)]
    obj, present, query = encode_scenes(rows)
    tokens, mask = policy.sample(obj, present, query, generator=gen)
    parts = [reward(s, toks, cfg.weights, policy.max_len - 1) for s, toks in zip(rows, decode(tokens, mask),
                                                                                  strict=True)]
    scores = torch.tensor([p.total for p in parts])
    groups = torch.arange(len(scenes)).repeat_interleave(cfg.group_size)
    m = mask.float()
    adv = compute_advantages("grpo", outcome_token_rewards(scores, m), m, groups)
    policy.train()
    logp = _masked(token_logprobs(policy(obj, present, query, tokens), tokens)[0], mask)
    loss = -(adv * logp).sum() / m.sum()
    opt.zero_grad()
    loss.backward()
    if cfg.max_grad_norm > 0:
        nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
    opt.step()
    policy.eval()
    n = len(parts)
    return {"reward": float(scores.mean()), "iou": sum(p.iou for p in parts) / n,
            "self": sum(p.self_contained for p in parts) / n, "words": sum(p.n_words for p in parts) / n,
            "loss": float(loss.detach())}


def train_grpo(policy: DescribePolicy, cfg: GRPOConfig, eval_scenes: list[Scene] | None = None,
               eval_every: int = 0, eval_samples: int = 0) -> list[dict[str, float]]:
    """Train in place for ``cfg.steps`` steps; returns per-step stats (with :func:`evaluate` on
    ``eval_scenes``, ``eval_samples`` rollouts each, merged in every ``eval_every`` steps and at the end)."""
    rng = random.Random(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    opt = torch.optim.AdamW(policy.parameters(), lr=cfg.lr, weight_decay=0.0)
    history = []
    for step in range(1, cfg.steps + 1):
        stats = grpo_step(policy, opt, [make_scene(rng, cfg.grid) for _ in range(cfg.scenes_per_step)], cfg, gen)
        stats["step"] = step
        if eval_scenes and ((eval_every and step % eval_every == 0) or step == cfg.steps):
            stats.update({f"eval_{k}": v for k, v in evaluate(policy, eval_scenes, eval_samples).items()})
        history.append(stats)
        for key, value in stats.items():
            if key != "step":
                track(f"grpo/{key}", value, step)
    return history


@torch.no_grad()
def evaluate(policy: DescribePolicy, scenes: list[Scene], samples: int = 0, seed: int = 0) -> dict[str, float]:
    """Stage-1 IoU, stage-2 (description-only) IoU, the share of self-contained descriptions (stage-2
    IoU = 1), description words and pointer accuracy on ``scenes``: by greedy decoding when ``samples`` is 0,
    else averaged over ``samples`` sampled rollouts per scene (the trained policy's expected behaviour;
    the generator is seeded by ``seed``)."""
    rows = scenes if samples == 0 else [s for s in scenes for _ in range(samples)]
    gen = torch.Generator().manual_seed(seed)
    tokens, mask = policy.sample(*encode_scenes(rows), generator=gen, greedy=samples == 0)
    parts = [reward(s, t, RewardWeights(), policy.max_len - 1) for s, t in zip(rows, decode(tokens, mask),
                                                                               strict=True)]
    n = len(parts)
    return {"iou": sum(p.iou for p in parts) / n, "self_iou": sum(p.self_iou for p in parts) / n,
            "self_contained": sum(p.self_iou == 1.0 for p in parts) / n,
            "words": sum(p.n_words for p in parts) / n, "accuracy": sum(p.iou == 1.0 for p in parts) / n}
