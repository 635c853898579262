"""GradMem: test-time gradient memory — a context written into a few prefix vectors by gradient descent.

Modules (torch loads only when one of them is imported):

- ``memory`` — :class:`GradMem`: WRITE = ``K`` optimiser steps (plain SGD by default) on the context's
  reconstruction loss given ``[M; context]``, for any transformers causal LM with frozen weights;
- ``read`` — READ with ``[M; query]`` through ``inputs_embeds``: teacher-forced scores, greedy generation;
- ``forward`` — :class:`ForwardWriter`: the RMT-style forward-only baseline with the same memory size;
- ``maml`` — meta-training of ``M0`` (and the model) through the inner steps (second- or first-order),
  and exact-match evaluation on the key–value task;
- ``data`` — the ``!K:V!`` key–value generator and its character tokenizer;
- ``stories`` — a bAbI-style story and question generator written for this project;
- ``tiny`` — the tiny Llama; ``lm_stories`` — GradMem on a frozen pretrained LM (SmolLM2-135M);
- ``repro`` — ``paperworks repro gradmem``.
"""

from paperworks.backends.repro import REPROS

REPROS["gradmem"] = "paperworks.backends.gradmem.repro:run"
