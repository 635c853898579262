"""Audit: cagnn's normalised adjacency and graph context against dense numpy references, and bad graphs raising
one-line errors (out-of-range nodes used to raise a bare IndexError, an empty selector a stack error)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.cagnn.data import TaskGraph, graph_context, normalized_adjacency  # noqa: E402
from paperworks.backends.cagnn.gcn import ContextSelector  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def test_adjacency_and_context_match_dense_reference() -> None:
    rng = np.random.default_rng(0)
    for _ in range(150):
        n, e = int(rng.integers(1, 8)), int(rng.integers(0, 12))
        ei = torch.tensor(rng.integers(0, n, (2, e)))
        a = np.eye(n)
        for i, j in ei.T.tolist():  # self-loops and duplicate edges count once
            a[i, j] = a[j, i] = 1
        d = a.sum(1)
        ref = a / np.sqrt(d[:, None] * d[None])
        adj = normalized_adjacency(ei, n)
        assert np.allclose(adj.to_dense().double().numpy(), ref, atol=1e-6)
        x = rng.normal(size=(n, 3))
        want = (np.linalg.matrix_power(ref, 2) @ x).mean(0)
        assert np.allclose(graph_context(torch.tensor(x, dtype=torch.float32), adj).numpy(), want, atol=1e-5)
        got64 = graph_context(torch.tensor(x), adj)  # float64 features used to raise a dtype mismatch
        assert got64.dtype == torch.float64 and np.allclose(got64.numpy(), want, atol=1e-5)


@pytest.mark.parametrize(("ei", "n", "match"), [
    (torch.tensor([[0], [5]]), 3, "outside 0..2"),
    (torch.tensor([[0], [-1]]), 3, "outside 0..2"),
    (torch.tensor([0, 1]), 3, "integer \\(2, E\\)"),
    (torch.tensor([[0.0], [1.0]]), 3, "integer \\(2, E\\)"),  # float ids were accepted
    (torch.zeros(2, 0, dtype=torch.long), 0, "n must be"),
])
def test_bad_graph_raises(ei: torch.Tensor, n: int, match: str) -> None:
    with pytest.raises(UserError, match=match) as info:
        normalized_adjacency(ei, n)
    assert isinstance(info.value, ValueError)


def test_selector_without_tasks_raises() -> None:
    adj = normalized_adjacency(torch.zeros(2, 0, dtype=torch.long), 2)
    g = TaskGraph(0, torch.zeros(2, 2), adj, torch.zeros(2, dtype=torch.long), torch.ones(2, dtype=torch.bool),
                  torch.ones(2, dtype=torch.bool), [0])
    with pytest.raises(UserError, match="no task learned yet"):
        ContextSelector().select(g)
