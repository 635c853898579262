"""FCGraft: function-level validated code skeletons with their KV caches, grafted into a new task's policy.

Modules (torch loads only when one of them is imported):

- ``kv`` — prefill segments, re-position cached keys by re-rotation (RoPE), stitch segments, recompute
  boundary tokens, KL of next-token distributions;
- ``library`` — the skeleton library on disk: code, validation record (sandbox + judge), KV segment;
- ``retrieval`` — TF-IDF retrieval of a task's skeletons;
- ``patch`` — the composite's holes filled by constrained (token-trie) decoding;
- ``methods`` — free generation, RAGCache-style prefix caching and FCGraft, timed alike;
- ``repro`` — ``paperworks repro fcgraft`` on the kitchen benchmark (:mod:`paperworks.tools.robot`).
"""

from paperworks.backends.repro import REPROS

REPROS["fcgraft"] = "paperworks.backends.fcgraft.repro:run"
