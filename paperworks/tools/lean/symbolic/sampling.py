"""Where to evaluate: seeded sample points for the free variables (and unknown functions) of SymPy values,
points beside the numbers in a formula, and the truth of a proposition at a point. Layer: compare
(below ``sets`` and ``equiv``, which judge by these points).

Points are deterministic (seed :data:`SEED`): ℕ variables take small naturals (from ``nat_min`` up),
ℤ small integers, ℚ/ℝ seeded rationals, ℂ seeded Gaussian rationals, and an unknown function one of
three fixed test functions.
"""

from __future__ import annotations

import random
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from paperworks.tools.lean.symbolic.funcs import TooLarge, safe_subs

SEED = 20260101


def sample_points(exprs: tuple[Any, ...], nat_min: int = 0) -> list[dict[Any, Any]]:
    """Seeded sample points for the free symbols (and unknown functions) of ``exprs``."""
    rng = random.Random(SEED)
    syms = sorted(set().union(*(e.free_symbols for e in exprs if isinstance(e, sp.Basic))), key=str)
    funcs = sorted({f.func for e in exprs if isinstance(e, sp.Basic) for f in e.atoms(AppliedUndef)}, key=str)
    out: list[dict[Any, Any]] = []
    for k in range(14):
        pt: dict[Any, Any] = {}
        for s in syms:
            pt[s] = _sample_value(s, k, rng, nat_min)
        for f in funcs:
            pt.update(_test_function(f, exprs, k))
        out.append(pt)
    return out


def _sample_value(s: Any, k: int, rng: random.Random, nat_min: int) -> Any:
    if s.is_integer and s.is_nonnegative:
        small = [0, 1, 2, 3, 4, 5, 7, 10, 6, 9, 12, 15, 8, 11]
        return sp.Integer(max(small[k % len(small)], nat_min) + (k if nat_min and k > 5 else 0))
    if s.is_integer:
        vals = [0, 1, -1, 2, -2, 3, -3, 5, -5, 7, 10, -8, 4, -4]
        return sp.Integer(vals[k % len(vals)])
    if s.is_rational or s.is_real:
        return sp.Rational(rng.randint(-3000, 3000), 997) if k % 3 else sp.Rational(rng.randint(1, 3000), 991)
    return sp.Rational(rng.randint(-2000, 2000), 997) + sp.I * sp.Rational(rng.randint(-2000, 2000), 983)


def _test_function(f: Any, exprs: tuple[Any, ...], k: int) -> dict[Any, Any]:
    arity = 1
    for e in exprs:
        for app in e.atoms(AppliedUndef) if isinstance(e, sp.Basic) else ():
            if app.func == f:
                arity = len(app.args)
    xs = sp.symbols(f"_t0:{arity}")
    shapes = [lambda v: v**2 / 3 + v / 5 + 1, lambda v: sp.sin(v) + 2 * v, lambda v: sp.exp(v / 4) - v / 2]
    body = sp.Add(*[shapes[(k + i) % 3](x) for i, x in enumerate(xs)])
    return {f: sp.Lambda(xs, body)}


def boundary_points(exprs: list[Any], syms: set[Any], nat_min: int = 0) -> list[dict[Any, Any]]:
    """Sample points: seeded random ones plus, per variable, the numbers in the formulas and points
    just beside them with the other variables random (predicates change truth there)."""
    pts = sample_points(tuple(exprs), nat_min)
    consts: set[Any] = set()
    for e in exprs:
        for atom in e.atoms(sp.Number) if isinstance(e, sp.Basic) else ():
            if atom.is_finite and abs(atom) < 10**6:
                consts.add(sp.Rational(atom) if atom.is_Rational else atom)
    ordered = sorted(consts, key=lambda v: float(v))[:20]
    extra: list[dict[Any, Any]] = []
    for s in sorted(syms, key=str):
        if s.is_integer:
            deltas: tuple[Any, ...] = (0, 1, -1)
        elif s.is_real:
            deltas = (0, sp.Rational(1, 10**6), -sp.Rational(1, 10**6), sp.Rational(1, 2), -sp.Rational(1, 2))
        else:
            continue
        for c in ordered:
            for delta in deltas:
                v = c + delta
                if s.is_integer and (not v.is_Integer or (s.is_nonnegative and v < nat_min)):
                    continue
                for base in pts[: 1 if len(syms) == 1 else 5]:
                    extra.append({**base, s: v})
    return pts + extra[:400]


def truth(p: Any, pt: dict[Any, Any], deadline: float | None = None) -> bool | None:
    """The truth value of proposition ``p`` at ``pt`` (None when it does not evaluate)."""
    try:
        v = safe_subs(p, pt, deadline) if pt else p
    except (TooLarge, TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return None
    if v is sp.true or v is True:
        return True
    if v is sp.false or v is False:
        return False
    try:
        v2 = sp.simplify(v) if sp.count_ops(v) < 50 else v
    except (TypeError, ValueError, RecursionError, AttributeError):
        return None
    if v2 is sp.true:
        return True
    if v2 is sp.false:
        return False
    return None
