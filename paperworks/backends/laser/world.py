"""The continuum-field latent world model — reconstructed (the paper's body and code are not public).

A deterministic recurrent latent ``h`` (Dreamer's RSSM without the stochastic part; residual MLPs with layer
norm instead of GRUs, which learned several times slower here):

- transition (prior, "what comes next"): ``h⁻_t = LN(h_{t−1} + MLP(h_{t−1}))``;
- encoder of sparse observations: the sensor values and their coverage splatted onto a coarse periodic grid
  with a Gaussian kernel (any K, any order; differentiable in the positions), then an MLP;
- assimilation (posterior): ``h_t = LN(h⁻_t + MLP([h⁻_t, enc(o_t, p_t)]))``;
- field decoder: ``h ↦ (μ, log σ²)`` on every grid point — the reconstruction ``μ`` (coefficients on a fixed
  basis: the training snapshots' leading POD modes in the repro, or every grid point) and its predicted squared
  error ``σ²`` (heteroscedastic Gaussian, at half resolution), which gives the intrinsic reward and the greedy
  baseline's map.

Trained on the squared error of the posterior mean (reconstruction) and of the prior mean (one-step forecast),
plus the Gaussian negative log-likelihood of each log-variance around its detached mean. The same model is
the shared reconstructor of every sensing method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paperworks.backends.laser.sensors import observe
from paperworks.core.errors import UserError


@dataclass
class WorldModelConfig:
    """Sizes of the world model."""

    latent: int = 128
    """Width of the recurrent latent h."""
    embed: int = 128
    """Width of the sensor-set embedding."""
    hidden: int = 256
    """Hidden width of the per-sensor encoder and of the decoder."""
    splat_grid: int = 16
    """Side of the coarse grid the encoder splats sensor values onto."""
    splat_width: float = 2.0
    """Gaussian σ of the splatting kernel, in field cells."""
    min_logvar: float = -9.0
    """Floor of the predicted log-variance (keeps the NLL bounded)."""


class WorldModel(nn.Module):
    """Recurrent latent world model over an ``N × N`` periodic field (see the module docstring)."""

    def __init__(self, grid: int, cfg: WorldModelConfig | None = None,
                 basis: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        super().__init__()
        self.cfg = cfg or WorldModelConfig()
        self.grid = grid
        c = self.cfg
        if grid % 2:
            raise UserError(f"WorldModel needs an even grid (the variance head is at half resolution), got {grid}")
        if basis is None:  # the mean head predicts every grid point
            mean, modes = np.zeros(grid * grid), np.eye(grid * grid)
        else:
            mean, modes = basis
            if mean.shape != (grid * grid,) or modes.shape[0] != grid * grid:
                raise UserError(f"WorldModel basis must be ((N²,), (N², r)) for N={grid}, got "
                                f"{mean.shape}, {modes.shape}")
        self.register_buffer("basis_mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("basis_modes", torch.as_tensor(modes, dtype=torch.float32).T.contiguous())
        self.encoder = nn.Sequential(nn.Linear(2 * c.splat_grid**2, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.embed))
        self.h0 = nn.Parameter(torch.zeros(c.latent))
        self.trans = nn.Sequential(nn.Linear(c.latent, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.latent))
        self.trans_norm = nn.LayerNorm(c.latent)
        self.assim = nn.Sequential(nn.Linear(c.latent + c.embed, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.latent))
        self.assim_norm = nn.LayerNorm(c.latent)
        self.decoder = nn.Sequential(nn.Linear(c.latent, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.hidden),
                                     nn.SiLU())
        self.mean_head = nn.Linear(c.hidden, modes.shape[1])
        self.logvar_head = nn.Linear(c.hidden, (grid // 2) ** 2)

    def initial(self, batch: int) -> torch.Tensor:
        """The latent before any step, ``(batch, latent)``."""
        return self.h0.expand(batch, -1)

    def prior(self, h: torch.Tensor) -> torch.Tensor:
        """Latent transition ``h_{t−1} → h⁻_t`` (residual MLP, layer-normalised)."""
        return self.trans_norm(h + self.trans(h))

    def encode(self, values: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Sensor-set embedding of ``values`` ``(B, K)`` at ``pos`` ``(B, K, 2)`` → ``(B, embed)``: on a coarse
        periodic grid, the kernel-weighted mean of the values (Nadaraya–Watson, weights ``w``) and the coverage
        ``Σ w``, then an MLP."""
        w = splat_weights(pos, self.grid, self.cfg.splat_grid, self.cfg.splat_width)  # (B, K, G²)
        cover = w.sum(-2)
        x = torch.cat([(values[..., None] * w).sum(-2) / (cover + 0.1), cover], -1)
        return self.encoder(x)

    def posterior(self, h_prior: torch.Tensor, values: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Assimilate the observation: ``h⁻_t, (o_t, p_t) → h_t`` (residual MLP, layer-normalised)."""
        return self.assim_norm(h_prior + self.assim(torch.cat([h_prior, self.encode(values, pos)], -1)))

    def decode(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Field mean and log-variance, each ``(B, N, N)``: the mean as ``basis_mean + coefficients · modes``, the
        log-variance on the half-resolution grid, each value covering 2 × 2 points."""
        z = self.decoder(h)
        n, b = self.grid, h.shape[0]
        mean = (self.basis_mean + self.mean_head(z) @ self.basis_modes).view(b, n, n)
        lv = self.logvar_head(z).view(b, n // 2, n // 2).repeat_interleave(2, 1).repeat_interleave(2, 2)
        return mean, lv.clamp_min(self.cfg.min_logvar)

    def filter(self, fields: torch.Tensor, pos: torch.Tensor) -> dict[str, torch.Tensor]:
        """Run along episodes ``fields`` ``(B, T, N, N)`` observed at ``pos`` ``(B, T, K, 2)``; returns the stacked
        ``post`` / ``prior`` latents ``(B, T, latent)`` and decoded ``mean`` / ``logvar`` (posterior) and
        ``prior_mean`` / ``prior_logvar``, each ``(B, T, N, N)``."""
        b, t = fields.shape[:2]
        h = self.initial(b)
        posts, priors = [], []
        for i in range(t):
            hp = self.prior(h)
            h = self.posterior(hp, observe(fields[:, i], pos[:, i]), pos[:, i])
            priors.append(hp)
            posts.append(h)
        post = torch.stack(posts, 1)
        pri = torch.stack(priors, 1)
        mean, logvar = self.decode(post.flatten(0, 1))
        pmean, plogvar = self.decode(pri.flatten(0, 1))
        shape = (b, t, self.grid, self.grid)
        return {"post": post, "prior": pri, "mean": mean.view(shape), "logvar": logvar.view(shape),
                "prior_mean": pmean.view(shape), "prior_logvar": plogvar.view(shape)}


def splat_weights(pos: torch.Tensor, n: int, coarse: int, width: float) -> torch.Tensor:
    """Kernel weights ``exp(−d²/2σ²)`` of positions ``(B, K, 2)`` at the centres of a ``coarse × coarse`` grid over
    the periodic ``[0, n)²`` (minimum-image distance) → ``(B, K, coarse²)``."""
    c = (torch.arange(coarse, dtype=pos.dtype) + 0.5) * (n / coarse)
    d = torch.remainder(pos[..., None] - c + n / 2, float(n)) - n / 2  # (B, K, 2, G)
    d2 = d[..., 0, :, None] ** 2 + d[..., 1, None, :] ** 2  # (B, K, G, G)
    return torch.exp(-d2 / (2 * width**2)).flatten(-2)


def gaussian_nll(target: torch.Tensor, mean: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """Mean Gaussian negative log-likelihood (without the constant ½ log 2π)."""
    return 0.5 * (logvar + (target - mean) ** 2 * torch.exp(-logvar)).mean()


def world_model_loss(wm: WorldModel, fields: torch.Tensor, pos: torch.Tensor,
                     forecast_weight: float = 0.5) -> tuple[torch.Tensor, dict[str, float]]:
    """Posterior loss + ``forecast_weight`` × prior loss on a batch, each the MSE of the mean plus the Gaussian
    NLL of the log-variance around the detached mean (so the variance head cannot slow the mean's fit)."""
    out = wm.filter(fields, pos)
    mse = ((out["mean"] - fields) ** 2).mean()
    fmse = ((out["prior_mean"] - fields) ** 2).mean()
    nll = gaussian_nll(fields, out["mean"].detach(), out["logvar"])
    fnll = gaussian_nll(fields, out["prior_mean"].detach(), out["prior_logvar"])
    loss = mse + nll + forecast_weight * (fmse + fnll)
    return loss, {"mse": mse.item(), "nll": nll.item(), "forecast_mse": fmse.item(), "forecast_nll": fnll.item()}
