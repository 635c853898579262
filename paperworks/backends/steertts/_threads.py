"""Small-model torch work runs on one thread: these MLPs are tiny, and on a shared machine more intra-op
threads made training an order of magnitude slower (3.6 s on one thread, 43 s on two, measured)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(1)``, restoring the previous count after."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
