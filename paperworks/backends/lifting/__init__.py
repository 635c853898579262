"""Stochastic Lifting: a random label per training transition, plain regression ``F(x_t, xi) ≈ x_{t+1}``, and
fresh labels at rollout — one network evaluation per generated step.

Modules (torch loads only when one of them is imported):

- ``metrics`` — exact 1-D W2, sliced W2 (128 projections), energy distance, per time step;
- ``systems`` — Ornstein–Uhlenbeck (exact transition law), 1-D double well, 2-D noisy limit cycle, simulated
  by Euler–Maruyama;
- ``model`` — the lifted MLP (label by concatenation or per-block embedding), the deterministic regressor
  (``label_dim = 0``), the conditional-Gaussian head, and a small lifted conv net for 1-D fields;
- ``train`` — the authors' objective (fixed label per transition, mean squared error over batch and coordinates,
  AdamW with cosine decay to 0), and rollout with fresh labels;
- ``definitions`` — what matches the authors' public code (julesberman/stochastic_lifting) and each difference
  with its reason;
- ``repro`` — ``paperworks repro lifting`` (validation seeds for choices, reported seeds for figures, and
  diagnostics of where a Gaussian head does better).

The systems, sizes and baselines here are this project's choices.
"""

from paperworks.backends.repro import REPROS

REPROS["lifting"] = "paperworks.backends.lifting.repro:run"
