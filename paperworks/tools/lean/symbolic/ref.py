"""Reading a benchmark row: the reference value out of ``formal_answer``, and a submission. Layer:
elaborate (its top: text → ``parse`` → ``forms.Elaborator`` → values ready to compare).

Reference shapes (``formal_answer`` is a proposition about the variable ``answer``):
- ``@Eq T answer X`` (also ``↑answer``, e.g. an NNReal answer compared in ℝ): the reference is X.
- ``Or (@Eq T answer a) (@Eq T answer b) …``: alternatives; a submission equal to any one of them is
  accepted (the answer is "one of" these), reported as such in the reason.
- ``@Eq T (answer x y) X`` with the row's intro variables (or a pair ``(x, y)`` of them) as
  arguments: the reference is the function ``fun x y => X``.
- ``@Membership.mem _ _ _ S answer`` (``answer ∈ S``): a submission is accepted when it lies in S.
Anything else (``Iff``, conjunctions, inequalities about ``answer``) is refused with its head named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from paperworks.tools.lean.symbolic.elab import Elab
from paperworks.tools.lean.symbolic.forms import Elaborator
from paperworks.tools.lean.symbolic.leantypes import NAT, REAL, Ty, TypeParseError, fun, parse_type
from paperworks.tools.lean.symbolic.parse import parse
from paperworks.tools.lean.symbolic.syntax import Node
from paperworks.tools.lean.symbolic.values import ElabError, V, canonical_value


class ReferenceError_(ValueError):
    """The formal answer has a shape this checker does not read."""


@dataclass
class Reference:
    """``kind``: value | alternatives | member; ``values``: the reference value(s); ``ty``: answer type."""

    kind: str
    values: list[Any]
    ty: Ty
    notes: list[str] = field(default_factory=list)
    source_names: dict[str, str] = field(default_factory=dict)  # canonical bound name -> name in the row


def free_variables(intros: list[dict[str, Any]] | None) -> tuple[dict[str, V], list[str]]:
    """Intro binders that are variables (``n : ℕ``) as symbols; hypotheses are skipped."""
    out: dict[str, V] = {}
    skipped: list[str] = []
    for b in intros or []:
        name, t = b.get("name"), b.get("t")
        if not isinstance(name, str) or not isinstance(t, str):
            continue
        try:
            ty = parse_type(t)
        except (TypeParseError, ValueError):
            skipped.append(name)
            continue
        out[name] = V(canonical_value(ty, name, fun_prefix=""), ty)
    return out, skipped


def default_scalar(ty: Ty) -> Ty:
    """The scalar type that untyped binders default to: the first number type inside ``ty``."""
    if ty.numeric:
        return ty
    for a in ty.args:
        found = default_scalar(a)
        if found.numeric:
            return found
    return REAL if ty.head != "Nat" else NAT


def make_elab(ty: Ty, intros: list[dict[str, Any]] | None, deadline: float | None) -> Elab:
    free, _ = free_variables(intros)
    return Elaborator(free, default_scalar(ty), deadline)


def parse_reference(formal_answer: str, answer_type: str, intros: list[dict[str, Any]] | None = None,
                    deadline: float | None = None) -> Reference:
    """Parse ``formal_answer`` into a :class:`Reference` (raises ParseError/ElabError/… on failure)."""
    ty = parse_type(answer_type)
    node = _strip(parse(formal_answer))
    el = make_elab(ty, intros, deadline)
    notes: list[str] = []
    alts = _alternatives(node)
    if alts is not None:
        vals = [_eq_value(el, a, ty, notes) for a in alts]
        return Reference("alternatives", vals, ty, notes, el.source_names)
    mem = _membership(node)
    if mem is not None:
        s = el.elab(mem, Ty("Set", (ty,)))
        return Reference("member", [s.val], ty, notes, el.source_names)
    value = _eq_value(el, node, ty, notes)
    return Reference("value", [value], ty, notes, el.source_names)


def _strip(node: Node) -> Node:
    while node.op == "paren":
        node = node.args[0]
    return node


def _head(node: Node) -> str | None:
    node = _strip(node)
    if node.op == "app" and node.args[0].op == "ident":
        return str(node.args[0].value)
    if node.op == "ident":
        return str(node.value)
    return node.op


def _is_answer(node: Node) -> bool:
    node = _strip(node)
    if node.op == "coe":
        return _is_answer(node.args[0])
    return node.op == "ident" and node.value == "answer"


def _alternatives(node: Node) -> list[Node] | None:
    if _head(node) in ("Or",) and len(_strip(node).args) == 3:
        out: list[Node] = []
        for part in _strip(node).args[1:]:
            sub = _alternatives(part)
            out.extend(sub if sub is not None else [part])
        return out
    if _strip(node).op == "or":
        return [*(_alternatives(node.args[0]) or [node.args[0]]), *(_alternatives(node.args[1]) or [node.args[1]])]
    return None


def _membership(node: Node) -> Node | None:
    node = _strip(node)
    if _head(node) == "@Membership.mem" and len(node.args) == 6 and _is_answer(node.args[5]):
        return node.args[4]
    if node.op == "mem" and _is_answer(node.args[0]):
        return node.args[1]
    return None


def _eq_value(el: Elab, node: Node, ty: Ty, notes: list[str]) -> Any:
    node = _strip(node)
    if _head(node) == "@Eq" and len(node.args) == 4:
        lhs, rhs = node.args[2], node.args[3]
        eq_ty = el.type_of(node.args[1])
    elif node.op == "eq":
        lhs, rhs, eq_ty = node.args[0], node.args[1], ty
    else:
        raise ReferenceError_(f"formal answer is not an equation about answer (head {_head(node)})")
    if _is_answer(lhs):
        if _strip(lhs).op == "coe":
            notes.append(f"answer compared through a coercion to {eq_ty}")
        v = el.elab(rhs, eq_ty)
        return el.coerce(v, eq_ty).val
    if _is_answer(rhs):
        return el.coerce(el.elab(lhs, eq_ty), eq_ty).val
    lhs = _strip(lhs)
    if lhs.op == "app" and _is_answer(lhs.args[0]):
        return _function_of(el, list(lhs.args[1:]), rhs, ty, eq_ty)
    raise ReferenceError_("formal answer equation does not isolate answer")


def _function_of(el: Elab, args: list[Node], rhs: Node, ty: Ty, eq_ty: Ty) -> Any:
    """``answer a b = X`` with a, b intro variables: the reference is ``fun a b => X``."""
    doms: list[Ty] = []
    t = ty
    for _ in args:
        if t.head != "Fun":
            raise ReferenceError_("answer applied to more arguments than its type takes")
        doms.append(t.args[0])
        t = t.args[1]
    body = el.coerce(el.elab(rhs, eq_ty), eq_ty).val
    params = []
    for level, (a, d) in enumerate(zip(args, doms, strict=True)):
        given = el.coerce(el.elab(a, d), d).val
        canon = canonical_value(d, f"_v{level}")
        if not isinstance(canon, sp.Basic):
            raise ReferenceError_("function-typed argument of answer")
        mapping = dict(zip(_flat(given), _flat(canon), strict=False))
        if not all(isinstance(k, sp.Symbol) for k in mapping) or len(_flat(given)) != len(_flat(canon)):
            raise ReferenceError_("answer applied to something other than variables")
        body = body.xreplace(mapping)
        params.append(canon)
        for k, c in mapping.items():
            el.source_names[c.name] = k.name
    for p in reversed(params):
        body = sp.Lambda((p,), body)
    _ = fun
    return body


def _flat(v: Any) -> list[Any]:
    if isinstance(v, sp.Tuple):
        return [x for part in v for x in _flat(part)]
    return [v]


def parse_submission(text: str, ty: Ty, intros: list[dict[str, Any]] | None = None,
                     deadline: float | None = None) -> Any:
    """Parse and elaborate a submitted Lean term at the answer type; returns the SymPy value."""
    el = make_elab(ty, intros, deadline)
    node = parse(text)
    v = el.elab(node, ty)
    if v.ty is None:
        v = el.coerce(v, ty)
    v = el.coerce(v, ty)
    return v.val


__all__ = ["ElabError", "Reference", "ReferenceError_", "free_variables", "parse_reference", "parse_submission"]
