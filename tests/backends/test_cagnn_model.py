"""CAGNN: frozen subnetworks leave earlier tasks' outputs unchanged; the gathered subnetwork is the masked pool;
the inference cost does not depend on the number of tasks (counted with torch's FLOP counter)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from paperworks.backends.cagnn.data import StreamConfig, make_stream  # noqa: E402
from paperworks.backends.cagnn.gcn import Expanding, TrainConfig  # noqa: E402
from paperworks.backends.cagnn.model import CAGNN  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():  # type: ignore[no-untyped-def]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny ops: extra threads only contend on the shared cores
    yield
    torch.set_num_threads(threads)

D, UNITS = 16, 6


@pytest.fixture(scope="module")
def tasks() -> list:
    return make_stream(StreamConfig(tasks=4, nodes_per_class=30, features=D, shift=2.0))


def _flops(fn, *args) -> int:  # type: ignore[no-untyped-def]
    with FlopCounterMode(display=False) as fc:
        fn(*args)
    return int(fc.get_total_flops())


def test_frozen_subnetworks_keep_earlier_outputs(tasks: list) -> None:
    m = CAGNN(D, TrainConfig(hidden=24, epochs=30), units=UNITS)
    m.learn(tasks[0], [])
    before = m.task_logits(tasks[0], 0).clone()
    pred0 = m.predict(tasks[0]).clone()
    w1, w2 = m.l1.weight.detach().clone(), m.l2.weight.detach().clone()
    for i in range(1, 4):
        m.learn(tasks[i], tasks[:i])
    assert torch.equal(m.task_logits(tasks[0], 0), before)  # bit for bit
    assert torch.equal(m.predict(tasks[0]), pred0)
    u1, u2 = m.masks[0]
    assert torch.equal(m.l1.weight[u1], w1[u1])
    assert torch.equal(m.l2.weight[u2][:, u1], w2[u2][:, u1])
    # later training did change the pool where task 0 does not read it
    assert not torch.equal(m.l1.weight, w1) and not torch.equal(m.l2.weight, w2)
    # every task's subnetwork is still intact after all training: the masks are frozen
    assert all(a.numel() == UNITS and b.numel() == UNITS for a, b in m.masks)


def test_gathered_subnetwork_equals_the_masked_pool(tasks: list) -> None:
    m = CAGNN(D, TrainConfig(hidden=24, epochs=10), units=UNITS)
    m.learn(tasks[0], [])
    m.learn(tasks[1], tasks[:1])
    for t in (0, 1):
        u1, u2 = m.masks[t]
        m1 = torch.zeros(24).index_fill_(0, u1, 1.0)
        m2 = torch.zeros(24).index_fill_(0, u2, 1.0)
        with torch.no_grad():
            dense = m.dense_forward(tasks[t], m1, m2, m.heads[t])
        assert torch.allclose(m.task_logits(tasks[t], t), dense, atol=1e-5)
    assert m.selector.select(tasks[1]) == 1 and m.selector.select(tasks[0]) == 0


def test_inference_cost_does_not_depend_on_the_number_of_tasks(tasks: list) -> None:
    g = tasks[0]
    n, e = g.x.shape[0], g.edges
    m = CAGNN(D, TrainConfig(hidden=24, epochs=5), units=UNITS)
    ex = Expanding(D, TrainConfig(epochs=5), units=UNITS)
    counted, flops, ex_flops = [], [], []
    for i, t in enumerate(tasks):
        m.learn(t, tasks[:i])
        ex.learn(t, tasks[:i])
        counted.append(m.forward_cost(g))
        flops.append(_flops(m.predict, g))
        ex_flops.append(_flops(ex.predict, g))
    # dense matmuls torch actually ran: x@W1, h1@W2, h2@Wh (units wide) and the selector's w^T x
    assert flops == [2 * (n * D * UNITS + n * UNITS * UNITS + n * UNITS * 2 + n * D)] * 4
    params = D * UNITS + UNITS + UNITS * UNITS + UNITS + UNITS * 2 + 2
    assert [c["params"] for c in counted] == [params] * 4
    sub = n * D * UNITS + e * UNITS + n * UNITS * UNITS + e * UNITS + n * UNITS * 2
    assert [c["subnetwork_macs"] for c in counted] == [sub] * 4
    # the selector's distance terms are the only growth: d per task
    assert [c["macs"] - c["subnetwork_macs"] for c in counted] == [2 * e + n * D + k * D for k in (1, 2, 3, 4)]
    # the capacity-expanding baseline's dense matmuls grow with every task
    assert ex_flops[0] == flops[0] and all(b > a for a, b in zip(ex_flops, ex_flops[1:], strict=False))
    assert ex_flops[-1] > 3 * ex_flops[0]


def test_bad_units_is_a_user_error() -> None:
    with pytest.raises(UserError):
        CAGNN(D, TrainConfig(hidden=8), units=9)
    with pytest.raises(UserError):
        CAGNN(D, TrainConfig(lr=0.0), units=2)
