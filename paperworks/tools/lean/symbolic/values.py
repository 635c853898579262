"""Typed values and Lean's operations on them, in SymPy. Layer: elaborate (its bottom: no syntax,
no elaborator; comparison uses it too, for fresh variables and the universe of a type).

- :class:`V`: an elaborated value, a SymPy object and its Lean type; :class:`ElabError`: a term that
  does not elaborate.
- Variables of a type: :func:`assumptions` (SymPy's), :func:`canonical_value` (a fresh symbol, or a
  tuple of them), :func:`base_set` (``Set.univ``).
- Operations at a type, with Lean's meaning: :func:`arith` (in ℕ, ``a - b`` is ``max(a - b, 0)`` and
  ``a / b`` is ``⌊a / b⌋``; in ℤ, ``/`` is ``Int.ediv`` and ``%`` is ``Int.emod``; ``Fin n`` and
  ``ZMod n`` reduce mod n; in a field ``x / 0 = 0``, a symbolic denominator becoming ``Inv0``),
  :func:`power` (size-guarded, Mathlib's values for ``0 ^ e`` and ``Real.rpow`` of a negative base),
  :func:`equality` (``=``/``≠`` of values that are not numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from paperworks.tools.lean.symbolic.funcs import IntDiv, Inv0, LeanMod, LEq, NatDiv, guarded_pow
from paperworks.tools.lean.symbolic.leantypes import Ty


class ElabError(ValueError):
    """The term does not elaborate (unknown name, type mismatch, unsupported form)."""


@dataclass
class V:
    """An elaborated value: a SymPy object and its Lean type (None: a numeral not yet typed)."""

    val: Any
    ty: Ty | None


def assumptions(ty: Ty) -> dict[str, bool]:
    """SymPy assumptions for a variable of a number type."""
    if ty.head in ("Nat", "Fin"):
        return {"integer": True, "nonnegative": True}
    if ty.head in ("Int", "ZMod"):
        return {"integer": True}
    if ty.head == "Rat":
        return {"rational": True}
    if ty.head == "Real":
        return {"real": True}
    if ty.head == "Complex":
        return {"complex": True}
    return {}


def base_set(ty: Ty) -> Any:
    """The set of all values of ``ty`` (``Set.univ``)."""
    table = {"Nat": sp.S.Naturals0, "Int": sp.S.Integers, "Rat": sp.S.Rationals, "Real": sp.S.Reals,
             "Complex": sp.S.Complexes, "Fin": sp.S.Naturals0, "ZMod": sp.S.Integers}
    if ty.head in table:
        if ty.head == "Fin" and ty.n is not None and ty.n <= 10_000:
            return sp.FiniteSet(*range(ty.n))
        return table[ty.head]
    if ty.head == "Prod":
        return sp.ProductSet(base_set(ty.args[0]), base_set(ty.args[1]))
    return sp.S.UniversalSet


def canonical_value(ty: Ty, name: str, fun_prefix: str = "F") -> Any:
    """A fresh value of type ``ty`` named ``name``: a symbol, or a tuple of them. A function-typed
    variable is a plain symbol (``F`` + name); applying it gives ``Function(that name)(args)``."""
    if ty.head == "Prod":
        return sp.Tuple(canonical_value(ty.args[0], name + "_0", fun_prefix),
                        canonical_value(ty.args[1], name + "_1", fun_prefix))
    if ty.head == "Fun":
        return sp.Symbol(fun_prefix + name)
    return sp.Symbol(name, **assumptions(ty))


def _field_div(a: Any, b: Any) -> Any:
    """``a / b`` in a field: ``a * Inv0(b)`` for a symbolic ``b``, so that SymPy cannot cancel ``b``
    (``x / x`` is 0 at ``x = 0`` in Lean); the equivalence check looks at the zeros of ``b``."""
    if isinstance(b, sp.Expr) and b.free_symbols:
        return a * Inv0(b)
    return a / b


def arith(op: str, a: Any, b: Any, ty: Ty) -> Any:
    """``a op b`` with Lean's meaning at type ``ty``."""
    h = ty.head
    if op == "add":
        out = a + b
    elif op == "mul":
        out = a * b
    elif op == "sub":
        out = sp.Max(a - b, 0) if h == "Nat" else a - b
    elif op == "div":
        if h == "Nat":
            out = NatDiv(a, b)
        elif h == "Int":
            out = IntDiv(a, b)
        elif h in ("Fin", "ZMod"):
            raise ElabError(f"division in {ty} is not supported")
        else:
            out = sp.Integer(0) if b == 0 else _field_div(a, b)
    elif op == "mod":
        if h not in ("Nat", "Int", "Fin", "ZMod"):
            raise ElabError(f"% on {ty} is not supported")
        out = LeanMod(a, b)
    else:
        raise ElabError(f"unknown operation {op}")
    if h in ("Fin", "ZMod") and ty.n:
        out = sp.Mod(out, ty.n)
    return out


def power(base: Any, exp: Any, ty: Ty, exp_ty: Ty | None) -> Any:
    """``base ^ exp`` at type ``ty`` (a natural, integer or real exponent), size-guarded. Closed
    arguments take Mathlib's values where SymPy's differ: ``0 ^ e = 0`` for ``e < 0`` (``0⁻¹ = 0``,
    ``Real.rpow 0 e = 0``), and ``Real.rpow b e = |b| ^ e * cos (e * π)`` for ``b < 0``."""
    closed = all(isinstance(v, sp.Expr) and v.is_number and v.is_extended_real is True for v in (base, exp))
    if closed and ty.head in ("Real", "Rat", "Complex") and base.is_zero is True and exp.is_negative is True:
        return sp.Integer(0)
    if (closed and ty.head == "Real" and exp_ty is not None and exp_ty.head == "Real"
            and base.is_negative is True and exp.is_integer is False):
        return guarded_pow(-base, exp) * sp.cos(exp * sp.pi)
    out = guarded_pow(base, exp)
    if ty.head in ("Nat", "Int") and exp_ty is not None and exp_ty.head not in ("Nat", "Fin"):
        raise ElabError(f"{ty} ^ {exp_ty} has no instance")
    if ty.head in ("Fin", "ZMod") and ty.n:
        out = sp.Mod(out, ty.n)
    return out


def equality(op: str, a: Any, b: Any, ty: Ty) -> Any:
    """``a = b`` (or ``≠``) for values that are not numbers."""
    if op not in ("eq", "ne"):
        if ty.head == "Set" and op in ("le", "lt"):
            return LEq(sp.Intersection(a, b), a)
        raise ElabError(f"order on {ty} is not supported")
    if ty.head == "Prop":
        out = sp.Equivalent(a, b)
    elif isinstance(a, sp.Tuple) and isinstance(b, sp.Tuple) and len(a) == len(b) and ty.head == "Prod":
        out = sp.And(*[equality("eq", x, y, t) for x, y, t in zip(a, b, ty.args, strict=True)])
    elif ty.numeric:
        out = sp.Eq(a, b)
    else:
        out = LEq(a, b)
    return sp.Not(out) if op == "ne" else out
