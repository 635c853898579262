"""SpecMD: a benchmarking framework for MoE expert caching, and its Least-Stale eviction policy.

Traces of which experts each token activates (synthetic OLMoE-shaped, a "MoEfied" SmolLM2-135M, or
recorded from a real MoE checkpoint's router), a cache simulator with replaceable eviction policies
(LRU, LFU, FIFO, random, Belady, activation-aware, Least-Stale) and prefetchers, and a hardware model
that turns hits and misses into modeled time-to-first-token and per-token latency.

Importing this package is cheap: numpy, numba and torch load only when a submodule is used.
``paperworks repro specmd`` runs :func:`paperworks.backends.specmd.repro.run`.
"""

from paperworks.backends.repro import REPROS

REPROS["specmd"] = "paperworks.backends.specmd.repro:run"
