"""T-GINEE: tensor generalized estimating equations for multilayer networks (reconstructed).

The authors' code and full text were not available: the model below is reconstructed from the abstract
(CP factors shared across layers, GEE with working covariance across layers, a scaled logistic link,
sandwich inference) and says so in each module. Plain numpy/scipy.

Modules:

- ``model`` — the CP mean tensor, the estimating equations and their alternating Fisher-scoring solver,
  moment estimates of the working correlation (independence, exchangeable, unstructured), CP-ALS;
- ``inference`` — the sandwich covariance of the factors and delta-method Wald intervals for ``Theta``;
- ``heads`` — link-prediction AUC, spectral community detection with k-means, adjusted Rand index;
- ``data`` — synthetic multilayer networks with a known ``Theta``, communities and cross-layer correlation;
- ``baselines`` — the compared methods (T-GINEE, pooled CP with independence, per-layer logistic MF);
- ``repro`` — ``paperworks repro tginee``.
"""

from paperworks.backends.repro import REPROS

REPROS["tginee"] = "paperworks.backends.tginee.repro:run"
