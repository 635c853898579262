"""GradMem: write a context into ``m`` prefix memory vectors by gradient descent, read it back with a query.

For any transformers causal LM whose weights stay as they are: the memory ``M`` is ``m`` vectors in the
model's input-embedding space, starting from an initial ``M0`` (a parameter, meta-learned by
:mod:`.maml` for small models). READ runs the model on ``[M; query]`` through ``inputs_embeds``: score a
target (teacher-forced exact match) or generate greedily.

The write rule, checked line by line against the authors' code (github.com/yurakuratov/gradmem,
``grad_memgpt.py``, KV preset ``scripts/run_gradmemgpt_on_kv_retrieval.sh``); we re-derived it, nothing copied:

- what is optimised: only the per-sample memory ``M_b`` (``B × m × d``, every sample starting from ``M0``);
  the model's weights (and the write head) stay fixed during the write;
- the write loss of sample ``b``: the mean over its real context tokens of the cross-entropy of each
  token given ``[M_b; context]`` — the last memory position predicts the first context token, padding
  is not counted: ``L_b(M_b) = (1/n_b) Σ_t -log p(c_t | M_b, c_<t)``;
- the gradient: of ``Σ_b L_b`` with respect to the memory, so a sample's gradient is that of its own
  mean loss, independent of the batch size;
- the step: plain SGD, ``M ← M - lr · g`` (lr 0.04 in the authors' KV preset), ``K`` steps (preset 2);
  optional per-sample clipping of ``g`` to a 2-norm (``g · c / ‖g‖`` when ``‖g‖ > c``; off in their preset);
- the write head (``write_head=True``, on in their KV preset): the write loss's logits come from a separate
  linear vocabulary projection of the backbone's final hidden states, initialised as a copy of the LM's output
  embedding and trained only by the outer loop (through the second-order path); READ uses the LM's own head;
- meta-training (:mod:`.maml`): every inner step is differentiated through (``create_graph``, second order
  through all ``K`` steps), and the outer loss is the target cross-entropy after ``[M_K; query]`` plus
  0.5 × the write loss of the last step's input memory (their preset).

Where ours differs from theirs (outer optimiser and budget, data sizes, clipping, exact-match tokens, Adam
variant...) is listed with the reason in :data:`paperworks.backends.gradmem.differences.DEFINITION_DIFFERENCES`
and in ``results.json`` (``extra["definition_differences"]``). ``create_graph=True`` keeps the inner steps on
the autograd graph (MAML); ``first_order_graph`` keeps ``M0`` connected with the step gradients as constants.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn

from paperworks.backends._validate import BackendInputError
from paperworks.backends.gradmem.read import MemoryReader, backbone, full_precision, with_memory

OPTIMISERS = ("sgd", "momentum", "adam")


@dataclass
class GradMemConfig:
    """Settings of the write."""

    n_mem: int = 8
    """``m``: memory vectors (the authors' KV preset: 8)."""
    steps: int = 2
    """``K``: optimiser steps per write (the authors' KV preset: 2)."""
    inner_lr: float = 0.04
    """Learning rate of the write (per sample: each sample's loss is its own token mean)."""
    optimiser: str = "sgd"
    """``sgd`` (plain, the default), ``momentum`` (heavy ball, ``momentum`` below) or ``adam``."""
    momentum: float = 0.9
    """Momentum coefficient of ``momentum``; ``beta1`` of ``adam``."""
    beta2: float = 0.999
    """``beta2`` of ``adam``."""
    clip_norm: float | None = None
    """Clip each sample's memory gradient to this 2-norm (None: no clipping)."""
    init_std: float = 0.02
    """Standard deviation of a freshly drawn ``M0`` (when no initial memory is given)."""
    write_head: bool = False
    """Compute the write loss with a separate vocabulary projection of the backbone's final hidden states,
    initialised as a copy of the LM's output embedding and learned by the outer loop (the authors' KV preset);
    False: with the LM's own head (the only choice for a frozen pretrained LM without meta-training)."""


@dataclass
class WriteResult:
    """What a write returns."""

    memory: Tensor
    """``(B, m, d)``: the written memory (on the autograd graph when the write kept it)."""
    losses: list[float] = field(default_factory=list)
    """Mean reconstruction loss before each step, then after the last step (``K + 1`` values) when
    ``track_final`` was asked, else ``K`` values."""
    grad_norms: list[float] = field(default_factory=list)
    """Mean over samples of each step's memory-gradient 2-norm (before clipping)."""
    last_loss: Tensor | None = None
    """Per-sample reconstruction loss of the last step's input memory (on the graph with ``create_graph``)."""


def reconstruction_loss(model: Any, memory: Tensor, ctx_embeds: Tensor, ctx_ids: Tensor,
                        ctx_mask: Tensor, prefix_ids: Tensor | None = None, head: nn.Module | None = None) -> Tensor:
    """Per-sample mean cross-entropy of the context tokens given ``[prefix; memory; context]``: ``(B,)``.

    ``ctx_embeds`` are the context's input embeddings ``(B, S, d)``, ``ctx_ids`` its ids ``(B, S)`` and
    ``ctx_mask`` ``(B, S)`` marks real tokens (right padding). ``prefix_ids``: optional fixed tokens before
    the memory. ``head``: a write head applied to the backbone's final hidden states instead of the LM head."""
    b = memory.shape[0]
    x, m = with_memory(model, memory, ctx_embeds, prefix_ids)
    attn = torch.cat([torch.ones(b, m, dtype=ctx_mask.dtype, device=ctx_mask.device), ctx_mask], dim=1)
    if head is None:
        logits = model(inputs_embeds=x, attention_mask=attn).logits[:, m - 1:-1]  # predicts ctx
    else:
        logits = head(backbone(model)(inputs_embeds=x, attention_mask=attn).last_hidden_state[:, m - 1:-1])
    logits = full_precision(logits)
    tok = nn.functional.cross_entropy(logits.transpose(1, 2), ctx_ids, reduction="none")
    maskf = ctx_mask.to(tok.dtype)
    return (tok * maskf).sum(1) / maskf.sum(1).clamp(min=1.0)


def _check_config(cfg: GradMemConfig) -> None:
    """One-line errors for settings that would crash deep inside the model or silently write garbage."""
    if isinstance(cfg.n_mem, bool) or not isinstance(cfg.n_mem, int) or cfg.n_mem < 1:
        raise BackendInputError(f"GradMemConfig.n_mem must be an integer >= 1, got {cfg.n_mem!r}")
    if isinstance(cfg.steps, bool) or not isinstance(cfg.steps, int) or cfg.steps < 0:
        raise BackendInputError(f"GradMemConfig.steps must be an integer >= 0, got {cfg.steps!r}")
    for name in ("inner_lr", "momentum", "beta2", "init_std"):
        v = getattr(cfg, name)
        if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise BackendInputError(f"GradMemConfig.{name} must be a finite number >= 0, got {v!r}")
    if cfg.clip_norm is not None and (not isinstance(cfg.clip_norm, (int, float)) or not math.isfinite(cfg.clip_norm)
                                      or cfg.clip_norm <= 0):
        raise BackendInputError(f"GradMemConfig.clip_norm must be None or a finite number > 0, got {cfg.clip_norm!r}")
    if cfg.optimiser == "adam" and not (cfg.momentum < 1 and cfg.beta2 < 1):
        raise BackendInputError("GradMemConfig: adam needs momentum (beta1) and beta2 below 1")


def _check_write(gm: GradMem, ctx_ids: Tensor, ctx_mask: Tensor | None, steps: int, lr: float,
                 memory: Tensor | None) -> None:
    if ctx_ids.dim() != 2 or ctx_ids.shape[0] == 0 or ctx_ids.shape[1] == 0:
        raise BackendInputError(f"ctx_ids must be a non-empty (batch, length) tensor, got {tuple(ctx_ids.shape)}")
    if ctx_ids.is_floating_point() or ctx_ids.dtype == torch.bool:
        raise BackendInputError(f"ctx_ids must hold integer token ids, got {ctx_ids.dtype}")
    vocab = gm.model.get_input_embeddings().weight.shape[0]
    lo, hi = int(ctx_ids.min()), int(ctx_ids.max())
    if lo < 0 or hi >= vocab:
        raise BackendInputError(f"ctx_ids hold {lo}..{hi}, outside the vocabulary 0..{vocab - 1}")
    if ctx_mask is not None and tuple(ctx_mask.shape) != tuple(ctx_ids.shape):
        raise BackendInputError(f"ctx_mask has shape {tuple(ctx_mask.shape)}; expected {tuple(ctx_ids.shape)}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise BackendInputError(f"steps must be an integer >= 0, got {steps!r}")
    if not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr < 0:
        raise BackendInputError(f"lr must be a finite number >= 0, got {lr!r}")
    want = (ctx_ids.shape[0], gm.cfg.n_mem, gm.mem0.shape[1])
    if memory is not None and tuple(memory.shape) != want:
        raise BackendInputError(f"memory has shape {tuple(memory.shape)}; expected {want}")


def _clip(g: Tensor, max_norm: float | None) -> Tensor:
    if max_norm is None:
        return g
    norm = g.flatten(1).norm(dim=1).clamp(min=1e-12).view(-1, *([1] * (g.ndim - 1)))
    return g * (max_norm / norm).clamp(max=1.0)


class GradMem(MemoryReader, nn.Module):
    """A causal LM with a gradient-written prefix memory.

    ``model``: any transformers causal LM (its weights are not changed by a write; meta-training may train
    them). ``init``: an initial memory ``(m, d)`` (default: ``N(0, init_std²)``). ``M0`` is :attr:`mem0`.
    """

    def __init__(self, model: Any, cfg: GradMemConfig | None = None, init: Tensor | None = None) -> None:
        super().__init__()
        self.model: Any = model
        self.cfg = cfg or GradMemConfig()
        if self.cfg.optimiser not in OPTIMISERS:
            raise ValueError(f"GradMemConfig.optimiser must be one of {OPTIMISERS}, got {self.cfg.optimiser!r}")
        _check_config(self.cfg)
        d = model.get_input_embeddings().weight.shape[1]
        if init is None:
            init = torch.randn(self.cfg.n_mem, d) * self.cfg.init_std
        if tuple(init.shape) != (self.cfg.n_mem, d):
            raise ValueError(f"initial memory must be ({self.cfg.n_mem}, {d}), got {tuple(init.shape)}")
        if not bool(torch.isfinite(init).all()):
            raise BackendInputError("initial memory contains NaN or infinity")
        w = model.get_input_embeddings().weight
        self.mem0 = nn.Parameter(init.detach().clone().to(device=w.device, dtype=w.dtype))
        self.write_head: nn.Linear | None = None
        if self.cfg.write_head:
            out_w = (model.get_output_embeddings() or model.get_input_embeddings()).weight
            self.write_head = nn.Linear(out_w.shape[1], out_w.shape[0], bias=False,
                                        device=out_w.device, dtype=out_w.dtype)
            with torch.no_grad():
                self.write_head.weight.copy_(out_w.detach())

    def write(self, ctx_ids: Tensor, ctx_mask: Tensor | None = None, *, steps: int | None = None,
              lr: float | None = None, create_graph: bool = False, first_order_graph: bool = False,
              track_final: bool = False, memory: Tensor | None = None,
              on_step: Callable[[int, Tensor], None] | None = None, prefix_ids: Tensor | None = None) -> WriteResult:
        """Write right-padded contexts ``ctx_ids (B, S)`` into memory by ``K`` optimiser steps.

        ``create_graph``: keep the steps differentiable (second-order MAML). ``first_order_graph``: keep the
        memory connected to ``M0`` with the step gradients as constants (first-order MAML). With neither,
        the result is detached (plain inference). ``memory``: start from this ``(B, m, d)`` instead of
        ``M0``. ``on_step(k, memory)`` is called after each step ``k`` (1-based) with the detached memory.
        ``track_final`` adds the loss after the last step to ``losses`` (one more forward pass).
        ``prefix_ids``: fixed tokens before the memory, ``[prefix; M; context]`` (read with the same prefix).
        """
        cfg = self.cfg
        k_steps = cfg.steps if steps is None else steps
        step_lr = cfg.inner_lr if lr is None else lr
        _check_write(self, ctx_ids, ctx_mask, k_steps, step_lr, memory)
        if ctx_mask is None:
            ctx_mask = torch.ones_like(ctx_ids)
        keep = create_graph or first_order_graph
        with torch.enable_grad():
            mem = memory if memory is not None else self.mem0.unsqueeze(0).expand(ctx_ids.shape[0], -1, -1)
            mem = mem if keep else mem.detach().requires_grad_(True)
            if keep and not mem.requires_grad:
                mem = mem.requires_grad_(True)
            emb = self.model.get_input_embeddings()(ctx_ids)
            if not keep:
                emb = emb.detach()
            state: dict[str, Tensor] = {}
            losses: list[float] = []
            grad_norms: list[float] = []
            last: Tensor | None = None
            for k in range(1, k_steps + 1):
                per_sample = reconstruction_loss(self.model, mem, emb, ctx_ids, ctx_mask, prefix_ids,
                                                 self.write_head)
                losses.append(float(per_sample.detach().mean()))
                (g,) = torch.autograd.grad(per_sample.sum(), mem, create_graph=create_graph)
                last = per_sample
                grad_norms.append(float(g.detach().flatten(1).norm(dim=1).mean()))
                mem = self._step(mem, _clip(g, cfg.clip_norm), state, k, step_lr)
                if not keep:
                    mem = mem.detach().requires_grad_(True)
                if on_step is not None:
                    on_step(k, mem.detach())
            if track_final:
                with torch.no_grad():
                    losses.append(float(reconstruction_loss(self.model, mem.detach(), emb.detach(), ctx_ids,
                                                            ctx_mask, prefix_ids, self.write_head).mean()))
        return WriteResult(memory=mem if keep else mem.detach(), losses=losses, grad_norms=grad_norms,
                           last_loss=last)

    def _step(self, mem: Tensor, g: Tensor, state: dict[str, Tensor], k: int, lr: float) -> Tensor:
        """One functional optimiser step (no in-place updates, so it stays differentiable)."""
        cfg = self.cfg
        if cfg.optimiser == "sgd":
            return mem - lr * g
        if cfg.optimiser == "momentum":
            v = g if "v" not in state else cfg.momentum * state["v"] + g
            state["v"] = v
            return mem - lr * v
        m1 = (1 - cfg.momentum) * g + (cfg.momentum * state["m"] if "m" in state else 0.0)
        v2 = (1 - cfg.beta2) * g * g + (cfg.beta2 * state["v"] if "v" in state else 0.0)
        state["m"], state["v"] = m1, v2
        m_hat = m1 / (1 - cfg.momentum ** k)
        v_hat = v2 / (1 - cfg.beta2 ** k)
        return mem - lr * m_hat / ((v_hat + 1e-16).sqrt() + 1e-8)

    def memory_parameters(self) -> int:
        """Numbers that hold memory state: ``m × d`` (the initial memory; the write head, when on, is a
        meta-learned part of the writer, not memory)."""
        return self.mem0.numel()
