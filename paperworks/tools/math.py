"""A safe arithmetic and algebra evaluator: Python's ``ast`` parses, a whitelist builds SymPy
objects. Nothing is ever ``eval``-ed, and sizes are bounded so that ``9**9**9`` cannot hang a run.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from paperworks.tools.base import ToolError, tool

MAX_EXPONENT = 10_000
MAX_FACTORIAL = 5_000
MAX_DIGITS = 5_000
MAX_LENGTH = 2_000


def _functions() -> dict[str, Callable[..., Any]]:
    import sympy as sp

    return {
        "sqrt": sp.sqrt, "cbrt": sp.cbrt, "root": sp.root, "exp": sp.exp, "log": sp.log, "ln": sp.log,
        "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
        "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "abs": sp.Abs, "floor": sp.floor,
        "ceil": sp.ceiling, "ceiling": sp.ceiling, "round": lambda x, n=0: sp.Float(round(float(x), int(n))),
        "factorial": sp.factorial, "binomial": sp.binomial, "gcd": sp.gcd, "lcm": sp.lcm,
        "min": sp.Min, "max": sp.Max, "Rational": sp.Rational, "mod": sp.Mod,
        "simplify": sp.simplify, "expand": sp.expand, "factor": sp.factor,
    }


def _constants() -> dict[str, Any]:
    import sympy as sp

    return {"pi": sp.pi, "e": sp.E, "E": sp.E, "I": sp.I, "oo": sp.oo, "inf": sp.oo}


def _check_size(value: Any) -> Any:
    import sympy as sp

    if isinstance(value, sp.Integer) and abs(int(value)).bit_length() > MAX_DIGITS * 3.33:
        raise ToolError(f"result has more than {MAX_DIGITS} digits")
    return value


def _pow(base: Any, exponent: Any) -> Any:
    import sympy as sp

    if exponent.is_number and exponent.is_real and abs(float(exponent)) > MAX_EXPONENT:
        raise ToolError(f"exponent {exponent} is larger than {MAX_EXPONENT}")
    if base.is_Integer and exponent.is_Integer and abs(int(base)) > 1:
        digits = float(exponent) * len(str(abs(int(base))))
        if digits > MAX_DIGITS:
            raise ToolError(f"result would have more than {MAX_DIGITS} digits")
    return sp.Pow(base, exponent)


_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Pow: _pow, ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv,
}


def evaluate(expression: str) -> Any:
    """Parse and evaluate ``expression`` into a SymPy object. Raises ``ToolError`` on anything unsafe."""
    import sympy as sp

    if len(expression) > MAX_LENGTH:
        raise ToolError(f"expression longer than {MAX_LENGTH} characters")
    text = expression.strip().replace("^", "**").replace("×", "*").replace("÷", "/")
    text = text.replace(",", "") if _looks_like_grouped_number(text) else text
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"cannot parse '{expression}': {exc.msg} at column {exc.offset}") from exc
    functions, constants = _functions(), _constants()

    def build(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return build(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(
            node.value, bool
        ):
            return sp.Integer(node.value) if isinstance(node.value, int) else sp.Rational(str(node.value))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _check_size(_BINARY[type(node.op)](build(node.left), build(node.right)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = build(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Name):
            if node.id in constants:
                return constants[node.id]
            if len(node.id) <= 3 and node.id.isidentifier():
                return sp.Symbol(node.id)
            raise ToolError(f"unknown name '{node.id}'")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            name = node.func.id
            if name not in functions:
                raise ToolError(f"unknown function '{name}'; known: {', '.join(sorted(functions))}")
            args = [build(a) for a in node.args]
            if name == "factorial" and args and args[0].is_number and float(args[0]) > MAX_FACTORIAL:
                raise ToolError(f"factorial argument larger than {MAX_FACTORIAL}")
            return _check_size(functions[name](*args))
        raise ToolError(f"unsupported syntax '{ast.unparse(node)}' in '{expression}'")

    try:
        return build(tree)
    except ToolError:
        raise
    except (ZeroDivisionError, TypeError, ValueError, ArithmeticError) as exc:
        raise ToolError(f"cannot evaluate '{expression}': {exc}") from exc


def _looks_like_grouped_number(text: str) -> bool:
    """True for thousands separators like ``1,234,567`` (and no function call with commas)."""
    import re

    return "(" not in text and bool(re.search(r"\d,\d{3}(?!\d)", text))


def format_result(value: Any) -> str:
    """Exact value, with a decimal approximation when the exact form is not an integer."""
    import sympy as sp

    if value is sp.zoo or value is sp.nan:
        raise ToolError("result is undefined (division by zero?)")
    exact = str(value)
    if getattr(value, "is_Integer", False) or not getattr(value, "is_number", False):
        return exact
    approx = sp.N(value, 15)
    approx_text = str(approx)
    if "." in approx_text and "e" not in approx_text.lower():
        approx_text = approx_text.rstrip("0").rstrip(".")
    return exact if approx_text == exact else f"{exact} ≈ {approx_text}"


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic or algebraic expression exactly and return the result.

    Args:
        expression: the arithmetic to evaluate, written with the problem's own numbers in Python
            syntax (+ - * / ** %, parentheses, sqrt, round, factor, ...).
    """
    return format_result(evaluate(expression))
