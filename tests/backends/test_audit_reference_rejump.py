"""Audit: ReJump metrics against independent references (recursive forest edit distance, BFS tree distances,
scipy's Jensen-Shannon), and deep traces that must not hit Python's recursion limit or quadratic validation."""

from __future__ import annotations

import functools
import random
import time

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from paperworks.backends.rejump.metrics import compute_metrics, tree_edit_distance, tree_similarity, walk_similarity
from paperworks.backends.rejump.tree import CATEGORIES, VERIFY, Node, ReJump, RejumpError, Step


def _tree(rng: random.Random, n: int) -> list[Node]:
    nodes = [Node("n0", "root", None)]
    for i in range(1, n):
        nodes.append(Node(f"n{i}", "" if rng.random() < 0.3 else f"p{i}", f"n{rng.randrange(i)}"))
    return nodes


def _ref_ted(a: ReJump, b: ReJump) -> int:
    """The recursive definition of ordered forest edit distance (rightmost roots), memoised."""
    def tree(rj: ReJump, n: str) -> tuple:  # type: ignore[type-arg]
        return (rj.nodes[n].problem, tuple(tree(rj, c) for c in rj.children[n]))

    def size(f: tuple) -> int:  # type: ignore[type-arg]
        return sum(1 + size(t[1]) for t in f)

    @functools.lru_cache(None)
    def d(f: tuple, g: tuple) -> int:  # type: ignore[type-arg]
        if not f or not g:
            return size(f) + size(g)
        (lv, cv), (lw, cw) = f[-1], g[-1]
        return min(d(f[:-1] + cv, g) + 1, d(f, g[:-1] + cw) + 1,
                   d(cv, cw) + d(f[:-1], g[:-1]) + (1 if lv == "" or lw == "" else 0))

    return d((tree(a, a.root),), (tree(b, b.root),))


def _bfs(rj: ReJump, u: str, v: str) -> int:
    adj: dict[str, list[str]] = {k: [] for k in rj.nodes}
    for n in rj.nodes.values():
        if n.parent:
            adj[n.id].append(n.parent)
            adj[n.parent].append(n.id)
    dist, queue = {u: 0}, [u]
    while queue:
        x = queue.pop(0)
        for y in adj[x]:
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist[v]


def test_tree_edit_distance_matches_recursive_definition() -> None:
    rng = random.Random(0)
    for _ in range(150):
        a, b = ReJump.build(_tree(rng, rng.randint(1, 7))), ReJump.build(_tree(rng, rng.randint(1, 7)))
        assert tree_edit_distance(a, b) == _ref_ted(a, b)
        assert tree_similarity(a, b) == pytest.approx(1 - _ref_ted(a, b) / max(len(a.nodes), len(b.nodes)))


def test_walk_metrics_match_reference() -> None:
    rng = random.Random(1)
    for _ in range(200):
        nodes = _tree(rng, rng.randint(1, 9))
        ids = [n.id for n in nodes]
        walk = [Step(rng.choice(ids), rng.choice(ids), rng.choice(CATEGORIES)) for _ in range(rng.randint(0, 12))]
        rj = ReJump.build(nodes, walk)
        leaves = {i for i in ids if not any(n.parent == i for n in nodes)}
        seq = [walk[0].src, *(s.dst for s in walk)] if walk else []
        kept: list[tuple[str, int]] = []
        for i, x in enumerate(seq):
            if x in leaves and not (kept and kept[-1][0] == x
                                    and all(walk[k].category == VERIFY for k in range(kept[-1][1], i))):
                kept.append((x, i))
        fl = [x for x, _ in kept]
        jd = None if not walk else 0.0 if len(fl) < 2 else sum(map(_bfs, [rj] * len(fl), fl, fl[1:])) / (len(fl) - 1)
        correct = {i for i in leaves if rng.random() < 0.4}
        marks = [x in correct for x in fl]
        m = compute_metrics(rj, lambda n, c=correct: n.id in c)  # type: ignore[misc]
        assert m.filtered_leaves == fl and m.solution_count == len(leaves)
        assert m.jump_distance == (None if jd is None else pytest.approx(jd))
        assert m.success_rate == pytest.approx(sum(marks) / len(marks) if marks else 0.0)
        assert m.overthinking == pytest.approx((len(marks) - marks.index(True) - 1) / len(marks) if any(marks) else 0)
        n_calc = sum(s.category == CATEGORIES[0] for s in walk)
        assert m.forgetting == int(n_calc >= len(nodes))
        assert m.verification_rate == pytest.approx(sum(s.category == VERIFY for s in walk) / len(walk) if walk else 0)


def test_walk_similarity_matches_scipy_jensen_shannon() -> None:
    rng = random.Random(2)

    def tm(w: list[Step]) -> np.ndarray:
        c = np.zeros((3, 3))
        for s, t in zip(w, w[1:], strict=False):
            c[CATEGORIES.index(s.category), CATEGORIES.index(t.category)] += 1
        return (c + 1e-9) / (c.sum(1, keepdims=True) + 3e-9)

    for _ in range(150):
        wa = [Step("n0", "n0", rng.choice(CATEGORIES)) for _ in range(rng.randint(0, 10))]
        wb = [Step("n0", "n0", rng.choice(CATEGORIES)) for _ in range(rng.randint(0, 10))]
        ref = 1 - np.mean([jensenshannon(x, y, base=2) ** 2 for x, y in zip(tm(wa), tm(wb), strict=True)])
        assert walk_similarity(wa, wb) == pytest.approx(ref, abs=1e-9)
    assert walk_similarity(wa, wa) == pytest.approx(1.0)


def _chain(n: int) -> list[Node]:
    return [Node("n0", "r", None)] + [Node(f"n{i}", "x", f"n{i - 1}") for i in range(1, n)]


def test_deep_chain_tree_similarity_does_not_recurse() -> None:
    a = ReJump.build(_chain(1500))  # deeper than Python's recursion limit: was a RecursionError
    b = ReJump.build(_chain(1499))
    assert tree_edit_distance(a, b) == 1
    assert tree_similarity(a, a) == 1.0


def test_deep_chain_validates_in_linear_time() -> None:
    n = 20000  # the ancestor walk per node was quadratic: ~2e8 steps here
    t = time.perf_counter()
    rj = ReJump.build(_chain(n), [Step("n0", f"n{n - 1}", CATEGORIES[0])])
    assert time.perf_counter() - t < 2.0
    assert compute_metrics(rj).filtered_leaves == [f"n{n - 1}"]
    with pytest.raises(RejumpError, match="cycle"):
        ReJump.build([Node("a", "", None), Node("b", "", "c"), Node("c", "", "b")])
