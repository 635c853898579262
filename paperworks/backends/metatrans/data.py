"""Sprite-like clips generated here (numpy): the class is the sprite's motion; the domains differ in a static
component (background texture, spuriously tied to the class in the source) and a temporal one (speed).

Each frame is a ``pixels``-long 1-D image: a Gaussian sprite at the frame's position plus the clip's background
texture (constant over the clip) plus noise. Motions (classes): 0 right, 1 left, 2 right-then-left,
3 left-then-right. Classes 0 and 1 (and 2 and 3) visit the same positions, so only frame order tells them apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError

N_CLASSES = 4
MOTIONS = ("right", "left", "right-then-left", "left-then-right")


@dataclass
class ClipConfig:
    """How clips are generated."""

    frames: int = 8
    """Frames per clip."""
    pixels: int = 24
    """Pixels of each 1-D frame (the per-frame feature size)."""
    sprite_width: float = 1.0
    """Standard deviation of the Gaussian sprite, in pixels."""
    background_scale: float = 1.0
    """Amplitude of the background textures (the sprite's peak is 1)."""
    noise: float = 0.1
    """Per-pixel Gaussian noise of every frame."""
    source_speed: float = 1.0
    """Pixels per frame in the source domain."""
    target_speed: float = 2.0
    """Pixels per frame in the target domain (the temporal shift)."""
    spurious: float = 0.95
    """Share of source clips whose background is their class's texture (the rest: a random one)."""
    target_shift: float = 0.5
    """Amplitude of a texture offset added to every target background (the static shift), on top of target
    backgrounds drawn independently of the class."""
    seed: int = 0
    """Seed of the textures (the domains' shared world); each split has its own seed too."""

    def validate(self) -> None:
        """Raise :class:`UserError` on values the generator cannot use."""
        if self.frames < 2 or self.pixels < 4:
            raise UserError(f"clip config: frames must be >= 2 and pixels >= 4, got {self.frames}, {self.pixels}")
        if not 0.0 <= self.spurious <= 1.0:
            raise UserError(f"clip config: spurious must be in [0, 1], got {self.spurious}")
        for name in ("source_speed", "target_speed"):
            v = getattr(self, name)
            if v <= 0 or v * (self.frames - 1) > self.pixels - 3:
                raise UserError(f"clip config: {name}={v} must be > 0 and keep the sprite inside {self.pixels} pixels")


@dataclass
class Clips:
    """A split: ``x`` (clips, frames, pixels) float32, ``y`` motion labels, ``bg`` background texture ids."""

    x: np.ndarray
    y: np.ndarray
    bg: np.ndarray


def textures(cfg: ClipConfig) -> tuple[np.ndarray, np.ndarray]:
    """The four class textures of the source and the target's domain-wide texture offset."""
    rng = np.random.default_rng(cfg.seed)
    tex = rng.normal(size=(N_CLASSES, cfg.pixels)) * cfg.background_scale
    offset = rng.normal(size=cfg.pixels) * cfg.target_shift
    return tex.astype(np.float32), offset.astype(np.float32)


def trajectory(motion: int, start: float, speed: float, frames: int) -> np.ndarray:
    """Sprite positions over the clip for one motion class."""
    t = np.arange(frames, dtype=np.float64)
    half = frames // 2
    if motion == 0:
        return start + speed * t
    if motion == 1:
        return start + speed * (frames - 1 - t)
    up = np.minimum(t, 2 * half - 1 - t).clip(min=0)  # 0, 1, ..., half-1, half-1, ..., 0
    if motion == 2:
        return start + speed * up
    return start + speed * (up.max() - up)


def render(pos: np.ndarray, background: np.ndarray, cfg: ClipConfig, rng: np.random.Generator) -> np.ndarray:
    """Frames (frames, pixels): the Gaussian sprite at each position + the background + noise."""
    grid = np.arange(cfg.pixels, dtype=np.float64)
    sprite = np.exp(-0.5 * ((grid[None, :] - pos[:, None]) / cfg.sprite_width) ** 2)
    frames = sprite + background[None, :] + rng.normal(size=sprite.shape) * cfg.noise
    return frames.astype(np.float32)


def make_clips(n: int, domain: str, cfg: ClipConfig, seed: int) -> Clips:
    """``n`` clips of ``domain`` ("source" or "target"), classes balanced and shuffled."""
    cfg.validate()
    if domain not in ("source", "target"):
        raise UserError(f"clips: domain must be 'source' or 'target', got {domain!r}")
    rng = np.random.default_rng(seed)
    tex, offset = textures(cfg)
    speed = cfg.source_speed if domain == "source" else cfg.target_speed
    y = rng.permutation(np.arange(n) % N_CLASSES)
    x = np.empty((n, cfg.frames, cfg.pixels), dtype=np.float32)
    bg = np.empty(n, dtype=np.int64)
    for i, c in enumerate(y):
        if domain == "source":
            b = int(c) if rng.random() < cfg.spurious else int(rng.integers(N_CLASSES))
            background = tex[b]
        else:
            b = int(rng.integers(N_CLASSES))
            background = tex[b] + offset
        pos0 = trajectory(int(c), 0.0, speed, cfg.frames)
        span = pos0.max() - pos0.min()
        start = rng.uniform(1.0, cfg.pixels - 2.0 - span) - pos0.min()
        x[i] = render(pos0 + start, background, cfg, rng)
        bg[i] = b
    return Clips(x=x, y=y.astype(np.int64), bg=bg)
