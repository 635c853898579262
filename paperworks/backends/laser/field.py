"""The continuum fields LASER senses: 2-D periodic advection–diffusion with moving Gaussian sources.

    ∂u/∂t + c·∇u = ν ∇²u − λ u + s(x, t),    x ∈ [0, N)², periodic, grid spacing 1,

solved spectrally with an integrating factor: each Fourier mode ``k`` evolves as
``û ← exp(L(k) dt) (û + dt ŝ)``, ``L(k) = −i c·k − ν|k|² − λ``. Advection and diffusion are therefore exact for
any ``dt`` (a constant-velocity shift is a phase rotation), the spatial mean changes only through the source
and the damping, and with ``ν = λ = 0`` and no source the L2 norm is conserved exactly. The sources move
(constant speed, slowly turning heading) and the damping keeps their trails short, so the informative
regions travel across the domain and no static layout covers them for long.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.core.errors import UserError


@dataclass
class FieldConfig:
    """One family of episodes (every episode draws its own flow, sources and paths)."""

    grid: int = 32
    """Grid points per side, N (domain [0, N)², spacing 1)."""
    steps: int = 24
    """Frames recorded per episode."""
    spinup: int = 12
    """Solver steps run before the first recorded frame (so trails exist at t = 0)."""
    dt: float = 1.0
    """Time between frames."""
    diffusion: float = 0.15
    """ν, cells² per unit time."""
    damping: float = 0.08
    """λ, per unit time (trail length ≈ speed / λ cells)."""
    flow: float = 0.3
    """Magnitude of the uniform background velocity c (random direction per episode), cells per unit time."""
    sources: int = 2
    """Moving Gaussian sources per episode."""
    source_speed: tuple[float, float] = (0.6, 1.2)
    """Range of each source's speed, cells per unit time."""
    source_turn: float = 0.25
    """Standard deviation of the per-step change of each source's heading, radians."""
    source_width: float = 3.0
    """Gaussian σ of each source, cells."""
    source_amp: tuple[float, float] = (0.5, 1.0)
    """Range of each source's strength (per unit time; the steady peak is about strength / λ × a width factor)."""

    def validate(self) -> None:
        """Raise :class:`UserError` naming the first bad field."""
        if self.grid < 4:
            raise UserError(f"FieldConfig.grid must be >= 4, got {self.grid}")
        if self.steps < 1 or self.spinup < 0:
            raise UserError(f"FieldConfig.steps must be >= 1 and spinup >= 0, got {self.steps}, {self.spinup}")
        for name in ("dt", "source_width"):
            if not getattr(self, name) > 0:
                raise UserError(f"FieldConfig.{name} must be > 0, got {getattr(self, name)}")
        for name in ("diffusion", "damping", "flow", "source_turn"):
            if not getattr(self, name) >= 0:
                raise UserError(f"FieldConfig.{name} must be >= 0, got {getattr(self, name)}")
        if self.sources < 0:
            raise UserError(f"FieldConfig.sources must be >= 0, got {self.sources}")
        for name in ("source_speed", "source_amp"):
            lo, hi = getattr(self, name)
            if not 0 <= lo <= hi:
                raise UserError(f"FieldConfig.{name} must be a range 0 <= lo <= hi, got {(lo, hi)}")


def wavenumbers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Angular wavenumbers ``(kx, ky)`` on an ``n × n`` grid of spacing 1, shaped ``(n, n)`` (index [x, y])."""
    k = 2 * np.pi * np.fft.fftfreq(n, d=1.0)
    kx, ky = np.meshgrid(k, k, indexing="ij")
    return kx, ky


def propagator(n: int, velocity: tuple[float, float], diffusion: float, damping: float, dt: float) -> np.ndarray:
    """``exp(L(k) dt)`` for the linear part, ``L = −i c·k − ν|k|² − λ`` (complex, ``(n, n)``).

    The first-derivative (advection) term uses ``k = 0`` at the Nyquist wavenumber of an even grid, whose
    mode has no conjugate partner: rotating its phase would make the field complex, and dropping the imaginary
    part would lose energy."""
    kx, ky = wavenumbers(n)
    ax, ay = kx.copy(), ky.copy()
    if n % 2 == 0:
        ax[n // 2, :] = 0.0
        ay[:, n // 2] = 0.0
    lin = -1j * (velocity[0] * ax + velocity[1] * ay) - diffusion * (kx**2 + ky**2) - damping
    return np.exp(lin * dt)


def step(u: np.ndarray, prop: np.ndarray, dt: float, source: np.ndarray | None = None) -> np.ndarray:
    """One integrating-factor step: ``u ← IFFT(prop · (FFT(u) + dt FFT(s)))``; real in, real out."""
    uh = np.fft.fft2(u)
    if source is not None:
        uh = uh + dt * np.fft.fft2(source)
    return np.real(np.fft.ifft2(prop * uh))


def gaussian_bump(n: int, centre: np.ndarray, width: float) -> np.ndarray:
    """A periodic Gaussian ``exp(−d²/2σ²)`` (minimum-image distance ``d``) on the ``n × n`` grid, index [x, y]."""
    g = np.arange(n, dtype=float)
    dx = (g - centre[0] + n / 2) % n - n / 2
    dy = (g - centre[1] + n / 2) % n - n / 2
    return np.exp(-(dx[:, None] ** 2 + dy[None, :] ** 2) / (2 * width**2))


def simulate_episode(cfg: FieldConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One episode: frames ``(steps, N, N)`` (float32, index [t, x, y]) and source paths ``(steps, sources, 2)``."""
    cfg.validate()
    n = cfg.grid
    angle = rng.uniform(0, 2 * np.pi)
    velocity = (cfg.flow * np.cos(angle), cfg.flow * np.sin(angle))
    prop = propagator(n, velocity, cfg.diffusion, cfg.damping, cfg.dt)
    pos = rng.uniform(0, n, size=(cfg.sources, 2))
    heading = rng.uniform(0, 2 * np.pi, size=cfg.sources)
    speed = rng.uniform(*cfg.source_speed, size=cfg.sources)
    amp = rng.uniform(*cfg.source_amp, size=cfg.sources)
    u = np.zeros((n, n))
    frames = np.empty((cfg.steps, n, n), dtype=np.float32)
    paths = np.empty((cfg.steps, cfg.sources, 2), dtype=np.float32)
    for t in range(cfg.spinup + cfg.steps):
        src = np.zeros((n, n))
        for j in range(cfg.sources):
            src += amp[j] * gaussian_bump(n, pos[j], cfg.source_width)
        u = step(u, prop, cfg.dt, src)
        if t >= cfg.spinup:
            frames[t - cfg.spinup] = u
            paths[t - cfg.spinup] = pos
        heading = heading + cfg.source_turn * rng.standard_normal(cfg.sources)
        pos = (pos + cfg.dt * speed[:, None] * np.stack([np.cos(heading), np.sin(heading)], 1)) % n
    return frames, paths


def make_dataset(cfg: FieldConfig, episodes: int, seed: int) -> np.ndarray:
    """``episodes`` independent episodes, ``(episodes, steps, N, N)`` float32."""
    if episodes < 1:
        raise UserError(f"episodes must be >= 1, got {episodes}")
    rng = np.random.default_rng(seed)
    return np.stack([simulate_episode(cfg, rng)[0] for _ in range(episodes)])
