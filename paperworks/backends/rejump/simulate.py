"""Recorded candidate traces at scale: seeded Game-of-24 searchers whose every move is logged as a ReJump
walk, with the trace text rendered from the same moves (so the tree and walk are exact, not extracted).

This is this project's stand-in for the paper's sampled LLM traces (reconstructed, not the authors' data): a
searcher descends by random operations to a leaf (one number), checks it, and on failure backtracks — to the
root with probability ``restart`` (a far jump), else to the depth-1 node of its current line (a near jump) —
until it has tried ``budget`` leaves. A correct leaf may be verified (leaf → root → leaf, as the authors'
"general check"), and an overthinking searcher keeps exploring after it. Its answer is the correct leaf it
found, else the last leaf it tried.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from paperworks.backends.rejump.tree import BACK, CALC, VERIFY, Node, ReJump, Step


@dataclass(frozen=True)
class Style:
    """How a simulated searcher explores."""

    name: str
    restart: float
    """Probability that a failed leaf sends it back to the root rather than to its depth-1 node."""
    budget: int
    """Leaves it tries at most."""
    verify: float = 0.0
    """Probability that it verifies a correct leaf."""
    overthink: float = 0.0
    """Probability that it keeps exploring after a correct (verified or not) leaf."""
    skill: float = 0.3
    """Probability that a move keeps 24 reachable (when one does), else the move is random."""


STYLES = {
    "linear": Style("linear", restart=0.0, budget=1),
    "local backtracking": Style("local backtracking", restart=0.0, budget=6),
    "explorer (restarts)": Style("explorer (restarts)", restart=1.0, budget=6),
    "verifier": Style("verifier", restart=0.5, budget=6, verify=1.0),
    "overthinker": Style("overthinker", restart=0.5, budget=6, verify=0.5, overthink=0.8),
}
"""Contrasting trace styles for the metric distributions."""


@dataclass
class Candidate:
    """One recorded trace: its ReJump, its text, its final answer and whether that answer is right."""

    rejump: ReJump
    text: str
    answer: str
    correct: bool
    style: str


def _fmt(items: list[tuple[Fraction, str]]) -> str:
    return ", ".join(e for _, e in items)


def simulate24(numbers: list[int], style: Style, rng: random.Random) -> Candidate:
    """One searcher's trace on ``numbers`` (see the module docstring)."""
    nodes: dict[str, Node] = {}
    by_problem: dict[str, str] = {}
    states: dict[str, list[tuple[Fraction, str]]] = {}

    def node_for(items: list[tuple[Fraction, str]], parent: str | None) -> str:
        problem = _fmt(items)
        key = f"{parent}|{problem}"
        if key not in by_problem:
            nid = f"node{len(nodes) + 1}"
            result = str(items[0][0]) if len(items) == 1 else None
            nodes[nid] = Node(nid, problem, parent, result)
            by_problem[key] = nid
            states[nid] = items
        return by_problem[key]

    root = node_for([(Fraction(n), str(n)) for n in numbers], None)
    walk: list[Step] = []
    lines = [f"We need 24 from {', '.join(map(str, numbers))}."]
    cur, leaves, found = root, 0, None
    last = root
    while leaves < style.budget:
        while len(states[cur]) > 1:
            items = states[cur]
            moves = []
            for i in range(len(items)):
                for j in range(len(items)):
                    if i == j:
                        continue
                    (x, ex), (y, ey) = items[i], items[j]
                    options = [(x - y, f"{ex}-{ey}")] + ([(x / y, f"{ex}/{ey}")] if y != 0 else [])
                    if i < j:
                        options += [(x + y, f"{ex}+{ey}"), (x * y, f"{ex}*{ey}")]
                    rest = [items[k] for k in range(len(items)) if k not in (i, j)]
                    for value, expr in options:
                        moves.append(([*rest, (value, f"({expr})" if rest else expr)], expr, value))
            fresh = [m for m in moves if f"{cur}|{_fmt(m[0])}" not in by_problem]
            pool = fresh or moves
            good = [m for m in pool if _solvable(tuple(sorted(v for v, _ in m[0])))]
            new, expr, value = rng.choice(good if good and rng.random() < style.skill else pool)
            child = node_for(new, cur)
            walk.append(Step(cur, child, CALC))
            lines.append(f"Compute {expr} = {value}; left: {_fmt(new)}.")
            cur = child
        leaves += 1
        last = cur
        value, expr = states[cur][0]
        ok = value == 24
        lines.append(f"So {expr} = {value}" + (" = 24. Found it." if ok else ", not 24."))
        if ok:
            found = found or cur
            if rng.random() < style.verify:
                walk += [Step(cur, root, VERIFY), Step(root, cur, VERIFY)]
                lines.append(f"Check: {expr} uses {', '.join(map(str, numbers))} once each and equals 24.")
            if not (rng.random() < style.overthink and leaves < style.budget):
                break
            lines.append("Let me look for another way.")
        if leaves >= style.budget:
            break
        target = root if rng.random() < style.restart or nodes[cur].parent == root else _depth1(nodes, cur)
        walk.append(Step(cur, target, BACK))
        lines.append("Start over from the four numbers." if target == root else
                     f"Go back to {nodes[target].problem} and try something else.")
        cur = target
    answer_node = found or last
    expr = states[answer_node][0][1]
    lines.append(f"Answer: {expr}")
    rj = ReJump(nodes, walk)
    rj.validate()
    return Candidate(rj, "\n".join(lines), expr, found is not None, style.name)


@lru_cache(maxsize=100_000)
def _solvable(values: tuple[Fraction, ...]) -> bool:
    """Whether 24 can still be made from ``values``."""
    if len(values) == 1:
        return values[0] == 24
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            x, y = values[i], values[j]
            rest = [values[k] for k in range(len(values)) if k not in (i, j)]
            outs = [x + y, x - y, y - x, x * y] + ([x / y] if y else []) + ([y / x] if x else [])
            if any(_solvable(tuple(sorted([*rest, v]))) for v in outs):
                return True
    return False


def is_solvable(numbers: list[int]) -> bool:
    """Whether ``numbers`` can make 24 (exact arithmetic; shares the simulator's cache)."""
    return _solvable(tuple(sorted(Fraction(n) for n in numbers)))


def _depth1(nodes: dict[str, Node], nid: str) -> str:
    """The ancestor of ``nid`` one below the root."""
    cur = nid
    while True:
        parent = nodes[cur].parent
        assert parent is not None
        if nodes[parent].parent is None:
            return cur
        cur = parent


def random_style(rng: random.Random) -> Style:
    """A searcher drawn from the mixture used for Best-of-N candidates."""
    return Style("mixed", restart=rng.random(), budget=rng.randint(2, 6), verify=rng.random() * 0.5,
                 skill=rng.random() * 0.6)
