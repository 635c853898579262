"""``gen:arith_wide``: the arith generator with six training phrasings per category instead of four (the
held-out phrasings and everything else as ``gen:arith``)."""

from __future__ import annotations

from typing import Any

from paperworks.train.generators.arith import LIKE, oracle_calls, overlap, write_suite
from paperworks.train.generators.arith import generate as _generate

__all__ = ["LIKE", "generate", "oracle_calls", "overlap", "write_suite"]


def generate(n: int, seed: int, *, phrasing: str = "wide") -> list[dict[str, Any]]:
    """``n`` problems from ``seed``; training draws from the wide phrasing set."""
    return _generate(n, seed, phrasing=phrasing)
