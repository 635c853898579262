"""Equivalence of two elaborated values of one Lean type (:class:`Comparer`). Layer: compare (above
``sets``, ``sampling`` and ``outcome``; it reads only values and types, never syntax).

Order of attempts, per type:
- Any type: identical trees (bound variables are canonically named, so alpha-equivalent terms
  are identical) are equal ("symbolic").
- Numbers: the difference is zero after SymPy's evaluation, ``expand`` or ``simplify`` (bounded in
  time) — "symbolic"; a closed difference that evaluates (30 digits) to a clear non-zero is a miss,
  exact rationals decide "symbolic", others "numeric". With free variables, both sides are sampled at
  seeded points (ℕ symbols on naturals, ℤ on integers, ℝ on reals, ℂ on complex numbers, unknown
  functions replaced by fixed test functions): a disagreeing point is a miss ("numeric", with the
  point), agreement at every defined point (at least 3) is a match ("numeric").
- Products and lists: component by component. Functions: both sides applied to the same fresh
  variables, then bodies compared; ``Fin n → α`` functions as vectors of their n values.
- Sets: finite sets by matching elements; sets of reals through SymPy's set algebra (predicates
  turned into intervals by ``as_set``), else by membership of boundary, near-boundary and random
  points; sets of integers and tuples by membership on a grid. Sets of functions only by identity.
- Propositions: truth at sampled points (with the numbers in the formula, and points just beside
  them); anything with a quantifier left in is only decided by identity.
"""

from __future__ import annotations

import time
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from paperworks.tools.lean.symbolic.funcs import (
    Inv0,
    Mem,
    Quant,
    TooLarge,
    check_deadline,
    safe_subs,
    time_limit,
    to_complex,
)
from paperworks.tools.lean.symbolic.leantypes import Ty
from paperworks.tools.lean.symbolic.outcome import Outcome, no, unknown, yes
from paperworks.tools.lean.symbolic.sampling import boundary_points, truth
from paperworks.tools.lean.symbolic.sets import compare_sets
from paperworks.tools.lean.symbolic.values import canonical_value

REL_TOL = 1e-9
MIN_POINTS = 3


class Comparer:
    """Compares values under one deadline; ``nat_min`` raises the smallest ℕ sample (informal use)."""

    def __init__(self, deadline: float, nat_min: int = 0) -> None:
        self.deadline = deadline
        self.nat_min = nat_min
        self.fresh = 0

    def left(self) -> float:
        return self.deadline - time.monotonic()

    # -- dispatch --------------------------------------------------------------------------------
    def compare(self, a: Any, b: Any, ty: Ty) -> Outcome:
        check_deadline(self.deadline)
        if a == b:
            return yes("symbolic", "identical after normalization")
        h = ty.head
        if h == "Prod":
            return self._components(list(a), list(b), list(ty.args), "component") if _pair(a, b) else \
                unknown("product value is not a pair")
        if h == "List":
            if not (isinstance(a, sp.Tuple) and isinstance(b, sp.Tuple)):
                return unknown("list value is not explicit")
            if len(a) != len(b):
                return no("symbolic", f"lists of length {len(a)} and {len(b)}")
            return self._components(list(a), list(b), [ty.args[0]] * len(a), "entry")
        if h == "Fun":
            return self.functions(a, b, ty)
        if h == "Set":
            return compare_sets(self, a, b, ty.args[0])
        if h == "Prop":
            return self.props(a, b)
        if h in ("ZMod", "Fin") and ty.n:
            return self.scalars(sp.Mod(a - b, ty.n), sp.Integer(0), Ty("Int"))
        return self.scalars(a, b, ty)

    def _components(self, xs: list[Any], ys: list[Any], tys: list[Ty], what: str) -> Outcome:
        methods = set()
        pending: Outcome | None = None
        for i, (x, y, t) in enumerate(zip(xs, ys, tys, strict=True)):
            out = self.compare(x, y, t)
            if out.equal is False:
                return no(out.method, f"{what} {i + 1} differs: {out.reason}")
            if out.equal is None:
                pending = pending or Outcome(None, out.method, f"{what} {i + 1}: {out.reason}")
            else:
                methods.add(out.method)
        if pending is not None:
            return pending
        method = "numeric" if "numeric" in methods else "symbolic"
        return yes(method, f"all {len(xs)} {what}s equal")

    def functions(self, a: Any, b: Any, ty: Ty) -> Outcome:
        dom, cod = ty.args
        if dom.head == "Fin":
            va, vb = self.as_vector(a, dom), self.as_vector(b, dom)
            if va is None or vb is None:
                return unknown("vector value is not explicit")
            if len(va) != len(vb):
                return no("symbolic", f"vectors of length {len(va)} and {len(vb)}")
            return self._components(va, vb, [cod] * len(va), "entry")
        if not (isinstance(a, sp.Lambda) and isinstance(b, sp.Lambda)):
            return unknown("function value is not a lambda")
        if a.signature == b.signature:
            return self.compare(a.expr, b.expr, cod)
        self.fresh += 1
        arg = canonical_value(dom, f"_w{self.fresh}")
        if not isinstance(arg, sp.Basic):
            return unknown("functions of functions with differently named parameters")
        try:
            return self.compare(a(arg), b(arg), cod)
        except (TypeError, ValueError) as err:
            return unknown(f"cannot apply the functions: {str(err)[:60]}")

    def as_vector(self, v: Any, dom: Ty) -> list[Any] | None:
        if isinstance(v, sp.Tuple):
            return list(v)
        if isinstance(v, sp.Lambda) and dom.n is not None and dom.n <= 1000:
            return [v(sp.Integer(i)) for i in range(dom.n)]
        return None

    # -- numbers -----------------------------------------------------------------------------------
    def scalars(self, a: Any, b: Any, ty: Ty) -> Outcome:
        if not isinstance(a, sp.Expr) or not isinstance(b, sp.Expr):
            return unknown("value is not a number")
        d = a - b
        if d == 0:
            return yes("symbolic", "difference is 0")
        if not (a.free_symbols | b.free_symbols) and not _undef(a, b):
            return self.constants(a, b, d)
        out: Outcome | None = None
        try:
            with time_limit(min(1.0, max(self.left() * 0.3, 0.05))):
                if sp.expand(d) == 0:
                    out = yes("symbolic", "difference expands to 0")
                elif sp.count_ops(d) < 400 and sp.simplify(d) == 0:
                    out = yes("symbolic", "difference simplifies to 0")
        except (TooLarge, TypeError, ValueError, RecursionError, AttributeError, ZeroDivisionError):
            pass
        if out is None:
            out = self.sample(lambda pt: (self.value(a, pt), self.value(b, pt)), a, b, ty.head in ("Real", "Rat"))
        if out.equal is True:
            return self.junk_points(a, b) or out
        return out

    def junk_points(self, a: Any, b: Any) -> Outcome | None:
        """A miss where the sides differ at a zero of a denominator, where Lean's ``x / 0 = 0`` holds
        and SymPy's cancelling (or sampling, which never lands there) does not look:
        ``(x ^ 2 - 1) / (x - 1)`` is 0 at ``x = 1``, ``x + 1`` is 2. One free variable only."""
        syms = (a.free_symbols | b.free_symbols) if isinstance(a, sp.Basic) and isinstance(b, sp.Basic) else set()
        if len(syms) != 1 or a.has(AppliedUndef) or b.has(AppliedUndef):
            return None
        (x,) = syms
        dens = {p.base for e in (a, b) for p in e.atoms(sp.Pow)
                if p.exp.is_number and p.exp.is_negative is True and p.base.has(x)}
        dens |= {f.args[0] for e in (a, b) for f in e.atoms(Inv0) if f.args[0].has(x)}
        points: list[Any] = []
        try:
            with time_limit(min(1.0, max(self.left() * 0.3, 0.05))):
                for den in sorted(dens, key=str)[:4]:
                    roots = sp.solveset(den, x, domain=sp.S.Reals if x.is_real else sp.S.Complexes)
                    if isinstance(roots, sp.FiniteSet):
                        points += [r for r in roots if not x.is_integer or r.is_integer]
                for r in points[:8]:
                    va, vb = _lean_at(a, {x: r}), _lean_at(b, {x: r})
                    if va is None or vb is None:
                        continue
                    diff = sp.nsimplify(va - vb) if va.is_Rational and vb.is_Rational else va - vb
                    if diff != 0 and (isinstance(diff, sp.Rational) or self.certain_gap(diff) is not None):
                        return no("numeric", f"differs at {x}={r}, where a denominator is 0 and Lean's "
                                             f"x / 0 = 0 gives {_show(va)} vs {_show(vb)}")
        except (TooLarge, TypeError, ValueError, RecursionError, AttributeError, ZeroDivisionError,
                NotImplementedError):
            return None
        return None

    def constants(self, a: Any, b: Any, d: Any) -> Outcome:
        if isinstance(d, sp.Rational):
            return no("symbolic", f"{_show(a)} ≠ {_show(b)}")
        gap = self.certain_gap(d)
        if gap is not None:  # a double-precision or absolute-tolerance comparison would call these equal
            return no("numeric", f"{_show(a)} and {_show(b)} differ by {gap} (to 30 digits)")
        va, vb = to_complex(a), to_complex(b)
        if va is None or vb is None:
            rel = to_complex(d / b) if b != 0 else None  # huge magnitudes: compare relatively
            if rel is None:
                return unknown("a side does not evaluate to a number")
            if abs(rel) > 1e-20:
                return no("numeric", f"{_show(a)} and {_show(b)} differ (relative difference {_num(rel)})")
            return yes("numeric", "equal to 20 significant digits (relative)")
        scale = max(1.0, abs(va), abs(vb))
        if abs(va - vb) > 1e-20 * scale:
            return no("numeric", f"{_show(a)} ≈ {_num(va)} but {_show(b)} ≈ {_num(vb)}")
        try:
            with time_limit(min(1.0, max(self.left() * 0.3, 0.05))):
                if sp.simplify(d) == 0:
                    return yes("symbolic", "difference simplifies to 0")
        except (TooLarge, TypeError, ValueError, RecursionError, ZeroDivisionError):
            pass
        return yes("numeric", "equal to 20 significant digits")

    def certain_gap(self, d: Any) -> Any:
        """``d`` (closed) evaluated to 30 correct digits when that is non-zero, else None. SymPy's
        ``strict`` evaluation raises instead of guessing when it cannot tell ``d`` from 0, so
        ``exp(-1000)`` is told from 0 and ``2*sqrt(2)`` from its 17-digit decimal, while a true
        zero (``sqrt 2 + sqrt 3 - sqrt (5 + 2 sqrt 6)``) is left to the comparisons below."""
        try:
            with time_limit(min(1.0, max(self.left() * 0.3, 0.05))):
                v = sp.N(d, 30, strict=True)
                if not v.is_number or v.has(sp.zoo, sp.oo, -sp.oo, sp.nan) or v == 0:
                    return None
                return sp.N(v, 6)
        except (TooLarge, TypeError, ValueError, ArithmeticError, RecursionError, AttributeError,
                sp.core.evalf.PrecisionExhausted):
            return None

    def value(self, e: Any, point: dict[Any, Any]) -> complex | Any | None:
        try:
            v = safe_subs(e, point, self.deadline)
        except TooLarge:
            return None
        except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
            return None
        if isinstance(v, sp.Rational):
            return v
        return to_complex(v)

    def sample(self, evaluate: Any, a: Any, b: Any, real_only: bool) -> Outcome:
        """Compare at seeded points; for ℝ-valued sides, points where a side is not real are skipped."""
        syms = set().union(*(e.free_symbols for e in (a, b) if isinstance(e, sp.Basic)))
        points = boundary_points([a, b], syms, self.nat_min)[:60]  # seeded points, then the formulas' numbers
        agree = 0
        for pt in points:
            check_deadline(self.deadline)
            va, vb = evaluate(pt)
            if va is None or vb is None:
                continue
            if isinstance(va, sp.Rational) and isinstance(vb, sp.Rational):  # exact: 1/10^40 is no rounding
                if va != vb:
                    return no("numeric", f"differs at {_point(pt)}: {_show(va)} vs {_show(vb)}")
                agree += 1
                continue
            ca, cb = complex(va), complex(vb)
            if real_only and (abs(ca.imag) > 1e-12 * max(1.0, abs(ca)) or abs(cb.imag) > 1e-12 * max(1.0, abs(cb))):
                if abs(ca - cb) <= REL_TOL * max(1.0, abs(ca), abs(cb)):
                    agree += 1
                continue
            if abs(ca - cb) > REL_TOL * max(1.0, abs(ca), abs(cb)):
                return no("numeric", f"differs at {_point(pt)}: {_num(ca)} vs {_num(cb)}")
            agree += 1
        if agree >= MIN_POINTS:
            return yes("numeric", f"agrees at {agree} sample points")
        return unknown(f"only {agree} sample points where both sides are defined")

    # -- propositions ----------------------------------------------------------------------------
    def props(self, a: Any, b: Any) -> Outcome:
        if a in (sp.true, sp.false) and b in (sp.true, sp.false):
            return no("symbolic", f"{a} vs {b}")
        if _has_quant(a) or _has_quant(b):
            return unknown("propositions with quantifiers are only compared by identity")
        syms = (getattr(a, "free_symbols", set()) | getattr(b, "free_symbols", set()))
        if len(syms) == 1:
            (x,) = syms
            if x.is_real:
                try:
                    with time_limit(min(1.0, max(self.left() * 0.3, 0.05))):
                        sa, sb = a.as_set(), b.as_set()
                    if sa == sb:
                        return yes("symbolic", "same solution set")
                    return compare_sets(self, sa, sb, Ty("Real"))
                except (TooLarge, NotImplementedError, TypeError, ValueError, AttributeError):
                    pass
        pts = boundary_points([a, b], syms, self.nat_min)
        agree = 0
        for pt in pts:
            check_deadline(self.deadline)
            ta, tb = truth(a, pt, self.deadline), truth(b, pt, self.deadline)
            if ta is None or tb is None:
                continue
            if ta != tb:
                return no("numeric", f"differs at {_point(pt)}: {ta} vs {tb}")
            agree += 1
        if agree >= MIN_POINTS:
            return yes("numeric", f"same truth value at {agree} sample points")
        return unknown(f"only {agree} sample points where both sides evaluate")


def _lean_at(e: Any, point: dict[Any, Any]) -> Any:
    """``e`` at ``point`` with Lean's ``x / 0 = 0`` (a negative power of 0 is 0); None unless a number."""
    def go(t: Any) -> Any:
        if t in point:
            return point[t]
        if not t.args or isinstance(t, sp.Symbol):
            return t
        if isinstance(t, sp.Lambda | sp.ConditionSet | sp.Sum | sp.Product | Quant):
            raise ValueError("binder")
        args = [go(u) for u in t.args]
        if isinstance(t, sp.Pow) and args[0] == 0 and args[1].is_negative is True:
            return sp.Integer(0)
        return t.func(*args)
    v = go(e)
    if not isinstance(v, sp.Expr) or not v.is_number or v.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        return None
    return v


def _has_quant(p: Any) -> bool:
    return isinstance(p, sp.Basic) and bool(p.atoms(Quant) or p.atoms(Mem))


def _undef(*exprs: Any) -> bool:
    return any(isinstance(e, sp.Basic) and e.atoms(AppliedUndef) for e in exprs)


def _pair(a: Any, b: Any) -> bool:
    return isinstance(a, sp.Tuple) and isinstance(b, sp.Tuple) and len(a) == 2 and len(b) == 2


def _show(x: Any) -> str:
    try:
        s = sp.sstr(x)
    except ValueError:  # an integer beyond Python's str() digit limit
        return "a very large number"
    return s if len(s) <= 40 else s[:30] + "…"


def _num(c: complex) -> str:
    if abs(c.imag) < 1e-12 * max(1.0, abs(c)):
        return f"{c.real:.12g}"
    return f"{c.real:.8g}{c.imag:+.8g}i"


def _point(pt: dict[Any, Any]) -> str:
    parts = []
    for k, v in list(pt.items())[:4]:
        parts.append(f"{k}={_show(v) if not isinstance(v, sp.Lambda) else 'f'}")
    return ", ".join(parts) or "the point"


__all__ = ["Comparer"]
