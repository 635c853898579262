"""Reading a row's ``informal_answer`` (LaTeX-ish) for the coverage report, and comparing it with the
reference. Only for coverage: a solver's submission is Lean syntax, read by ``ref``. Layer: compare (its
top: it reads a row with ``ref`` and judges with ``equiv``).

Cleaning before ``latex2sympy2_extended`` (offline, ANTLR-based): ``$``/``\\(``/``\\[`` delimiters,
``\\boxed{…}``, answer-choice labels (``\\textbf{(C)}``, ``(B)``), ``^\\circ``, ``\\!``/``\\,``, and
short unit texts after a number (``10\\text{ cm}``) are dropped; thousands separators are removed
for integer-typed answers; ``True``/``False`` and "the empty set" are read as such. An answer that
is still prose (``the set of functions …``), or that the parser rejects, counts as *uncovered* —
nothing is guessed.

Comparison: the parsed value is fitted to the reference's type (tuples flattened, a pmatrix read
as a vector, ``(a, b)`` read as a pair rather than an open interval when the type is a product,
``i`` as the imaginary unit in ℂ, ``x`` as ``X`` in polynomial types, a formula in one variable as
the function of that variable); symbols named like the row's intro variables become those
variables. ℕ functions are sampled from n = 2 up, because informal formulas use ordinary
arithmetic where Lean's ℕ truncates (``2^{n-2}`` at n = 1).
"""

from __future__ import annotations

import re
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from paperworks.tools.lean.symbolic.equiv import Comparer
from paperworks.tools.lean.symbolic.funcs import TooLarge, time_limit
from paperworks.tools.lean.symbolic.leantypes import Ty
from paperworks.tools.lean.symbolic.outcome import Outcome, no, unknown
from paperworks.tools.lean.symbolic.ref import Reference, parse_submission
from paperworks.tools.lean.symbolic.sets import compare_sets
from paperworks.tools.lean.symbolic.values import base_set

MAX_LATEX = 600
_PROSE = re.compile(r"(?<!\\)\b[A-Za-z]{3,}\b")
_LATEX_WORDS = {"frac", "dfrac", "tfrac", "sqrt", "cdot", "left", "right", "infty", "boxed", "text", "pmatrix",
                "begin", "end", "times", "sin", "cos", "tan", "log", "arctan", "binom", "mathrm", "emptyset",
                "lfloor", "rfloor", "lceil", "rceil", "pm", "mp", "cup", "cap", "over", "circ", "quad", "ldots",
                "dots", "cdots", "mbox", "textbf", "displaystyle", "operatorname", "True", "False", "exp", "sinh",
                "cosh", "theta", "alpha", "beta", "gamma", "lambda", "sigma", "omega", "mapsto", "land", "lor",
                "vee", "wedge", "neq", "leq", "geq", "bmatrix", "matrix", "arcsin", "arccos", "sec", "csc",
                "cot", "phi", "rho", "tau", "psi", "chi", "eta", "zeta", "delta", "epsilon", "mathbb", "mod",
                "pmod", "bmod", "min", "max", "gcd", "lcm", "det", "setminus", "vec", "hat", "bar",
                "ell", "mathbf", "choose", "sum", "prod", "int", "lim"}


_SET_BUILDER = re.compile(r"\\\{\s*([a-zA-Z])\s*(?:(?::|\\in)\s*\\mathbb\{?[RNZQC]\}?)?\s*(?:\\mid|\||:)\s*(.+)\\\}")
_ASSUME = {"Real": {"real": True}, "Nat": {"integer": True, "nonnegative": True}, "Int": {"integer": True}}


class LatexUnparsed(ValueError):
    """The informal answer could not be read as mathematics."""


def clean_latex(text: str, integral: bool = False) -> str:
    """Strip presentation from an informal answer (see the module docstring)."""
    s = text.strip()
    s = re.sub(r"\\boxed\s*\{(.*)\}", r"\1", s, flags=re.S)
    s = s.replace("$", "").replace("\\(", "").replace("\\)", "").replace("\\[", "").replace("\\]", "")
    s = re.sub(r"\\(?:textbf|mathrm|mathbf|text)\{\s*\(?[A-E]\)?\s*\}", "", s)
    s = re.sub(r"^\s*\(?[A-E]\)\s+", "", s)
    s = re.sub(r"\^\s*\{?\\circ\}?", "", s)
    s = re.sub(r"(?<!\\)\\[!,;: ]", " ", s)
    s = re.sub(r"(\d)\s*\\(?:text|mbox|mathrm)\{\s*[A-Za-z .]{1,20}\}", r"\1", s)
    s = re.sub(r"\\log(?![a-zA-Z_])(?!_)", r"\\ln", s)  # competition \log is the natural logarithm
    s = s.replace("²", "^2").replace("³", "^3").replace("π", "\\pi ")
    s = re.sub(r"√\s*(\d+|[a-zA-Z])", r"\\sqrt{\1}", s)
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("\\left", "").replace("\\right", "")
    s = re.sub(r"\\sqrt\s*(\d|[a-zA-Z](?![a-zA-Z]))", r"\\sqrt{\1}", s)  # \sqrt2 -> \sqrt{2}
    s = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", s)  # \frac12 -> \frac{1}{2}
    if integral and re.fullmatch(r"-?\d{1,3}(?:\s*\{?,\}?\s*\d{3})+", s.strip()):
        s = re.sub(r"[\s{},]", "", s)
    return s.strip().rstrip(".")


def parse_informal(text: str, ty: Ty, timeout_s: float = 2.0) -> Any:
    """The informal answer as a SymPy value; raises :class:`LatexUnparsed`."""
    if len(text) > MAX_LATEX:
        raise LatexUnparsed("informal answer too long")
    s = clean_latex(text, ty.integral)
    low = s.lower()
    if low in ("true", "\\text{true}", "yes"):
        return sp.true
    if low in ("false", "\\text{false}", "no"):
        return sp.false
    if low in ("the empty set", "\\emptyset", "\\varnothing", "empty set", "none"):
        return sp.S.EmptySet
    words = [w for w in _PROSE.findall(s.replace("\\", " \\")) if w not in _LATEX_WORDS]
    if words or "\\text" in s:
        raise LatexUnparsed("informal answer is prose")
    if not s:
        raise LatexUnparsed("empty informal answer")
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    builder = _SET_BUILDER.fullmatch(s)
    if builder is not None and ty.head == "Set":
        var, cond = builder.group(1), builder.group(2)
        pred = parse_informal(cond, Ty("Prop"), timeout_s)
        x = sp.Symbol(var, **_ASSUME.get(ty.args[0].head, {}))
        pred = pred.xreplace({sp.Symbol(var): x}) if isinstance(pred, sp.Basic) else pred
        return sp.ConditionSet(x, pred, base_set(ty.args[0]))
    try:
        with time_limit(timeout_s):
            value = latex2sympy(s, conversion_config=ConversionConfig(lowercase_symbols=False))
    except TooLarge as err:
        raise LatexUnparsed("latex parsing timed out") from err
    except Exception as err:  # the ANTLR parser raises many kinds of errors
        raise LatexUnparsed(f"latex parser: {type(err).__name__}") from err
    if isinstance(value, sp.Eq) and isinstance(value.lhs, sp.Symbol | sp.Tuple | AppliedUndef):
        value = value.rhs  # "x = 5", "(a, b) = (1, 2)"
    if isinstance(value, list | tuple):
        value = sp.Tuple(*value)
    return _exact(value)


def _exact(value: Any) -> Any:
    if isinstance(value, sp.Basic):
        floats = value.atoms(sp.Float)
        if floats:
            value = value.xreplace({f: sp.Rational(str(f)) for f in floats})
    return value


def _flat(v: Any) -> list[Any]:
    if isinstance(v, sp.Tuple):
        return [x for part in v for x in _flat(part)]
    return [v]


def _flat_types(t: Ty) -> list[Ty]:
    return [*_flat_types(t.args[0]), *_flat_types(t.args[1])] if t.head == "Prod" else [t]


def _rename(value: Any, ref_syms: set[Any], ty: Ty) -> Any:
    if not isinstance(value, sp.Basic):
        return value
    by_name = {s.name: s for s in ref_syms if isinstance(s, sp.Symbol)}
    by_lower = {s.name.lower(): s for s in ref_syms if isinstance(s, sp.Symbol) and not s.name.startswith("_")}
    own = sorted(value.free_symbols, key=str)
    mapping: dict[Any, Any] = {}
    for s in own:
        if s.name in by_name:
            mapping[s] = by_name[s.name]
        elif s.name.lower() in by_lower:
            mapping[s] = by_lower[s.name.lower()]
        elif s.name == "i" and _has_complex(ty):
            mapping[s] = sp.I
        elif _has_poly(ty) and len(own) == 1 and ty.head != "MvPoly":
            mapping[s] = sp.Symbol("X")
        elif ty.head == "MvPoly" and s.name in ("x", "y", "z", "w"):
            mapping[s] = sp.Symbol(f"X_{'xyzw'.index(s.name)}")  # convention: x, y, z, w = X 0, X 1, …
    return value.xreplace(mapping) if mapping else value


def _has_complex(ty: Ty) -> bool:
    return ty.head == "Complex" or any(_has_complex(a) for a in ty.args)


def _has_poly(ty: Ty) -> bool:
    return ty.head in ("Poly", "MvPoly") or any(_has_poly(a) for a in ty.args)


def fit(value: Any, ty: Ty, ref_value: Any, names: dict[str, str] | None = None) -> Any:
    """Shape the informal value like a value of ``ty`` (see the module docstring)."""
    names = names or {}
    if isinstance(value, sp.MatrixBase):
        rows_as_vectors = ty.head == "Fun" and ty.args[1].head == "Fun" and value.rows > 1 and value.cols > 1
        value = sp.Tuple(*[sp.Tuple(*value.row(i)) for i in range(value.rows)]) if rows_as_vectors \
            else sp.Tuple(*list(value))
    if ty.head == "Prod":
        if isinstance(value, sp.Interval) and value.left_open and value.right_open:
            value = sp.Tuple(value.start, value.end)
        if not isinstance(value, sp.Tuple):
            raise LatexUnparsed("informal answer is not a tuple")
        items = _flat(value)
        if len(items) == len(_flat_types(ty)):
            value = _nest(items, ty)
        if len(value) != 2:
            raise LatexUnparsed("informal tuple has the wrong length")
        refs = list(ref_value) if isinstance(ref_value, sp.Tuple) and len(ref_value) == 2 else [None, None]
        return sp.Tuple(fit(value[0], ty.args[0], refs[0], names), fit(value[1], ty.args[1], refs[1], names))
    if ty.head == "Set" and not isinstance(value, sp.Set):
        raise LatexUnparsed("informal answer is not a set")
    if ty.head == "Set" and isinstance(value, sp.FiniteSet):
        sample = next(iter(ref_value.args), None) if isinstance(ref_value, sp.FiniteSet) else None
        return sp.FiniteSet(*[fit(v, ty.args[0], sample, names) for v in value])
    if ty.head == "List" and not isinstance(value, sp.Tuple):
        raise LatexUnparsed("informal answer is not a list")
    if ty.head == "Fun" and ty.args[0].head == "Fin":
        if not isinstance(value, sp.Tuple | sp.Lambda):
            raise LatexUnparsed("informal answer is not a vector")
        return value
    if ty.head == "Fun" and isinstance(ref_value, sp.Lambda) and not isinstance(value, sp.Lambda):
        return _as_function(value, ref_value, names)
    return value


def _as_function(value: Any, ref_value: Any, names: dict[str, str]) -> Any:
    """A formula in the function's parameters (matched by the names the row gave them)."""
    params: list[Any] = []
    lam = ref_value
    while isinstance(lam, sp.Lambda) and len(lam.signature) == 1 and isinstance(lam.signature[0], sp.Symbol):
        params.append(lam.signature[0])
        lam = lam.expr
    if not params or not isinstance(value, sp.Basic):
        raise LatexUnparsed("informal formula does not match the function's arguments")
    own = sorted((x for x in value.free_symbols if not x.name.startswith("_")), key=str)
    funcs = {f.func for f in value.atoms(AppliedUndef)}
    mapping: dict[Any, Any] = {}
    by_source = {names.get(p.name, ""): p for p in params}
    for x in own:
        if by_source.get(x.name, params[0]).name.startswith("F"):
            raise LatexUnparsed("informal formula leaves function application ambiguous")
        if x.name in by_source:
            mapping[x] = by_source[x.name]
        elif len(own) == 1 and len(params) == 1:
            mapping[x] = params[0]
        else:
            raise LatexUnparsed("informal formula does not match the function's arguments")
    body = value.xreplace(mapping)
    for f in funcs:
        p = by_source.get(str(f))
        if p is None:
            raise LatexUnparsed("informal formula uses an unknown function")
        body = body.replace(f, sp.Function(p.name))
    for p in reversed(params):
        body = sp.Lambda((p,), body)
    return body


def _nest(items: list[Any], t: Ty) -> Any:
    if t.head != "Prod":
        return items.pop(0)
    first = _nest(items, t.args[0])
    return sp.Tuple(first, _nest(items, t.args[1]))


def parse_any(text: str, ref: Reference, intros: list | None, deadline: float) -> tuple[str, Any]:
    """Read the informal answer as a Lean term if it is one, else as LaTeX: (reader, value)."""
    if "\\" not in text and "$" not in text and len(text) < MAX_LATEX:
        try:
            return "lean", parse_submission(text, ref.ty, intros, deadline)
        except (ValueError, TypeError, KeyError, IndexError, AssertionError, TooLarge, RecursionError):
            pass
    value = parse_informal(text, ref.ty)
    syms: set[Any] = set()
    for v in ref.values:
        syms |= getattr(v, "free_symbols", set())
    return "latex", _rename(value, syms, ref.ty)


def compare_informal(text: str, ref: Reference, deadline: float,
                     intros: list | None = None) -> tuple[str, Any, Outcome]:
    """Parse ``text`` and compare it with the reference: (reader, parsed value, outcome)."""
    reader, value = parse_any(text, ref, intros, deadline)
    cmp = Comparer(deadline, nat_min=2)
    names = ref.source_names
    if ref.kind == "alternatives":
        if isinstance(value, sp.FiniteSet):
            value = sp.FiniteSet(*[fit(v, ref.ty, ref.values[0], names) for v in value])
            return reader, value, compare_sets(cmp, value, sp.FiniteSet(*ref.values), ref.ty)
        outs = [cmp.compare(fit(value, ref.ty, v, names), v, ref.ty) for v in ref.values]
        hit = next((o for o in outs if o.equal), None)
        if hit is not None:
            return reader, value, hit
        if all(o.equal is False for o in outs):
            return reader, value, no(outs[0].method, "matches none of the alternatives")
        return reader, value, unknown("undecided against the alternatives")
    if ref.kind != "value":
        return reader, value, unknown(f"reference of kind {ref.kind} is not compared informally")
    ref_value = ref.values[0]
    fitted = fit(value, ref.ty, ref_value, names)
    return reader, fitted, cmp.compare(fitted, ref_value, ref.ty)
