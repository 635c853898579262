"""ReJump's metrics of one tree and walk, and the similarity of two.

Checked number for number against the authors' code (UW-Madison-Lee-Lab/ReJump: ``rejump_extractor/
tree_vis_game24.py`` for the per-trace metrics, ``compare_tree.py`` for the similarities); the hand-worked
cases are in ``tests/backends/test_rejump_authors_defs.py``. The definitions, as there:

- visit sequence: the first step's ``from``, then every step's ``to`` (a step whose ``from`` is not where the
  walk stood is followed anyway);
- solution count: leaves of the tree (nodes without children);
- filtered leaf sequence: the leaves in visiting order, dropping a visit of the leaf last kept when every
  step from that kept visit up to this one (steps ``kept_index … i − 1``) is a verification;
- filtered average jump distance: mean tree distance ``d_u + d_v − 2·d_lca`` between consecutive filtered
  leaves (0 with fewer than two; None without a walk);
- success rate: share of filtered leaves that are correct (0 when none was visited); overthinking: filtered
  leaves after the first correct one over all filtered leaves (0 when none is correct);
- forgetting: 1 when calculation steps ≥ nodes, else 0; verification rate: verification steps / steps;
- tree similarity: 1 − tree edit distance / larger node count (Zhang–Shasha, unit insert/delete; a relabel
  costs 1 when either Problem text is empty, else 0 — so two empty labels still cost 1, as the authors'
  ``get_distance``); walk similarity: 1 − mean over the three rows of the base-2 Jensen–Shannon divergence of
  the 3×3 category→category transition matrices of consecutive steps (each row smoothed by 1e-9).

Where ours differs from theirs, :data:`DEFINITION_DIFFERENCES` says how and why (the repro records it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from paperworks.backends.rejump.tree import BACK, CALC, CATEGORIES, VERIFY, Node, ReJump, Step

Judge = Callable[[Node], bool]
"""Whether a leaf is a correct solution."""

SMOOTHING = 1e-9

DEFINITION_DIFFERENCES: list[dict[str, str]] = [
    {"metric": "step categories (all walk counts and rates)",
     "authors": "only the three exact labels count; any other label is silently left out of every count, "
                "of the transition matrix, and breaks a verification-only run in the leaf filter",
     "ours": "labels are matched case-insensitively with short aliases (calculation, derivation, verify, "
             "backtrack); any other label makes the extraction invalid",
     "reason": "small extractor models write variants; an unknown label is reported as an invalid extraction "
               "(counted in the validity rate) rather than quietly changing the rates"},
    {"metric": "malformed trees and walks (all metrics)",
     "authors": "warn and go on: walk nodes missing from the tree are never leaves, a jump whose distance "
                "cannot be computed adds 0 but still counts in the denominator, unreachable nodes count "
                "toward the node total",
     "ours": "two roots, a cycle, a missing parent or a walk step naming an unknown node reject the whole "
             "extraction",
     "reason": "a metric computed on a partly broken tree is not comparable; validity is reported instead. "
               "On valid trees and walks the numbers are identical"},
    {"metric": "walk node names",
     "authors": "a walk names tree ids exactly",
     "ours": "a walk may name 'node3' as '3' (and the reverse) when only one of them is a tree id",
     "reason": "leniency toward small extractors; no effect on data in the authors' format"},
    {"metric": "success rate / overthinking (Game of 24 judge)",
     "authors": "a leaf is correct when Python's eval of its Problem (text before any '=') equals 24 in "
                "floating point; the numbers used are not checked",
     "ours": "exact rational arithmetic, and the expression must use exactly the problem's four numbers "
             "(Problem, else Result)",
     "reason": "floating point marks e.g. 8/(3-8/3) wrong, and an unchecked '6*4' would count as a solution "
               "to any problem; the simulated traces only build expressions from the problem's numbers, so "
               "only the exact arithmetic can change a judgement there"},
    {"metric": "success rate / overthinking without a judge",
     "authors": "always judged (every dataset has a checker)",
     "ours": "None when no judge is given (e.g. a trace without a known answer)",
     "reason": "no judge, no rate; 0 would read as 'all wrong'"},
    {"metric": "tree similarity",
     "authors": "zss.simple_distance under a 2-second alarm (None on timeout); nodes without a Problem key "
                "are skipped; the root must have parent exactly 'none'",
     "ours": "the same Zhang–Shasha distance computed here without a time limit; a node without Problem has "
             "an empty label (relabel cost 1); null, '', 'none', 'None' all mark the root",
     "reason": "no dependency on zss or on wall-clock time; the recursion-free implementation is checked "
               "against the recursive definition in tests"},
    {"metric": "Best-of-N selection",
     "authors": "no selection code in the repository (rejump_extractor/, analysis/ searched); the paper "
                "selects by jump distance",
     "ours": "the candidate with the largest filtered jump distance; ties to the earliest candidate (random "
             "order); a trace without a walk scores -inf; baseline = expected accuracy of a uniform pick",
     "reason": "tie-breaking and the baseline are not specified by the authors; these are the neutral "
               "choices"},
]
"""How and why this module (and the selection in ``bestofn``) differs from the authors' code."""


@dataclass
class Metrics:
    """One trace's ReJump metrics. Rates that need a judge are None without one."""

    n_nodes: int
    n_steps: int
    solution_count: int
    jump_distance: float | None
    success_rate: float | None
    overthinking: float | None
    forgetting: int
    verification_rate: float
    calculation_steps: int
    verification_steps: int
    backtracking_steps: int
    filtered_leaves: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def filtered_leaf_visits(rj: ReJump) -> list[str]:
    """Leaves in visiting order; a visit of the leaf last kept is dropped when all steps between are
    verifications (visit ``i`` of the sequence is reached by step ``i − 1``)."""
    seq = rj.visits()
    kept: list[tuple[str, int]] = []
    for i, node in enumerate(seq):
        if node not in rj.leaves:
            continue
        if kept and kept[-1][0] == node and all(rj.walk[k].category == VERIFY for k in range(kept[-1][1], i)):
            continue
        kept.append((node, i))
    return [n for n, _ in kept]


def jump_distance(rj: ReJump, leaves: list[str] | None = None) -> float | None:
    """Filtered average jump distance (None without a walk, 0 with fewer than two filtered leaves)."""
    if not rj.walk:
        return None
    seq = filtered_leaf_visits(rj) if leaves is None else leaves
    if len(seq) < 2:
        return 0.0
    return sum(rj.distance(u, v) for u, v in zip(seq, seq[1:], strict=False)) / (len(seq) - 1)


def compute_metrics(rj: ReJump, judge: Judge | None = None) -> Metrics:
    """Every per-trace metric of ``rj``; ``judge`` says which leaves are correct."""
    leaves = filtered_leaf_visits(rj)
    counts = {c: sum(1 for s in rj.walk if s.category == c) for c in CATEGORIES}
    success = over = None
    if judge is not None:
        marks = [bool(judge(rj.nodes[n])) for n in leaves]
        success = sum(marks) / len(marks) if marks else 0.0
        first = marks.index(True) if any(marks) else None
        over = (len(marks) - first - 1) / len(marks) if first is not None else 0.0
    return Metrics(n_nodes=len(rj.nodes), n_steps=len(rj.walk), solution_count=len(rj.leaves),
                   jump_distance=jump_distance(rj, leaves), success_rate=success, overthinking=over,
                   forgetting=int(counts[CALC] >= len(rj.nodes)),
                   verification_rate=counts[VERIFY] / len(rj.walk) if rj.walk else 0.0,
                   calculation_steps=counts[CALC], verification_steps=counts[VERIFY],
                   backtracking_steps=counts[BACK], filtered_leaves=leaves)


# -- similarity -----------------------------------------------------------------
def default_label_dist(a: str, b: str) -> int:
    """The authors' relabel cost: 1 when either label is empty, else 0 (structure is compared)."""
    return 1 if a == "" or b == "" else 0


def _postorder(rj: ReJump) -> tuple[list[str], list[int], list[str]]:
    """Post-order labels, leftmost-leaf index of each node, and node ids (Zhang–Shasha's l())."""
    labels: list[str] = []
    lml: list[int] = []
    ids: list[str] = []
    leftmost: dict[str, int] = {}  # node -> post-order index of its leftmost leaf
    stack: list[tuple[str, bool]] = [(rj.root, False)]  # iterative: a deep chain must not hit the recursion limit
    while stack:
        n, expanded = stack.pop()
        kids = rj.children[n]
        if not expanded:
            stack.append((n, True))
            stack.extend((c, False) for c in reversed(kids))
            continue
        idx = len(labels)
        labels.append(rj.nodes[n].problem)
        ids.append(n)
        lml.append(leftmost[kids[0]] if kids else idx)
        leftmost[n] = lml[-1]
    return labels, lml, ids


def tree_edit_distance(a: ReJump, b: ReJump, label_dist: Callable[[str, str], float] = default_label_dist) -> float:
    """Zhang–Shasha ordered tree edit distance, unit insert/delete costs and ``label_dist`` relabels."""
    la, ll_a, _ = _postorder(a)
    lb, ll_b, _ = _postorder(b)
    n, m = len(la), len(lb)
    keys_a = sorted({li: i for i, li in enumerate(ll_a)}.values())  # keyroots: the highest node per leftmost leaf
    keys_b = sorted({lj: j for j, lj in enumerate(ll_b)}.values())
    td = [[0.0] * m for _ in range(n)]
    for i in keys_a:
        for j in keys_b:
            li, lj = ll_a[i], ll_b[j]
            rows, cols = i - li + 2, j - lj + 2
            fd = [[0.0] * cols for _ in range(rows)]
            for x in range(1, rows):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, cols):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, rows):
                for y in range(1, cols):
                    ia, jb = li + x - 1, lj + y - 1
                    if ll_a[ia] == li and ll_b[jb] == lj:
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[x - 1][y - 1] + label_dist(la[ia], lb[jb]))
                        td[ia][jb] = fd[x][y]
                    else:
                        p, q = ll_a[ia] - li, ll_b[jb] - lj
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1, fd[p][q] + td[ia][jb])
    return td[n - 1][m - 1]


def tree_similarity(a: ReJump, b: ReJump, label_dist: Callable[[str, str], float] = default_label_dist) -> float:
    """1 − tree edit distance / the larger node count."""
    return 1.0 - tree_edit_distance(a, b, label_dist) / max(len(a.nodes), len(b.nodes))


def transition_matrix(walk: list[Step]) -> list[list[float]]:
    """Rows: the category of step ``i``; columns: of step ``i + 1``; smoothed so each row sums to 1."""
    idx = {c: i for i, c in enumerate(CATEGORIES)}
    counts = [[0.0] * 3 for _ in range(3)]
    for s, t in zip(walk, walk[1:], strict=False):
        counts[idx[s.category]][idx[t.category]] += 1
    return [[(c + SMOOTHING) / (sum(row) + 3 * SMOOTHING) for c in row] for row in counts]


def js_divergence(p: list[float], q: list[float]) -> float:
    """Jensen–Shannon divergence in bits (in [0, 1])."""
    m = [(x + y) / 2 for x, y in zip(p, q, strict=True)]

    def kl(a: list[float]) -> float:
        return sum(x * math.log2(x / z) for x, z in zip(a, m, strict=True) if x > 0)

    return max(0.0, (kl(p) + kl(q)) / 2)


def walk_similarity(a: ReJump | list[Step], b: ReJump | list[Step]) -> float:
    """1 − the mean over the three rows of the JS divergence of the two walks' transition matrices."""
    wa = a.walk if isinstance(a, ReJump) else a
    wb = b.walk if isinstance(b, ReJump) else b
    pa, pb = transition_matrix(wa), transition_matrix(wb)
    return 1.0 - sum(js_divergence(x, y) for x, y in zip(pa, pb, strict=True)) / 3
