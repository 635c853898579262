"""LASER's actor and critic, trained in latent imagination — reconstructed (no public body or code).

From a posterior latent ``h_t`` and the sensor positions ``p_t`` the actor proposes a bounded move per sensor;
imagination then asks the world model "what if the sensors were there": ``h⁻ = prior(h)``, the forecast field
``μ⁻ = decode(h⁻)`` is read at the new positions ``p' = p + a`` and assimilated, ``h' = posterior(h⁻, μ⁻(p'), p')``.
The intrinsic reward is the predicted decrease of the reconstruction error over that sensing step,
``r = mean σ²(h) − mean σ²(h')`` (σ² is the decoder's predicted squared error), scaled to unit size; its
discounted sum is the discounted predicted error of the posteriors, which is what the evaluation measures.
(The variant ``mean σ²(h⁻) − mean σ²(h')``, the decrease the observation alone brings, is ``reward="assimilation"``.)
Critic on λ-returns; actor by back-propagating the λ-returns through the (frozen) world model, as in Dreamer
for continuous actions, plus a small entropy bonus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paperworks.backends.laser.sensors import bounded_move, observe, position_features
from paperworks.backends.laser.world import WorldModel
from paperworks.core.errors import UserError
from paperworks.core.tracking import track


def _pos_context(pos: torch.Tensor, n: int, harmonics: int) -> tuple[torch.Tensor, torch.Tensor]:
    feat = position_features(pos, n, harmonics)  # (B, K, F)
    return feat, feat.mean(-2)


class Actor(nn.Module):
    """Per-sensor Gaussian policy over raw moves, shared across sensors: input ``[h, φ(p_i), mean_j φ(p_j), K/16]``.

    Initialised to the static policy (mean move 0), so that it leaves its start layout only where imagination
    says moving pays (a randomly initialised actor drifted every sensor and did worse than static in a trial)."""

    def __init__(self, latent: int, grid: int, max_step: float, hidden: int = 128, harmonics: int = 4) -> None:
        super().__init__()
        self.grid, self.max_step, self.harmonics = grid, max_step, harmonics
        f = 4 * harmonics
        self.net = nn.Sequential(nn.Linear(latent + 2 * f + 1, hidden), nn.SiLU(), nn.Linear(hidden, hidden),
                                 nn.SiLU(), nn.Linear(hidden, 4))
        last = self.net[-1]
        assert isinstance(last, nn.Linear)
        with torch.no_grad():  # start as "stay where you are" (the mean move is 0), exploring with σ = e^{-1}
            last.weight.zero_()
            last.bias.copy_(torch.tensor([0.0, 0.0, -1.0, -1.0]))

    def forward(self, h: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw-move mean and log-std, each ``(B, K, 2)``."""
        feat, pooled = _pos_context(pos, self.grid, self.harmonics)
        k = pos.shape[-2]
        x = torch.cat([h[:, None].expand(-1, k, -1), feat, pooled[:, None].expand(-1, k, -1),
                       feat.new_full((*feat.shape[:2], 1), k / 16.0)], -1)
        out = self.net(x)
        return out[..., :2], out[..., 2:].clamp(-4.0, 1.0)

    def act(self, h: torch.Tensor, pos: torch.Tensor, sample: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
        """A bounded move ``(B, K, 2)`` (reparameterised sample, or the mean) and the Gaussian entropy ``(B,)``."""
        mean, log_std = self(h, pos)
        raw = mean + torch.randn_like(mean) * log_std.exp() if sample else mean
        return bounded_move(raw, self.max_step), log_std.sum((-1, -2))


class Critic(nn.Module):
    """State value from ``[h, mean_j φ(p_j), K/16]``."""

    def __init__(self, latent: int, grid: int, hidden: int = 128, harmonics: int = 4) -> None:
        super().__init__()
        self.grid, self.harmonics = grid, harmonics
        self.net = nn.Sequential(nn.Linear(latent + 4 * harmonics + 1, hidden), nn.SiLU(),
                                 nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, h: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """``(B,)`` values."""
        _, pooled = _pos_context(pos, self.grid, self.harmonics)
        k = pos.shape[-2]
        return self.net(torch.cat([h, pooled, pooled.new_full((h.shape[0], 1), k / 16.0)], -1))[:, 0]


def predicted_error(wm: WorldModel, h: torch.Tensor) -> torch.Tensor:
    """Mean predicted squared reconstruction error ``mean σ²`` of the field decoded from ``h``, ``(B,)``."""
    return wm.decode(h)[1].exp().mean((-1, -2))


def imagine_step(wm: WorldModel, h: torch.Tensor, pos: torch.Tensor, move: torch.Tensor,
                 reward: str = "posterior") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One "what-if" sensing step: new latent, new positions, and the predicted error decrease (unscaled) —
    ``reward="posterior"``: ``mean σ²(h) − mean σ²(h')`` from one posterior to the next (its discounted sum
    is the discounted predicted error the evaluation measures); ``"assimilation"``: ``mean σ²(h⁻) − mean σ²(h')``,
    the decrease that the observation at ``p'`` alone brings."""
    if reward not in ("posterior", "assimilation"):
        raise UserError(f"reward must be 'posterior' or 'assimilation', got '{reward}'")
    new_pos = torch.remainder(pos + move, float(wm.grid))
    hp = wm.prior(h)
    mu_p, lv_p = wm.decode(hp)
    h2 = wm.posterior(hp, observe(mu_p, new_pos), new_pos)
    before = predicted_error(wm, h) if reward == "posterior" else lv_p.exp().mean((-1, -2))
    return h2, new_pos, before - predicted_error(wm, h2)


def lambda_returns(rewards: torch.Tensor, values: torch.Tensor, gamma: float, lam: float) -> torch.Tensor:
    """λ-returns ``G_t = r_t + γ((1−λ) v_{t+1} + λ G_{t+1})``, ``G_H = v_H``; ``rewards`` ``(H, B)``, ``values``
    ``(H+1, B)`` (``values[t]`` of the state before ``rewards[t]``) → ``(H, B)``."""
    if values.shape[0] != rewards.shape[0] + 1:
        raise UserError(f"need one more value than rewards, got {values.shape[0]} and {rewards.shape[0]}")
    out = []
    g = values[-1]
    for t in reversed(range(rewards.shape[0])):
        g = rewards[t] + gamma * ((1 - lam) * values[t + 1] + lam * g)
        out.append(g)
    return torch.stack(out[::-1])


@dataclass
class ACConfig:
    """Actor–critic training in imagination."""

    steps: int = 400
    """Updates."""
    batch: int = 64
    """Imagined trajectories per update (start states drawn from filtered training episodes)."""
    horizon: int = 8
    """Imagination horizon H."""
    gamma: float = 0.9
    """Discount."""
    lam: float = 0.95
    """λ of the λ-returns."""
    actor_lr: float = 3e-4
    """Actor Adam learning rate."""
    critic_lr: float = 1e-3
    """Critic Adam learning rate."""
    entropy: float = 1e-3
    """Entropy bonus weight (per sensor coordinate)."""
    reward: str = "posterior"
    """Intrinsic reward (see :func:`imagine_step`): ``posterior`` or ``assimilation``."""


def train_actor_critic(wm: WorldModel, actor: Actor, critic: Critic, starts: list[tuple[torch.Tensor, torch.Tensor]],
                       cfg: ACConfig, rng: np.random.Generator) -> list[dict[str, float]]:
    """Train on imagined rollouts from ``starts`` — per K a pair ``(h (M, latent), pos (M, K, 2))`` of detached
    posterior latents and positions. The world model stays frozen. Returns one record per update."""
    if cfg.steps < 1 or cfg.horizon < 1:
        raise UserError(f"actor-critic steps and horizon must be >= 1, got {cfg.steps}, {cfg.horizon}")
    for p in wm.parameters():
        p.requires_grad_(False)
    with torch.no_grad():  # reward scale: the typical predicted error at the start states
        scale = 1.0 / float(torch.cat([predicted_error(wm, wm.prior(h)) for h, _ in starts]).mean().clamp_min(1e-8))
    a_opt = torch.optim.Adam(actor.parameters(), lr=cfg.actor_lr)
    c_opt = torch.optim.Adam(critic.parameters(), lr=cfg.critic_lr)
    hist = []
    try:
        for _ in range(cfg.steps):
            h0, p0 = starts[int(rng.integers(len(starts)))]
            i = torch.from_numpy(rng.integers(0, len(h0), size=cfg.batch))
            h, pos = h0[i], p0[i]
            states, poss, rewards, ents = [h], [pos], [], []
            for _t in range(cfg.horizon):
                move, ent = actor.act(h, pos)
                h, pos, r = imagine_step(wm, h, pos, move, cfg.reward)
                states.append(h)
                poss.append(pos)
                rewards.append(r * scale)
                ents.append(ent)
            values = torch.stack([critic(s, p) for s, p in zip(states, poss, strict=True)])
            rew = torch.stack(rewards)
            ret = lambda_returns(rew, values, cfg.gamma, cfg.lam)
            actor_loss = -ret.mean() - cfg.entropy * torch.stack(ents).mean()
            a_opt.zero_grad()
            actor_loss.backward()
            torch.nn.utils.clip_grad_norm_(actor.parameters(), 10.0)
            a_opt.step()
            target = ret.detach()
            v = torch.stack([critic(s.detach(), p.detach()) for s, p in zip(states[:-1], poss[:-1], strict=True)])
            critic_loss = ((v - target) ** 2).mean()
            c_opt.zero_grad()
            critic_loss.backward()
            torch.nn.utils.clip_grad_norm_(critic.parameters(), 10.0)
            c_opt.step()
            hist.append({"return": ret[0].mean().detach().item(), "reward": rew.mean().detach().item(),
                         "critic_loss": critic_loss.detach().item(), "k": int(pos.shape[1])})
            for key, value in hist[-1].items():  # steps continue across calls (training rounds)
                track(f"actor_critic/{key}", value)
    finally:
        for p in wm.parameters():
            p.requires_grad_(True)
    return hist
