"""The elaborator's core: a parsed Lean term plus an expected type becomes a typed SymPy value (:class:`V`).
Layer: elaborate (above ``values``; the handlers of ``forms``, ``constants`` and ``handlers`` sit above
it and reach it only through the :class:`Elab` they are given).

The rules follow Lean 4's elaborator where they decide a value:
- Arithmetic trees (``+ - * / %``, unary ``-``, ``⁻¹``, and the base of ``^``) are elaborated like
  ``binop%``: every leaf is elaborated first, the tree's type is the largest number type among the
  leaves and the expected type (ℕ < ℤ < ℚ < ℝ < ℂ), numerals take that type, and lower-typed leaves are
  coerced up (``↑n``). With no typed leaf and no expected type, numerals are ℕ (Lean's default
  instance). The exponent of ``^`` is elaborated on its own, so ``x ^ (1/2)`` has exponent
  ``1 / 2 = 0`` in ℕ, exactly as in Lean.
- The operations then take Lean's meaning at the tree's type (``values``: ℕ subtraction and division,
  ℤ ``Int.ediv``/``Int.emod``, ``Fin n``/``ZMod n`` mod n). Mathlib's junk values are modelled where
  they decide a value: ``x / 0 = 0`` (a symbolic denominator becomes ``Inv0``, which SymPy cannot
  cancel, and the check looks at its zeros), and for closed arguments ``√(-1) = 0``,
  ``log (-x) = log x``, ``log 0 = 0``, clamped ``arcsin``/``arccos`` and ``Real.rpow`` of a negative
  base; elsewhere sampling skips points where a side is undefined.
- Bound variables get canonical names by binding depth (``_v0``, ``_v1``, …; tuple components
  ``_v0_0``, ``_v0_1``), so alpha-equivalent terms become identical SymPy trees. A binder without a
  type takes it from the expected type (``fun`` under ``A → B``, ``{x | p}`` under ``Set A``), else the
  answer's scalar type.
- Relations are elaborated like ``binrel%`` (both sides unified as one tree, no expected type).
- Every other form (names, applications, binders, sets, notation) goes to :meth:`Elab.form`, which
  ``forms.Elaborator`` fills in.
"""

from __future__ import annotations

import re
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from paperworks.tools.lean.symbolic.funcs import Mem, Quant, check_deadline
from paperworks.tools.lean.symbolic.leantypes import (
    NAT,
    PROP,
    REAL,
    Ty,
    TypeParseError,
    coercible,
    fun,
    join,
    type_of_node,
)
from paperworks.tools.lean.symbolic.syntax import Binder, Node
from paperworks.tools.lean.symbolic.values import ElabError, V, arith, canonical_value, equality, power

ARITH = {"add", "sub", "mul", "div", "mod", "neg", "inv", "pow"}
RELS = {"eq": sp.Eq, "ne": sp.Ne, "lt": sp.Lt, "le": sp.Le, "gt": sp.Gt, "ge": sp.Ge}


class Elab:
    """One elaboration: a scope of named values, a binding depth, a default scalar, a deadline."""

    def __init__(self, free: dict[str, V], default_scalar: Ty, deadline: float | None = None) -> None:
        self.scope: dict[str, V] = dict(free)
        self.level = 0
        self.default_scalar = default_scalar
        self.deadline = deadline
        self.source_names: dict[str, str] = {}  # canonical name -> the binder's name in the source

    # -- entry ---------------------------------------------------------------------------------
    def elab(self, node: Node, expected: Ty | None) -> V:
        check_deadline(self.deadline)
        op = node.op
        if op == "paren":
            return self.elab(node.args[0], expected)
        if op in ARITH:
            return self.numeric([node], expected)[0]
        if op in RELS:
            return self.relation(op, node.args[0], node.args[1])
        return self.form(node, expected)

    def form(self, node: Node, expected: Ty | None) -> V:
        """Elaborate a node that is neither arithmetic nor a relation. This core knows none of those
        forms; ``forms.Elaborator`` (the elaborator to use) dispatches them to its handlers."""
        raise ElabError(f"unsupported syntax: {node.op}")

    def type_of(self, node: Node) -> Ty:
        try:
            return type_of_node(node)
        except TypeParseError as err:
            raise ElabError(str(err)) from err

    def prop(self, node: Node) -> Any:
        v = self.elab(node, PROP)
        if not isinstance(v.val, sp.logic.boolalg.Boolean) and v.val not in (sp.true, sp.false):
            raise ElabError(f"expected a proposition, got {str(v.val)[:40]}")
        return v.val

    # -- coercion ------------------------------------------------------------------------------
    def coerce(self, v: V, ty: Ty | None) -> V:
        if ty is None:
            return v
        if v.ty is None:
            if ty.head in ("Fin", "ZMod") and ty.n:
                return V(sp.Mod(v.val, ty.n), ty)
            return V(v.val, ty)
        if v.ty == ty:
            return v
        if coercible(v.ty, ty):
            if ty.head in ("Fin", "ZMod") and ty.n:
                return V(sp.Mod(v.val, ty.n), ty)
            return V(v.val, ty)
        if ty.head == "Fun" and ty.args[0].head == "Fin" and v.ty.head == "Fun":
            return V(v.val, ty)
        raise ElabError(f"type mismatch: {v.ty} where {ty} is expected")

    # -- arithmetic ------------------------------------------------------------------------------
    def numeric(self, roots: list[Node], expected: Ty | None) -> list[V]:
        """Elaborate arithmetic trees together (``binop%``): one type for all of them."""
        leaves: list[Node] = []

        def collect(n: Node) -> None:
            if n.op == "paren":
                collect(n.args[0])
            elif n.op in ("add", "sub", "mul", "div", "mod"):
                collect(n.args[0])
                collect(n.args[1])
            elif n.op in ("neg", "inv", "pow"):
                collect(n.args[0])
            else:
                leaves.append(n)

        for r in roots:
            collect(r)
        first: dict[int, V | None] = {}
        top = expected if expected is not None and (expected.numeric or expected.head in ("Poly", "MvPoly")) \
            else None
        has_dec = False
        for leaf in leaves:
            has_dec = has_dec or leaf.op == "dec"
            if _polymorphic(leaf):  # |…|, if-then-else, ↑x: typed by the tree, hinted by their insides
                first[id(leaf)] = None
                top = join(top, self._hint(leaf))
                continue
            try:
                v = self.elab(leaf, None)
            except ElabError:
                v = None
            first[id(leaf)] = v
            if v is not None and v.ty is not None:
                if not (v.ty.numeric or v.ty.head in ("Poly", "MvPoly")):
                    if len(leaves) == 1 and roots[0] is leaf:
                        return [self.coerce(v, expected)]
                    raise ElabError(f"arithmetic on a value of type {v.ty}")
                top = join(top, v.ty)
        if top is None:
            top = REAL if has_dec else NAT
        return [self._build(r, top, first) for r in roots]

    def _hint(self, n: Node) -> Ty | None:
        """The number type that the typed parts of ``n`` force (numerals and ``↑x`` force none)."""
        if n.op in ("num", "dec", "coe"):
            return None
        if n.op == "ascr":
            return self.type_of(n.args[1])
        if n.op == "ident" and n.value in self.scope:
            t = self.scope[n.value].ty
            return t if t is not None and t.numeric else None
        if n.op in ARITH or n.op in ("abs", "paren", "ite"):
            parts = n.args[:1] if n.op == "pow" else (n.args[1:] if n.op == "ite" else n.args)
            out: Ty | None = None
            for p in parts:
                out = join(out, self._hint(p))
            return out
        try:
            v = self.elab(n, None)
        except ElabError:
            return None
        return v.ty if v.ty is not None and v.ty.numeric else None

    def _build(self, n: Node, ty: Ty, first: dict[int, V | None]) -> V:
        op = n.op
        if op == "paren":
            return self._build(n.args[0], ty, first)
        if op in ("add", "sub", "mul", "div", "mod"):
            a = self._build(n.args[0], ty, first).val
            b = self._build(n.args[1], ty, first).val
            return V(arith(op, a, b, ty), ty)
        if op == "neg":
            if ty.head == "Nat":
                raise ElabError("ℕ has no negation")
            return V(arith("sub", sp.Integer(0), self._build(n.args[0], ty, first).val, ty), ty)
        if op == "inv":
            return V(arith("div", sp.Integer(1), self._build(n.args[0], ty, first).val, ty), ty)
        if op == "pow":
            base = self._build(n.args[0], ty, first).val
            e = self.elab(n.args[1], None)
            if e.ty is None:
                e = self.coerce(e, NAT)
            return V(power(base, e.val, ty, e.ty), ty)
        v = first.get(id(n))
        if v is None or v.ty is None:
            v = self.elab(n, ty)
        return self.coerce(v, ty)

    # -- relations -------------------------------------------------------------------------------
    def relation(self, op: str, lhs: Node, rhs: Node) -> V:
        try:
            a0 = self.elab(lhs, None)
        except ElabError:
            a0 = None
        nonnum = a0 is not None and a0.ty is not None and not (a0.ty.numeric or a0.ty.head in ("Poly", "MvPoly"))
        if nonnum and a0 is not None and a0.ty is not None:
            b = self.elab(rhs, a0.ty)
            return V(equality(op, a0.val, b.val, a0.ty), PROP)
        a, b = self.numeric([lhs, rhs], None)
        if a.ty is not None and a.ty.head == "Complex" and op not in ("eq", "ne"):
            raise ElabError("ℂ is not ordered")
        return V(RELS[op](a.val, b.val), PROP)

    # -- binders ---------------------------------------------------------------------------------
    def bind(self, binder: Binder, ty: Ty | None, body: Node | None = None) -> tuple[Any, Ty]:
        """Bind a pattern at the next depth; return the bound value (for Lambda) and its type.

        An untyped binder takes ``ty`` (from the expected type); failing that ℕ when the body uses
        it as an exponent (``2 ^ k``: Lean's ``Monoid.npow`` default), else the default scalar."""
        if binder.type is not None:
            ty = self.type_of(binder.type)
        pat = binder.pattern
        if ty is None and body is not None and pat.op == "ident" and _is_exponent(pat.value, body):
            ty = NAT
        if ty is None:
            ty = self.default_scalar
        value = canonical_value(ty, f"_v{self.level}")
        self.level += 1
        self._destructure(binder.pattern, value, ty)
        if binder.pattern.op == "ident" and isinstance(value, sp.Symbol):
            self.source_names[value.name] = re.sub(r"_\d+$", "", str(binder.pattern.value))
        return value, ty

    def _destructure(self, pat: Node, value: Any, ty: Ty) -> None:
        if pat.op == "ident":
            if pat.value != "_":
                self.scope[pat.value] = V(value, ty)
            return
        if pat.op in ("tuple", "anon", "paren"):
            parts = list(pat.args)
            if len(parts) == 1:
                self._destructure(parts[0], value, ty)
                return
            if ty.head != "Prod" or not isinstance(value, sp.Tuple):
                raise ElabError("tuple pattern for a non-product type")
            self._destructure(parts[0], value[0], ty.args[0])
            rest = parts[1:]
            self._destructure(rest[0] if len(rest) == 1 else Node("tuple", tuple(rest)), value[1], ty.args[1])
            return
        raise ElabError(f"unsupported binder pattern {pat.op}")

    def scoped(self) -> _Scope:
        return _Scope(self)

    def lam(self, binders: list[Binder], body: Node, expected: Ty | None) -> V:
        if not binders:
            return self.elab(body, expected)
        with self.scoped():
            dom = expected.args[0] if expected is not None and expected.head == "Fun" else None
            cod = expected.args[1] if expected is not None and expected.head == "Fun" else None
            param, ty = self.bind(binders[0], dom)
            inner = self.lam(binders[1:], body, cod)
            if inner.ty is None:
                inner = self.coerce(inner, cod or NAT)
            assert inner.ty is not None
            return V(sp.Lambda((param,), inner.val), fun(ty, inner.ty))

    def quantifier(self, kind: str, binders: list[Binder], body: Node) -> V:
        with self.scoped():
            params: list[Any] = []
            guards: list[Any] = []
            last: Any = None
            for b in binders:
                if b.pattern.op == "guard":
                    rel = {">": "gt", "<": "lt", "≥": "ge", "≤": "le", "≠": "ne", "∈": "mem", "∉": "notmem"}
                    assert b.type is not None and last is not None
                    guards.append(self.elab(Node(rel[b.pattern.value], (last, b.type)), PROP).val)
                    continue
                param, _ = self.bind(b, None, body)
                params.append(param)
                last = b.pattern
            inner = self.prop(body)
            if guards:
                g = sp.And(*guards)
                inner = sp.And(g, inner) if kind == "exists" else sp.Implies(g, inner)
            return V(Quant(sp.Symbol(kind), sp.Tuple(*params), inner), PROP)

    def apply(self, f: V, args: list[Node]) -> V:
        """Apply a function value (a Lambda, a bound function variable, or a vector) to arguments."""
        for arg in args:
            if f.ty is None or f.ty.head != "Fun":
                raise ElabError("applying a value that is not a function")
            dom, cod = f.ty.args
            a = self.coerce(self.elab(arg, dom), dom)
            if isinstance(f.val, sp.Lambda):
                f = V(f.val(a.val), cod)
            elif isinstance(f.val, sp.Tuple) and a.val.is_Integer and 0 <= int(a.val) < len(f.val):
                f = V(f.val[int(a.val)], cod)
            elif isinstance(f.val, sp.Symbol):  # a function variable
                f = V(sp.Function(f.val.name)(*_flat(a.val)), cod)
            elif isinstance(f.val, AppliedUndef):  # a curried function variable, applied again
                f = V(f.val.func(*f.val.args, *_flat(a.val)), cod)
            else:
                raise ElabError("cannot apply this value")
        return f


class _Scope:
    def __init__(self, el: Elab) -> None:
        self.el = el

    def __enter__(self) -> None:
        self.saved = (dict(self.el.scope), self.el.level)

    def __exit__(self, *exc: object) -> None:
        self.el.scope, self.el.level = self.saved


def _polymorphic(n: Node) -> bool:
    while n.op == "paren":
        n = n.args[0]
    if n.op in ("abs", "ite", "coe"):
        return True
    return n.op == "app" and n.args[0].op == "ident" and n.args[0].value in ("abs", "max", "min", "ite")


def _is_exponent(name: str, node: Node) -> bool:
    """Does ``name`` occur as the exponent of a ``^`` in ``node``?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.op == "pow":
            e = n.args[1]
            while e.op == "paren":
                e = e.args[0]
            if e.op == "ident" and e.value == name:
                return True
        stack.extend(n.args)
        if isinstance(n.value, tuple):
            stack.extend(b.type for b in n.value if isinstance(b, Binder) and b.type is not None)
    return False


def _flat(value: Any) -> list[Any]:
    if isinstance(value, sp.Tuple):
        return [x for part in value for x in _flat(part)]
    return [value]


def membership(el: Elab, x: Node, s: Node) -> Any:
    """``x ∈ s`` as a SymPy proposition."""
    sv = el.elab(s, None)
    if sv.ty is None or sv.ty.head not in ("Set", "List"):
        raise ElabError("membership in a value that is not a set")
    elem = sv.ty.args[0]
    xv = el.coerce(el.elab(x, elem), elem)
    if isinstance(sv.val, sp.Tuple):  # a list
        return sp.Or(*[equality("eq", xv.val, e, elem) for e in sv.val])
    if isinstance(sv.val, sp.Symbol):
        return Mem(xv.val, sv.val)
    if isinstance(sv.val, sp.FiniteSet):
        return sp.Or(*[equality("eq", xv.val, e, elem) for e in sv.val])
    try:
        return sv.val.contains(xv.val)
    except (TypeError, ValueError, NotImplementedError) as err:
        raise ElabError(f"membership not decidable here: {err}") from err
