"""LASER: active sensing of continuum fields with a latent world model — reconstructed (no public body or code).

Modules (torch loads only when one of them is imported):

- ``field`` — the 2-D periodic advection–diffusion field with moving sources (spectral, exact linear part);
- ``sensors`` — bilinear observation, position features, bounded moves, POD + QR-pivoted placement;
- ``world`` — the recurrent latent world model (sparse-observation encoder, transition, field decoder);
- ``train`` — world-model training on a bank of sensor tracks;
- ``agent`` — actor and critic trained on imagined rollouts with λ-returns and the intrinsic reward;
- ``policies`` — the sensing methods run closed-loop on the shared reconstructor;
- ``oracle`` — the oracle reconstructor (linear MMSE of the true field from the readings), which scores a
  placement apart from the learned world model;
- ``repro`` — ``paperworks repro laser``.
"""

from paperworks.backends.repro import REPROS

REPROS["laser"] = "paperworks.backends.laser.repro:run"
