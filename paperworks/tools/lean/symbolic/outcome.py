"""The vocabulary of comparison: an :class:`Outcome` (equal or not or undecided, by which method, why),
and :class:`Compares`, what set comparison needs of a comparer. Layer: compare (its bottom).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from paperworks.tools.lean.symbolic.leantypes import Ty


@dataclass
class Outcome:
    """``equal``: True/False/None (undecided); ``method``: symbolic or numeric; ``reason``: one line."""

    equal: bool | None
    method: str
    reason: str


def yes(method: str, reason: str) -> Outcome:
    return Outcome(True, method, reason)


def no(method: str, reason: str) -> Outcome:
    return Outcome(False, method, reason)


def unknown(reason: str) -> Outcome:
    return Outcome(None, "undecided", reason)


class Compares(Protocol):
    """A comparer as ``sets`` uses it (``equiv.Comparer`` is the one): a deadline, the smallest ℕ sample,
    the time left, and comparison of two elements of one type."""

    deadline: float
    nat_min: int

    def left(self) -> float: ...

    def compare(self, a: Any, b: Any, ty: Ty) -> Outcome: ...
