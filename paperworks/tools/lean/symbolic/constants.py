"""Known Lean constants: each one's parameter kinds and meaning, and big operators. Layer: elaborate
(above ``handlers``, whose functions fill the table; ``forms`` calls :func:`call_constant`).

The general rule for pp.explicit: a head written ``@Name`` is followed by *all* its arguments, in
order. ``KINDS`` spells them per constant: ``t`` an implicit type (read, e.g. the ``Real`` of
``@HAdd.hAdd Real Real Real``), ``i`` an instance (skipped unread, whatever it prints as), ``e`` an
explicit argument. Without ``@`` only the ``e`` arguments are written (surface syntax). Extra
arguments apply the result as a function. Bare ``sqrt``/``exp``/``log``/``pi``/``choose``/… are read as
if ``open Real Nat Finset`` were in effect. ``x.f`` on a variable of type ℕ calls ``Nat.f x`` (and so on
per type namespace). Unknown names fail with "unknown constant NAME".
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from paperworks.tools.lean.symbolic.elab import Elab
from paperworks.tools.lean.symbolic.funcs import (
    IsPrime,
    guarded_binomial,
    guarded_factorial,
    safe_subs,
)
from paperworks.tools.lean.symbolic.handlers import (
    MAX_EXPAND,
    POLY_X,
    Arg,
    Handler,
    _arg,
    _binop,
    _cast,
    _coe_fn,
    _cons,
    _const,
    _dvd,
    _empty,
    _exists,
    _floor,
    _fn,
    _insert,
    _interval,
    _ite,
    _lam_node,
    _logic,
    _mem,
    _modeq,
    _mv_x,
    _ofnat,
    _ofsci,
    _parity,
    _poly_c,
    _poly_eval,
    _poly_fn,
    _poly_x,
    _prod_mk,
    _proj,
    _rel,
    _setof,
    _setop,
    _singleton,
    _univ,
    _unop,
    _vec_cons,
    interval_set,
    project,
)
from paperworks.tools.lean.symbolic.leantypes import COMPLEX, INT, NAT, PROP, REAL, Ty, fun
from paperworks.tools.lean.symbolic.syntax import Binder, Node
from paperworks.tools.lean.symbolic.values import ElabError, V, canonical_value, power


def _sum_prod(is_sum: bool) -> Handler:
    def h(el: Elab, a: list[Arg], t: list[Ty | None], exp: Ty | None) -> V:
        if not isinstance(a[0], Node):
            raise ElabError("Finset.sum over a pre-elaborated set")
        lam = _lam_node(a[1])
        binders = list(lam.value)
        body = lam.args[0] if len(binders) == 1 else Node("lam", (lam.args[0],), tuple(binders[1:]))
        target = t[1] if len(t) > 1 and t[1] is not None else exp
        return big_operator(el, is_sum, a[0], binders[0], body, target)

    return h


def _strip(node: Node) -> Node:
    while node.op == "paren":
        node = node.args[0]
    return node


def _domain(el: Elab, dom: Node | None, binder: Binder) -> tuple[Ty, Any, Any, list[Any] | None]:
    """Index type and inclusive bounds (or a list of elements) of a big operator's domain."""
    bty = el.type_of(binder.type) if binder.type is not None else None
    if dom is None:
        if bty is not None and bty.head == "Fin" and bty.n is not None:
            return bty, sp.Integer(0), sp.Integer(bty.n - 1), None
        raise ElabError("big operator over an unknown domain")
    dom = _strip(dom)
    if dom.op == "app" and dom.args[0].op == "ident":
        name = dom.args[0].value.lstrip("@")
        name = ALIASES.get(name, name)
        explicit = dom.args[0].value.startswith("@")
        raw = list(dom.args[1:])
        if name == "Finset.range":
            n = _arg(el, raw[0], NAT).val
            return NAT, sp.Integer(0), n - 1, None
        if name in ("Finset.Icc", "Finset.Ico", "Finset.Ioc", "Finset.Ioo"):
            ends = raw[3:5] if explicit else raw[:2]
            lo, hi = el.numeric(ends, bty)
            ty = lo.ty or NAT
            shift_lo = 1 if name in ("Finset.Ioc", "Finset.Ioo") else 0
            shift_hi = 1 if name in ("Finset.Ico", "Finset.Ioo") else 0
            return ty, lo.val + shift_lo, hi.val - shift_hi, None
    s = el.elab(dom, Ty("Set", (bty,)) if bty is not None else None)
    if s.ty is None or s.ty.head != "Set" or not isinstance(s.val, sp.FiniteSet):
        raise ElabError("big operator over a set that is not finite and explicit")
    return s.ty.args[0], None, None, list(s.val)


def big_operator(el: Elab, is_sum: bool, dom: Node | None, binder: Binder, body: Node, exp: Ty | None) -> V:
    """``∑``/``∏`` over ``Finset.range``/``Icc``/… or an explicit finite set."""
    ity, lo, hi, elems = _domain(el, dom, binder)
    with el.scoped():
        param, _ = el.bind(Binder(binder.pattern, None), ity)
        if not isinstance(param, sp.Symbol):
            raise ElabError("big operator with a non-scalar index")
        v = el.elab(body, exp)
        ty = exp or v.ty or NAT
        v = el.coerce(v, ty)
    if elems is None and lo.is_Integer and hi.is_Integer and int(hi) - int(lo) <= MAX_EXPAND:
        elems = [sp.Integer(k) for k in range(int(lo), int(hi) + 1)]
    if elems is not None:
        terms = [safe_subs(v.val, {param: e}, el.deadline) for e in elems]
        return V(sp.Add(*terms) if is_sum else sp.Mul(*terms), ty)
    cls = sp.Sum if is_sum else sp.Product
    return V(cls(v.val, (param, lo, hi)), ty)


def _match(el: Elab, args: list[Node], expected: Ty | None) -> V:
    """``_example.match_k motive x (fun a b => body)``: bind the pattern to the pair's parts."""
    if len(args) < 3:
        raise ElabError("match with too few arguments")
    x = el.elab(args[1], None)
    lam = _lam_node(args[2])
    binders = list(lam.value)
    with el.scoped():
        value, ty = x.val, x.ty
        for k, b in enumerate(binders):
            if ty is None:
                raise ElabError("match on an untyped value")
            if k < len(binders) - 1:
                if ty.head != "Prod" or not isinstance(value, sp.Tuple):
                    raise ElabError("match pattern longer than the tuple")
                el._destructure(b.pattern, value[0], ty.args[0])
                value, ty = value[1], ty.args[1]
            else:
                el._destructure(b.pattern, value, ty)
        return el.elab(lam.args[0], expected)


def _closed_real(x: Any) -> bool:
    return isinstance(x, sp.Expr) and x.is_number and x.is_extended_real is True


def _lean_sqrt(x: Any) -> Any:
    """``Real.sqrt``: 0 for a negative argument (Mathlib's junk value), not SymPy's imaginary root."""
    return sp.Integer(0) if _closed_real(x) and x.is_negative is True else sp.sqrt(x)


def _lean_log(x: Any) -> Any:
    """``Real.log``: ``log |x|`` for a negative argument and ``log 0 = 0`` (Mathlib), not SymPy's complex log."""
    if _closed_real(x):
        if x.is_zero is True:
            return sp.Integer(0)
        if x.is_negative is True:
            return sp.log(-x)
    return sp.log(x)


def _lean_clamped(f: Any, low: Any, high: Any) -> Any:
    """``Real.arcsin``/``Real.arccos``: the argument clamped to [-1, 1] first (Mathlib's definition)."""
    def apply(x: Any) -> Any:
        if _closed_real(x) and (x > 1) is sp.true:
            return high
        if _closed_real(x) and (x < -1) is sp.true:
            return low
        return f(x)
    return apply


K: dict[str, tuple[str, Handler]] = {
    "HAdd.hAdd": ("tttiee", _binop("add")), "HSub.hSub": ("tttiee", _binop("sub")),
    "HMul.hMul": ("tttiee", _binop("mul")), "HDiv.hDiv": ("tttiee", _binop("div")),
    "HMod.hMod": ("tttiee", _binop("mod")), "HPow.hPow": ("tttiee", _binop("pow")),
    "HSMul.hSMul": ("tttiee", _binop("mul")),
    "Neg.neg": ("tie", _unop("neg")), "Inv.inv": ("tie", _unop("inv")),
    "OfNat.ofNat": ("tei", _ofnat), "nat_lit": ("e", _ofnat), "OfScientific.ofScientific": ("tieee", _ofsci),
    "Nat.cast": ("tie", _cast(NAT)), "Int.cast": ("tie", _cast(INT)), "Rat.cast": ("tie", _cast(Ty("Rat"))),
    "NNReal.toReal": ("e", _cast(REAL)), "Subtype.val": ("tte", _cast(None)), "Fin.val": ("te", _cast(NAT)),
    "Int.ofNat": ("e", _cast(NAT)), "Int.toNat": ("e", _fn(lambda x: sp.Max(x, 0), INT, NAT)),
    "Int.natAbs": ("e", _fn(sp.Abs, INT, NAT)),
    "Real.sqrt": ("e", _fn(_lean_sqrt, REAL, REAL)), "NNReal.sqrt": ("e", _fn(sp.sqrt, REAL, REAL)),
    "Real.exp": ("e", _fn(sp.exp, REAL, REAL)), "Real.log": ("e", _fn(_lean_log, REAL, REAL)),
    "Real.sin": ("e", _fn(sp.sin, REAL, REAL)), "Real.cos": ("e", _fn(sp.cos, REAL, REAL)),
    "Real.tan": ("e", _fn(sp.tan, REAL, REAL)), "Real.arctan": ("e", _fn(sp.atan, REAL, REAL)),
    "Real.arcsin": ("e", _fn(_lean_clamped(sp.asin, -sp.pi / 2, sp.pi / 2), REAL, REAL)),
    "Real.arccos": ("e", _fn(_lean_clamped(sp.acos, sp.pi, sp.Integer(0)), REAL, REAL)),
    "Real.sinh": ("e", _fn(sp.sinh, REAL, REAL)), "Real.cosh": ("e", _fn(sp.cosh, REAL, REAL)),
    "Real.tanh": ("e", _fn(sp.tanh, REAL, REAL)), "Real.logb": ("ee", _fn(lambda b, x: sp.log(x, b), REAL, REAL, 2)),
    "Real.rpow": ("ee", _fn(lambda b, x: power(b, x, REAL, REAL), REAL, REAL, 2)),
    "Real.pi": ("", _const(sp.pi, REAL)), "Complex.I": ("", _const(sp.I, COMPLEX)),
    "Complex.exp": ("e", _fn(sp.exp, COMPLEX, COMPLEX)), "Complex.abs": ("e", _fn(sp.Abs, COMPLEX, REAL)),
    "Complex.mk": ("ee", _fn(lambda a, b: a + sp.I * b, REAL, COMPLEX, 2)),
    "Complex.re": ("e", _fn(sp.re, COMPLEX, REAL)), "Complex.im": ("e", _fn(sp.im, COMPLEX, REAL)),
    "abs": ("tiie", _poly_fn(sp.Abs)),
    "Nat.factorial": ("e", _fn(guarded_factorial, NAT, NAT)), "Nat.choose": ("ee", _fn(guarded_binomial, NAT, NAT, 2)),
    "Nat.succ": ("e", _fn(lambda n: n + 1, NAT, NAT)), "Nat.pred": ("e", _fn(lambda n: sp.Max(n - 1, 0), NAT, NAT)),
    "Nat.fib": ("e", _fn(sp.fibonacci, NAT, NAT)), "Nat.gcd": ("ee", _fn(sp.gcd, NAT, NAT, 2)),
    "Nat.lcm": ("ee", _fn(sp.lcm, NAT, NAT, 2)), "Nat.sqrt": ("e", _fn(lambda n: sp.floor(sp.sqrt(n)), NAT, NAT)),
    "Int.floor": ("tiie", _floor("floor", False)), "Int.ceil": ("tiie", _floor("ceil", False)),
    "Nat.floor": ("tiie", _floor("floor", True)), "Nat.ceil": ("tiie", _floor("ceil", True)),
    "Nat.Prime": ("e", _fn(IsPrime, NAT, PROP)), "Nat.ModEq": ("eee", _modeq(NAT)), "Int.ModEq": ("eee", _modeq(INT)),
    "Dvd.dvd": ("tiee", _dvd), "Even": ("tie", _parity(0)), "Odd": ("tie", _parity(1)),
    "Eq": ("tee", _rel("eq")), "Ne": ("tee", _rel("ne")), "LT.lt": ("tiee", _rel("lt")), "LE.le": ("tiee", _rel("le")),
    "GT.gt": ("tiee", _rel("gt")), "GE.ge": ("tiee", _rel("ge")),
    "And": ("ee", _logic(sp.And, 2)), "Or": ("ee", _logic(sp.Or, 2)), "Not": ("e", _logic(sp.Not, 1)),
    "Iff": ("ee", _logic(sp.Equivalent, 2)), "True": ("", _const(sp.true, PROP)), "False": ("", _const(sp.false, PROP)),
    "Exists": ("te", _exists), "setOf": ("te", _setof), "Membership.mem": ("ttiee", _mem),
    "Set.Icc": ("tiee", _interval(False, False)), "Set.Ico": ("tiee", _interval(False, True)),
    "Set.Ioc": ("tiee", _interval(True, False)), "Set.Ioo": ("tiee", _interval(True, True)),
    "Set.Ici": ("tie", _interval(False, None)), "Set.Ioi": ("tie", _interval(True, None)),
    "Set.Iic": ("tie", _interval(None, False)), "Set.Iio": ("tie", _interval(None, True)),
    "Set.univ": ("t", _univ), "EmptyCollection.emptyCollection": ("ti", _empty),
    "Insert.insert": ("ttiee", _insert), "Singleton.singleton": ("ttie", _singleton),
    "Union.union": ("tiee", _setop(sp.Union)), "Inter.inter": ("tiee", _setop(sp.Intersection)),
    "SDiff.sdiff": ("tiee", _setop(sp.Complement)),
    "Finset.sum": ("ttiee", _sum_prod(True)), "Finset.prod": ("ttiee", _sum_prod(False)),
    "Prod.mk": ("ttee", _prod_mk), "Prod.fst": ("tte", _proj(0)), "Prod.snd": ("tte", _proj(1)),
    "List.cons": ("tee", _cons), "List.nil": ("t", lambda el, a, t, exp: V(sp.Tuple(), Ty("List", (t[0] or NAT,)))),
    "Matrix.vecCons": ("tiee", _vec_cons),
    "Matrix.vecEmpty": ("t", lambda el, a, t, exp: V(sp.Tuple(), Ty("Fun", (Ty("Fin", (), 0), t[0] or REAL)))),
    "ite": ("teiee", _ite), "Polynomial.X": ("ti", _poly_x), "Polynomial.C": ("ti", _poly_c),
    "Polynomial.eval": ("tiee", _poly_eval), "RatFunc.X": ("tii", _poly_x), "MvPolynomial.X": ("ttie", _mv_x),
    "DFunLike.coe": ("tttiee", _coe_fn),
}

ALIASES = {  # bare names as if `open Real Nat Finset Complex Polynomial` were in effect, and notation
    "sqrt": "Real.sqrt", "exp": "Real.exp", "rexp": "Real.exp", "log": "Real.log", "sin": "Real.sin",
    "cos": "Real.cos", "tan": "Real.tan", "arctan": "Real.arctan", "π": "Real.pi", "pi": "Real.pi",
    "Real.π": "Real.pi", "cexp": "Complex.exp", "I": "Complex.I", "C": "Polynomial.C",
    "choose": "Nat.choose", "factorial": "Nat.factorial", "Prime": "Nat.Prime", "range": "Finset.range",
    "Icc": "Set.Icc", "Ico": "Set.Ico", "Ioc": "Set.Ioc", "Ioo": "Set.Ioo", "Ici": "Set.Ici", "Ioi": "Set.Ioi",
    "Iic": "Set.Iic", "Iio": "Set.Iio", "Set.singleton": "Singleton.singleton",
    "Nat.Odd": "Odd", "Nat.Even": "Even", "Int.Even": "Even", "Int.Odd": "Odd",
}
for _iv in ("Icc", "Ico", "Ioc", "Ioo"):
    K[f"Finset.{_iv}"] = ("tiiee", K[f"Set.{_iv}"][1])
K["Finset.range"] = ("e", lambda el, a, t, exp: V(
    interval_set(sp.Integer(0), _arg(el, a[0], NAT).val, False, True, NAT), Ty("Set", (NAT,))))
K["⊤"] = ("", lambda el, a, t, exp: V(sp.oo, exp or NAT))
_NAMESPACE = {"Nat": "Nat", "Int": "Int", "Real": "Real", "Complex": "Complex", "Poly": "Polynomial", "Set": "Set",
              "Fin": "Fin"}


def call_constant(el: Elab, head: Node, args: list[Any], expected: Ty | None) -> V:
    """Elaborate ``head args`` where ``head`` names a constant (or a method on a variable)."""
    raw = head.value
    explicit = raw.startswith("@")
    name = raw.lstrip("@")
    name = ALIASES.get(name, name)
    if name.startswith("_example.match_") or ".match_" in name:
        return _match(el, args, expected)
    spec = K.get(name)
    if spec is None:
        if expected is not None and expected.head == "Poly" and name == POLY_X and not args:
            return _poly_x(el, [], [expected.args[0]], expected)
        first, _, rest = name.partition(".")
        if rest and first in el.scope:
            return method_call(el, Node("ident", (), first), rest, args, expected)
        raise ElabError(f"unknown constant {name}")
    kinds, handler = spec
    n_e = kinds.count("e")
    tys: list[Ty | None] = []
    exps: list[Any] = []
    if explicit:
        if len(args) < len(kinds):
            raise ElabError(f"@{name} needs {len(kinds)} arguments, got {len(args)}")
        for k, a in zip(kinds, args, strict=False):
            if k == "t":
                tys.append(_try_type(el, a))
            elif k == "e":
                exps.append(a)
        rest_args = args[len(kinds):]
    else:
        tys = [None] * kinds.count("t")
        exps, rest_args = args[:n_e], args[n_e:]
        if len(exps) < n_e:
            if expected is not None and expected.head == "Fun" and len(exps) + 1 == n_e:
                return _eta(el, head, exps, expected)
            raise ElabError(f"{name} needs {n_e} explicit arguments, got {len(exps)}")
    v = handler(el, exps, tys, None if rest_args else expected)
    if rest_args:
        v = el.apply(v, rest_args)
    return el.coerce(v, expected) if expected is not None and v.ty is not None else v


def _eta(el: Elab, head: Node, args: list[Any], expected: Ty) -> V:
    """A constant missing its last argument, used as a function: ``fun x => c args x``."""
    dom = expected.args[0]
    param = canonical_value(dom, f"_v{el.level}")
    if not isinstance(param, sp.Symbol):
        raise ElabError("eta-expansion over a non-scalar domain")
    el.level += 1
    try:
        body = call_constant(el, head, [*args, V(param, dom)], expected.args[1])
    finally:
        el.level -= 1
    assert body.ty is not None
    return V(sp.Lambda((param,), body.val), fun(dom, body.ty))


def _try_type(el: Elab, a: Any) -> Ty | None:
    if not isinstance(a, Node):
        return None
    try:
        return el.type_of(a)
    except ElabError:
        return None


def method_call(el: Elab, obj: Node, name: str, args: list[Any], expected: Ty | None) -> V:
    """``obj.name args``: projections ``.1 .2 .fst .snd`` or ``Namespace.name obj args``."""
    x = el.elab(obj, None)
    if name in ("1", "2", "fst", "snd"):
        out = project(x, 0 if name in ("1", "fst") else 1)
        return el.apply(out, args) if args else out
    if x.ty is None:
        x = el.coerce(x, NAT)
    assert x.ty is not None
    ns = _NAMESPACE.get(x.ty.head)
    full = f"{ns}.{name}" if ns else name
    full = ALIASES.get(full, full)
    if full not in K:
        raise ElabError(f"unknown constant {full}")
    if full == "Polynomial.eval":
        return call_constant(el, Node("ident", (), full), [*args[:1], x, *args[1:]], expected)
    return call_constant(el, Node("ident", (), full), [x, *args], expected)
