"""CAGNN's baselines and metrics: the EWC penalty, the replay buffer's rule, the expanding baseline's frozen
units and growing cost, the MAC count, and average accuracy / forgetting, against hand-computed values."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.cagnn.data import StreamConfig, TaskGraph, make_stream, normalized_adjacency  # noqa: E402
from paperworks.backends.cagnn.gcn import EWC, Expanding, Replay, SharedHeadMethod, TrainConfig, gcn_macs  # noqa: E402
from paperworks.backends.cagnn.stream import average_accuracy, average_forgetting, run_stream  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():  # type: ignore[no-untyped-def]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_average_accuracy_and_forgetting_by_hand() -> None:
    acc = [[0.9], [0.6, 0.8], [0.5, 0.7, 0.9]]
    assert average_accuracy(acc) == pytest.approx((0.5 + 0.7 + 0.9) / 3)
    # task 0: best 0.9 before the last, now 0.5 -> 0.4; task 1: best 0.8 -> 0.7 -> 0.1
    assert average_forgetting(acc) == pytest.approx((0.4 + 0.1) / 2)
    assert average_forgetting([[0.7]]) == 0.0


def test_gcn_macs_by_hand() -> None:
    # 10 nodes, 30 stored entries, 4 -> 3 -> 2 (GCN layers) -> 5 (head)
    assert gcn_macs(10, 30, [4, 3, 2, 5]) == (10 * 4 * 3 + 30 * 3) + (10 * 3 * 2 + 30 * 2) + 10 * 2 * 5


def test_ewc_penalty_by_hand() -> None:
    m = EWC(3, 4, TrainConfig(hidden=2, ewc_lambda=10.0))
    params = list(m.net.parameters())
    m.fisher = [torch.zeros_like(p) for p in params]
    m.anchor = [p.detach().clone() for p in params]
    m.fisher[0][0, 0] = 2.0
    m.anchor[0][0, 0] = params[0][0, 0].item() - 0.5  # (theta - anchor)^2 = 0.25
    m.fisher[-1][1] = 3.0
    m.anchor[-1][1] = params[-1][1].item() + 1.0  # 1.0
    dummy = make_stream(StreamConfig(tasks=1, nodes_per_class=5, features=3))
    assert m.extra_loss(dummy).item() == pytest.approx(0.5 * 10.0 * (2.0 * 0.25 + 3.0 * 1.0), rel=1e-5)
    assert m.extra_loss([]).item() == 0.0


def test_ewc_fisher_is_the_mean_squared_gradient_over_chunks() -> None:
    g = make_stream(StreamConfig(tasks=1, nodes_per_class=10, features=4))[0]
    m = EWC(4, 2, TrainConfig(hidden=3), fisher_batches=1)
    m.seen = 2
    m.after_task(g)
    m.net.zero_grad()
    torch.nn.functional.cross_entropy(m._logits(g)[g.train], g.y[g.train]).backward()
    for f, p in zip(m.fisher, m.net.parameters(), strict=True):
        assert torch.allclose(f, p.grad.pow(2))


def test_replay_keeps_the_nodes_nearest_their_class_mean() -> None:
    x = torch.tensor([[0.0], [1.0], [2.0], [10.0], [10.0], [11.0], [30.0], [14.0]])
    y = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
    train = torch.ones(8, dtype=torch.bool)
    g = TaskGraph(0, x, normalized_adjacency(torch.zeros(2, 0, dtype=torch.long), 8), y, train, ~train, [0, 1])
    m = Replay(1, 2, TrainConfig(hidden=2, replay_per_class=2))
    m.after_task(g)
    # class 0 mean 3.25: nearest 2 (|1.25|), 1 (|2.25|); class 1 mean 16.25: nearest 14, 11
    assert sorted(m.buffer[0].tolist()) == [1, 2, 5, 7]


def test_expanding_keeps_old_outputs_and_grows() -> None:
    tasks = make_stream(StreamConfig(tasks=3, nodes_per_class=20, features=8, shift=3.0))
    m = Expanding(8, TrainConfig(epochs=15), units=4)
    res = run_stream(m, tasks, reps=0)
    assert [r[0] for r in res.acc] == [res.acc[0][0]] * 3  # task 0 unchanged: its units and head are frozen
    n, e = tasks[0].x.shape[0], tasks[0].edges
    layers = [n * 8 * 4 * t + 2 * e * 4 * t + sum(n * (i + 1) * 16 for i in range(t)) + n * t * 4 * 2
              for t in (1, 2, 3)]
    assert res.macs == [layers[k] + 2 * e + n * 8 + (k + 1) * 8 for k in range(3)]
    assert res.stored == [8 * 4 + 4 + 4 * 4 + 4 + 4 * 2 + 2,
                          2 * (8 * 4 + 4) + (4 * 4 + 4) + (8 * 4 + 4) + (4 * 2 + 2) + (8 * 2 + 2),
                          3 * (8 * 4 + 4) + (4 * 4 + 4) + (8 * 4 + 4) + (12 * 4 + 4) + (4 * 2 + 2) + (8 * 2 + 2)
                          + (12 * 2 + 2)]


def test_finetune_forgets_and_replay_remembers() -> None:
    tasks = make_stream(StreamConfig(tasks=3, nodes_per_class=30, features=8, shift=2.0, signal=0.6))
    ft = run_stream(SharedHeadMethod(8, 6, TrainConfig(epochs=40)), tasks, reps=0)
    rp = run_stream(Replay(8, 6, TrainConfig(epochs=40, replay_per_class=8)), tasks, reps=0)
    assert average_forgetting(ft.acc) > 0.5  # class-incremental fine-tuning predicts the newest classes
    assert average_accuracy(rp.acc) > average_accuracy(ft.acc) + 0.2


def test_bad_train_config_is_a_user_error() -> None:
    with pytest.raises(UserError):
        SharedHeadMethod(4, 2, TrainConfig(epochs=0))
    with pytest.raises(UserError):
        Expanding(4, TrainConfig(), units=0)
