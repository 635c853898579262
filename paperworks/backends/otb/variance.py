"""Variance diagnostic: the trace of the covariance of the policy-gradient estimate, per estimator.

For a fixed policy, draw ``K`` independent groups (one random prompt, ``N`` sampled responses each). For
every response ``i`` and estimator ``e`` the per-trajectory gradient is
``g_i^e = Σ_t A^e_{i,t} ∇_θ log π(y_{i,t} | ·)``, computed with ``torch.func.vjp`` (one forward and one
batched backward per trajectory, vmapped over the estimators). A group's gradient is
``G^e = (1/N) Σ_i g_i^e``; groups are i.i.d., so a batch of ``M`` groups has ``tr Cov = tr Cov(G^e) / M``
and the ratio between estimators does not depend on ``M``. All estimators see the same samples, so the
comparison is at an exactly matched token budget.

The groups are split into ``blocks``; each block gives its own estimate, and their spread is reported.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.func import functional_call, vjp, vmap

from paperworks.backends.otb.estimators import compute_advantages, logit_gradient_proxy, outcome_token_rewards
from paperworks.backends.otb.policy import TokenizerLike
from paperworks.backends.otb.rollout import response_logits, sample_groups
from paperworks.backends.otb.trainer import RewardFn


@dataclass
class VarianceConfig:
    """Settings of :func:`gradient_variance`."""

    estimators: tuple[str, ...] = ("none", "grpo", "dr_grpo", "rloo", "otb")
    """Estimators to compare (all on the same samples)."""
    group_size: int = 4
    """Responses per prompt (N)."""
    groups: int = 256
    """Independent groups (K); more groups, tighter estimates."""
    blocks: int = 4
    """Groups are split into this many blocks to show the spread of the estimate."""
    groups_per_batch: int = 16
    """Groups sampled per generation call (only affects speed)."""
    max_new_tokens: int = 16
    """Longest response."""
    temperature: float = 1.0
    """Sampling temperature."""
    seed: int = 0
    """Seeds prompts and sampling."""


@dataclass
class VarianceResult:
    """Trace of the covariance of one group's gradient, per estimator."""

    trace_cov: dict[str, float]
    """Estimator → tr Cov(G), pooled over all blocks."""
    ratio_to: dict[str, dict[str, float]]
    """Reference estimator → (estimator → tr Cov ratio), pooled."""
    block_ratios: dict[str, dict[str, list[float]]]
    """Reference estimator → (estimator → ratio in each block)."""
    relative_variance: dict[str, float]
    """Estimator → tr Cov(G) / ‖E G‖² (scale-free: GRPO's std normalisation rescales its gradient)."""
    tokens: int
    """Generated tokens behind every estimator's figure (the same for all)."""
    mean_reward: float
    mean_response_len: float
    n_params: int
    extra: dict[str, float] = field(default_factory=dict)


def _trace_cov(s: torch.Tensor, sq: torch.Tensor, k: int) -> torch.Tensor:
    """Unbiased ``tr Cov`` from the sum ``s`` (E, P) and the sum of squared norms ``sq`` (E,) of ``k`` draws."""
    mean = s / k
    return (sq / k - (mean * mean).sum(-1)) * k / max(k - 1, 1)


def gradient_variance(model: nn.Module, tokenizer: TokenizerLike, prompts_fn: Callable[[random.Random, int], list[str]],
                      reward_fn: RewardFn, config: VarianceConfig, params: list[str] | None = None) -> VarianceResult:
    """Measure ``tr Cov`` of the group policy gradient for each estimator in ``config.estimators``.

    ``prompts_fn(rng, n) -> list[str]`` draws prompts (a task's ``prompts``); ``params``: names of the
    parameters to differentiate (default: those with ``requires_grad``, e.g. only LoRA adapters).
    """
    cfg = config
    rng = random.Random(cfg.seed)
    gen = torch.Generator(device=next(model.parameters()).device).manual_seed(cfg.seed)
    names = params or [n for n, p in model.named_parameters() if p.requires_grad]
    theta = {n: p.detach() for n, p in model.named_parameters() if n in set(names)}
    n_params = sum(p.numel() for p in theta.values())
    e = len(cfg.estimators)
    blocks = max(1, cfg.blocks)
    device = next(model.parameters()).device
    s = torch.zeros(blocks, e, n_params, device=device)
    sq = torch.zeros(blocks, e, device=device)
    counts = [0] * blocks
    tokens = 0
    rewards: list[float] = []
    done = 0
    model.eval()
    while done < cfg.groups:
        m = min(cfg.groups_per_batch, cfg.groups - done)
        prompts = prompts_fn(rng, m)
        ro = sample_groups(model, tokenizer, prompts, cfg.group_size, cfg.max_new_tokens, cfg.temperature, gen)
        scores = torch.tensor([float(reward_fn(p, r)) for p, r in zip(ro.prompts, ro.responses, strict=True)],
                              device=device)
        mask = ro.response_mask.float()
        with torch.no_grad():
            logits = response_logits(model, ro.input_ids, ro.attention_mask, ro.prompt_len, cfg.temperature)
            proxy = logit_gradient_proxy(logits, ro.response_ids)
        tok_r = outcome_token_rewards(scores, mask)
        adv = torch.stack([compute_advantages(name, tok_r, mask, ro.group_ids, proxy)
                           for name in cfg.estimators], dim=1)  # (B, E, T)
        tokens += ro.response_tokens
        rewards.extend(scores.tolist())
        for g in range(m):
            group_grad = torch.zeros(e, n_params, device=device)
            for row in range(g * cfg.group_size, (g + 1) * cfg.group_size):
                group_grad += _trajectory_grads(model, theta, ro.input_ids[row], ro.attention_mask[row],
                                                ro.prompt_len, adv[row], cfg.temperature)
            group_grad /= cfg.group_size
            b = (done + g) % blocks
            s[b] += group_grad
            sq[b] += (group_grad * group_grad).sum(-1)
            counts[b] += 1
        done += m
    k_all = sum(counts)
    pooled = _trace_cov(s.sum(0), sq.sum(0), k_all)
    mean_g = s.sum(0) / k_all
    per_block = torch.stack([_trace_cov(s[b], sq[b], counts[b]) for b in range(blocks)])  # (blocks, E)
    names_e = list(cfg.estimators)
    ratio_to: dict[str, dict[str, float]] = {}
    block_ratios: dict[str, dict[str, list[float]]] = {}
    for ref in ("grpo", "dr_grpo"):
        if ref in names_e:
            j = names_e.index(ref)
            ratio_to[ref] = {n: float(pooled[i] / pooled[j]) for i, n in enumerate(names_e)}
            block_ratios[ref] = {n: [float(per_block[b, i] / per_block[b, j]) for b in range(blocks)]
                                 for i, n in enumerate(names_e)}
    return VarianceResult(
        trace_cov={n: float(pooled[i]) for i, n in enumerate(names_e)}, ratio_to=ratio_to,
        block_ratios=block_ratios,
        relative_variance={n: float(pooled[i] / (mean_g[i] * mean_g[i]).sum().clamp(min=1e-30))
                           for i, n in enumerate(names_e)},
        tokens=tokens, mean_reward=sum(rewards) / max(len(rewards), 1),
        mean_response_len=tokens / max(len(rewards), 1), n_params=n_params)


def _trajectory_grads(model: nn.Module, theta: dict[str, torch.Tensor], ids: torch.Tensor, attn: torch.Tensor,
                      prompt_len: int, adv: torch.Tensor, temperature: float) -> torch.Tensor:
    """``(E, P)``: ``Σ_t A^e_t ∇ log π_t`` for one trajectory and each estimator's advantages ``adv`` (E, T)."""
    keep = attn.bool()
    resp_keep = keep[prompt_len:]
    seq = ids[keep].unsqueeze(0)
    n_prompt = int(keep[:prompt_len].sum())
    targets = seq[:, n_prompt:]
    cot = adv[:, resp_keep]  # (E, T_i)

    def logp_fn(p: dict[str, torch.Tensor]) -> torch.Tensor:
        out = functional_call(model, p, (), {"input_ids": seq})
        logits = out.logits[0, n_prompt - 1:-1] / temperature
        return torch.log_softmax(logits.float(), -1).gather(-1, targets[0].unsqueeze(-1)).squeeze(-1)

    pullback = vjp(logp_fn, theta)[1]
    with warnings.catch_warnings():  # torch has no vmap rule for SDPA's CPU backward; the fallback is exact
        warnings.filterwarnings("ignore", message=".*batching rule.*")
        (grads,) = vmap(pullback)(cot)
    return torch.cat([grads[n].reshape(cot.shape[0], -1) for n in theta], dim=1)
