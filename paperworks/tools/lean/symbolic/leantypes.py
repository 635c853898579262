"""Lean types as small values (:class:`Ty`), read from pp.explicit or surface syntax. Layer: parse (the
top of it: a type is read from a parsed term; elaboration and comparison both use :class:`Ty`).

Numbers: ``Nat Int Rat Real Complex``, ordered for coercion (ℕ → ℤ → ℚ → ℝ → ℂ). Kin types are read
as their nearest number type: ``NNReal``/``ENNReal``/``EReal`` as ``Real``, ``PNat``/``ENat`` as ``Nat``.
``Fin n`` and ``ZMod n`` keep their modulus. Compound: ``Prop``, ``Fun(a, b)`` (``a → b``),
``Prod(a, b)`` (``a × b``, right-nested as in Lean), ``Set(a)`` (also ``Finset``), ``List(a)``,
``Poly(r)`` (``Polynomial r``, ``r[X]``, ``RatFunc r``), ``MvPoly(r)``. Anything else is ``Other``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperworks.tools.lean.symbolic.parse import parse
from paperworks.tools.lean.symbolic.syntax import Node

NUMERIC_ORDER = {"Nat": 0, "Int": 1, "Rat": 2, "Real": 3, "Complex": 4}
_ALIASES = {
    "ℕ": "Nat", "Nat": "Nat", "ℤ": "Int", "Int": "Int", "ℚ": "Rat", "Rat": "Rat", "ℝ": "Real", "Real": "Real",
    "ℂ": "Complex", "Complex": "Complex", "NNReal": "Real", "ℝ≥0": "Real", "ENNReal": "Real", "ℝ≥0∞": "Real",
    "EReal": "Real", "PNat": "Nat", "ℕ+": "Nat", "ENat": "Nat", "ℕ∞": "Nat", "Prop": "Prop", "Bool": "Prop",
}
_NOTES = {"NNReal": "NNReal read as ℝ", "ENNReal": "ENNReal read as ℝ", "PNat": "PNat read as ℕ",
          "ENat": "ENat read as ℕ", "ℕ+": "ℕ+ read as ℕ", "ℕ∞": "ℕ∞ read as ℕ", "EReal": "EReal read as ℝ"}


class TypeParseError(ValueError):
    """A Lean type this module does not model."""


@dataclass(frozen=True)
class Ty:
    """A Lean type: ``head`` is a name above; ``args`` its parameters; ``n`` a modulus or length."""

    head: str
    args: tuple[Ty, ...] = ()
    n: int | None = None

    @property
    def numeric(self) -> bool:
        return self.head in NUMERIC_ORDER or self.head in ("Fin", "ZMod")

    @property
    def integral(self) -> bool:
        return self.head in ("Nat", "Int", "Fin", "ZMod")

    def __str__(self) -> str:
        sym = {"Nat": "ℕ", "Int": "ℤ", "Rat": "ℚ", "Real": "ℝ", "Complex": "ℂ", "Prop": "Prop"}
        if self.head in sym:
            return sym[self.head]
        if self.head == "Fun":
            return f"({self.args[0]} → {self.args[1]})"
        if self.head == "Prod":
            return f"({self.args[0]} × {self.args[1]})"
        if self.head in ("Fin", "ZMod"):
            return f"{self.head} {self.n}"
        if self.args:
            return f"{self.head} " + " ".join(str(a) for a in self.args)
        return self.head


NAT, INT, RAT, REAL, COMPLEX, PROP = (Ty(h) for h in ("Nat", "Int", "Rat", "Real", "Complex", "Prop"))


def fun(a: Ty, b: Ty) -> Ty:
    return Ty("Fun", (a, b))


def prod(a: Ty, b: Ty) -> Ty:
    return Ty("Prod", (a, b))


def join(a: Ty | None, b: Ty | None) -> Ty | None:
    """The larger of two number types (the coercion target), or whichever is not None."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a.head in ("Fin", "ZMod") and b.head in NUMERIC_ORDER:
        return b
    if b.head in ("Fin", "ZMod") and a.head in NUMERIC_ORDER:
        return a
    if a.head in NUMERIC_ORDER and b.head in NUMERIC_ORDER:
        return a if NUMERIC_ORDER[a.head] >= NUMERIC_ORDER[b.head] else b
    if a.head in ("Poly", "MvPoly") and b.numeric:
        return a
    if b.head in ("Poly", "MvPoly") and a.numeric:
        return b
    return a


def coercible(src: Ty, dst: Ty) -> bool:
    """Lean inserts ``↑`` from ``src`` to ``dst`` (number widening, scalars into polynomials)."""
    if src == dst:
        return True
    if src.head in ("Fin", "ZMod") and dst.head in NUMERIC_ORDER:
        return True
    if src.head in NUMERIC_ORDER and dst.head in NUMERIC_ORDER:
        return NUMERIC_ORDER[src.head] <= NUMERIC_ORDER[dst.head]
    if dst.head in ("Poly", "MvPoly") and (src.numeric or src == dst.args[0]):
        return True
    return False


_TEXT_TYPES = [("ℝ≥0∞", "ENNReal"), ("ℝ≥0", "NNReal"), ("ℕ∞", "ENat"), ("ℕ+", "PNat")]
_POLY_RING = re.compile(r"([ℝℂℚℤℕ])\[X\]")


def parse_type(text: str) -> Ty:
    """Read a Lean type written as text (surface or pp.explicit)."""
    for short, name in _TEXT_TYPES:
        text = text.replace(short, name)
    text = _POLY_RING.sub(r"(Polynomial \1)", text)
    return type_of_node(parse(text))


def type_notes(text: str) -> list[str]:
    """Notes about kin types read as number types (e.g. ``NNReal read as ℝ``)."""
    return [note for key, note in _NOTES.items() if key in text]


def type_of_node(node: Node) -> Ty:
    """Read a parsed type term."""
    op = node.op
    if op == "paren":
        return type_of_node(node.args[0])
    if op == "ident":
        name = node.value.lstrip("@")
        if name in _ALIASES:
            return Ty(_ALIASES[name])
        raise TypeParseError(f"unknown type {name}")
    if op == "arrow":
        return fun(type_of_node(node.args[0]), type_of_node(node.args[1]))
    if op == "prodty":
        return prod(type_of_node(node.args[0]), type_of_node(node.args[1]))
    if op == "app":
        head = node.args[0]
        args = node.args[1:]
        if head.op != "ident":
            raise TypeParseError("unsupported type application")
        name = head.value.lstrip("@")
        if name in ("Set", "Finset") and len(args) == 1:
            return Ty("Set", (type_of_node(args[0]),))
        if name == "List" and len(args) == 1:
            return Ty("List", (type_of_node(args[0]),))
        if name == "Prod" and len(args) == 2:
            return prod(type_of_node(args[0]), type_of_node(args[1]))
        if name in ("Polynomial", "RatFunc"):
            return Ty("Poly", (type_of_node(args[0]),))
        if name == "MvPolynomial" and len(args) >= 2:
            return Ty("MvPoly", (type_of_node(args[1]),))
        if name in ("Fin", "ZMod") and len(args) == 1:
            return Ty(name, (), _nat_value(args[0]))
        if name == "Matrix" and len(args) == 3:
            return fun(type_of_node(args[0]), fun(type_of_node(args[1]), type_of_node(args[2])))
        if name == "Set.Elem" and len(args) == 2:  # a subtype {x // x ∈ S}: read as the carrier
            return type_of_node(args[0])
        if name.startswith("Set.I") and args:  # ↥(Set.Ioi (1 : ℝ)) used as a type: its carrier
            first = args[0]
            while first.op == "paren":
                first = first.args[0]
            return type_of_node(first.args[1]) if first.op == "ascr" else Ty("Real")
        if name in _ALIASES and len(args) == 1 and args[0].op == "list":  # ℝ[X]
            return Ty("Poly", (Ty(_ALIASES[name]),))
        raise TypeParseError(f"unsupported type {name}")
    raise TypeParseError(f"unsupported type form {op}")


def _nat_value(node: Node) -> int:
    """A closed ℕ term in a type (``3``, ``@OfNat.ofNat Nat (nat_lit 3) _``, ``11^2``)."""
    op = node.op
    if op == "num":
        return int(node.value)
    if op == "paren":
        return _nat_value(node.args[0])
    if op == "pow":
        return _nat_value(node.args[0]) ** min(_nat_value(node.args[1]), 64)
    if op == "app" and node.args[0].op == "ident":
        name = node.args[0].value
        rest = node.args[1:]
        if name == "@OfNat.ofNat" and len(rest) >= 2:
            return _nat_value(rest[1])
        if name == "nat_lit" and rest:
            return _nat_value(rest[0])
        if name == "@HPow.hPow" and len(rest) == 6:
            return _nat_value(rest[4]) ** min(_nat_value(rest[5]), 64)
    raise TypeParseError("type index is not a numeral")
