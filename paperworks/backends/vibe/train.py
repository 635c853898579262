"""Training of VIBE and its ablations with one recipe: Adam on cross-entropy + ``kl_weight`` × KL
+ ``constraint_weight`` × the background penalty; accuracy on groups with and without the shortcut.

Variants (:data:`VARIANTS`): ``VIBE`` (synchrony modulation + constraint), ``VIBE w/o synchrony``,
``VIBE w/o constraint``, ``plain`` (neither).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from paperworks.backends.vibe.data import Groups
from paperworks.backends.vibe.model import VIBE, VIBEConfig, background_penalty
from paperworks.core.errors import UserError
from paperworks.core.tracking import track

VARIANTS: dict[str, tuple[bool, bool]] = {
    "VIBE": (True, True),
    "VIBE w/o synchrony": (False, True),
    "VIBE w/o constraint": (True, False),
    "plain": (False, False),
}
"""Variant → (synchrony modulation, background constraint)."""


@dataclass
class VIBETrainConfig:
    """The training recipe, the same for every variant."""

    steps: int = 400
    """Optimiser steps."""
    batch: int = 64
    """Groups per step."""
    lr: float = 2e-3
    """Adam learning rate."""
    kl_weight: float = 1e-3
    """Weight of the per-modality KL terms."""
    constraint_weight: float = 3.0
    """Weight of the background penalty (variants with the constraint; the ablation without it ignores it).
    ``paperworks repro vibe`` replaces it by the weight :mod:`.select` chooses on validation seeds that are
    never reported."""
    seed: int = 0
    """Seed of the network, the batches and the latent noise."""


def _tensors(g: Groups, idx: np.ndarray | None = None) -> tuple[torch.Tensor, ...]:
    sel = slice(None) if idx is None else idx
    return (torch.from_numpy(g.skeletons[sel]), torch.from_numpy(g.audio[sel]), torch.from_numpy(g.text[sel]),
            torch.from_numpy(g.background[sel]))


def train_variant(variant: str, train: Groups, model_cfg: VIBEConfig,
                  cfg: VIBETrainConfig) -> tuple[VIBE, list[dict[str, float]]]:
    """Train one of :data:`VARIANTS` on ``train``; returns the network and per-step losses."""
    if variant not in VARIANTS:
        raise UserError(f"vibe: unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    if cfg.steps < 1 or cfg.batch < 2:
        raise UserError(f"vibe: steps must be >= 1 and batch >= 2, got {cfg.steps}, {cfg.batch}")
    sync, constraint = VARIANTS[variant]
    torch.manual_seed(cfg.seed)
    model = VIBE(replace(model_cfg, sync_modulation=sync))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)
    hist: list[dict[str, float]] = []
    for step in range(cfg.steps):
        idx = rng.integers(len(train.y), size=cfg.batch)
        sk, au, tx, bg = _tensors(train, idx)
        y = torch.from_numpy(train.y[idx])
        logits, mu, kl = model(sk, au, tx, bg)
        ce = torch.nn.functional.cross_entropy(logits, y)
        pen = background_penalty(mu, bg, y, model_cfg.classes)
        loss = ce + cfg.kl_weight * kl + (cfg.constraint_weight * pen if constraint else 0.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append({"ce": ce.item(), "kl": kl.item(), "penalty": pen.item()})
        for key, value in hist[-1].items():
            track(f"train/{key}", value, step)
    return model, hist


@torch.no_grad()
def accuracy(model: VIBE, g: Groups) -> float:
    """Share of groups whose arg-max emotion is the label (latent means, no sampling)."""
    model.eval()
    logits, _, _ = model(*_tensors(g))
    model.train()
    return float((logits.argmax(1).numpy() == g.y).mean())
