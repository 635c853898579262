"""Lifted regressors ``F(x, xi) ≈ x_{t+1}`` and the two baselines, in torch.

- :class:`LiftedMLP` — an MLP on the state with a random label ``xi`` (dimension ``label_dim``) injected either
  by concatenation with the input (``inject="concat"``) or through an MLP embedding of ``xi`` added to the
  hidden state of every block (``inject="embed"``), the two options of the authors' code. It predicts the
  increment: ``F(x, xi) = x + s * net((x - m) / s, xi)`` with the data's scale ``s``. ``label_dim = 0`` is the
  deterministic regressor (no label);
- :class:`GaussianHead` — the conditional-Gaussian baseline: the same MLP returns a mean increment and a
  per-coordinate log standard deviation, trained by Gaussian negative log-likelihood, sampled as
  ``mean + std * eps``;
- :class:`LiftedConv1d` — a small periodic 1-D conv net for fields ``(n, grid)``, label embedded and added
  per block, for stochastic fields.

Every model has ``sample(x, generator)`` (one fresh draw per row) so that :func:`.train.rollout` treats them
alike.
"""

from __future__ import annotations

import torch
from torch import nn

from paperworks.core.errors import UserError


class _Scaler(nn.Module):
    x_mean: torch.Tensor
    x_std: torch.Tensor
    d_std: torch.Tensor

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("x_mean", torch.zeros(dim))
        self.register_buffer("x_std", torch.ones(dim))
        self.register_buffer("d_std", torch.ones(dim))

    def fit(self, x: torch.Tensor, y: torch.Tensor) -> None:
        self.x_mean.copy_(x.mean(0))
        self.x_std.copy_(x.std(0).clamp_min(1e-6))
        self.d_std.copy_((y - x).std(0).clamp_min(1e-6))


class LiftedMLP(nn.Module):
    """``F(x, xi) = x + d_std * net(x_normalised, xi)``; ``label_dim = 0`` is the deterministic regressor."""

    scaler: _Scaler

    def __init__(self, dim: int, label_dim: int, width: int = 128, depth: int = 3, inject: str = "concat") -> None:
        super().__init__()
        if dim < 1 or label_dim < 0 or width < 1 or depth < 1:
            raise UserError(f"LiftedMLP: need dim >= 1, label_dim >= 0, width >= 1, depth >= 1; got "
                            f"{dim}, {label_dim}, {width}, {depth}")
        if inject not in ("concat", "embed"):
            raise UserError(f"LiftedMLP: inject must be 'concat' or 'embed', got '{inject}'")
        self.dim, self.label_dim, self.inject = dim, label_dim, inject
        self.scaler = _Scaler(dim)
        first_in = dim + (label_dim if inject == "concat" else 0)
        self.blocks = nn.ModuleList([nn.Linear(first_in if i == 0 else width, width) for i in range(depth)])
        self.embeds = nn.ModuleList()
        if inject == "embed" and label_dim > 0:
            self.label_mlp = nn.Sequential(nn.Linear(label_dim, width), nn.SiLU(), nn.Linear(width, width))
            self.embeds = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
        self.out = nn.Linear(width, self.out_dim())
        self.act = nn.SiLU()

    def out_dim(self) -> int:
        """Outputs of the last layer (the increment)."""
        return self.dim

    def features(self, x: torch.Tensor, xi: torch.Tensor | None) -> torch.Tensor:
        """Last hidden layer for normalised states and labels."""
        h = (x - self.scaler.x_mean) / self.scaler.x_std
        if self.label_dim > 0 and xi is None:
            raise UserError("LiftedMLP: this model needs a label xi")
        if self.inject == "concat" and self.label_dim > 0:
            h = torch.cat([h, xi], dim=-1)  # type: ignore[list-item]
        e = self.label_mlp(xi) if self.embeds else None
        for i, block in enumerate(self.blocks):
            h = block(h)
            if e is not None:
                h = h + self.embeds[i](e)
            h = self.act(h)
        return h

    def forward(self, x: torch.Tensor, xi: torch.Tensor | None = None) -> torch.Tensor:
        """Predicted next state."""
        return x + self.scaler.d_std * self.out(self.features(x, xi))

    def draw_labels(self, n: int, generator: torch.Generator | None = None) -> torch.Tensor | None:
        """Fresh i.i.d. N(0, I) labels for ``n`` rows (``None`` without labels)."""
        if self.label_dim == 0:
            return None
        return torch.randn(n, self.label_dim, generator=generator)

    @torch.no_grad()
    def sample(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """One draw of the next state per row, each with a fresh label."""
        return self(x, self.draw_labels(x.shape[0], generator))


class GaussianHead(LiftedMLP):
    """Conditional-Gaussian baseline: next state ~ N(x + d_std * mu(x), diag(d_std * exp(log_s(x)))^2)."""

    def __init__(self, dim: int, width: int = 128, depth: int = 3) -> None:
        super().__init__(dim, 0, width, depth)

    def out_dim(self) -> int:
        return 2 * self.dim

    def mean_logstd(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean of the next state and the log of its per-coordinate standard deviation."""
        o = self.out(self.features(x, None))
        mu, log_s = o[:, :self.dim], o[:, self.dim:].clamp(-10.0, 5.0)
        return x + self.scaler.d_std * mu, log_s + torch.log(self.scaler.d_std)

    def forward(self, x: torch.Tensor, xi: torch.Tensor | None = None) -> torch.Tensor:
        return self.mean_logstd(x)[0]

    def nll(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Mean Gaussian negative log-likelihood of ``y`` given ``x`` (without the constant)."""
        mean, log_s = self.mean_logstd(x)
        return (0.5 * ((y - mean) / log_s.exp()) ** 2 + log_s).sum(-1).mean()

    @torch.no_grad()
    def sample(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        mean, log_s = self.mean_logstd(x)
        return mean + log_s.exp() * torch.randn(mean.shape, generator=generator)


class LiftedConv1d(nn.Module):
    """A lifted map for periodic 1-D fields ``(n, grid)``: circular convolutions, label embedded to per-channel
    shifts added in every block; predicts the increment (scaled by its overall standard deviation)."""

    x_std: torch.Tensor
    d_std: torch.Tensor

    def __init__(self, label_dim: int, channels: int = 32, depth: int = 3, kernel: int = 5) -> None:
        super().__init__()
        if label_dim < 0 or channels < 1 or depth < 1 or kernel < 1 or kernel % 2 == 0:
            raise UserError(f"LiftedConv1d: need label_dim >= 0, channels, depth >= 1, odd kernel; got "
                            f"{label_dim}, {channels}, {depth}, {kernel}")
        self.label_dim = label_dim
        self.register_buffer("x_std", torch.ones(()))
        self.register_buffer("d_std", torch.ones(()))
        self.convs = nn.ModuleList([nn.Conv1d(1 if i == 0 else channels, channels, kernel, padding=kernel // 2,
                                              padding_mode="circular") for i in range(depth)])
        self.embeds = nn.ModuleList([nn.Linear(label_dim, channels) for _ in range(depth)]) if label_dim else None
        self.head = nn.Conv1d(channels, 1, 1)
        self.act = nn.SiLU()

    def fit_scale(self, x: torch.Tensor, y: torch.Tensor) -> None:
        """Set the input and increment scales from training pairs."""
        self.x_std.copy_(x.std().clamp_min(1e-6))
        self.d_std.copy_((y - x).std().clamp_min(1e-6))

    def forward(self, x: torch.Tensor, xi: torch.Tensor | None = None) -> torch.Tensor:
        h = (x / self.x_std)[:, None, :]
        for i, conv in enumerate(self.convs):
            h = conv(h)
            if self.embeds is not None:
                if xi is None:
                    raise UserError("LiftedConv1d: this model needs a label xi")
                h = h + self.embeds[i](xi)[:, :, None]
            h = self.act(h)
        return x + self.d_std * self.head(h)[:, 0, :]

    def draw_labels(self, n: int, generator: torch.Generator | None = None) -> torch.Tensor | None:
        """Fresh N(0, I) labels (``None`` without labels)."""
        return torch.randn(n, self.label_dim, generator=generator) if self.label_dim else None

    @torch.no_grad()
    def sample(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """One draw of the next field per row."""
        return self(x, self.draw_labels(x.shape[0], generator))
