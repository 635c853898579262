"""Training loops on this CPU: the DLM (masked diffusion), the AR baseline (next token), and the local AR head
(on the frozen DLM's marginals, in the state CoDiLA decodes from: committed prefix, block and the rest
masked)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from paperworks.backends.codila.data import Example
from paperworks.backends.codila.model import LocalARHead, ar_loss, diffusion_loss
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


@dataclass
class TrainConfig:
    """One training run."""

    steps: int = 1000
    """Optimiser steps."""
    batch: int = 64
    """Sequences per step."""
    lr: float = 2e-3
    """AdamW peak learning rate (linear warm-up over 5% of the steps, then cosine to 10%)."""
    weight_decay: float = 0.01
    """AdamW weight decay."""
    seed: int = 0
    """Seed of the batch order and the noise."""
    log_every: int = 25
    """Record the mean loss every this many steps."""

    def __post_init__(self) -> None:
        if self.steps < 1 or self.batch < 1 or self.lr <= 0 or self.log_every < 1:
            raise UserError(f"bad training config: steps, batch, log_every must be >= 1 and lr > 0, got {self}")


def tensors(data: Sequence[Example]) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids [N, L] and the generated-region mask [N, L] of ``data``."""
    ids = torch.tensor([ex.ids for ex in data], dtype=torch.long)
    pos = torch.arange(ids.shape[1])
    starts = torch.tensor([ex.start for ex in data]).unsqueeze(1)
    ends = torch.tensor([ex.end for ex in data]).unsqueeze(1)
    return ids, (pos >= starts) & (pos < ends)


def _loop(params: list[nn.Parameter], data: Sequence[Example], cfg: TrainConfig,
          loss_fn: Callable[[torch.Tensor, torch.Tensor, torch.Generator], torch.Tensor]) -> list[float]:
    ids, gen = tensors(data)
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    warm = max(1, cfg.steps // 20)

    def lr_at(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        frac = (step - warm) / max(1, cfg.steps - warm)
        return 0.1 + 0.9 * 0.5 * (1 + torch.cos(torch.tensor(frac * torch.pi)).item())

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    curve, acc = [], []
    for step in range(cfg.steps):
        rows = torch.randint(0, ids.shape[0], (cfg.batch,), generator=g)
        loss = loss_fn(ids[rows], gen[rows], g)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        acc.append(loss.item())
        track("train/loss", acc[-1], step)
        if len(acc) == cfg.log_every:
            curve.append(sum(acc) / len(acc))
            acc = []
    if acc:
        curve.append(sum(acc) / len(acc))
    return curve


def train_dlm(dlm: nn.Module, data: Sequence[Example], cfg: TrainConfig, mask_id: int,
              causal_share: float = 0.25) -> list[float]:
    """Masked-diffusion training (:func:`.model.diffusion_loss`, with its ``causal_share``); returns the loss
    curve."""
    if not 0.0 <= causal_share <= 1.0:
        raise UserError(f"causal_share must be in [0, 1], got {causal_share}")
    dlm.train()
    curve = _loop(list(dlm.parameters()), data, cfg,
                  lambda ids, gen, g: diffusion_loss(dlm, ids, gen, mask_id, g, causal_share))  # type: ignore[arg-type]
    dlm.eval()
    return curve


def train_ar(ar: nn.Module, data: Sequence[Example], cfg: TrainConfig) -> list[float]:
    """Next-token training of the AR baseline; returns the loss curve."""
    ar.train()
    curve = _loop(list(ar.parameters()), data, cfg, lambda ids, gen, g: ar_loss(ar, ids, gen))  # type: ignore[arg-type]
    ar.eval()
    return curve


def head_loss(head: LocalARHead, dlm: nn.Module, ids: torch.Tensor, gen: torch.Tensor, mask_id: int,
              g: torch.Generator) -> torch.Tensor:
    """Each sequence draws a block start ``s`` in its region; the frozen DLM reads it with ``s`` onwards
    masked; the head, teacher-forced on the true previous tokens, predicts the block's ``head.cfg.block``
    tokens (cut at the region's end) from the DLM's logits there. Mean cross-entropy."""
    b, n = ids.shape
    first = gen.float().argmax(1)
    width = gen.sum(1)
    s = first + (torch.rand(b, generator=g) * width).long()
    pos = torch.arange(n).expand(b, n)
    noisy = torch.where((pos >= s.unsqueeze(1)) & gen, torch.full_like(ids, mask_id), ids)
    with torch.no_grad():
        logits = dlm(noisy)
    idx = s.unsqueeze(1) + torch.arange(head.cfg.block)
    valid = idx < (first + width).unsqueeze(1)
    idx = idx.clamp(max=n - 1)
    block = logits.gather(1, idx.unsqueeze(-1).expand(-1, -1, logits.shape[-1]))
    prev = ids.gather(1, idx - 1)
    out = head(block, prev)
    return nn.functional.cross_entropy(out[valid], ids.gather(1, idx)[valid])


def train_head(head: LocalARHead, dlm: nn.Module, data: Sequence[Example], cfg: TrainConfig,
               mask_id: int) -> list[float]:
    """Train the head on the frozen DLM (:func:`head_loss`); returns the loss curve."""
    dlm.eval()
    for p in dlm.parameters():
        p.requires_grad_(False)
    head.train()
    try:
        curve = _loop(list(head.parameters()), data, cfg, lambda ids, gen, g: head_loss(head, dlm, ids, gen,
                                                                                        mask_id, g))
    finally:
        for p in dlm.parameters():
            p.requires_grad_(True)
    head.eval()
    return curve


def timed(fn: Callable[[], list[float]]) -> tuple[list[float], float]:
    """Run a training function; returns its curve and the wall time in seconds."""
    start = time.perf_counter()
    curve = fn()
    return curve, time.perf_counter() - start
