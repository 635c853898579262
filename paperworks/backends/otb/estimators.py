"""Advantage estimators on padded batches, and the Logit-Gradient Proxy.

Shapes used throughout (``B`` responses in the batch, ``T`` padded response length, ``V`` vocabulary):

- ``token_rewards``: float ``(B, T)``; an outcome reward sits on the response's last valid token
  (see :func:`outcome_token_rewards`). ``G_t`` is the reward-to-go along each row.
- ``response_mask``: ``(B, T)``, 1 on response tokens (the EOS token included), 0 on padding.
- ``group_ids``: int ``(B,)``; responses to the same prompt share an id (any integers).
- ``proxy``: float ``(B, T)``, the per-token Logit-Gradient Proxy ``w_t`` (:func:`logit_gradient_proxy`) from
  the same logits.

Every estimator returns advantages of shape ``(B, T)``, zero on padding, in float32 (computed in float64 when
an input is float64). Known limit: GRPO's std squares the centred scores, so |scores| above ~1e19 overflow in
float32 (~1e154 in float64). A group of one response gets baseline 0 (its
advantage is its return). Nothing here needs gradients: call them under ``no_grad``.

Inputs are checked: a shape that does not match ``(B, T)`` / ``(B,)``, float group ids, a mask other than 0/1,
NaN or infinite rewards, proxies or importance weights, or a negative proxy raise
:class:`~paperworks.backends._validate.BackendInputError` (a ``ValueError``) naming the argument.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from paperworks.backends._validate import (
    BackendInputError,
    check_finite,
    check_integer,
    check_mask,
    check_ndim,
    check_shape,
)

ESTIMATORS: tuple[str, ...] = ("none", "grpo", "dr_grpo", "rloo", "otb")
"""Names accepted by :func:`compute_advantages`."""


def token_logprobs(logits: Tensor, tokens: Tensor) -> tuple[Tensor, Tensor]:
    """Log-probabilities of ``tokens`` and the logsumexp of ``logits``.

    ``logits``: ``(B, T, V)``; ``tokens``: int ``(B, T)``; returns two float32 ``(B, T)`` tensors.
    """
    _check_tokens(logits, tokens)
    z = logits.float()
    lse = torch.logsumexp(z, dim=-1)
    return z.gather(-1, tokens.unsqueeze(-1)).squeeze(-1) - lse, lse


def logit_gradient_proxy(logits: Tensor, tokens: Tensor, lse: Tensor | None = None) -> Tensor:
    """Per-token Logit-Gradient Proxy ``w = ‖∇_z log softmax(z)_y‖² = 1 − 2π_y + Σ_v π_v²``, computed as
    ``(1 − π_y)² + Σ_{v≠y} π_v²`` with both terms taken from log-sum-exps over the other tokens:
    ``1 − π_y = exp(lse_{v≠y}(z) − lse(z))`` and ``Σ_{v≠y} π_v² = exp(lse_{v≠y}(2z) − 2·lse(z))``.

    Nothing is subtracted, so the result is positive and accurate to float32 rounding even when π_y → 1,
    where ``1 − 2π_y + Σπ²`` cancels to 0 (or below) in float32. ``logits``: ``(..., V)``; ``tokens``: int
    ``(...)``, the sampled tokens; ``lse``: ``logsumexp(z)`` when already computed. Returns float32 ``(...)``
    (float64 for float64 logits). Logits may hold ``-inf`` (tokens ruled out) but not NaN, and the sampled
    token must have a finite logit. Costs two more reductions over the vocabulary than the log-probabilities,
    and one copy of the logits.
    """
    _check_tokens(logits, tokens)
    z = logits.double() if logits.dtype == torch.float64 else logits.float()
    if lse is None:
        lse = torch.logsumexp(z, dim=-1)
    else:
        check_shape("lse", lse, tuple(tokens.shape))
        lse = lse.to(z.dtype)
    rest = z.scatter(-1, tokens.unsqueeze(-1), float("-inf"))  # the logits without the sampled token
    log_one_minus_pi = torch.logsumexp(rest, dim=-1) - lse
    log_rest_sq = torch.logsumexp(rest.mul_(2.0), dim=-1) - 2.0 * lse
    w = torch.exp(2.0 * log_one_minus_pi) + torch.exp(log_rest_sq)
    if w.device.type != "meta" and w.numel() and bool(torch.isnan(w).any()):
        raise BackendInputError("logits contain NaN, or a sampled token's logit is -inf or +inf")
    return w


def _check_tokens(logits: Tensor, tokens: Tensor) -> None:
    """``tokens`` is an integer tensor of shape ``logits.shape[:-1]`` with ids in ``0..V-1``."""
    if logits.dim() < 1 or not logits.is_floating_point():
        raise BackendInputError(f"logits must be a float tensor (..., V); got {logits.dtype} {tuple(logits.shape)}")
    check_integer("tokens", tokens)
    check_shape("tokens", tokens, tuple(logits.shape[:-1]))
    if tokens.device.type != "meta" and tokens.numel():
        lo, hi = int(tokens.min()), int(tokens.max())
        if lo < 0 or hi >= logits.shape[-1]:
            raise BackendInputError(f"tokens hold ids {lo}..{hi}, outside the vocabulary 0..{logits.shape[-1] - 1}")


def _out_dtype(*ts: Tensor | None) -> torch.dtype:
    """float64 when any input is float64, else float32."""
    return torch.float64 if any(t is not None and t.dtype == torch.float64 for t in ts) else torch.float32


def _check_batch(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor | None = None,
                 proxy: Tensor | None = None, is_weights: Tensor | None = None) -> None:
    """Shapes ``(B, T)`` / ``(B,)``, a 0/1 mask, integer group ids, finite values, a non-negative proxy."""
    check_ndim("token_rewards", token_rewards, 2)
    shape = tuple(token_rewards.shape)
    check_shape("response_mask", response_mask, shape)
    check_mask("response_mask", response_mask)
    check_finite("token_rewards", token_rewards)
    if group_ids is not None:
        check_integer("group_ids", group_ids)
        check_shape("group_ids", group_ids, shape[:1])
    if proxy is not None:
        check_shape("proxy", proxy, shape)
        check_finite("proxy", proxy)
        if proxy.device.type != "meta" and proxy.numel() and bool((proxy < 0).any()):
            raise BackendInputError("proxy must be non-negative (a squared gradient norm)")
    if is_weights is not None:
        check_shape("is_weights", is_weights, shape)
        check_finite("is_weights", is_weights)


def outcome_token_rewards(scores: Tensor, response_mask: Tensor) -> Tensor:
    """Place each response's scalar score (``(B,)``) on its last valid token: ``(B, T)``."""
    check_ndim("response_mask", response_mask, 2)
    check_mask("response_mask", response_mask)
    check_shape("scores", scores, tuple(response_mask.shape[:1]))
    check_finite("scores", scores)
    dt = _out_dtype(scores)
    mask = response_mask.to(dt)
    last = (mask.cumsum(-1) == mask.sum(-1, keepdim=True)) & (mask > 0)
    return last.to(dt) * scores.to(dt).unsqueeze(-1)


def reward_to_go(token_rewards: Tensor, response_mask: Tensor) -> Tensor:
    """``G_t = Σ_{j≥t} r_j`` (masked), shape ``(B, T)``."""
    _check_batch(token_rewards, response_mask)
    return _reward_to_go(token_rewards, response_mask, _out_dtype(token_rewards))


def _reward_to_go(token_rewards: Tensor, response_mask: Tensor, dt: torch.dtype) -> Tensor:
    r = token_rewards.to(dt) * response_mask.to(dt)
    return r.flip(-1).cumsum(-1).flip(-1)


def _groups(group_ids: Tensor, dt: torch.dtype) -> tuple[Tensor, Tensor, int]:
    """Dense group index ``(B,)`` in ``0..K-1``, each row's group size ``(B,)``, and ``K``."""
    _, inv = torch.unique(group_ids, return_inverse=True)
    k = int(inv.max().item()) + 1 if inv.numel() else 0
    sizes = torch.bincount(inv, minlength=k)
    return inv, sizes[inv].to(dt), k


def _group_sum(values: Tensor, inv: Tensor, k: int) -> Tensor:
    """Sum rows of ``values`` (``(B, ...)``) by group: ``(K, ...)``."""
    out = torch.zeros((k, *values.shape[1:]), dtype=values.dtype, device=values.device)
    return out.index_add_(0, inv, values)


def no_baseline_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor) -> Tensor:
    """Plain REINFORCE: ``A_t = G_t``."""
    _check_batch(token_rewards, response_mask, group_ids)
    g = _reward_to_go(token_rewards, response_mask, _out_dtype(token_rewards))
    return g * response_mask.to(g.dtype)


def grpo_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor, eps: float = 1e-6,
                    scale: bool = True) -> Tensor:
    """GRPO: ``(R − mean_group R) / (std_group R + eps)`` broadcast over the response (std unbiased).

    ``scale=False`` is Dr.GRPO (mean only). A group of one keeps its score (baseline 0, std 1).
    """
    _check_batch(token_rewards, response_mask, group_ids)
    dt = _out_dtype(token_rewards)
    mask = response_mask.to(dt)
    scores = (token_rewards.to(dt) * mask).sum(-1)
    inv, n, k = _groups(group_ids, dt)
    mean = _group_sum(scores, inv, k)[inv] / n
    adv = torch.where(n > 1, scores - mean, scores)
    if scale:
        var = _group_sum((scores - mean) ** 2, inv, k)[inv] / (n - 1).clamp(min=1)
        adv = torch.where(n > 1, adv / (var.sqrt() + eps), adv)
    return adv.unsqueeze(-1) * mask


def dr_grpo_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor) -> Tensor:
    """Dr.GRPO: ``R − mean_group R`` (no std normalisation)."""
    return grpo_advantages(token_rewards, response_mask, group_ids, scale=False)


def rloo_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor) -> Tensor:
    """RLOO: ``R_i − mean_{j≠i} R_j``; a group of one keeps its score."""
    _check_batch(token_rewards, response_mask, group_ids)
    dt = _out_dtype(token_rewards)
    mask = response_mask.to(dt)
    scores = (token_rewards.to(dt) * mask).sum(-1)
    inv, n, k = _groups(group_ids, dt)
    total = _group_sum(scores, inv, k)[inv]
    loo = (total - scores) / (n - 1).clamp(min=1)
    adv = torch.where(n > 1, scores - loo, scores)
    return adv.unsqueeze(-1) * mask


def otb_advantages(token_rewards: Tensor, response_mask: Tensor, group_ids: Tensor, proxy: Tensor,
                   is_weights: Tensor | None = None, zero_tail: bool = False, eps: float = 1e-8) -> Tensor:
    """Optimal Token Baseline: ``A_t = (G_t − B*_t)·mask`` with, per group and position ``t``,
    ``B*_t = Σ_i G_t⁽ⁱ⁾ W_t⁽ⁱ⁾ mask / (Σ_i W_t⁽ⁱ⁾ mask + eps)`` and ``W_t = Σ_{j≤t} w_j·mask_j``,
    ``w`` the logit-gradient proxy ``proxy`` (``(B, T)``, :func:`logit_gradient_proxy`), times the squared
    truncated importance weight ``is_weights`` (``(B, T)``) when given. No std normalisation.

    ``eps`` is added to the denominator (1e-8, as verl). It pulls the baseline towards 0 where a group's total
    weight is comparable to it (a very confident policy, proxies ~1e-9); ``eps=0`` gives the exact ratio. A
    position whose total weight is 0 (every response of the group has ended) gets baseline 0, also with
    ``eps=0`` (it used to be 0/0 = NaN there).

    ``zero_tail`` (verl's ``handle_zero_tail``, off by default as in the formula above): where only one
    response of a group is still running at position ``t`` (the tail of the longest response), use
    baseline 0 instead of that response's own return, which zeroes its advantage there. A group of one
    always gets baseline 0.
    """
    _check_batch(token_rewards, response_mask, group_ids, proxy, is_weights)
    dt = _out_dtype(token_rewards, proxy, is_weights)
    mask = response_mask.to(dt)
    g = _reward_to_go(token_rewards, response_mask, dt)
    w = proxy.to(dt)
    if is_weights is not None:
        w = w * is_weights.to(dt) ** 2
    big_w = (w * mask).cumsum(-1)
    inv, n, k = _groups(group_ids, dt)
    num = _group_sum(g * big_w * mask, inv, k)[inv]
    den = _group_sum(big_w * mask, inv, k)[inv] + eps
    baseline = torch.where(den > 0, num / torch.where(den > 0, den, torch.ones_like(den)), torch.zeros_like(den))
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
