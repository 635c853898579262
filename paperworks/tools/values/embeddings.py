"""Text embedders for triple retrieval and topic classification: a callable from a list of texts to an
array of L2-normalised rows.

- ``minilm_embedder()``: the packaged offline all-MiniLM-L6-v2 that the archive uses
  (``paperworks.tools.archive.embedding``; loads in a few seconds, once per process).
- ``HashingEmbedder``: a dependency-free hashed bag of words (lower-cased word stems into 512 signed
  buckets); instant and deterministic, for tests and as a fallback. It matches shared words only.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence

import numpy as np

Embedder = Callable[[Sequence[str]], np.ndarray]
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an and are as at be by do does for from how in is it of on or should that the their "
                  "there this to was what when which who why will with would you your".split())


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ness", "ment", "ities", "ity", "ing", "ies", "ous", "ism", "ist", "ed",
                   "es", "s", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


class HashingEmbedder:
    """Hashed bag of word stems (see the module docstring)."""

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim))
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                if word in _STOP:
                    continue
                digest = hashlib.sha1(_stem(word).encode()).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[i, bucket] += 1.0 if digest[4] % 2 == 0 else -1.0
        return normalise_rows(out)


@functools.cache
def minilm_embedder() -> Embedder:
    """The archive's offline all-MiniLM-L6-v2 as an ``Embedder`` (cached per process)."""
    from paperworks.tools.archive.embedding import embedding_function

    function = embedding_function()

    def embed(texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384))
        return normalise_rows(np.asarray(function(list(texts)), dtype=float))

    return embed
