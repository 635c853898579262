"""Sensing methods run closed-loop on the shared reconstructor (the world model), and their scoring.

At each frame t a method picks the positions ``p_t`` from the previous posterior ``h_{t−1}`` and positions
``p_{t−1}``; the world model predicts ``h⁻_t``, observes the true field at ``p_t``, assimilates, and its decoded
mean is the reconstruction. Methods: ``static`` (a fixed layout: random, or QR-pivoted on POD modes),
``greedy`` (each sensor jumps to the largest forecast variance σ²(h⁻_t) within its reach, sensors taken in
turn with a Gaussian suppression around each choice), ``laser`` (the actor's mean move).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from paperworks.backends.laser.agent import Actor
from paperworks.backends.laser.sensors import observe
from paperworks.backends.laser.world import WorldModel

Chooser = Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]
"""``(h_prev (B, latent), pos_prev (B, K, 2), t) → pos_t (B, K, 2)``."""


def static_chooser() -> Chooser:
    """Keep the sensors where they are."""
    return lambda h, pos, t: pos


def laser_chooser(wm: WorldModel, actor: Actor, noise: bool = False) -> Chooser:
    """Move by the actor's mean (or a sampled move with ``noise``, for data collection)."""

    def choose(h: torch.Tensor, pos: torch.Tensor, t: int) -> torch.Tensor:
        if t == 0:
            return pos
        move, _ = actor.act(h, pos, sample=noise)
        return torch.remainder(pos + move, float(wm.grid))

    return choose


def greedy_targets(var: np.ndarray, pos: np.ndarray, max_step: float, suppress: float) -> np.ndarray:
    """Greedy uncertainty heuristic on one variance map ``var`` ``(N, N)``: for each sensor in turn, the grid
    point of largest (suppressed) variance within ``max_step`` of it (its own position included, so it may stay),
    then ``var`` is multiplied by ``1 − exp(−d²/2r²)`` around that choice, ``r = suppress``. → ``(K, 2)``."""
    n = var.shape[0]
    g = np.arange(n, dtype=float)
    v = var.astype(float).copy()
    out = np.empty_like(pos)
    for i, p in enumerate(pos):
        dx = (g - p[0] + n / 2) % n - n / 2
        dy = (g - p[1] + n / 2) % n - n / 2
        d2 = dx[:, None] ** 2 + dy[None, :] ** 2
        masked = np.where(d2 <= max_step**2, v, -np.inf)
        here = observe(torch.from_numpy(v)[None], torch.from_numpy(p[None, None]))[0, 0].item()
        j = int(np.argmax(masked))
        if np.isfinite(masked.flat[j]) and masked.flat[j] > here:
            target = np.array([j // n, j % n], dtype=float)
        else:
            target = p.copy()
        out[i] = target
        tx = (g - target[0] + n / 2) % n - n / 2
        ty = (g - target[1] + n / 2) % n - n / 2
        v *= 1 - np.exp(-(tx[:, None] ** 2 + ty[None, :] ** 2) / (2 * suppress**2))
    return out


def greedy_chooser(wm: WorldModel, max_step: float, suppress: float = 2.0) -> Chooser:
    """The greedy uncertainty baseline (see :func:`greedy_targets`) on the forecast variance."""

    def choose(h: torch.Tensor, pos: torch.Tensor, t: int) -> torch.Tensor:
        if t == 0:
            return pos
        var = wm.decode(wm.prior(h))[1].exp().numpy()
        p = pos.numpy().astype(float)
        return torch.from_numpy(np.stack([greedy_targets(var[b], p[b], max_step, suppress)
                                          for b in range(len(p))])).to(pos.dtype)

    return choose


@torch.no_grad()
def run_method(wm: WorldModel, fields: np.ndarray, start: np.ndarray, choose: Chooser) -> dict[str, np.ndarray]:
    """Closed-loop sensing on episodes ``fields`` ``(B, T, N, N)`` from start layouts ``start`` ``(B, K, 2)``.

    Returns ``rel_l2`` ``(B, T)`` (‖û − u‖ / ‖u‖ per frame), ``tracks`` ``(B, T, K, 2)`` and ``recon``
    ``(B, T, N, N)``."""
    data = torch.from_numpy(fields)
    b, t_len = data.shape[:2]
    h = wm.initial(b)
    pos = torch.from_numpy(start).float()
    tracks, recons = [], []
    for t in range(t_len):
        pos = choose(h, pos, t)
        hp = wm.prior(h)
        h = wm.posterior(hp, observe(data[:, t], pos), pos)
        recons.append(wm.decode(h)[0])
        tracks.append(pos)
    recon = torch.stack(recons, 1)
    err = (recon - data).flatten(2).norm(dim=-1) / data.flatten(2).norm(dim=-1).clamp_min(1e-12)
    return {"rel_l2": err.numpy(), "tracks": torch.stack(tracks, 1).numpy(), "recon": recon.numpy()}


def relative_l2(recon: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """‖û − u‖ / ‖u‖ over the last two axes."""
    num = np.linalg.norm((recon - truth).reshape(*truth.shape[:-2], -1), axis=-1)
    return num / np.maximum(np.linalg.norm(truth.reshape(*truth.shape[:-2], -1), axis=-1), 1e-12)
