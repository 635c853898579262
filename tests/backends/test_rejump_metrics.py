"""ReJump's data model and metrics on hand-built trees and walks, against values computed by hand."""

from __future__ import annotations

import math

import pytest

from paperworks.backends.rejump.metrics import (
    compute_metrics,
    filtered_leaf_visits,
    jump_distance,
    transition_matrix,
    tree_edit_distance,
    tree_similarity,
    walk_similarity,
)
from paperworks.backends.rejump.repro import judge_for, load_traces
from paperworks.backends.rejump.tree import BACK, CALC, VERIFY, Node, ReJump, RejumpError, Step, parse_rejump


def tree(*edges: tuple[str, str | None], labels: dict[str, str] | None = None) -> list[Node]:
    return [Node(n, (labels or {}).get(n, n), p) for n, p in edges]


# r ─ a ─ a1 (leaf)        depths: r 0, a 1, b 1, a1 2, a2 2, b1 2
#   │   └ a2 (leaf)
#   └ b ─ b1 (leaf)
EDGES = (("r", None), ("a", "r"), ("b", "r"), ("a1", "a"), ("a2", "a"), ("b1", "b"))


def test_distance_depths_and_leaves() -> None:
    rj = ReJump.build(tree(*EDGES))
    assert rj.leaves == {"a1", "a2", "b1"}
    assert rj.distance("a1", "a2") == 2 and rj.distance("a1", "b1") == 4 and rj.distance("a1", "r") == 2
    assert rj.lca("a2", "b1") == "r" and rj.lca("a1", "a2") == "a"


def test_jump_distance_over_leaf_visits() -> None:
    walk = [Step("r", "a", CALC), Step("a", "a1", CALC), Step("a1", "a", BACK), Step("a", "a2", CALC),
            Step("a2", "r", BACK), Step("r", "b", CALC), Step("b", "b1", CALC)]
    rj = ReJump.build(tree(*EDGES), walk)
    assert filtered_leaf_visits(rj) == ["a1", "a2", "b1"]
    assert jump_distance(rj) == pytest.approx((2 + 4) / 2)
    m = compute_metrics(rj, judge=lambda n: n.id == "a2")
    assert m.solution_count == 3 and m.success_rate == pytest.approx(1 / 3)
    assert m.overthinking == pytest.approx(1 / 3)  # b1 visited after the first correct leaf a2
    assert m.forgetting == 0  # 5 calculation steps < 6 nodes
    assert m.verification_rate == 0.0 and m.backtracking_steps == 2


def test_filter_drops_a_repeat_reached_only_by_verification() -> None:
    checked = [Step("r", "a", CALC), Step("a", "a1", CALC), Step("a1", "r", VERIFY), Step("r", "a1", VERIFY)]
    redone = [Step("r", "a", CALC), Step("a", "a1", CALC), Step("a1", "r", BACK), Step("r", "a", CALC),
              Step("a", "a1", CALC)]
    rj_checked = ReJump.build(tree(*EDGES), checked)
    rj_redone = ReJump.build(tree(*EDGES), redone)
    assert filtered_leaf_visits(rj_checked) == ["a1"]
    assert filtered_leaf_visits(rj_redone) == ["a1", "a1"]
    assert compute_metrics(rj_checked).verification_rate == 0.5
    m = compute_metrics(rj_redone, judge=lambda n: n.id == "a1")
    assert m.jump_distance == 0.0 and m.success_rate == 1.0 and m.overthinking == 0.5
    # the filter compares with the last *kept* visit: a1, (verify) a1, then a2, then a1 again is kept
    mixed = checked + [Step("a1", "a", BACK), Step("a", "a2", CALC), Step("a2", "a", BACK), Step("a", "a1", CALC)]
    assert filtered_leaf_visits(ReJump.build(tree(*EDGES), mixed)) == ["a1", "a2", "a1"]
    # the step that leaves the leaf counts too: a backtrack out, then a verification back in, is a new visit
    left = [Step("r", "a", CALC), Step("a", "a1", CALC), Step("a1", "a", BACK), Step("a", "a1", VERIFY)]
    assert filtered_leaf_visits(ReJump.build(tree(*EDGES), left)) == ["a1", "a1"]


def test_empty_walk_and_single_node_tree() -> None:
    empty = compute_metrics(ReJump.build(tree(*EDGES)), judge=lambda n: True)
    assert empty.jump_distance is None and empty.success_rate == 0.0 and empty.overthinking == 0.0
    assert empty.verification_rate == 0.0 and empty.forgetting == 0 and empty.n_steps == 0
    single = ReJump.build([Node("node1", "2+2", None, "4")], [Step("node1", "node1", VERIFY)])
    m = compute_metrics(single, judge=lambda n: n.result == "4")
    assert m.solution_count == 1 and m.filtered_leaves == ["node1"] and m.jump_distance == 0.0
    assert m.success_rate == 1.0 and m.verification_rate == 1.0 and m.forgetting == 0
    assert compute_metrics(single).success_rate is None  # no judge, no rate


def test_forgetting_when_calculations_reach_the_node_count() -> None:
    rj = ReJump.build(tree(("r", None), ("x", "r")), [Step("r", "x", CALC), Step("x", "r", BACK),
                                                      Step("r", "x", CALC)])
    assert compute_metrics(rj).forgetting == 1  # 2 calculation steps >= 2 nodes


def test_handwritten_traces_match_hand_computed_metrics() -> None:
    want = {  # (jump distance, success, overthinking, forgetting, verification rate)
        "g24-linear": (0.0, 1.0, 0.0, 0, 0.0), "g24-explorer": (6.0, 1 / 3, 0.0, 0, 0.0),
        "g24-overthinker": (16 / 3, 0.5, 0.75, 0, 3 / 13), "sudoku-backtrack": (2.0, 0.5, 0.0, 0, 2 / 7),
        "math-verifier": (0.0, 1.0, 0.0, 0, 0.4), "math-forgetful": (0.0, 1.0, 0.5, 1, 0.0)}
    items = {it["id"]: it for it in load_traces()}
    assert set(items) == set(want)
    for key, (jd, sr, ov, fg, vr) in want.items():
        m = compute_metrics(parse_rejump(items[key]["tree"], items[key]["walk"]), judge_for(items[key]))
        assert (m.jump_distance, m.success_rate, m.overthinking, m.forgetting) == pytest.approx((jd, sr, ov, fg)), key
        assert m.verification_rate == pytest.approx(vr), key


def test_tree_edit_distance_zhang_shasha() -> None:
    # the Zhang–Shasha paper's example: f(d(a, c(b)), e) → f(c(d(a, b)), e) costs 2 with label relabels
    a = ReJump.build([Node("f", "f", None), Node("d", "d", "f"), Node("e", "e", "f"), Node("a", "a", "d"),
                      Node("c", "c", "d"), Node("b", "b", "c")])
    b = ReJump.build([Node("f", "f", None), Node("c", "c", "f"), Node("e", "e", "f"), Node("d", "d", "c"),
                      Node("a", "a", "d"), Node("b", "b", "d")])
    assert tree_edit_distance(a, b, lambda x, y: float(x != y)) == 2
    fork = ReJump.build(tree(("r", None), ("x", "r"), ("y", "r")))
    chain = ReJump.build(tree(("r", None), ("x", "r"), ("y", "x")))
    assert tree_edit_distance(fork, chain) == 2  # structure only (labels never empty)
    assert tree_similarity(fork, chain) == pytest.approx(1 / 3)
    assert tree_similarity(fork, fork) == 1.0
    x, y, blank = (ReJump.build([Node("n", label, None)]) for label in ("x", "y", ""))
    assert tree_edit_distance(x, y, lambda p, q: float(p != q)) == 1 and tree_edit_distance(x, y) == 0
    assert tree_edit_distance(x, blank) == 1  # the authors' rule: an empty label never matches
    big = ReJump.build(tree(*EDGES))
    assert tree_edit_distance(fork, big) == 3  # three inserts
    assert tree_similarity(fork, big) == pytest.approx(0.5)


def test_walk_similarity_jensen_shannon_by_hand() -> None:
    calc3 = [Step("r", "x", CALC)] * 3
    cvc = [Step("r", "x", CALC), Step("x", "r", VERIFY), Step("r", "x", CALC)]
    assert transition_matrix(calc3)[0] == pytest.approx([1.0, 0.0, 0.0], abs=1e-8)
    assert transition_matrix(calc3)[1] == pytest.approx([1 / 3] * 3)
    # row C: [1,0,0] vs [0,1,0] → 1 bit; row V: uniform vs [1,0,0] → (1/3 + log2 1.5)/2; row B: 0
    js_v = (1 / 3 + math.log2(1.5)) / 2
    assert walk_similarity(calc3, cvc) == pytest.approx(1 - (1 + js_v) / 3, abs=1e-6)
    assert walk_similarity(cvc, cvc) == pytest.approx(1.0)


@pytest.mark.parametrize(("tree_json", "walk_json", "message"), [
    ({}, [], "no nodes"),
    ({"n1": {"Problem": "p", "parent": "none"}, "n2": {"Problem": "q", "parent": None}}, [], "exactly one root"),
    ({"n1": {"Problem": "p", "parent": "none"}, "n2": {"Problem": "q", "parent": "n9"}}, [], "'n9', which is not"),
    ({"n1": {"Problem": "p", "parent": "none"}, "n2": {"Problem": "q", "parent": "n3"},
      "n3": {"Problem": "r", "parent": "n2"}}, [], "cycle"),
    ({"n1": {"Problem": "p", "parent": "none"}}, [{"from": "n1", "to": "n7", "category": "calculation"}],
     "node 'n7' is not in the tree"),
    ({"n1": {"Problem": "p", "parent": "none"}}, [{"from": "n1", "to": "n1", "category": "guessing"}],
     "category 'guessing'"),
    ({"n1": {"Problem": "p"}}, [], "no 'parent' field"),
    ([1, 2], [], "expected a JSON object"),
])
def test_invalid_trees_and_walks_are_rejected_in_one_line(tree_json: object, walk_json: object,
                                                          message: str) -> None:
    with pytest.raises(RejumpError) as info:
        parse_rejump(tree_json, walk_json)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_walk_names_nodes_by_number() -> None:
    rj = parse_rejump({"node1": {"Problem": "p", "parent": "none"}, "node2": {"Problem": "q", "parent": "node1"}},
                      [{"from": "1", "to": "2", "category": "Calculation/Derivation"}])
    assert rj.walk == [Step("node1", "node2", CALC)]
