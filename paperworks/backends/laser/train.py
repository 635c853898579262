"""Training the world model on episodes observed along a bank of sensor tracks (static, random-walk, and
later the policies' own tracks, so that the shared reconstructor knows every method's sensor distribution)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from paperworks.backends.laser.sensors import pixel_positions, random_layout, random_walk
from paperworks.backends.laser.world import WorldModel, world_model_loss
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


@dataclass
class TrackBank:
    """Sensor tracks per sensor count: ``tracks[k]`` ``(M, T, k, 2)`` with the training episode each belongs to."""

    tracks: dict[int, np.ndarray] = field(default_factory=dict)
    episodes: dict[int, np.ndarray] = field(default_factory=dict)

    def add(self, k: int, tracks: np.ndarray, episodes: np.ndarray) -> None:
        """Append ``tracks`` ``(m, T, k, 2)`` observing training episodes ``episodes`` ``(m,)``."""
        if tracks.shape[2] != k or len(tracks) != len(episodes):
            raise UserError(f"tracks of shape {tracks.shape} do not match k={k} and {len(episodes)} episodes")
        if k in self.tracks:
            self.tracks[k] = np.concatenate([self.tracks[k], tracks])
            self.episodes[k] = np.concatenate([self.episodes[k], episodes])
        else:
            self.tracks[k], self.episodes[k] = tracks, episodes

    def sample(self, k: int, batch: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``batch`` random tracks for ``k`` sensors and their episodes."""
        i = rng.integers(0, len(self.episodes[k]), size=batch)
        return self.tracks[k][i], self.episodes[k][i]


def initial_bank(n: int, episodes: int, steps: int, ks: tuple[int, ...], max_step: float,
                 qr_idx: dict[int, np.ndarray], rng: np.random.Generator) -> TrackBank:
    """Per training episode and K: one static random layout, one random walk; the QR layout on every 4th."""
    bank = TrackBank()
    for k in ks:
        static = np.stack([np.broadcast_to(random_layout(n, k, rng), (steps, k, 2)) for _ in range(episodes)])
        walks = np.stack([random_walk(n, k, steps, max_step, rng) for _ in range(episodes)])
        ep = np.arange(episodes)
        qr_eps = ep[::4]
        qr = np.broadcast_to(pixel_positions(qr_idx[k], n), (len(qr_eps), steps, k, 2))
        bank.add(k, np.concatenate([static, walks, qr]), np.concatenate([ep, ep, qr_eps]))
    return bank


@dataclass
class WMTrainConfig:
    """World-model optimisation."""

    steps: int = 1500
    """Adam steps."""
    batch: int = 32
    """Tracks (episodes) per step (32 learned far faster than 16 at nearly the same cost per step)."""
    lr: float = 3e-3
    """Adam learning rate (cosine-decayed to 10%)."""
    forecast_weight: float = 0.5
    """Weight of the prior's forecast NLL beside the posterior's reconstruction NLL."""
    clip: float = 10.0
    """Gradient-norm clip."""
    window: int = 12
    """Frames per training sequence: a random window of each episode, filtered from the initial latent."""


def train_world_model(wm: WorldModel, fields: np.ndarray, bank: TrackBank, cfg: WMTrainConfig,
                      rng: np.random.Generator) -> list[dict[str, float]]:
    """Train ``wm`` on windows of ``fields`` ``(E, T, N, N)`` observed along ``bank``'s tracks (K drawn per step);
    returns one record per step (``loss``, ``mse``, ``nll``, ``forecast_mse``, ``forecast_nll``, ``k``)."""
    if cfg.steps < 1 or cfg.batch < 1:
        raise UserError(f"world-model steps and batch must be >= 1, got {cfg.steps}, {cfg.batch}")
    opt = torch.optim.Adam(wm.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * min(s / cfg.steps, 1.0))))
    ks = sorted(bank.tracks)
    data = torch.from_numpy(fields)
    hist = []
    wm.train()
    for _ in range(cfg.steps):
        k = int(rng.choice(ks))
        tracks, eps = bank.sample(k, cfg.batch, rng)
        t0 = int(rng.integers(0, max(data.shape[1] - cfg.window, 0) + 1))
        win = slice(t0, t0 + cfg.window)
        loss, info = world_model_loss(wm, data[eps, win], torch.from_numpy(tracks[:, win]).float(),
                                      cfg.forecast_weight)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(wm.parameters(), cfg.clip)
        opt.step()
        sched.step()
        hist.append({"loss": loss.item(), **info, "k": k})
        for key, value in hist[-1].items():  # steps continue across calls (training rounds)
            track(f"world_model/{key}", value)
    wm.eval()
    return hist
