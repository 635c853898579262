"""The two-stage extractor (repair and rejection of model replies), the tasks' checkers, Best-of-N, the
simulated searchers and the drawing."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from paperworks.backends.rejump import tasks
from paperworks.backends.rejump.bestofn import best_of_n, selection_accuracy
from paperworks.backends.rejump.extract import TREE_PROMPT, ExtractionError, extract, read_json
from paperworks.backends.rejump.metrics import compute_metrics
from paperworks.backends.rejump.plots import draw_rejump, layout
from paperworks.backends.rejump.simulate import STYLES, simulate24
from paperworks.backends.rejump.tree import CALC, VERIFY

TREE = {"node1": {"Problem": "Compute 2*3+1.", "parent": "none", "Result": None},
        "node2": {"Problem": "2*3", "parent": "node1", "Result": None},
        "node3": {"Problem": "6+1", "parent": "node2", "Result": "7"}}
WALK = [{"from": "node1", "to": "node2", "category": "calculation/derivation"},
        {"from": "node2", "to": "node3", "category": "calculation/derivation"},
        {"from": "node3", "to": "node1", "category": "verification"},
        {"from": "node1", "to": "node3", "category": "verification"}]


def replies(tree_reply: str, walk_reply: str) -> tuple[list[list[dict[str, str]]], object]:
    seen: list[list[dict[str, str]]] = []

    def complete(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return tree_reply if len(seen) == 1 else walk_reply

    return seen, complete


def test_two_stages_tree_then_walk_with_repaired_json() -> None:
    sloppy_tree = "Sure!\n```json\n" + json.dumps(TREE).replace("}}", "},}")[:-1] + "\n```"  # trailing comma, unclosed
    seen, complete = replies(sloppy_tree, "walk: " + json.dumps(WALK).replace('"', "'"))  # single quotes
    ext = extract("Compute 2*3+1.", "2*3 = 6, 6+1 = 7. Check: 7.", complete, task="math")  # type: ignore[arg-type]
    assert len(seen) == 2 and "reasoning tree" in seen[0][0]["content"]
    assert '"node3"' in seen[1][0]["content"]  # the walk prompt carries the extracted tree
    assert [s.category for s in ext.rejump.walk] == [CALC, CALC, VERIFY, VERIFY]
    m = compute_metrics(ext.rejump, tasks.judge_answer(7))
    assert m.filtered_leaves == ["node3"] and m.success_rate == 1.0 and m.verification_rate == 0.5


@pytest.mark.parametrize(("tree_reply", "walk_reply", "message"), [
    ("I cannot do that.", "[]", "extractor tree reply: no JSON object found (reply began: 'I cannot do that.')"),
    (json.dumps(TREE), "no list here", "extractor walk reply: no JSON list found"),
    (json.dumps({"node1": {"Problem": "x", "parent": "node2"}, "node2": {"Problem": "y", "parent": "node1"}}), "[]",
     "extractor tree reply: tree: expected exactly one root (parent none), found 0"),
    (json.dumps(TREE), json.dumps([{"from": "node1", "to": "node9", "category": "verification"}]),
     "extractor walk reply: walk step 1: node 'node9' is not in the tree"),
])
def test_malformed_replies_are_rejected_in_one_line(tree_reply: str, walk_reply: str, message: str) -> None:
    _, complete = replies(tree_reply, walk_reply)
    with pytest.raises(ExtractionError) as info:
        extract("p", "some reasoning", complete)  # type: ignore[arg-type]
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_read_json_and_prompt_inputs() -> None:
    assert read_json('x {"a": 1,} y', dict, "tree") == {"a": 1}
    with pytest.raises(ExtractionError, match="the trace is empty"):
        extract("p", "  ", lambda m: "")
    with pytest.raises(ExtractionError, match="unknown task 'chess'"):
        extract("p", "t", lambda m: "", task="chess")
    assert "{problem}" in TREE_PROMPT


def test_game24_solver_and_checker() -> None:
    assert tasks.solve24([1, 1, 1, 1]) == []
    sols = tasks.solve24([4, 7, 8, 8])
    assert sols and all(tasks.check24(s, [4, 7, 8, 8]) for s in sols)
    assert tasks.check24("(7-8/8)*4", [4, 7, 8, 8]) and not tasks.check24("(7-8/8)*4", [4, 7, 8, 9])
    assert not tasks.check24("8*3", [8, 3, 1, 1]) and tasks.check24("8*3*1*1", [8, 3, 1, 1])
    assert tasks.solve24([3, 3, 8, 8]) == ["8/(3-(8/3))"]  # the classic one with a fraction
    assert all(tasks.solve24(p, first_only=True) for p in tasks.make_game24(5, seed=3))


def test_sudoku_generator_is_unique_and_checker_rejects_bad_grids() -> None:
    puzzle, solution = tasks.make_sudoku(seed=2, holes=10)
    assert sum(v == 0 for row in puzzle for v in row) == 10
    assert tasks.solve_sudoku(puzzle) == solution and tasks.check_sudoku(solution, puzzle)
    bad = [row[:] for row in solution]
    bad[0][0], bad[0][1] = bad[0][1], bad[0][0]  # row still fine, two columns broken
    assert not tasks.check_sudoku(bad, puzzle)
    assert tasks.check_sudoku(tasks.grid_text(solution), puzzle)
    assert not tasks.check_sudoku("12345", puzzle)


def test_arithmetic_set_answers() -> None:
    probs = tasks.make_arithmetic(20, seed=1)
    for p in probs:
        assert tasks.evaluate(p.question.removeprefix("Compute ").rstrip(".")) == p.answer
    judge = tasks.judge_answer("3/6")
    from paperworks.backends.rejump.tree import Node
    assert judge(Node("n", "x", None, "so x = 1/2")) and not judge(Node("n", "x", None, "0.6"))


def test_best_of_n_picks_the_largest_score() -> None:
    assert best_of_n([1.0, 3.0, 3.0, None], lambda x: x) == 1
    groups = [[(0.0, True), (2.0, False)], [(5.0, True), (1.0, False)]]
    best, rand = selection_accuracy(groups, lambda c: c[1], lambda c: c[0])
    assert best == 0.5 and rand == 0.5


def test_simulated_searchers_are_seeded_and_valid() -> None:
    a = simulate24([4, 7, 8, 8], STYLES["verifier"], random.Random(5))
    b = simulate24([4, 7, 8, 8], STYLES["verifier"], random.Random(5))
    assert a.text == b.text and a.rejump.to_json() == b.rejump.to_json()
    assert a.correct == tasks.check24(a.answer, [4, 7, 8, 8])
    lin = simulate24([4, 7, 8, 8], STYLES["linear"], random.Random(0))
    assert compute_metrics(lin.rejump).solution_count == 1 and lin.rejump.visits()[0] == "node1"
    exp = simulate24([1, 1, 1, 1], STYLES["explorer (restarts)"], random.Random(0))  # unsolvable: uses its budget
    m = compute_metrics(exp.rejump)
    assert not exp.correct and len(m.filtered_leaves) == 6 and m.jump_distance == 6.0  # every jump via the root


def test_drawing_writes_png_and_svg(tmp_path: Path) -> None:
    from paperworks.backends.rejump.tree import parse_rejump

    rj = parse_rejump(TREE, WALK)
    assert layout(rj)["node1"] == (0.0, 0.0) and layout(rj)["node3"] == (0.0, -2.0)
    png = draw_rejump(rj, tmp_path / "t.png", "t")
    svg = draw_rejump(rj, tmp_path / "t.svg")
    assert png.read_bytes()[:4] == b"\x89PNG" and b"<svg" in svg.read_bytes()[:400]
    with pytest.raises(ValueError, match="must end in .png or .svg"):
        draw_rejump(rj, tmp_path / "t.pdf")
