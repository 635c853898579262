"""Meanings of the known Lean constants, one handler each (used by ``constants``'s table). Layer:
elaborate (above ``elab``; a handler reaches every other form through the :class:`Elab` it is given).

A handler gets the elaborator, the explicit arguments (syntax nodes, or values already elaborated
for ``x.f`` calls), the implicit type arguments that were written (``@Name`` form; None otherwise)
and the expected type, and returns a typed value. Numbers follow Lean: ``OfNat.ofNat T n`` is the
numeral n at type T, ``OfScientific.ofScientific m true e`` is m·10⁻ᵉ exactly, casts widen,
``Int.floor``/``Nat.floor`` floor (``Nat.floor`` of a negative is 0), intervals over ℕ/ℤ with small
numeric ends become finite sets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from paperworks.tools.lean.symbolic.elab import RELS, Elab, membership
from paperworks.tools.lean.symbolic.funcs import LeanMod, TooLarge
from paperworks.tools.lean.symbolic.leantypes import INT, NAT, PROP, REAL, Ty, fun, prod
from paperworks.tools.lean.symbolic.syntax import Binder, Node
from paperworks.tools.lean.symbolic.values import ElabError, V, arith, base_set, equality, power

Arg = Node | V
Handler = Callable[[Elab, list[Arg], list[Ty | None], Ty | None], V]
MAX_EXPAND = 2_000
POLY_X = "X"


def _arg(el: Elab, a: Arg, ty: Ty | None) -> V:
    v = a if isinstance(a, V) else el.elab(a, ty)
    return el.coerce(v, ty) if ty is not None else v


def _numlit(a: Arg) -> int:
    if isinstance(a, Node):
        if a.op == "num":
            return int(a.value)
        if a.op == "paren":
            return _numlit(a.args[0])
        if a.op == "app" and a.args[0].op == "ident" and a.args[0].value == "nat_lit":
            return _numlit(a.args[1])
    raise ElabError("expected a numeral literal")


def _ofnat(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    ty = t[0] or exp
    v = V(sp.Integer(_numlit(a[0])), None)
    return el.coerce(v, ty) if ty is not None else v


def _ofsci(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    m, e = _numlit(a[0]), _numlit(a[2])
    neg = isinstance(a[1], Node) and a[1].op == "ident" and a[1].value in ("Bool.true", "true")
    if e > 10_000:
        raise TooLarge("scientific literal exponent too large")
    val = sp.Rational(m, 10**e) if neg else sp.Integer(m * 10**e)
    return el.coerce(V(val, None), t[0] or exp or REAL)


def _binop(op: str) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        if t[2] is None:
            if any(isinstance(x, V) for x in a):
                raise ElabError(f"{op} on pre-elaborated values")
            return el.numeric([Node(op, (a[0], a[1]))], exp)[0]  # type: ignore[arg-type]
        x, y = _arg(el, a[0], t[0]), _arg(el, a[1], t[1])
        if op == "pow":
            return V(power(x.val, y.val, t[2], t[1]), t[2])
        return V(arith(op, x.val, y.val, t[2]), t[2])

    return h


def _unop(op: str) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        if t[0] is None:
            return el.numeric([Node(op, (a[0],))], exp)[0]  # type: ignore[arg-type]
        x = _arg(el, a[0], t[0])
        if op == "neg":
            return V(arith("sub", sp.Integer(0), x.val, t[0]), t[0])
        return V(arith("div", sp.Integer(1), x.val, t[0]), t[0])

    return h


def _cast(src: Ty | None) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        x = _arg(el, a[0], src)
        if x.ty is None:
            x = el.coerce(x, src or NAT)
        target = t[0] if t else exp
        return el.coerce(x, target) if target is not None else x

    return h


def _fn(fn: Callable[..., Any], dom: Ty, cod: Ty, n: int = 1) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        dt = t[0] if t and t[0] is not None and dom == REAL else dom
        xs = [_arg(el, x, dt).val for x in a[:n]]
        return V(fn(*xs), cod if dom != REAL or cod != REAL else dt)

    return h


def _poly_fn(fn: Callable[..., Any], cod_same: bool = True) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        x = _arg(el, a[0], t[0] if t and t[0] is not None else (exp if exp is not None and exp.numeric else None))
        if x.ty is None:
            x = el.coerce(x, exp if exp is not None and exp.numeric else NAT)
        return V(fn(x.val), x.ty if cod_same else exp)

    return h


def _floor(kind: str, nat: bool) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        x = _arg(el, a[0], t[0] if t else None)
        if x.ty is None:
            x = el.coerce(x, REAL)
        out = sp.floor(x.val) if kind == "floor" else sp.ceiling(x.val)
        return V(sp.Max(out, 0) if nat else out, NAT if nat else INT)

    return h


def _const(value: Any, ty: Ty) -> Handler:
    return lambda el, a, t, exp: V(value, ty)


def _rel(op: str) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        if any(isinstance(x, V) for x in a):
            raise ElabError("relation on pre-elaborated values")
        if t and t[0] is not None and not t[0].numeric:
            x, y = _arg(el, a[0], t[0]), _arg(el, a[1], t[0])
            return V(equality(op, x.val, y.val, t[0]), PROP)
        if t and t[0] is not None:
            x, y = _arg(el, a[0], t[0]), _arg(el, a[1], t[0])
            return V(RELS[op](x.val, y.val), PROP)
        return el.relation(op, a[0], a[1])  # type: ignore[arg-type]

    return h


def _logic(fn: Callable[..., Any], n: int) -> Handler:
    return lambda el, a, t, exp: V(fn(*[el.prop(x) if isinstance(x, Node) else x.val for x in a[:n]]), PROP)


def _lam_node(a: Arg) -> Node:
    node = a
    while isinstance(node, Node) and node.op == "paren":
        node = node.args[0]
    if not isinstance(node, Node) or node.op != "lam":
        raise ElabError("expected a lambda argument")
    return node


def _exists(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    lam = _lam_node(a[0])
    binders = [Binder(b.pattern, b.type) for b in lam.value]
    return el.quantifier("exists", binders, lam.args[0])


def _setof(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    lam = _lam_node(a[0])
    binders = list(lam.value)
    if len(binders) != 1:
        raise ElabError("setOf with several binders")
    target = Ty("Set", (t[0],)) if t[0] is not None else exp
    return el.form(Node("setof", (lam.args[0],), binders[0]), target)


def _set_elem(t: list[Ty | None], exp: Ty | None) -> Ty | None:
    if t and t[0] is not None:
        return t[0]
    return exp.args[0] if exp is not None and exp.head == "Set" else None


def _interval(lo_open: bool | None, hi_open: bool | None) -> Handler:
    """``Set.Icc``-style intervals (``None``: that side unbounded)."""

    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        elem = _set_elem(t, exp)
        bounds = [x for x in a[: (lo_open is not None) + (hi_open is not None)]]
        if elem is None:
            vals = el.numeric([b for b in bounds if isinstance(b, Node)], None)
            elem = vals[0].ty or NAT
        vs = [_arg(el, b, elem).val for b in bounds]
        lo = vs[0] if lo_open is not None else -sp.oo
        hi = vs[-1] if hi_open is not None else sp.oo
        return V(interval_set(lo, hi, bool(lo_open), bool(hi_open), elem), Ty("Set", (elem,)))

    return h


def interval_set(lo: Any, hi: Any, lo_open: bool, hi_open: bool, elem: Ty) -> Any:
    """The interval as a SymPy set; over ℕ/ℤ a finite set when its bounds are small numbers."""
    if elem.integral:
        if lo.is_Integer and hi.is_Integer and int(hi) - int(lo) <= MAX_EXPAND:
            start = int(lo) + lo_open
            stop = int(hi) - hi_open
            if elem.head == "Nat":
                start = max(start, 0)
            return sp.FiniteSet(*range(start, stop + 1))
        x = sp.Symbol("_iv", integer=True)
        cond = sp.And((x > lo) if lo_open else (x >= lo), (x < hi) if hi_open else (x <= hi))
        return sp.ConditionSet(x, cond, base_set(elem))
    return sp.Interval(lo, hi, lo_open, hi_open)


def _insert(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    elem = _set_elem(t, exp)
    x = _arg(el, a[0], elem)
    elem = elem or x.ty or NAT
    s = _arg(el, a[1], Ty("Set", (elem,)))
    return V(sp.Union(sp.FiniteSet(el.coerce(x, elem).val), s.val), Ty("Set", (elem,)))


def _singleton(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    elem = _set_elem(t, exp)
    x = _arg(el, a[0], elem)
    elem = elem or x.ty or NAT
    return V(sp.FiniteSet(el.coerce(x, elem).val), Ty("Set", (elem,)))


def _empty(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    ty = t[0] if t and t[0] is not None else exp
    if ty is None or ty.head != "Set":
        raise ElabError("∅ of unknown type")
    return V(sp.S.EmptySet, ty)


def _univ(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    elem = _set_elem(t, exp)
    if elem is None:
        raise ElabError("Set.univ of unknown type")
    return V(base_set(elem), Ty("Set", (elem,)))


def _setop(fn: Callable[..., Any]) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        ty = t[0] if t and t[0] is not None else exp
        x = _arg(el, a[0], ty)
        y = _arg(el, a[1], ty or x.ty)
        return V(fn(x.val, y.val), ty or x.ty)

    return h


def _mem(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    s, x = a[0], a[1]  # Lean 4 Mathlib order: Membership.mem (collection) (element)
    if not isinstance(s, Node) or not isinstance(x, Node):
        raise ElabError("membership of pre-elaborated values")
    return V(membership(el, x, s), PROP)


def _prod_mk(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    ea = t[0] if t and t[0] else (exp.args[0] if exp is not None and exp.head == "Prod" else None)
    eb = t[1] if t and t[1] else (exp.args[1] if exp is not None and exp.head == "Prod" else None)
    x, y = _arg(el, a[0], ea), _arg(el, a[1], eb)
    x, y = el.coerce(x, x.ty or NAT), el.coerce(y, y.ty or NAT)
    assert x.ty is not None and y.ty is not None
    return V(sp.Tuple(x.val, y.val), prod(x.ty, y.ty))


def _proj(i: int) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        x = _arg(el, a[0], None)
        return project(x, i)

    return h


def project(x: V, i: int) -> V:
    if x.ty is None or x.ty.head != "Prod" or not isinstance(x.val, sp.Tuple):
        raise ElabError("projection of a value that is not a pair")
    return V(x.val[i], x.ty.args[i])


def _cons(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    elem = t[0] if t and t[0] else (exp.args[0] if exp is not None and exp.head == "List" else None)
    x = _arg(el, a[0], elem)
    elem = elem or x.ty or NAT
    rest = _arg(el, a[1], Ty("List", (elem,)))
    return V(sp.Tuple(el.coerce(x, elem).val, *rest.val), Ty("List", (elem,)))


def _vec_cons(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    elem = t[0] if t and t[0] else (exp.args[1] if exp is not None and exp.head == "Fun" else None)
    x = _arg(el, a[0], elem)
    elem = elem or x.ty or NAT
    rest = _arg(el, a[1], Ty("Fun", (Ty("Fin", (), None), elem)))
    items = (el.coerce(x, elem).val, *rest.val)
    return V(sp.Tuple(*items), Ty("Fun", (Ty("Fin", (), len(items)), elem)))


def _ite(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    if not all(isinstance(x, Node) for x in a):
        raise ElabError("ite of pre-elaborated values")
    return el.form(Node("ite", tuple(a)), t[0] or exp)  # type: ignore[arg-type]


def _poly_x(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    base = t[0] if t and t[0] else (exp.args[0] if exp is not None and exp.head == "Poly" else None)
    if base is None:  # its ring comes from the context: let binop% elaboration retry with it
        raise ElabError("Polynomial.X of unknown ring")
    return V(sp.Symbol(POLY_X), Ty("Poly", (base,)))


def _poly_c(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    base = t[0] if t and t[0] else REAL
    x = sp.Symbol("_c", **({"real": True} if base.head == "Real" else {}))
    return V(sp.Lambda((x,), x), fun(base, Ty("Poly", (base,))))


def _poly_eval(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    base = t[0] if t and t[0] else REAL
    x = _arg(el, a[0], base)
    p = _arg(el, a[1], Ty("Poly", (base,)))
    return V(p.val.xreplace({sp.Symbol(POLY_X): x.val}), base)


def _mv_x(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    i = _arg(el, a[0], t[1] if len(t) > 1 else NAT)
    if not i.val.is_Integer:
        raise ElabError("MvPolynomial.X of a non-numeral index")
    base = t[0] or REAL
    return V(sp.Symbol(f"X_{int(i.val)}"), Ty("MvPoly", (base,)))


def _coe_fn(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    head = a[0]
    while isinstance(head, Node) and head.op == "paren":
        head = head.args[0]
    if isinstance(head, Node) and head.op == "ident" and head.value not in el.scope and isinstance(a[1], Node):
        # a bundled map (an OrderIso, a RingHom) applied: ``⇑f x`` is the application ``f x`` of a constant
        return el.form(Node("app", (head, a[1])), exp)
    f = _arg(el, a[0], None)
    return el.apply(f, [a[1]]) if isinstance(a[1], Node) else el.apply(f, [])


def _modeq(ty: Ty) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        n, x, y = (_arg(el, v, ty).val for v in a[:3])
        return V(sp.Eq(LeanMod(x, n), LeanMod(y, n)), PROP)

    return h


def _dvd(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
    ty = t[0] or NAT
    x, y = _arg(el, a[0], ty).val, _arg(el, a[1], ty).val
    return V(sp.Eq(LeanMod(y, x), 0), PROP)


def _parity(r: int) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        x = _arg(el, a[0], t[0] if t and t[0] else NAT)
        if x.ty is None:
            x = el.coerce(x, NAT)
        return V(sp.Eq(LeanMod(x.val, 2), r), PROP)

    return h
