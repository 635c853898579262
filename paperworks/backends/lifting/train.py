"""Training of the lifted map (plain regression with one fixed label per transition) and rollout.

Stochastic lifting, as in the authors' demo (julesberman/stochastic_lifting, ``wave.ipynb``): transition ``i``
gets one label ``xi_i ~ N(0, I)``, drawn once before training and kept for all of it; each step draws a
minibatch of transition indices uniformly with replacement and minimises the mean squared error averaged over
the batch *and* the state's coordinates (:func:`lifting_loss`), by AdamW (weight decay ``1e-4``, optax's
default) with the learning rate decayed by a cosine from ``lr`` to 0 over the run (:func:`cosine_lr`). The
Gaussian baseline minimises its negative log-likelihood instead. At rollout every step draws fresh labels
(:func:`rollout`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paperworks.core.errors import UserError
from paperworks.core.tracking import track


@dataclass
class TrainConfig:
    """Optimiser settings."""

    steps: int = 3000
    """Adam steps."""
    lr: float = 3e-3
    """Initial learning rate (cosine decay to 0, :func:`cosine_lr`)."""
    batch: int = 0
    """Transitions per step, drawn uniformly with replacement; 0 = the full set each step."""
    weight_decay: float = 1e-4
    """AdamW's decoupled weight decay (the authors' optax ``adamw`` default)."""
    seed: int = 0
    """Seed of the labels and the minibatches."""
    val_frac: float = 0.0
    """Hold out this fraction of the transitions and keep the weights of the best held-out loss (checked every
    50 steps): early stopping, used for the Gaussian head, whose likelihood otherwise overfits by shrinking
    its variance at the training points. 0 = train on everything, keep the last weights."""


def fit(model: nn.Module, x: np.ndarray, y: np.ndarray, cfg: TrainConfig) -> list[float]:
    """Train ``model`` on transitions ``x -> y`` (arrays ``(n, dim)`` or fields ``(n, grid)``); returns the
    loss curve (MSE for lifted/deterministic models, NLL for :class:`.model.GaussianHead`)."""
    from paperworks.backends.lifting.model import LiftedConv1d, LiftedMLP

    if cfg.steps < 1 or cfg.lr <= 0 or cfg.batch < 0 or not 0.0 <= cfg.val_frac < 1.0 or cfg.weight_decay < 0:
        raise UserError(f"TrainConfig: need steps >= 1, lr > 0, batch >= 0, 0 <= val_frac < 1, weight_decay >= 0; "
                        f"got {cfg.steps}, {cfg.lr}, {cfg.batch}, {cfg.val_frac}, {cfg.weight_decay}")
    if len(x) != len(y) or len(x) == 0:
        raise UserError(f"fit: need equally many inputs and targets (> 0), got {len(x)} and {len(y)}")
    gen = torch.Generator().manual_seed(cfg.seed)
    xt = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    yt = torch.as_tensor(np.asarray(y), dtype=torch.float32)
    if isinstance(model, LiftedConv1d):
        model.fit_scale(xt, yt)
    elif isinstance(model, LiftedMLP):
        model.scaler.fit(xt, yt)
    labels = model.draw_labels(len(xt), gen)  # type: ignore[operator]
    xv = yv = None
    if cfg.val_frac > 0:
        perm = torch.randperm(len(xt), generator=gen)
        n_val = max(1, int(cfg.val_frac * len(xt)))
        val, keep = perm[:n_val], perm[n_val:]
        xv, yv = xt[val], yt[val]
        xt, yt = xt[keep], yt[keep]
        labels = labels[keep] if labels is not None else None
    best: tuple[float, dict[str, torch.Tensor]] | None = None
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: cosine_lr(k, cfg.steps, 1.0))
    losses: list[float] = []
    n = len(xt)
    for _ in range(cfg.steps):
        if cfg.batch and cfg.batch < n:
            idx = torch.randint(0, n, (cfg.batch,), generator=gen)
            xb, yb = xt[idx], yt[idx]
            lb = labels[idx] if labels is not None else None
        else:
            xb, yb, lb = xt, yt, labels
        loss = _loss(model, xb, yb, lb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        track("train/loss", losses[-1], len(losses) - 1)
        if xv is not None and yv is not None and (len(losses) % 50 == 0 or len(losses) == cfg.steps):
            with torch.no_grad():
                v = float(_loss(model, xv, yv, model.draw_labels(len(xv), gen)))  # type: ignore[operator]
            track("train/val_loss", v, len(losses) - 1)
            if best is None or v < best[0]:
                best = (v, {k: t.clone() for k, t in model.state_dict().items()})
    if best is not None:
        model.load_state_dict(best[1])
    return losses


def cosine_lr(step: int, total: int, lr: float) -> float:
    """Learning rate at ``step`` of ``total``: ``lr * (1 + cos(pi * step / total)) / 2``, from ``lr`` down to 0
    at ``step = total`` (optax ``cosine_decay_schedule`` with ``alpha = 0``), held at 0 beyond."""
    frac = min(max(step, 0), total) / total
    return lr * 0.5 * (1.0 + float(np.cos(np.pi * frac)))


def lifting_loss(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``mean_{i, j} (F(x_i, xi_i)_j - y_ij)^2``: squared error averaged over the batch and every coordinate."""
    return ((pred - y) ** 2).mean()


def _loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor, labels: torch.Tensor | None) -> torch.Tensor:
    from paperworks.backends.lifting.model import GaussianHead

    if isinstance(model, GaussianHead):
        return model.nll(x, y)
    return lifting_loss(model(x, labels), y)


@torch.no_grad()
def rollout(model: nn.Module, x0: np.ndarray, n_steps: int, seed: int = 0) -> np.ndarray:
    """Autoregressive trajectories ``(n, n_steps + 1, dim)`` from ``x0`` ``(n, dim)``, a fresh label (or
    Gaussian draw) at every step, one model evaluation per step."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.as_tensor(np.asarray(x0), dtype=torch.float32)
    out = [x]
    for _ in range(n_steps):
        x = model.sample(x, gen)  # type: ignore[operator]
        out.append(x)
    return torch.stack(out, dim=1).numpy().astype(float)


def relative_train_error(model: nn.Module, x: np.ndarray, y: np.ndarray, seed: int = 0) -> float:
    """``sum |F(x_i, xi_i) - y_i|^2 / sum |y_i - x_i|^2`` with the training labels of ``seed`` (how near
    interpolation the fit is: 0 = exact, 1 = no better than predicting no change)."""
    gen = torch.Generator().manual_seed(seed)
    xt = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    yt = torch.as_tensor(np.asarray(y), dtype=torch.float32)
    labels = model.draw_labels(len(xt), gen)  # type: ignore[operator]
    with torch.no_grad():
        err = ((model(xt, labels) - yt) ** 2).sum()
    return float(err / ((yt - xt) ** 2).sum().clamp_min(1e-12))
