"""Elaboration of the non-arithmetic forms: literals, names, logic, binders, sets, tuples, notation; and
:class:`Elaborator`, the elaborator to use. Layer: elaborate (its top: above ``constants``).

Each handler takes the :class:`~paperworks.tools.lean.symbolic.elab.Elab`, the node and the expected
type, and returns a typed value. :class:`Elaborator` is the core :class:`Elab` with these handlers as its
:meth:`~Elab.form`, so that the core and the constants' handlers reach them without importing this
module. Notation maps onto the same meaning as its constant (``√x`` is ``Real.sqrt x``, ``n !`` is
``Nat.factorial n``, ``|x|`` is ``abs x``, ``π`` is ``Real.pi``, ``{a, b}`` is ``insert a {b}``,
``∑ x ∈ s, f x`` is ``Finset.sum s f``).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from paperworks.tools.lean.symbolic.constants import big_operator, call_constant, method_call
from paperworks.tools.lean.symbolic.elab import ARITH, Elab, membership
from paperworks.tools.lean.symbolic.funcs import LeanMod
from paperworks.tools.lean.symbolic.leantypes import INT, NAT, PROP, REAL, Ty, prod
from paperworks.tools.lean.symbolic.syntax import Binder, Node
from paperworks.tools.lean.symbolic.values import ElabError, V, base_set, equality

_SETOPS = {"union": sp.Union, "inter": sp.Intersection}


def elab_form(el: Elab, node: Node, expected: Ty | None) -> V:
    """Elaborate any node that is not arithmetic or a relation."""
    op = node.op
    handler = _HANDLERS.get(op)
    if handler is None:
        raise ElabError(f"unsupported syntax: {op}")
    return handler(el, node, expected)


def _num(el: Elab, node: Node, expected: Ty | None) -> V:
    if expected is not None and not (expected.numeric or expected.head in ("Poly", "MvPoly")):
        raise ElabError(f"numeral where {expected} is expected")
    v = V(sp.Integer(node.value), None)
    return el.coerce(v, expected) if expected is not None else v


def _dec(el: Elab, node: Node, expected: Ty | None) -> V:
    mant, e10 = node.value
    val = sp.Rational(mant, 10**e10) if e10 >= 0 else sp.Integer(mant * 10 ** (-e10))
    if expected is not None and expected.integral:
        raise ElabError(f"decimal literal where {expected} is expected (no OfScientific instance)")
    v = V(val, None)
    return el.coerce(v, expected) if expected is not None else v


def _ident(el: Elab, node: Node, expected: Ty | None) -> V:
    name = node.value
    if name in el.scope:
        v = el.scope[name]
        return v if expected is None or v.ty is None else el.coerce(v, expected)
    return call_constant(el, node, [], expected)


def _app(el: Elab, node: Node, expected: Ty | None) -> V:
    head, args = node.args[0], list(node.args[1:])
    while head.op == "paren":
        head = head.args[0]
    if head.op == "ident" and head.value not in el.scope:
        return call_constant(el, head, args, expected)
    if head.op == "proj":
        return method_call(el, head.args[0], head.value, args, expected)
    f = el.elab(head, None)
    return el.coerce(el.apply(f, args), expected) if expected is not None else el.apply(f, args)


def _logic(el: Elab, node: Node, expected: Ty | None) -> V:
    op = node.op
    if op == "not":
        return V(sp.Not(el.prop(node.args[0])), PROP)
    a, b = el.prop(node.args[0]), el.prop(node.args[1])
    fn = {"and": sp.And, "or": sp.Or, "iff": sp.Equivalent, "arrow": sp.Implies}[op]
    return V(fn(a, b), PROP)


def _lam(el: Elab, node: Node, expected: Ty | None) -> V:
    return el.lam(list(node.value), node.args[0], expected)


def _quant(el: Elab, node: Node, expected: Ty | None) -> V:
    return el.quantifier(node.op, list(node.value), node.args[0])


def _elem_type(expected: Ty | None) -> Ty | None:
    return expected.args[0] if expected is not None and expected.head == "Set" else None


def _image_binders(term: Node) -> list[Binder] | None:
    """The binders of Mathlib's ``{f x | x > 0}``: the part after ``|`` read as binders."""
    guards = {"gt": ">", "lt": "<", "ge": "≥", "le": "≤", "ne": "≠", "mem": "∈"}
    if term.op == "ident":
        return [Binder(term, None)]
    if term.op == "paren":
        return _image_binders(term.args[0])
    if term.op == "ascr" and term.args[0].op == "ident":
        return [Binder(term.args[0], term.args[1])]
    if term.op in guards and term.args[0].op == "ident":
        return [Binder(term.args[0], None), Binder(Node("guard", (), guards[term.op]), term.args[1])]
    return None


def _setof(el: Elab, node: Node, expected: Ty | None) -> V:
    binder: Binder = node.value
    if binder.pattern.op not in ("ident", "tuple", "anon", "paren"):
        binders = _image_binders(node.args[0])
        if binders is None:
            raise ElabError("set-builder pattern is neither a variable nor binders")
        elem = Node("ident", (), "·elem")
        pred = Node("exists", (Node("eq", (binder.pattern, elem)),), tuple(binders))
        return _setof(el, Node("setof", (pred,), Binder(elem, binder.type)), expected)
    with el.scoped():
        param, ty = el.bind(binder, _elem_type(expected))
        pred = el.prop(node.args[0])
        return V(sp.ConditionSet(param, pred, base_set(ty)), Ty("Set", (ty,)))


def _sep(el: Elab, node: Node, expected: Ty | None) -> V:
    s = el.elab(node.args[0], expected)
    assert s.ty is not None
    inner = _setof(el, Node("setof", (node.args[1],), node.value), s.ty)
    return V(sp.Intersection(s.val, inner.val), s.ty)


def _setlit(el: Elab, node: Node, expected: Ty | None) -> V:
    elem = _elem_type(expected)
    if not node.args:
        if elem is None:
            raise ElabError("empty set of unknown type")
        return V(sp.S.EmptySet, Ty("Set", (elem,)))
    vals = []
    for item in node.args:
        v = el.elab(item, elem)
        if elem is None and v.ty is not None:
            elem = v.ty
        vals.append(v)
    if elem is None:
        elem = NAT
    return V(sp.FiniteSet(*[el.coerce(v, elem).val for v in vals]), Ty("Set", (elem,)))


def _tuple(el: Elab, node: Node, expected: Ty | None) -> V:
    items = list(node.args)
    if node.op == "anon" and expected is not None and expected.head == "Complex" and len(items) == 2:
        re_, im_ = (el.coerce(el.elab(x, REAL), REAL).val for x in items)
        return V(re_ + sp.I * im_, expected)
    if node.op == "anon" and len(items) == 1:
        return el.elab(items[0], expected)
    if len(items) < 2:
        raise ElabError("unit or one-element tuple")
    return _pair(el, items, expected)


def _pair(el: Elab, items: list[Node], expected: Ty | None) -> V:
    ea = expected.args[0] if expected is not None and expected.head == "Prod" else None
    eb = expected.args[1] if expected is not None and expected.head == "Prod" else None
    a = el.elab(items[0], ea)
    a = el.coerce(a, ea or a.ty or NAT)
    b = _pair(el, items[1:], eb) if len(items) > 2 else el.elab(items[1], eb)
    b = el.coerce(b, eb or b.ty or NAT)
    assert a.ty is not None and b.ty is not None
    return V(sp.Tuple(a.val, b.val), prod(a.ty, b.ty))


def _list(el: Elab, node: Node, expected: Ty | None) -> V:
    if node.op == "vec":
        elem = expected.args[1] if expected is not None and expected.head == "Fun" else None
    else:
        elem = expected.args[0] if expected is not None and expected.head == "List" else None
    vals = []
    for item in node.args:
        v = el.elab(item, elem)
        elem = elem or v.ty
        vals.append(v)
    elem = elem or NAT
    out = sp.Tuple(*[el.coerce(v, elem).val for v in vals])
    if node.op == "vec":
        return V(out, Ty("Fun", (Ty("Fin", (), len(vals)), elem)))
    return V(out, Ty("List", (elem,)))


def _bigop(el: Elab, node: Node, expected: Ty | None) -> V:
    domain = node.args[1] if len(node.args) > 1 else None
    return big_operator(el, node.op == "bigsum", domain, node.value, node.args[0], expected)


def _ite(el: Elab, node: Node, expected: Ty | None) -> V:
    cond = el.prop(node.args[0])
    a = el.elab(node.args[1], expected)
    b = el.elab(node.args[2], expected if expected is not None else a.ty)
    ty = expected or a.ty or b.ty or NAT
    a, b = el.coerce(a, ty), el.coerce(b, ty)
    if cond == sp.true:
        return a
    if cond == sp.false:
        return b
    if ty.numeric:
        return V(sp.Piecewise((a.val, cond), (b.val, True)), ty)
    raise ElabError("if-then-else on non-numbers")


def _unary_fn(el: Elab, node: Node, expected: Ty | None) -> V:
    name = {"abs": "abs", "sqrt": "Real.sqrt", "fact": "Nat.factorial", "floor": "Int.floor",
            "ceil": "Int.ceil", "floor_nat": "Nat.floor", "ceil_nat": "Nat.ceil"}[node.op]
    return call_constant(el, Node("ident", (), name), list(node.args), expected)


def _coe(el: Elab, node: Node, expected: Ty | None) -> V:
    v = el.elab(node.args[0], None)
    return el.coerce(v, expected) if expected is not None else v


def _ascr(el: Elab, node: Node, expected: Ty | None) -> V:
    ty = el.type_of(node.args[1])
    v = el.coerce(el.elab(node.args[0], ty), ty)
    return el.coerce(v, expected) if expected is not None else v


def _proj(el: Elab, node: Node, expected: Ty | None) -> V:
    return method_call(el, node.args[0], node.value, [], expected)


def _setop(el: Elab, node: Node, expected: Ty | None) -> V:
    a = el.elab(node.args[0], expected)
    b = el.elab(node.args[1], expected or a.ty)
    ty = expected or a.ty or b.ty
    if ty is None or ty.head != "Set":
        raise ElabError(f"{node.op} of values that are not sets")
    if node.op == "sdiff":
        return V(sp.Complement(a.val, b.val), ty)
    return V(_SETOPS[node.op](a.val, b.val), ty)


def _compl(el: Elab, node: Node, expected: Ty | None) -> V:
    a = el.elab(node.args[0], expected)
    if a.ty is None or a.ty.head != "Set":
        raise ElabError("complement of a value that is not a set")
    return V(sp.Complement(base_set(a.ty.args[0]), a.val), a.ty)


def _mem(el: Elab, node: Node, expected: Ty | None) -> V:
    out = membership(el, node.args[0], node.args[1])
    return V(sp.Not(out) if node.op == "notmem" else out, PROP)


def _dvd(el: Elab, node: Node, expected: Ty | None) -> V:
    a, b = el.numeric([node.args[0], node.args[1]], None)
    return V(sp.Eq(LeanMod(b.val, a.val), 0), PROP)


def _modeq(el: Elab, node: Node, expected: Ty | None) -> V:
    ty = NAT if node.value == "MOD" else INT
    a, b, n = el.numeric(list(node.args), ty)
    return V(sp.Eq(LeanMod(a.val, n.val), LeanMod(b.val, n.val)), PROP)


def _subset(el: Elab, node: Node, expected: Ty | None) -> V:
    a = el.elab(node.args[0], None)
    b = el.elab(node.args[1], a.ty)
    assert a.ty is not None
    return V(equality("le", a.val, b.val, a.ty), PROP)


_HANDLERS: dict[str, Any] = {
    "num": _num, "dec": _dec, "ident": _ident, "app": _app,
    "and": _logic, "or": _logic, "not": _logic, "iff": _logic, "arrow": _logic,
    "lam": _lam, "forall": _quant, "exists": _quant,
    "setof": _setof, "sep": _sep, "setlit": _setlit, "tuple": _tuple, "anon": _tuple,
    "list": _list, "vec": _list, "bigsum": _bigop, "bigprod": _bigop, "ite": _ite,
    "abs": _unary_fn, "sqrt": _unary_fn, "fact": _unary_fn, "floor": _unary_fn, "ceil": _unary_fn,
    "floor_nat": _unary_fn, "ceil_nat": _unary_fn, "coe": _coe, "ascr": _ascr, "proj": _proj,
    "union": _setop, "inter": _setop, "sdiff": _setop, "compl": _compl, "mem": _mem, "notmem": _mem,
    "dvd": _dvd, "modeq": _modeq, "subset": _subset,
}
assert not (set(_HANDLERS) & ARITH)


class Elaborator(Elab):
    """The elaborator to use: :class:`Elab` with every non-arithmetic form dispatched to the handlers above."""

    def form(self, node: Node, expected: Ty | None) -> V:
        return elab_form(self, node, expected)
