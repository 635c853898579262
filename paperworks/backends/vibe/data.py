"""Groups generated here (numpy): skeletons moving as coupled (Kuramoto) oscillators whose synchrony and energy
set the group's emotion, a scene background tied to the emotion in training only, audio features and short
texts.

Emotions: 0 calm (low energy, in sync), 1 excited (high, in sync), 2 tense (high, out of sync),
3 disengaged (low, out of sync). Energy sets the amplitude and tempo of each person's motion (visible per
person); synchrony is the Kuramoto coupling (visible only between people). The background is a texture vector
of the scene: in the ``train`` and ``in`` splits it is the emotion's texture on a share ``spurious`` of groups
(a random one otherwise); in the ``out`` split it is always another emotion's texture, so the shortcut misleads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError

EMOTIONS = ("calm", "excited", "tense", "disengaged")
HIGH_ENERGY = (False, True, True, False)
IN_SYNC = (True, True, False, False)
FILLERS = 16
"""Text token ids 0..15 are filler words; 16 + c is emotion c's cue word."""
VOCAB = FILLERS + len(EMOTIONS)


@dataclass
class GroupConfig:
    """How groups are generated."""

    people: int = 5
    """People per group."""
    joints: int = 5
    """Joints per skeleton (2-D)."""
    frames: int = 40
    """Frames per clip."""
    dt: float = 0.1
    """Seconds per frame."""
    freq_low: float = 0.75
    """Mean motion frequency (Hz) of low-energy groups."""
    freq_high: float = 0.9
    """Mean motion frequency (Hz) of high-energy groups."""
    amp_low: float = 0.8
    """Motion amplitude of low-energy groups."""
    amp_high: float = 1.0
    """Motion amplitude of high-energy groups."""
    freq_spread: float = 0.15
    """Standard deviation (Hz) of each person's natural frequency around the group's mean."""
    coupling: float = 2.0
    """Kuramoto coupling (rad/s) of in-sync groups (out-of-sync groups: 0)."""
    noise: float = 0.15
    """Joint position noise."""
    audio_noise: float = 0.4
    """Noise of the audio features (they carry the energy, not the synchrony: each channel is a mean of
    per-person terms)."""
    background_dim: int = 8
    """Size of the scene's background feature vector."""
    background_scale: float = 1.0
    """Amplitude of the background textures."""
    spurious: float = 0.9
    """Share of train / ``in`` groups whose background is their emotion's texture."""
    cue_rate: float = 0.05
    """Chance that a text token is the emotion's cue word (else a random filler)."""
    text_len: int = 6
    """Tokens per text."""
    seed: int = 0
    """Seed of the textures and the skeleton's joint layout (shared by all splits)."""

    def validate(self) -> None:
        """Raise :class:`UserError` on values the generator cannot use."""
        if self.people < 2 or self.joints < 1 or self.frames < 8:
            raise UserError(f"group config: need people >= 2, joints >= 1, frames >= 8; got {self.people}, "
                            f"{self.joints}, {self.frames}")
        if not 0.0 <= self.spurious <= 1.0 or not 0.0 <= self.cue_rate <= 1.0:
            raise UserError("group config: spurious and cue_rate must be in [0, 1]")


@dataclass
class Groups:
    """A split. ``skeletons`` (n, people, frames, joints, 2); ``audio`` (n, frames, 3); ``text`` (n, text_len)
    token ids; ``background`` (n, background_dim); ``y`` emotions; ``bg`` background texture ids."""

    skeletons: np.ndarray
    audio: np.ndarray
    text: np.ndarray
    background: np.ndarray
    y: np.ndarray
    bg: np.ndarray


def kuramoto(omega: np.ndarray, coupling: float, frames: int, dt: float, rng: np.random.Generator) -> np.ndarray:
    """Phases (people, frames) of oscillators ``dphi_i/dt = omega_i + K/N sum_j sin(phi_j - phi_i)`` (Euler,
    random initial phases, small phase noise)."""
    n = len(omega)
    phi = np.empty((n, frames))
    phi[:, 0] = rng.uniform(0, 2 * np.pi, size=n)
    for t in range(1, frames):
        p = phi[:, t - 1]
        pull = coupling / n * np.sin(p[None, :] - p[:, None]).sum(axis=1)
        phi[:, t] = p + dt * (omega + pull) + rng.normal(size=n) * 0.02
    return phi


def _world(cfg: GroupConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(cfg.seed)
    textures = rng.normal(size=(len(EMOTIONS), cfg.background_dim)) * cfg.background_scale
    base = rng.normal(size=(cfg.joints, 2))
    direction = rng.normal(size=(cfg.joints, 2))
    direction[:, 1] = np.abs(direction[:, 1]) + 0.5  # every joint moves up with the phase, so the mean y tracks it
    offsets = rng.uniform(-0.3, 0.3, size=cfg.joints)
    return textures, base, direction, offsets


def make_groups(n: int, split: str, cfg: GroupConfig, seed: int) -> Groups:
    """``n`` groups of ``split`` ("train", "in" or "out"), emotions balanced and shuffled."""
    cfg.validate()
    if split not in ("train", "in", "out"):
        raise UserError(f"groups: split must be 'train', 'in' or 'out', got {split!r}")
    rng = np.random.default_rng(seed)
    textures, base, direction, offsets = _world(cfg)
    k = len(EMOTIONS)
    y = rng.permutation(np.arange(n) % k)
    sk = np.empty((n, cfg.people, cfg.frames, cfg.joints, 2), dtype=np.float32)
    audio = np.empty((n, cfg.frames, 3), dtype=np.float32)
    text = np.empty((n, cfg.text_len), dtype=np.int64)
    bg = np.empty(n, dtype=np.int64)
    for i, c in enumerate(y):
        high = HIGH_ENERGY[c]
        freq = cfg.freq_high if high else cfg.freq_low
        amp = cfg.amp_high if high else cfg.amp_low
        omega = 2 * np.pi * (freq + rng.normal(size=cfg.people) * cfg.freq_spread)
        phi = kuramoto(omega, cfg.coupling if IN_SYNC[c] else 0.0, cfg.frames, cfg.dt, rng)
        wave = np.sin(phi[:, :, None] + offsets[None, None, :])  # (people, frames, joints)
        pos = base[None, None] + amp * wave[..., None] * direction[None, None]
        sk[i] = pos + rng.normal(size=pos.shape) * cfg.noise
        s = np.sin(phi)
        audio[i, :, 0] = amp * np.abs(s).mean(axis=0) + rng.normal(size=cfg.frames) * cfg.audio_noise  # loudness
        audio[i, :, 1] = amp * np.abs(np.cos(phi)).mean(axis=0) + rng.normal(size=cfg.frames) * cfg.audio_noise
        audio[i, :, 2] = rng.normal(size=cfg.frames) * cfg.audio_noise
        cue = rng.random(cfg.text_len) < cfg.cue_rate
        text[i] = np.where(cue, FILLERS + c, rng.integers(FILLERS, size=cfg.text_len))
        if split == "out":
            b = int((c + rng.integers(1, k)) % k)
        else:
            b = int(c) if rng.random() < cfg.spurious else int(rng.integers(k))
        bg[i] = b
    background = textures[bg] + rng.normal(size=(n, cfg.background_dim)) * 0.1
    return Groups(skeletons=sk, audio=audio, text=text, background=background.astype(np.float32),
                  y=y.astype(np.int64), bg=bg)
