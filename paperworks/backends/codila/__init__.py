"""CoDiLA: coherent parallel decoding — a small autoregressive head decodes, left to right, each block a
masked-diffusion LM proposes in parallel, conditioned on the soft embeddings of the DLM's marginals.

Modules (torch loads only when one of them is imported):

- ``data`` — the generated code-like language (multi-token identifiers, balanced brackets, typed
  expressions) with its parser, arithmetic expressions with answers, and the fixed-length sequences;
- ``model`` — the tiny transformer (bidirectional: the DLM; causal: the AR baseline), the masked-diffusion
  and next-token losses, and :class:`~.model.LocalARHead`;
- ``train`` — training loops for the three networks on this CPU;
- ``decode`` — the decoders: AR baseline, DLM with ``k`` tokens per step, CoDiLA (seeded, deterministic);
- ``evaluate`` — validity, accuracy, steps and wall-clock throughput;
- ``repro`` — ``paperworks repro codila``; ``plots`` — its figures.
"""

from paperworks.backends.repro import REPROS

REPROS["codila"] = "paperworks.backends.codila.repro:run"
