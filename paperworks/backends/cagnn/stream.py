"""Sequential training over a task stream; the accuracy matrix, average performance and forgetting, and the
inference cost measured after each task (counted, and timed within the same run)."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from paperworks.backends.cagnn.data import TaskGraph
from paperworks.core.tracking import track


class Method(Protocol):
    """What the stream needs of a continual learner."""

    name: str

    def learn(self, g: TaskGraph, seen: list[TaskGraph]) -> None: ...

    def predict(self, g: TaskGraph) -> torch.Tensor: ...

    def forward_cost(self, g: TaskGraph) -> dict[str, int]: ...

    def stored_parameters(self) -> int: ...


@dataclass
class StreamResult:
    """``acc[i][j]``: test accuracy on task ``j`` after learning task ``i`` (``j <= i``); per-task cost after
    learning task ``i``: ``params``, ``macs`` touched by one forward pass on the timing graph, ``time_s``
    (median wall time of that pass), ``stored`` parameters."""

    name: str
    acc: list[list[float]] = field(default_factory=list)
    params: list[int] = field(default_factory=list)
    macs: list[int] = field(default_factory=list)
    time_s: list[float] = field(default_factory=list)
    stored: list[int] = field(default_factory=list)
    train_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready copy with the summary metrics."""
        return {"acc": self.acc, "params": self.params, "macs": self.macs, "time_s": self.time_s,
                "stored": self.stored, "train_s": round(self.train_s, 2),
                "average_accuracy": average_accuracy(self.acc), "average_forgetting": average_forgetting(self.acc)}


def average_accuracy(acc: list[list[float]]) -> float:
    """Mean test accuracy over all tasks after the last one is learned."""
    return sum(acc[-1]) / len(acc[-1])


def average_forgetting(acc: list[list[float]]) -> float:
    """Mean over tasks ``j`` before the last of ``max_{i<T-1} acc[i][j] - acc[T-1][j]`` (0 for one task)."""
    last = len(acc) - 1
    if last < 1:
        return 0.0
    drops = [max(acc[i][j] for i in range(j, last)) - acc[last][j] for j in range(last)]
    return sum(drops) / len(drops)


def accuracy(method: Method, g: TaskGraph) -> float:
    """Fraction of ``g``'s test nodes whose predicted global class is right."""
    pred = method.predict(g)
    return float((pred[g.test] == g.y[g.test]).float().mean())


def time_forwards(snapshots: list[Method], g: TaskGraph, reps: int) -> list[float]:
    """Median wall time of ``snapshot.predict(g)`` for each snapshot over ``reps`` rounds; each round times
    every snapshot once, in turn, so that load from other jobs falls on all of them alike (one warm-up round)."""
    times: list[list[float]] = [[] for _ in snapshots]
    for r in range(reps + 1):
        for i, m in enumerate(snapshots):
            start = time.perf_counter()
            m.predict(g)
            if r:
                times[i].append(time.perf_counter() - start)
    return [sorted(t)[len(t) // 2] for t in times]


def run_stream(method: Method, tasks: list[TaskGraph], reps: int = 20, timing_graph: TaskGraph | None = None
               ) -> StreamResult:
    """Learn ``tasks`` in order; after each, test every task seen so far and count one forward pass on
    ``timing_graph`` (default: the first task's graph). A copy of the learner is kept after each task and,
    once the stream is done, the copies' forward passes are timed interleaved (:func:`time_forwards`)."""
    res = StreamResult(method.name)
    tg = timing_graph if timing_graph is not None else tasks[0]
    snapshots: list[Method] = []
    for i, g in enumerate(tasks):
        start = time.process_time()
        method.learn(g, tasks[:i])
        res.train_s += time.process_time() - start
        res.acc.append([accuracy(method, tasks[j]) for j in range(i + 1)])
        track("stream/avg_acc_seen", sum(res.acc[-1]) / len(res.acc[-1]), i)
        cost = method.forward_cost(tg)
        res.params.append(cost["params"])
        res.macs.append(cost["macs"])
        res.stored.append(method.stored_parameters())
        if reps > 0:
            snapshots.append(copy.deepcopy(method))
    res.time_s = time_forwards(snapshots, tg, reps) if reps > 0 else [0.0] * len(tasks)
    return res
