"""SymPy pieces for Lean's semantics, and size and time guards so that no operation can run away.
Layer: the SymPy base under elaborate and compare (imports nothing of the checker).

- ``NatDiv(a, b)``: ℕ division, ``⌊a / b⌋`` with ``a / 0 = 0``. ``IntDiv``: ℤ division as Lean's
  ``Int.ediv`` (``/`` on ℤ since 2023): ``sign(b)·⌊a / |b|⌋``, ``a / 0 = 0``. ``LeanMod``: ``%`` on ℕ
  and ℤ (``Int.emod``): always in ``[0, |b|)``, ``a % 0 = a``. ℕ subtraction is ``Max(a - b, 0)``.
- ``IsPrime(n)``: ``Nat.Prime``. ``LEq(a, b)``: equality of non-numbers (tuples, sets, functions),
  true when structurally equal. ``Quant(kind, vars, body)``: an uninterpreted ``∃``/``∀``.
  ``Opaque(name, args)``: a value we name but do not interpret.
- Guards: :func:`guarded_pow` and :func:`guarded_factorial` refuse results above ``MAX_BITS`` bits;
  :func:`safe_subs` substitutes values bottom-up with the same guards, so sampling
  ``fun n => 2 ^ 2 ^ n`` at ``n = 40`` raises :class:`TooLarge` instead of hanging. Time:
  :func:`check_deadline` between steps, :func:`time_limit` (a timer signal) around one SymPy call.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import BooleanFunction

MAX_BITS = 300_000
MAX_FACTORIAL = 20_000


class TooLarge(ValueError):
    """A value would be too large to compute exactly (or the time budget ran out)."""


class Inv0(sp.Function):
    """``b⁻¹`` in a field with Lean's ``0⁻¹ = 0``, for a symbolic ``b``: opaque to SymPy's cancelling,
    so ``x / x`` stays ``x * Inv0(x)`` (0 at ``x = 0``, as in Lean) instead of becoming 1."""

    @classmethod
    def eval(cls, b: Any) -> Any:
        if b.is_number:
            return sp.Integer(0) if b.is_zero else 1 / b
        return None


class NatDiv(sp.Function):
    """``a / b`` on ℕ: floor division, and ``a / 0 = 0``."""

    is_integer = True

    @classmethod
    def eval(cls, a: Any, b: Any) -> Any:
        if a.is_Integer and b.is_Integer:
            return sp.Integer(0) if b == 0 else sp.Integer(int(a) // int(b))
        if b == 1:
            return a
        return None


class IntDiv(sp.Function):
    """``a / b`` on ℤ (``Int.ediv``): ``sign(b)·⌊a/|b|⌋``, and ``a / 0 = 0``."""

    is_integer = True

    @classmethod
    def eval(cls, a: Any, b: Any) -> Any:
        if a.is_Integer and b.is_Integer:
            ia, ib = int(a), int(b)
            if ib == 0:
                return sp.Integer(0)
            q = ia // abs(ib)
            return sp.Integer(q if ib > 0 else -q)
        if b == 1:
            return a
        return None


class LeanMod(sp.Function):
    """``a % b`` on ℕ and ℤ (``Int.emod``): in ``[0, |b|)``; ``a % 0 = a``."""

    is_integer = True

    @classmethod
    def eval(cls, a: Any, b: Any) -> Any:
        if a.is_Integer and b.is_Integer:
            ia, ib = int(a), int(b)
            return a if ib == 0 else sp.Integer(ia % abs(ib))
        return None


class IsPrime(BooleanFunction):
    """``Nat.Prime n``."""

    @classmethod
    def eval(cls, n: Any) -> Any:
        if n.is_Integer:
            if abs(int(n)).bit_length() > 256:
                return None
            return sp.true if sp.isprime(int(n)) else sp.false
        return None


class LEq(BooleanFunction):
    """Equality of values that are not numbers: true when both sides are the same tree."""

    @classmethod
    def eval(cls, a: Any, b: Any) -> Any:
        if a == b:
            return sp.true
        return None


class Quant(BooleanFunction):
    """An uninterpreted quantifier: ``Quant(Symbol('exists'|'forall'), Tuple(vars), body)``."""

    @classmethod
    def eval(cls, kind: Any, variables: Any, body: Any) -> Any:
        if body in (sp.true, sp.false):
            return body
        if isinstance(body, Quant) and body.args[0] == kind:  # ∃ a, ∃ b, p  is  ∃ a b, p
            return Quant(kind, sp.Tuple(*variables, *body.args[1]), body.args[2])
        return None


class Mem(BooleanFunction):
    """Uninterpreted membership ``a ∈ s`` where ``s`` is an unknown set (a bound variable)."""


class Opaque(sp.Function):
    """A Lean value that is named but not interpreted: ``Opaque(Symbol(name), *args)``."""


def bits(value: Any) -> int:
    """Bit size of an exact rational (numerator plus denominator), 0 for anything else."""
    if isinstance(value, sp.Rational):
        return int(value.p).bit_length() + int(value.q).bit_length()
    return 0


def guarded_pow(base: Any, exp: Any) -> Any:
    """``base ** exp``, refusing exact results beyond ``MAX_BITS`` bits."""
    if exp.is_Integer and isinstance(base, sp.Rational):
        e = abs(int(exp)) if abs(exp) < 10**12 else None
        b = bits(base)
        if abs(base) not in (0, 1) and (e is None or b * e > MAX_BITS):
            raise TooLarge(f"power {_short(base)}^{_short(exp)} too large")
    elif exp.is_Integer and abs(exp) > 10**6 and base.is_number:
        raise TooLarge(f"exponent {_short(exp)} too large")
    elif exp.is_Rational and not exp.is_Integer and isinstance(base, sp.Rational):
        if bits(base) > MAX_BITS or int(exp.q).bit_length() > 64:
            raise TooLarge("root too large")
    return sp.Pow(base, exp)


def guarded_factorial(n: Any) -> Any:
    """``n!``, refusing ``n`` above ``MAX_FACTORIAL``."""
    if n.is_Integer and int(n) > MAX_FACTORIAL:
        raise TooLarge(f"factorial of {_short(n)} too large")
    return sp.factorial(n)


def guarded_binomial(n: Any, k: Any) -> Any:
    """``Nat.choose n k`` with the same bound on ``n``."""
    if n.is_Integer and int(n) > 20 * MAX_FACTORIAL:
        raise TooLarge("binomial too large")
    return sp.binomial(n, k)


def _short(x: Any) -> str:
    try:
        s = str(x)
    except ValueError:  # an integer beyond Python's str() digit limit
        return "a very large number"
    return s if len(s) < 30 else s[:12] + "…" + s[-6:]


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`TooLarge` once ``time.monotonic()`` passes ``deadline``."""
    if deadline is not None and time.monotonic() > deadline:
        raise TooLarge("time budget exhausted")


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TooLarge` inside the block after ``seconds`` (main thread only; else no limit)."""
    usable = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not usable or seconds <= 0:
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise TooLarge("step timed out")

    old = signal.signal(signal.SIGALRM, on_alarm)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    if outer and outer < seconds:  # an enclosing limit comes first: keep it
        signal.setitimer(signal.ITIMER_REAL, outer)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 0.001))


def safe_subs(expr: Any, mapping: dict[Any, Any], deadline: float | None = None) -> Any:
    """Substitute ``mapping`` into ``expr`` bottom-up, with the power and factorial guards."""
    memo: dict[Any, Any] = {}

    def go(e: Any) -> Any:
        if e in mapping:
            return mapping[e]
        if isinstance(e, AppliedUndef) and e.func in mapping:
            return mapping[e.func](*[go(a) for a in e.args])
        if not e.args or isinstance(e, sp.Symbol):
            return e
        got = memo.get(e)
        if got is not None:
            return got
        check_deadline(deadline)
        if isinstance(e, sp.Lambda | sp.ConditionSet | sp.Sum | sp.Product | Quant):
            out = e.xreplace(mapping)  # bound names are canonical and never clash with free ones
            memo[e] = out
            return out
        args = [go(a) for a in e.args]
        if isinstance(e, sp.Pow):
            out = guarded_pow(args[0], args[1])
        elif isinstance(e, sp.factorial):
            out = guarded_factorial(args[0])
        elif isinstance(e, sp.binomial):
            out = guarded_binomial(args[0], args[1])
        elif isinstance(e, sp.Mul | sp.Add) and sum(bits(a) for a in args) > 4 * MAX_BITS:
            raise TooLarge("product too large")
        else:
            out = e.func(*args)
        memo[e] = out
        return out

    return go(expr)


def to_complex(value: Any, digits: int = 30) -> complex | None:
    """A number's value as a Python complex (None when it is not a finite number)."""
    try:
        if isinstance(value, sp.Sum | sp.Product):
            value = value.doit()
        v = sp.N(value, digits)
        if not v.is_number or v.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            return None
        c = complex(v)
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    if math.isnan(c.real) or math.isnan(c.imag) or math.isinf(c.real) or math.isinf(c.imag):
        return None
    return c
