"""Set equality for ``equiv``: finite sets by elements, real sets by SymPy's set algebra or by membership
of well-chosen points, integer and tuple sets by membership on a grid. Layer: compare (below ``equiv``,
whose :class:`~paperworks.tools.lean.symbolic.equiv.Comparer` it is handed to compare elements).

Membership of a point is decided exactly where possible: finite sets by comparing elements,
intervals and SymPy's number sets by ``contains``, ``{x | p x}`` by the truth of ``p`` at the point,
unions, intersections and differences recursively. A membership that does not evaluate leaves the
point out; too few decided points leave the verdict undecided.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import sympy as sp

from paperworks.tools.lean.symbolic.funcs import TooLarge, check_deadline, time_limit
from paperworks.tools.lean.symbolic.leantypes import Ty
from paperworks.tools.lean.symbolic.outcome import Compares, Outcome, no, unknown, yes
from paperworks.tools.lean.symbolic.sampling import boundary_points, truth

MAX_FINITE = 300
GRID = {"Nat": list(range(0, 41)), "Int": list(range(-20, 21))}


def compare_sets(cmp: Compares, a: Any, b: Any, elem: Ty) -> Outcome:
    if a == b:
        return yes("symbolic", "identical sets")
    if not (isinstance(a, sp.Set) and isinstance(b, sp.Set)):
        return unknown("a side is not a set")
    if isinstance(a, sp.FiniteSet) and isinstance(b, sp.FiniteSet):
        return _finite(cmp, a, b, elem)
    if elem.head in ("Real", "Rat"):
        ra, rb = _as_real_set(a), _as_real_set(b)
        if ra is not None and rb is not None:
            try:
                if ra == rb:
                    return yes("symbolic", "same set after SymPy's set simplification")
                d1, d2 = sp.Complement(ra, rb), sp.Complement(rb, ra)
                if d1 is sp.S.EmptySet and d2 is sp.S.EmptySet:
                    return yes("symbolic", "both set differences are empty")
                for d, side in ((d1, "first"), (d2, "second")):
                    w = _witness(d)
                    if w is not None:
                        return no("symbolic", f"{_show(w)} is only in the {side} set")
            except (TypeError, ValueError, NotImplementedError, RecursionError, TooLarge):
                pass
    if not _scalar_like(elem):
        return unknown(f"cannot decide equality of sets of {elem}")
    pts = _points(cmp, a, b, elem)
    agree = 0
    for p in pts:
        check_deadline(cmp.deadline)
        ma, mb = member(cmp, a, p, elem), member(cmp, b, p, elem)
        if ma is None or mb is None:
            continue
        if ma != mb:
            side = "first" if ma else "second"
            return no("numeric", f"{_show(p)} is only in the {side} set")
        agree += 1
    if agree >= 3:
        return yes("numeric", f"same membership at {agree} test points")
    return unknown(f"membership decided at only {agree} points")


def _finite(cmp: Compares, a: Any, b: Any, elem: Ty) -> Outcome:
    xs, ys = list(a), list(b)
    if len(xs) > MAX_FINITE or len(ys) > MAX_FINITE:
        return unknown("finite sets too large to match")
    methods: set[str] = set()
    for side, src, dst in (("first", xs, ys), ("second", ys, xs)):
        for x in src:
            found, open_ = False, False
            for y in dst:
                out = cmp.compare(x, y, elem)
                if out.equal:
                    found = True
                    methods.add(out.method)
                    break
                if out.equal is None:
                    open_ = True
            if not found:
                if open_:
                    return unknown(f"cannot tell whether {_show(x)} is in the other set")
                return no("symbolic" if methods <= {"symbolic"} else "numeric",
                          f"{_show(x)} is only in the {side} set")
    return yes("numeric" if "numeric" in methods else "symbolic", f"same {len(set(xs))} elements")


def member(cmp: Compares, s: Any, p: Any, elem: Ty) -> bool | None:
    """Is ``p`` in ``s``? None when it cannot be decided."""
    if not isinstance(s, sp.Set):
        return None
    if isinstance(s, sp.FiniteSet):
        pending = False
        for e in s:
            r = _eq_closed(p, e) if _closed(p) and _closed(e) else cmp.compare(p, e, elem).equal
            if r is True:
                return True
            if r is None:
                pending = True
        return None if pending else False
    if isinstance(s, sp.ConditionSet):
        sym = s.sym
        if isinstance(sym, sp.Tuple):
            if not isinstance(p, sp.Tuple) or len(_flat(p)) != len(_flat(sym)):
                return None
            mapping = dict(zip(_flat(sym), _flat(p), strict=True))
        else:
            mapping = {sym: p}
        inside = member(cmp, s.base_set, p, elem)
        if inside is False:
            return False
        t = truth(s.condition, mapping, cmp.deadline)
        return None if t is None or inside is None else t
    if isinstance(s, sp.Union):
        res = [member(cmp, part, p, elem) for part in s.args]
        return True if True in res else (None if None in res else False)
    if isinstance(s, sp.Intersection):
        res = [member(cmp, part, p, elem) for part in s.args]
        return False if False in res else (None if None in res else True)
    if isinstance(s, sp.Complement):
        x, y = member(cmp, s.args[0], p, elem), member(cmp, s.args[1], p, elem)
        if x is False or y is True:
            return False
        return None if x is None or y is None else True
    if isinstance(s, sp.ProductSet) and isinstance(p, sp.Tuple) and len(s.sets) == len(p):
        res = [member(cmp, part, q, elem) for part, q in zip(s.sets, p, strict=True)]
        return False if False in res else (None if None in res else True)
    if s is sp.S.UniversalSet:
        return True
    try:
        got = s.contains(p)
    except (TypeError, ValueError, NotImplementedError):
        return None
    return True if got is sp.true else False if got is sp.false else None


def _closed(x: Any) -> bool:
    return isinstance(x, sp.Basic) and not x.free_symbols and isinstance(x, sp.Expr | sp.Tuple)


def _eq_closed(p: Any, e: Any) -> bool | None:
    if isinstance(p, sp.Tuple) or isinstance(e, sp.Tuple):
        if not (isinstance(p, sp.Tuple) and isinstance(e, sp.Tuple)) or len(p) != len(e):
            return False
        res = [_eq_closed(x, y) for x, y in zip(p, e, strict=True)]
        return False if False in res else (None if None in res else True)
    d = p - e
    if d == 0:
        return True
    if isinstance(d, sp.Rational):
        return False
    try:
        v = complex(sp.N(d, 30))
    except (TypeError, ValueError):
        return None
    return abs(v) < 1e-20 * max(1.0, abs(complex(sp.N(p, 30))))


def _as_real_set(s: Any) -> Any:
    """The set as pure SymPy set algebra over ℝ (ConditionSets turned into intervals), or None."""
    if isinstance(s, sp.ConditionSet):
        sym = s.sym
        if not isinstance(sym, sp.Symbol) or s.condition.free_symbols - {sym}:
            return None
        try:
            rel = s.condition.as_set()
        except (NotImplementedError, TypeError, ValueError, AttributeError):
            return None
        base = _as_real_set(s.base_set)
        return None if base is None else sp.Intersection(rel, base)
    if isinstance(s, sp.Union | sp.Intersection | sp.Complement):
        parts = [_as_real_set(x) for x in s.args]
        return None if any(p is None for p in parts) else s.func(*parts)
    if isinstance(s, sp.Interval | sp.FiniteSet) or s in (sp.S.Reals, sp.S.EmptySet, sp.S.Rationals):
        if s.free_symbols:
            return None
        return s
    return None


def _witness(d: Any) -> Any:
    if isinstance(d, sp.FiniteSet) and len(d) and not d.free_symbols:
        return next(iter(d))
    if isinstance(d, sp.Interval) and not d.free_symbols and d.measure.is_positive:
        return (d.start + d.end) / 2 if d.end.is_finite and d.start.is_finite else \
            (d.end - 1 if d.end.is_finite else (d.start + 1 if d.start.is_finite else sp.Integer(0)))
    if isinstance(d, sp.Union):
        for part in d.args:
            w = _witness(part)
            if w is not None:
                return w
    return None


def _scalar_like(elem: Ty) -> bool:
    if elem.head == "Prod":
        return all(_scalar_like(t) for t in elem.args)
    return elem.numeric


def _integer_points(cmp: Compares, exprs: list[Any], low: int | None) -> list[Any]:
    """Integers where a predicate of ``exprs`` can change truth off the grid: the integer numbers in
    them and their neighbours, and the integers around the real roots of their equations and
    inequalities in one variable (``{x : ℕ | x = 1000}`` is not empty although 0..40 are no members)."""
    found: set[Any] = set()
    probe = [e for e in exprs if isinstance(e, sp.Basic)]
    for e in probe:
        for n in e.atoms(sp.Integer):
            if abs(n) <= 10**15:
                found.update((n - 1, n, n + 1))
    try:
        with time_limit(min(1.0, max(cmp.left() * 0.2, 0.05))):
            rels = [r for e in probe for r in e.atoms(sp.Eq, sp.Ne, sp.Lt, sp.Le, sp.Gt, sp.Ge)]
            for r in rels[:8]:
                syms = r.free_symbols
                if len(syms) != 1:
                    continue
                (x,) = syms
                roots = sp.solveset(r.lhs - r.rhs, x, domain=sp.S.Reals)
                if isinstance(roots, sp.FiniteSet):
                    for root in list(roots)[:6]:
                        if root.is_real and abs(root) < 10**15:
                            base = sp.floor(root)
                            found.update((base - 1, base, base + 1, base + 2))
    except (TooLarge, TypeError, ValueError, NotImplementedError, RecursionError, AttributeError):
        pass
    ints = [sp.Integer(v) for v in found if isinstance(v, sp.Integer) and (low is None or v >= low)]
    return sorted(ints, key=abs)[:200]


def _scalar_points(cmp: Compares, elem: Ty, exprs: list[Any]) -> list[Any]:
    if elem.head in ("Nat", "Fin"):
        grid = [sp.Integer(k) for k in GRID["Nat"]]
        return grid + [k for k in _integer_points(cmp, exprs, 0) if k not in grid]
    if elem.head in ("Int", "ZMod"):
        grid = [sp.Integer(k) for k in GRID["Int"]]
        return grid + [k for k in _integer_points(cmp, exprs, None) if k not in grid]
    x = sp.Symbol("_sx", real=True)
    probe = [e for e in exprs if isinstance(e, sp.Basic)]
    pts = [pt[x] for pt in boundary_points([sp.Tuple(*probe, x)], {x}, cmp.nat_min)]
    extra: list[Any] = []
    for e in probe:
        for iv in e.atoms(sp.Interval):
            for end in (iv.start, iv.end):
                if end.is_finite:
                    extra += [end, end + sp.Rational(1, 10**6), end - sp.Rational(1, 10**6)]
    return extra + pts + [sp.Integer(k) for k in range(-5, 6)]


def _component_points(cmp: Compares, t: Ty, exprs: list[Any]) -> list[Any]:
    """Points of one component of a tuple: the start of the grid, and for integers up to 6 of the
    points off the grid where a predicate can change truth."""
    pts = _scalar_points(cmp, t, exprs)
    if t.head in ("Nat", "Fin", "Int", "ZMod"):
        n = len(GRID["Nat" if t.head in ("Nat", "Fin") else "Int"])
        return pts[:9] + pts[n:n + 6]
    return pts[:9]


def _points(cmp: Compares, a: Any, b: Any, elem: Ty) -> list[Any]:
    finite = [e for s in (a, b) for e in (s.args if isinstance(s, sp.FiniteSet) else ())]
    if elem.head == "Prod":
        comps = _flat_types(elem)
        grids = [_component_points(cmp, t, [a, b]) for t in comps]
        pts = [_nest(list(combo), elem) for combo in product(*grids)][:800]
        return finite + pts
    return finite + _scalar_points(cmp, elem, [a, b])


def _flat_types(t: Ty) -> list[Ty]:
    if t.head == "Prod":
        return [*_flat_types(t.args[0]), *_flat_types(t.args[1])]
    return [t]


def _nest(vals: list[Any], t: Ty) -> Any:
    if t.head != "Prod":
        return vals.pop(0)
    first = _nest(vals, t.args[0])
    return sp.Tuple(first, _nest(vals, t.args[1]))


def _flat(v: Any) -> list[Any]:
    if isinstance(v, sp.Tuple):
        return [x for part in v for x in _flat(part)]
    return [v]


def _show(x: Any) -> str:
    try:
        s = sp.sstr(x)
    except ValueError:
        return "a very large number"
    return s if len(s) <= 40 else s[:30] + "…"
