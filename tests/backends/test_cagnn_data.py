"""CAGNN streams: the normalised adjacency, the graph context, SBM homophily, determinism and bad input."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.cagnn.data import (  # noqa: E402
    StreamConfig,
    graph_context,
    make_stream,
    normalized_adjacency,
)
from paperworks.core.errors import UserError  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():  # type: ignore[no-untyped-def]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny ops: extra threads only contend on the shared cores
    yield
    torch.set_num_threads(threads)


def test_normalized_adjacency_of_a_path_by_hand() -> None:
    # path 0-1-2 with self-loops: degrees 2, 3, 2
    adj = normalized_adjacency(torch.tensor([[0, 1], [1, 2]]), 3).to_dense()
    expect = torch.tensor([[1 / 2, 1 / math.sqrt(6), 0.0],
                           [1 / math.sqrt(6), 1 / 3, 1 / math.sqrt(6)],
                           [0.0, 1 / math.sqrt(6), 1 / 2]])
    assert torch.allclose(adj, expect)


def test_duplicate_edges_count_once() -> None:
    once = normalized_adjacency(torch.tensor([[0], [1]]), 2).to_dense()
    twice = normalized_adjacency(torch.tensor([[0, 1], [1, 0]]), 2).to_dense()
    assert torch.allclose(once, twice) and torch.allclose(once, torch.full((2, 2), 0.5))


def test_graph_context_is_the_mean_of_two_hop_features() -> None:
    g = make_stream(StreamConfig(tasks=1, nodes_per_class=20))[0]
    dense = g.adj.to_dense()
    assert torch.allclose(graph_context(g.x, g.adj), (dense @ dense @ g.x).mean(0), atol=1e-5)
    assert torch.allclose(graph_context(g.x, g.adj, hops=0), g.x.mean(0), atol=1e-6)


def test_sbm_homophily_matches_its_probabilities() -> None:
    cfg = StreamConfig(tasks=1, nodes_per_class=150, p_in=0.04, p_out=0.004, seed=3)
    g = make_stream(cfg)[0]
    idx = g.adj.to_sparse_coo().indices()
    off = idx[0] != idx[1]
    same = (g.y[idx[0]] == g.y[idx[1]])[off].float().mean().item()
    pairs_in, pairs_out = 2 * 150 * 149 / 2, 150 * 150
    expect = pairs_in * 0.04 / (pairs_in * 0.04 + pairs_out * 0.004)  # 0.908
    assert abs(same - expect) < 0.03


def test_stream_labels_splits_and_fresh_draws() -> None:
    cfg = StreamConfig(tasks=3, nodes_per_class=50, shift=3.0)
    a, b = make_stream(cfg), make_stream(cfg)
    fresh = make_stream(cfg, graph_seed=99)
    for t, (ga, gb, gf) in enumerate(zip(a, b, fresh, strict=True)):
        assert ga.classes == [2 * t, 2 * t + 1] and sorted(set(ga.y.tolist())) == ga.classes
        assert torch.equal(ga.x, gb.x) and torch.equal(ga.train, gb.train)
        assert not torch.equal(ga.x, gf.x)
        assert (ga.train ^ ga.test).all() and int(ga.train.sum()) == 60
        # same task shift: fresh features average close to the originals, far from other tasks'
        assert (ga.x.mean(0) - gf.x.mean(0)).norm() < 0.5 * (a[t].x.mean(0) - a[(t + 1) % 3].x.mean(0)).norm()


@pytest.mark.parametrize("kw", [{"tasks": 0}, {"classes_per_task": 1}, {"p_in": 1.5}, {"train_frac": -0.1}])
def test_bad_stream_config_is_a_user_error(kw: dict[str, float]) -> None:
    with pytest.raises(UserError):
        make_stream(StreamConfig(**kw))  # type: ignore[arg-type]
