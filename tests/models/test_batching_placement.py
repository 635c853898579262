"""Where the continuous-batching engine puts requests when each sequence has its own KV stream: llama.cpp
computes only consecutive sequence ids in one pass, so running requests must stay in the lowest slots and be
fed in id order, and cached prefixes reach them by copies (a fake llama.cpp core records the calls)."""

from __future__ import annotations

from typing import Any

import numpy as np

from paperworks.models.local.batching import BatchEngine
from paperworks.models.local.engine_types import Job
from paperworks.models.local.llama_core import DecodeError


class FakeCore:
    unified = False
    n_seq = 8
    n_ctx_seq = 256
    n_ctx = 8 * 256
    n_batch = 64
    thread_choices = ()

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fed: list[list[int]] = []

    def seq_rm(self, seq: int, p0: int = 0, p1: int = -1) -> None:
        self.calls.append(("rm", seq, p0))

    def seq_cp(self, src: int, dst: int, n: int) -> None:
        self.calls.append(("cp", src, dst, n))

    def decode(self, tokens: list[int], pos: list[int], seqs: list[int], outs: list[bool]) -> None:
        self.fed.append(list(seqs))
        raise DecodeError("recorded")

    def logits(self, i: int) -> np.ndarray:
        return np.zeros(4)

    def close(self) -> None:
        pass


def _job(prompt: list[int]) -> Job:
    return Job(prompt=prompt, sampler=None, sink=lambda kind, value: None)  # type: ignore[arg-type]


def _engine() -> tuple[BatchEngine, FakeCore]:
    core = FakeCore()
    return BatchEngine(core, max_active=4), core  # type: ignore[arg-type]


def test_requests_take_the_lowest_free_slot_and_an_overwritten_prefix_is_kept_in_the_cache() -> None:
    engine, core = _engine()
    try:
        jobs = [_job([10 * k + i for i in range(30)]) for k in range(3)]
        for job in jobs:
            engine._place(job)
        assert [j.slot.seq for j in jobs if j.slot] == [0, 1, 2]
        jobs[1].slot.tokens = list(jobs[1].prompt)  # type: ignore[union-attr]  # it ran, then ended
        engine._release(jobs[1])
        core.calls.clear()
        late = _job([999] * 30)
        engine._place(late)
        assert late.slot is not None and late.slot.seq == 1  # the hole, not slot 3
        # slot 1's prefix went to the first empty cache slot (4) before slot 1 was emptied
        assert core.calls == [("rm", 4, 0), ("cp", 1, 4, 30), ("rm", 1, 0)]
        assert engine.slots[4].tokens == jobs[1].prompt and engine.stats.spills == 1
    finally:
        engine.close()


def test_a_prefix_held_in_a_cache_slot_is_copied_into_the_new_requests_slot() -> None:
    engine, core = _engine()
    try:
        held = list(range(100, 140))
        engine.slots[6].tokens = list(held)
        job = _job([*held, 7, 8, 9])
        engine._place(job)
        assert job.slot is not None and job.slot.seq == 0
        assert core.calls == [("rm", 0, 0), ("cp", 6, 0, 40)]
        assert job.reused == 40 and job.n_past == 40 and job.slot.tokens == held
        assert engine.stats.prefix_copies == 1
    finally:
        engine.close()


def test_an_idle_slot_among_the_running_ones_is_reused_in_place() -> None:
    engine, core = _engine()
    try:
        engine.slots[2].tokens = list(range(50))
        job = _job([*range(50), 1, 2])
        engine._place(job)
        assert job.slot is not None and job.slot.seq == 2
        assert core.calls == [("rm", 2, 50)] and job.reused == 50
    finally:
        engine.close()


def test_a_step_feeds_the_requests_in_sequence_id_order() -> None:
    engine, core = _engine()
    try:
        jobs = [_job([5 * k + i for i in range(6)]) for k in range(3)]
        for job in jobs:
            engine._place(job)
        decoding, prefilling = jobs[1], jobs[2]
        decoding.pending, decoding.n_past = 3, 6
        engine._active = [prefilling, decoding, jobs[0]]
        engine._batch_step()
        assert core.fed == [sorted(core.fed[0])] and core.fed[0] == [0] * 6 + [1] + [2] * 6
    finally:
        engine.close()
