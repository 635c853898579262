"""ReJump metrics against the authors' definitions (UW-Madison-Lee-Lab/ReJump, ``rejump_extractor/``), on
small hand-made trees and walks whose expected numbers are worked out by hand below, not by running code.

The tree used by most tests (``_tree``)::

    n1 (depth 0)
    ├── n2 (1)
    │   ├── n3 (2)  leaf
    │   └── n4 (2)  leaf
    └── n5 (1)      leaf

Tree distance is d_u + d_v − 2·d_lca: n3–n4 = 2+2−2·1 = 2, n4–n5 = 2+1−0 = 3, n5–n3 = 1+2−0 = 3.
"""

from __future__ import annotations

import math

import pytest

from paperworks.backends.rejump.bestofn import best_of_n, mean_se, selection_accuracy
from paperworks.backends.rejump.metrics import (
    compute_metrics,
    filtered_leaf_visits,
    jump_distance,
    tree_similarity,
    walk_similarity,
)
from paperworks.backends.rejump.tree import BACK, CALC, VERIFY, Node, ReJump, Step


def _tree(walk: list[tuple[str, str, str]]) -> ReJump:
    nodes = [Node("n1", "1,2,3,4", None), Node("n2", "1+2,3,4", "n1"), Node("n3", "(1+2)*3+4", "n2"),
             Node("n4", "(1+2+3)*4", "n2"), Node("n5", "1*2*3*4", "n1")]
    return ReJump.build(nodes, [Step(a, b, c) for a, b, c in walk])


# Steps 0..10; the visit sequence is [n1, n2, n3, n1, n3, n2, n4, n1, n5, n1, n2, n3] (indices 0..11).
MAIN_WALK = [("n1", "n2", CALC), ("n2", "n3", CALC), ("n3", "n1", VERIFY), ("n1", "n3", VERIFY),
             ("n3", "n2", BACK), ("n2", "n4", CALC), ("n4", "n1", BACK), ("n1", "n5", CALC),
             ("n5", "n1", BACK), ("n1", "n2", CALC), ("n2", "n3", CALC)]


def test_filtered_leaves_and_jump_distance_by_hand() -> None:
    """Leaf visits: n3@2, n3@4, n4@6, n5@8, n3@11. The authors compare a repeat only with the last *kept*
    visit and look at steps kept_index … i−1: for n3@4 these are steps 2 and 3, both verification, so it is
    dropped. n3@11 follows n5 (a different leaf), so it is kept. Filtered: [n3, n4, n5, n3]; jumps 2, 3, 3;
    average 8/3. (Without the filter: [n3, n3, n4, n5, n3], jumps 0, 2, 3, 3, average 2; with the window
    shifted one step back, step 1 (a calculation) would keep n3@4; shifted forward, step 4 (backtracking)
    would.)"""
    rj = _tree(MAIN_WALK)
    assert rj.visits() == ["n1", "n2", "n3", "n1", "n3", "n2", "n4", "n1", "n5", "n1", "n2", "n3"]
    assert filtered_leaf_visits(rj) == ["n3", "n4", "n5", "n3"]
    assert jump_distance(rj) == pytest.approx(8 / 3)


def test_repeat_after_a_non_verification_step_is_kept() -> None:
    """n3@2, then n3 → n2 (backtracking), n2 → n3 (calculation): steps 2 and 3 are not all verifications, so
    n3@4 is kept; filtered [n3, n3]; one jump of distance 0."""
    rj = _tree([("n1", "n2", CALC), ("n2", "n3", CALC), ("n3", "n2", BACK), ("n2", "n3", CALC)])
    assert filtered_leaf_visits(rj) == ["n3", "n3"]
    assert jump_distance(rj) == 0.0


def test_every_per_trace_metric_by_hand() -> None:
    """MAIN_WALK, with only n4 correct. 5 nodes, 11 steps: calculation steps 0,1,5,7,9,10 (6), verification
    2,3 (2), backtracking 4,6,8 (3). Solution count = 3 leaves. Forgetting: 6 ≥ 5 → 1. Verification rate
    2/11. Filtered leaves [n3, n4, n5, n3] judged [F, T, F, F]: success 1/4; first success at position 1,
    2 filtered leaves after it: overthinking 2/4."""
    m = compute_metrics(_tree(MAIN_WALK), judge=lambda node: node.id == "n4")
    assert (m.n_nodes, m.n_steps, m.solution_count) == (5, 11, 3)
    assert (m.calculation_steps, m.verification_steps, m.backtracking_steps) == (6, 2, 3)
    assert m.forgetting == 1
    assert m.verification_rate == pytest.approx(2 / 11)
    assert m.success_rate == pytest.approx(0.25)
    assert m.overthinking == pytest.approx(0.5)
    assert m.jump_distance == pytest.approx(8 / 3)


def test_overthinking_when_the_last_leaf_is_the_first_correct_and_when_none_is() -> None:
    """Judge n3 correct: [T, F, F, T] → success 2/4, first success at 0, 3 after it: overthinking 3/4.
    Judge nothing correct: success 0, overthinking 0 (the authors' default)."""
    rj = _tree(MAIN_WALK)
    m = compute_metrics(rj, judge=lambda node: node.id == "n3")
    assert (m.success_rate, m.overthinking) == (pytest.approx(0.5), pytest.approx(0.75))
    m = compute_metrics(rj, judge=lambda node: False)
    assert (m.success_rate, m.overthinking) == (0.0, 0.0)


def test_forgetting_threshold_is_calculations_at_least_nodes() -> None:
    """5 nodes. 4 calculation steps (n1→n2→n3, n1→n2→n4 with a backtrack between) → 4 < 5 → 0; a fifth
    calculation (n1→n5 after a backtrack) → 5 ≥ 5 → 1."""
    four = [("n1", "n2", CALC), ("n2", "n3", CALC), ("n3", "n1", BACK), ("n1", "n2", CALC), ("n2", "n4", CALC)]
    assert compute_metrics(_tree(four)).forgetting == 0
    five = [*four, ("n4", "n1", BACK), ("n1", "n5", CALC)]
    assert compute_metrics(_tree(five)).forgetting == 1


def test_no_leaf_visited_and_no_walk() -> None:
    """Walk n1 → n2 only: no leaf visited, filtered [] → jump distance 0 (fewer than two), success 0,
    overthinking 0. Empty walk: jump distance None, verification rate 0."""
    m = compute_metrics(_tree([("n1", "n2", CALC)]), judge=lambda node: True)
    assert (m.jump_distance, m.success_rate, m.overthinking) == (0.0, 0.0, 0.0)
    m = compute_metrics(_tree([]))
    assert m.jump_distance is None and m.verification_rate == 0.0


def test_discontinuous_walk_follows_the_to_nodes() -> None:
    """Steps n1→n2, n2→n3, n5→n1 (it stood at n3, not n5), n1→n2, n2→n4. The authors' visit sequence takes
    the first 'from' and then every 'to': [n1, n2, n3, n1, n2, n4], so n5 is never visited. Filtered
    [n3, n4]: one jump of 2. (Taking the stray 'from' n5 as a visit would give [n3, n5, n4]: (3+3)/2 = 3.)"""
    rj = _tree([("n1", "n2", CALC), ("n2", "n3", CALC), ("n5", "n1", BACK), ("n1", "n2", CALC),
                ("n2", "n4", CALC)])
    assert filtered_leaf_visits(rj) == ["n3", "n4"]
    assert jump_distance(rj) == 2.0


def test_walk_similarity_by_hand() -> None:
    """A = [calc, calc, verif]: transitions calc→calc, calc→verif; B = [calc, verif, verif]: calc→verif,
    verif→verif. Rows (smoothing 1e-9 ignored; an empty row is uniform):
    calc: A (1/2, 1/2, 0), B (0, 1, 0); M = (1/4, 3/4, 0);
      KL(A‖M) = ½·log2 2 + ½·log2(2/3) = 0.5 − 0.2924813 = 0.2075187; KL(B‖M) = log2(4/3) = 0.4150375;
      JS = 0.3112781.
    verif: A uniform, B (0, 1, 0); M = (1/6, 2/3, 1/6); KL(A‖M) = ⅓(1 − 1 + 1) = 1/3;
      KL(B‖M) = log2 1.5 = 0.5849625; JS = 0.4591479.
    back: both uniform, JS = 0.
    Similarity = 1 − (0.3112781 + 0.4591479 + 0)/3 = 0.7431913."""
    a = [Step("n1", "n2", CALC), Step("n2", "n3", CALC), Step("n3", "n1", VERIFY)]
    b = [Step("n1", "n2", CALC), Step("n2", "n1", VERIFY), Step("n1", "n2", VERIFY)]
    assert walk_similarity(a, b) == pytest.approx(0.7431913, abs=1e-6)
    assert walk_similarity(a, a) == pytest.approx(1.0, abs=1e-9)


def _rj(spec: list[tuple[str, str, str | None]]) -> ReJump:
    return ReJump.build([Node(i, label, parent) for i, label, parent in spec])


def test_tree_similarity_by_hand() -> None:
    """A = r(a, b), B = r(a(c)), all labels non-empty (relabel free). A mapping must keep ancestry and
    left-to-right order, so at most two nodes map (r→r and one of a/b); one delete + one insert: distance 2,
    similarity 1 − 2/3 = 1/3.
    C = r(a, x) vs A: map b→x at relabel cost 0 → distance 0 → similarity 1.
    D = r(a, "") vs itself: the authors' label distance is 1 whenever either label is empty, so even the
    identical tree costs 1 (relabel "" → ""): similarity 1 − 1/3 = 2/3.
    E = r(a) vs A: delete b, distance 1, over the larger node count 3: similarity 2/3."""
    a = _rj([("r", "root", None), ("a", "p", "r"), ("b", "q", "r")])
    b = _rj([("r", "root", None), ("a", "p", "r"), ("c", "s", "a")])
    c = _rj([("r", "root", None), ("a", "p", "r"), ("x", "zz", "r")])
    d = _rj([("r", "root", None), ("a", "p", "r"), ("e", "", "r")])
    assert tree_similarity(a, b) == pytest.approx(1 / 3)
    assert tree_similarity(a, c) == pytest.approx(1.0)
    assert tree_similarity(d, d) == pytest.approx(2 / 3)
    e = _rj([("r", "root", None), ("a", "p", "r")])
    assert tree_similarity(a, e) == pytest.approx(2 / 3)


def test_best_of_n_rule_and_baseline_by_hand() -> None:
    """Scores (jump distances) per group, correct marked *:
    g1 = [1.0, 3.0*, 2.0]: largest 3.0 → correct; random = 1/3.
    g2 = [2.0*, 2.0, None]: tie at 2.0 → earliest (correct); None is −∞; random = 1/3.
    g3 = [None*, 0.0]: 0.0 beats None (−∞) → wrong; random = 1/2.
    Best-of-N accuracy 2/3; random (1/3 + 1/3 + 1/2)/3 = 7/18."""
    groups: list[list[tuple[float | None, bool]]] = [
        [(1.0, False), (3.0, True), (2.0, False)], [(2.0, True), (2.0, False), (None, False)],
        [(None, True), (0.0, False)]]
    assert best_of_n(groups[1], lambda c: c[0]) == 0
    best, rand = selection_accuracy(groups, lambda c: c[1], lambda c: c[0])
    assert best == pytest.approx(2 / 3)
    assert rand == pytest.approx(7 / 18)


def test_mean_and_standard_error() -> None:
    """[0.2, 0.4, 0.6]: mean 0.4; sample variance ((−.2)² + 0 + .2²)/2 = 0.04; SE = √(0.04/3) = 0.1154701."""
    mean, se = mean_se([0.2, 0.4, 0.6])
    assert mean == pytest.approx(0.4)
    assert se == pytest.approx(math.sqrt(0.04 / 3))
    assert mean_se([0.3]) == (0.3, 0.0)
