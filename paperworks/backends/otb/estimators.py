"""Advantage estimators on padded batches, and the Logit-Gradient Proxy.

Shapes used throughout (``B`` responses in the batch, ``T`` padded response length, ``V`` vocabulary):

- ``token_rewards``: float ``(B, T)``; an outcome reward sits on the response's last valid token
  (see :func:`outcome_token_rewards`). ``G_t`` is the reward-to-go along each row.
- ``response_mask``: ``(B, T)``, 1 on response tokens (the EOS token included), 0 on padding.
- ``group_ids``: int ``(B,)``; responses to the same prompt share an id (any integers).
- ``proxy``: float ``(B, T)``, the per-token Logit-Gradient Proxy ``w_t`` (:func:`logit_gradient_proxy`) from
  the same logits.

Every estimator returns advantages of shape ``(B, T)``, zero on padding. A group of one response gets
baseline 0 (its advantage is its return). Nothing here needs gradients: call them under ``no_grad``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

ESTIMATORS: tuple[str, ...] = ("none", "grpo", "dr_grpo", "rloo", "otb")
"""Names accepted by :func:`compute_advantages`."""


def token_logprobs(logits: Tensor, tokens: Tensor) -> tuple[Tensor, Tensor]:
    """Log-probabilities of ``tokens`` and the logsumexp of ``logits``.

    ``logits``: ``(B, T, V)``; ``tokens``: int ``(B, T)``; returns two float32 ``(B, T)`` tensors.
    """
    z = logits.float()
    lse = torch.logsumexp(z, dim=-1)
    return z.gather(-1, tokens.unsqueeze(-1)).squeeze(-1) - lse, lse


def logit_gradient_proxy(logits: Tensor, tokens: Tensor, lse: Tensor | None = None) -> Tensor:
    """Per-token Logit-Gradient Proxy ``w = ‖∇_z log softmax(z)_y‖² = 1 − 2π_y + Σ_v π_v²``, computed as
    ``(1 − π_y)² + Σ_{v≠y} π_v²`` with both terms taken from log-sum-exps over the other tokens:
    ``1 − π_y = exp(lse_{v≠y}(z) − lse(z))`` and ``Σ_{v≠y} π_v² = exp(lse_{v≠y}(2z) − 2·lse(z))``.

    Nothing is subtracted, so the result is positive and accurate to float32 rounding even when π_y → 1,
    where ``1 − 2π_y + Σπ²`` cancels to 0 (or below) in float32. ``logits``: ``(..., V)``; ``tokens``: int
    ``(...)``, the sampled tokens; ``lse``: ``logsumexp(z)`` when already computed. Returns float32 ``(...)``.
    Costs two more reductions over the vocabulary than the log-probabilities, and one copy of the logits.
    """
    z = logits.float()
    if lse is None:
        lse = torch.logsumexp(z, dim=-1)
    rest = z.scatter(-1, tokens.unsqueeze(-1), float("-inf"))  # the logits without the sampled token
    log_one_minus_pi = torch.logsumexp(rest, dim=-1) - lse
    log_rest_sq = torch.logsumexp(rest.mul_(2.0), dim=-1) - 2.0 * lse
    return torch.exp(2.0 * log_one_minus_pi) + torch.exp(log_rest_sq)


def outcome_token_rewards(scores: Tensor, response_mask: Tensor) -> Tensor:
    """Place each response's scalar score (``(B,)``) on its last valid token: ``(B, T)``."""
    mask = response_mask.float()
    last = (mask.cumsum(-1) == mask.sum(-1, keepdim=True)) & (mask > 0)
    return last.float() * scores.float().unsqueeze(-1)


def reward_to_go(token_rewards: Tensor, response_mask: Tensor) -> Tensor:
    """``G_t = Σ_{j≥t} r_j`` (masked), shape ``(B, T)``."""
    r = token_rewards.float() * response_mask.float()
    return r.flip(-1).cumsum(-1).flip(-1)


def _groups(group_ids: Tensor) -> tuple[Tensor, Tensor, int]:
    """Dense group index ``(B,)`` in ``0..K-1``, each row's group size ``(B,)``, and ``K``."""
    _, inv = torch.unique(group_ids, return_inverse=True)
    k = int(inv.max().item()) + 1 if inv.numel() else 0
    sizes = torch.bincount(inv, minlength=k)
    return inv, sizes[inv].float(), k


def _group_sum(values: Tensor, inv: Tensor, k: int) -> Tensor:
    """Sum rows of ``values`` (``(B, ...)``) by group: ``(K, ...)``."""
    out = torch.zeros((k, *values.shape[1:]), dtype=values.dtype, device=values.device)
    return out.index_add_(0, inv, values)


def no_baseline_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor) -> Tensor:
    """Plain REINFORCE: ``A_t = G_t``."""
    return reward_to_go(token_rewards, response_mask) * response_mask.float()


def grpo_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor, eps: float = 1e-6,
                    scale: bool = True) -> Tensor:
    """GRPO: ``(R − mean_group R) / (std_group R + eps)`` broadcast over the response (std unbiased).

    ``scale=False`` is Dr.GRPO (mean only). A group of one keeps its score (baseline 0, std 1).
    """
    scores = (token_rewards.float() * response_mask.float()).sum(-1)
    inv, n, k = _groups(group_ids)
    mean = _group_sum(scores, inv, k)[inv] / n
    adv = torch.where(n > 1, scores - mean, scores)
    if scale:
        var = _group_sum((scores - mean) ** 2, inv, k)[inv] / (n - 1).clamp(min=1)
        adv = torch.where(n > 1, adv / (var.sqrt() + eps), adv)
    return adv.unsqueeze(-1) * response_mask.float()


def dr_grpo_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor) -> Tensor:
    """Dr.GRPO: ``R − mean_group R`` (no std normalisation)."""
    return grpo_advantages(token_rewards, response_mask, group_ids, scale=False)


def rloo_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor) -> Tensor:
    """RLOO: ``R_i − mean_{j≠i} R_j``; a group of one keeps its score."""
    scores = (token_rewards.float() * response_mask.float()).sum(-1)
    inv, n, k = _groups(group_ids)
    total = _group_sum(scores, inv, k)[inv]
    loo = (total - scores) / (n - 1).clamp(min=1)
    adv = torch.where(n > 1, scores - loo, scores)
    return adv.unsqueeze(-1) * response_mask.float()


def otb_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor, proxy: Tensor,
                   is_weights: Tensor | None = None, zero_tail: bool = False, eps: float = 1e-8) -> Tensor:
    """Optimal Token Baseline: ``A_t = (G_t − B*_t)·mask`` with, per group and position ``t``,
    ``B*_t = Σ_i G_t⁽ⁱ⁾ W_t⁽ⁱ⁾ mask / (Σ_i W_t⁽ⁱ⁾ mask + eps)`` and ``W_t = Σ_{j≤t} w_j·mask_j``,
    ``w`` the logit-gradient proxy ``proxy`` (``(B, T)``, :func:`logit_gradient_proxy`), times the squared
    truncated importance weight ``is_weights`` (``(B, T)``) when given. No std normalisation.

    ``zero_tail`` (verl's ``handle_zero_tail``, off by default as in the formula above): where only one
    response of a group is still running at position ``t`` (the tail of the longest response), use
    baseline 0 instead of that response's own return, which zeroes its advantage there. A group of one
    always gets baseline 0.
    """
    mask = response_mask.float()
    g = reward_to_go(token_rewards, response_mask)
    w = proxy.float()
    if is_weights is not None:
        w = w * is_weights.float() ** 2
    big_w = (w * mask).cumsum(-1)
    inv, n, k = _groups(group_ids)
    num = _group_sum(g * big_w * mask, inv, k)[inv]
    den = _group_sum(big_w * mask, inv, k)[inv] + eps
    baseline = num / den
    alone = (n <= 1).unsqueeze(-1).expand_as(baseline)
    if zero_tail:
        alone = alone | (_group_sum(mask, inv, k)[inv] <= 1)
    baseline = torch.where(alone, torch.zeros_like(baseline), baseline)
    return (g - baseline) * mask


def compute_advantages(estimator: str, token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor,
                       proxy: Tensor | None = None, is_weights: Tensor | None = None,
                       zero_tail: bool = False) -> Tensor:
    """Advantages ``(B, T)`` by ``estimator`` (one of :data:`ESTIMATORS`); OTB also needs ``proxy``
    (:func:`logit_gradient_proxy` of the sampling logits; optionally ``is_weights``, ``zero_tail``), the others
    ignore them."""
    simple: dict[str, Callable[[Tensor, Tensor, Tensor], Tensor]] = {
        "none": no_baseline_advantages, "grpo": grpo_advantages, "dr_grpo": dr_grpo_advantages,
        "rloo": rloo_advantages,
    }
    with torch.no_grad():
        if estimator in simple:
            return simple[estimator](token_rewards, response_mask, group_ids)
        if estimator == "otb":
            if proxy is None:
                raise ValueError("estimator 'otb' needs proxy (logit_gradient_proxy of the sampling logits)")
            return otb_advantages(token_rewards, response_mask, group_ids, proxy, is_weights, zero_tail=zero_tail)
    raise ValueError(f"unknown estimator {estimator!r}; expected one of {', '.join(ESTIMATORS)}")
