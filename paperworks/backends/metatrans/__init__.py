"""MetaTrans: unsupervised video domain adaptation with two loss terms and a temporal–static subtraction.

Reconstructed from the paper's description (no public code or full text here): a two-stream transformer over
per-frame features — one stream with positional embeddings (order-aware), one without (permutation-invariant, an
estimate of the clip's static content); the static estimate is subtracted from the order-aware output, leaving a
residual dominated by dynamics; the loss is source cross-entropy plus one alignment term (MMD or adversarial) on
the residual.

Modules (torch loads only when one of them is imported):

- ``data`` — sprite-like clips generated here: class = motion, a static shift (background texture, spuriously
  correlated with class in the source) and a temporal shift (speed) between domains;
- ``model`` — :class:`MetaTrans` (the subtraction module and classifier) and the domain discriminator;
- ``align`` — multi-bandwidth Gaussian MMD and the gradient-reversal layer;
- ``train`` — training of MetaTrans, its ablations, source-only and DANN, and target accuracy;
- ``loader`` — per-clip ``.npy`` features + ``labels.csv`` for users with real (pre-extracted) features;
- ``repro`` — ``paperworks repro metatrans``.
"""

from paperworks.backends.repro import REPROS

REPROS["metatrans"] = "paperworks.backends.metatrans.repro:run"
