"""Verifiable tasks generated here, with the checkers that judge a tree's leaves:

- Game of 24: four numbers 1–13, reach 24 with + − × ÷ (each number once); :func:`solve24` finds every
  solution by exhaustive search (exact fractions), :func:`check24` checks an expression;
- 5×5 Sudoku: a 5×5 Latin square (each of 1–5 once per row and column; a 5×5 grid has no 2-D boxes, so the
  authors' "Latin Square" rule is the whole constraint), :func:`make_sudoku` removes cells while the solution
  stays unique, :func:`check_sudoku` checks a filled grid against the givens;
- a MATH-style arithmetic set: nested integer expressions with their value (:func:`make_arithmetic`).
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from paperworks.backends.rejump.tree import Node

Judge = Callable[[Node], bool]

# -- Game of 24 -----------------------------------------------------------------
_OPS = ("+", "-", "*", "/")


def _combine(a: tuple[Fraction, str], b: tuple[Fraction, str]) -> list[tuple[Fraction, str]]:
    (x, ex), (y, ey) = a, b
    out = [(x + y, f"({ex}+{ey})"), (x - y, f"({ex}-{ey})"), (y - x, f"({ey}-{ex})"), (x * y, f"({ex}*{ey})")]
    if y != 0:
        out.append((x / y, f"({ex}/{ey})"))
    if x != 0:
        out.append((y / x, f"({ey}/{ex})"))
    return out


def solve24(numbers: list[int], target: int = 24, first_only: bool = False) -> list[str]:
    """Every expression (as found, fully bracketed) that makes ``target`` from ``numbers``."""
    found: list[str] = []

    def rec(items: list[tuple[Fraction, str]]) -> bool:
        if len(items) == 1:
            if items[0][0] == target:
                found.append(items[0][1][1:-1] if items[0][1].startswith("(") else items[0][1])
                return first_only
            return False
        for i, j in itertools.combinations(range(len(items)), 2):
            rest = [items[k] for k in range(len(items)) if k not in (i, j)]
            for value in _combine(items[i], items[j]):
                if rec([*rest, value]):
                    return True
        return False

    rec([(Fraction(n), str(n)) for n in numbers])
    return list(dict.fromkeys(found))


def _eval_node(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _eval_node(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval_node(node.operand)
    if isinstance(node, ast.BinOp):
        a, b = _eval_node(node.left), _eval_node(node.right)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise ZeroDivisionError("division by zero")
            return a / b
    raise ValueError("not an arithmetic expression")


def evaluate(expression: str) -> Fraction | None:
    """The exact value of an integer arithmetic expression (``×``, ``÷`` accepted), None if it is not one."""
    text = expression.replace("×", "*").replace("÷", "/").replace("x", "*").strip()
    text = text.split("=")[0]
    try:
        return _eval_node(ast.parse(text, mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def check24(expression: str, numbers: list[int], target: int = 24) -> bool:
    """``expression`` uses exactly ``numbers`` (each once) and equals ``target``."""
    used = sorted(int(t) for t in re.findall(r"\d+", expression.split("=")[0]))
    return used == sorted(numbers) and evaluate(expression) == target


def make_game24(n: int, seed: int = 0, solvable: bool = True) -> list[list[int]]:
    """``n`` distinct problems of four numbers 1–13 (solvable ones only unless ``solvable`` is False)."""
    rng = random.Random(seed)
    out: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    while len(out) < n:
        nums = sorted(rng.randint(1, 13) for _ in range(4))
        if tuple(nums) in seen or (solvable and not solve24(nums, first_only=True)):
            continue
        seen.add(tuple(nums))
        out.append(nums)
    return out


# -- 5×5 Sudoku (Latin square) ----------------------------------------------------
Grid = list[list[int]]


def _solutions(grid: Grid, limit: int = 2) -> list[Grid]:
    size = len(grid)
    g = [row[:] for row in grid]
    found: list[Grid] = []

    def rec() -> bool:
        for r in range(size):
            for c in range(size):
                if g[r][c] == 0:
                    for v in range(1, size + 1):
                        if v not in g[r] and all(g[k][c] != v for k in range(size)):
                            g[r][c] = v
                            if rec():
                                return True
                            g[r][c] = 0
                    return False
        found.append([row[:] for row in g])
        return len(found) >= limit

    rec()
    return found


def solve_sudoku(puzzle: Grid) -> Grid | None:
    """The unique solution of a Latin-square puzzle (0 = empty), None if it has none or several."""
    sols = _solutions(puzzle, 2)
    return sols[0] if len(sols) == 1 else None


def make_sudoku(seed: int = 0, size: int = 5, holes: int = 12) -> tuple[Grid, Grid]:
    """``(puzzle, solution)``: a random Latin square with up to ``holes`` cells emptied, still unique."""
    rng = random.Random(seed)
    rows = list(range(size))
    cols = list(range(size))
    syms = list(range(1, size + 1))
    rng.shuffle(rows)
    rng.shuffle(cols)
    rng.shuffle(syms)
    solution = [[syms[(rows[r] + cols[c]) % size] for c in range(size)] for r in range(size)]
    puzzle = [row[:] for row in solution]
    cells = [(r, c) for r in range(size) for c in range(size)]
    rng.shuffle(cells)
    removed = 0
    for r, c in cells:
        if removed >= holes:
            break
        keep = puzzle[r][c]
        puzzle[r][c] = 0
        if len(_solutions(puzzle, 2)) == 1:
            removed += 1
        else:
            puzzle[r][c] = keep
    return puzzle, solution


def parse_grid(text: str, size: int = 5) -> Grid | None:
    """A grid from text: rows of digits (``12345\\n23451...``, spaces/commas/slashes allowed)."""
    digits = re.findall(r"\d", text)
    if len(digits) != size * size:
        return None
    return [[int(d) for d in digits[r * size:(r + 1) * size]] for r in range(size)]


def check_sudoku(grid: Grid | str | None, puzzle: Grid) -> bool:
    """``grid`` is a complete Latin square that keeps every given of ``puzzle``."""
    size = len(puzzle)
    if isinstance(grid, str):
        grid = parse_grid(grid, size)
    if grid is None or len(grid) != size or any(len(row) != size for row in grid):
        return False
    full = set(range(1, size + 1))
    if any(set(row) != full for row in grid) or any({grid[r][c] for r in range(size)} != full
                                                    for c in range(size)):
        return False
    return all(puzzle[r][c] in (0, grid[r][c]) for r in range(size) for c in range(size))


def grid_text(grid: Grid) -> str:
    """Rows of digits separated by ``/``."""
    return "/".join("".join(str(v) for v in row) for row in grid)


# -- MATH-style arithmetic ----------------------------------------------------------
@dataclass(frozen=True)
class ArithmeticProblem:
    question: str
    answer: int


def make_arithmetic(n: int, seed: int = 0, depth: int = 3) -> list[ArithmeticProblem]:
    """``n`` problems "Compute (a op b) op c ..." with integer answers (divisions are exact)."""
    rng = random.Random(seed)
    out: list[ArithmeticProblem] = []
    while len(out) < n:
        expr = str(rng.randint(2, 12))
        for _ in range(depth):
            op = rng.choice(["+", "-", "*", "/"])
            b = rng.randint(2, 9)
            expr = f"({expr} {op} {b})" if op in "+-" else f"{expr} {op} {b}"
        value = evaluate(expr)
        if value is None or value.denominator != 1 or abs(value) > 1000:
            continue
        out.append(ArithmeticProblem(f"Compute {expr}.", int(value)))
    return out


# -- judges ---------------------------------------------------------------------------
def _leaf_text(node: Node) -> str:
    return node.result if node.result else node.problem


def judge_game24(numbers: list[int]) -> Judge:
    """A leaf is correct when its Problem (the full expression, as the authors check) makes 24."""
    return lambda node: check24(node.problem, numbers) or check24(node.result or "", numbers)


def judge_sudoku(puzzle: Grid) -> Judge:
    """A leaf is correct when its Result (else Problem) is a valid completion of ``puzzle``."""
    return lambda node: check_sudoku(_leaf_text(node), puzzle)


def judge_answer(answer: object) -> Judge:
    """A leaf is correct when the last number of its Result (else Problem) equals ``answer``."""
    want = normalise(str(answer))
    return lambda node: want is not None and normalise(_leaf_text(node)) == want


def normalise(text: str) -> str | None:
    """The last number in ``text`` as an exact fraction string (``"1/2"``, ``"-3"``), None without one."""
    found = re.findall(r"-?\d+(?:\.\d+)?(?:/\d+)?", text.replace(",", ""))
    if not found:
        return None
    try:
        return str(Fraction(found[-1]))
    except (ValueError, ZeroDivisionError):
        return None

