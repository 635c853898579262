"""The syntax tree of a Lean term (:class:`Node`, :class:`Binder`): what the parser builds and every later
layer reads. Layer: parse (its bottom; imports nothing of the checker).

A node has no meaning attached: ``op`` names the form (``app``, ``ident``, ``num``, ``lam``, ``add`` …),
``args`` are its children, ``value`` carries names, numerals and binders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, eq=False)
class Node:
    """A syntax tree node. ``op`` names the form; ``value`` carries names, numerals and binders."""

    op: str
    args: tuple[Node, ...] = ()
    value: Any = None

    def __repr__(self) -> str:  # compact, for error messages and tests
        inner = " ".join(repr(a) for a in self.args)
        val = "" if self.value is None else repr(self.value)
        return f"({self.op} {val} {inner})".replace("  ", " ")


@dataclass(frozen=True)
class Binder:
    """One bound variable: a pattern (an ``ident`` node, or a ``tuple`` of patterns) and its type."""

    pattern: Node
    type: Node | None


def tree_depth(node: Node) -> int:
    """Depth of a syntax tree, computed without recursion."""
    best = 0
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        best = max(best, d)
        stack.extend((a, d + 1) for a in n.args)
        if isinstance(n.value, Binder) and n.value.type is not None:
            stack.append((n.value.type, d + 1))
        elif isinstance(n.value, tuple):
            stack.extend((b.type, d + 1) for b in n.value if isinstance(b, Binder) and b.type is not None)
    return best
