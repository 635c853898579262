"""Continuous batching over llama.cpp: one engine thread decodes every request in flight together.

Each step feeds one token per decoding request plus chunks of the prompts of newly admitted ones into a
single ``llama_decode`` call, then samples each request with its own :class:`~.sampling.Sampler`. A
request is checked for cancellation and its deadline at every step, so it stops within a token or two;
an error in one request (a sampler failure, a full KV cache) ends only that request.

Prefix reuse: every sequence id ("slot") remembers the tokens its KV cells hold, and a new request starts
from the longest prefix of its input that any slot holds, prefilling only the rest. Idle slots are the
bounded prefix cache.

With a KV stream per sequence (the default, :attr:`~.llama_core.LlamaSettings.kv_unified` off), llama.cpp
computes the sequences of one step together only where their ids are consecutive (measured: 8 requests
decoding in slots 0..7 at 258 tokens/s, in slots 0, 2, .., 14 at 73). So requests run in the first
``max_active`` slots, the lowest free one taken first, and each step feeds them in id order; the other slots
only keep prefixes. A cached prefix held elsewhere is copied into the new request's slot (a whole stream,
about 10 ms), and an idle prefix about to be overwritten is first copied into the least recently used cache
slot. In a unified cache, a request takes the slot, active or idle, sharing the longest prefix, prefixes are
shared without copies, the least recently used idle slot is evicted when the cache is full, and any is freed
once ``idle_horizon`` tokens were fed without reusing it (every cell below the highest one in use slows
every token's attention).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import numpy as np

from paperworks.models.local.engine_types import EngineStats, Job, Slot, common_prefix
from paperworks.models.local.llama_core import DecodeError, KVFullError, LlamaCore
from paperworks.models.local.threads import ThreadTuner

__all__ = ["BatchEngine"]


class BatchEngine:
    """Owns a :class:`LlamaCore` and the thread that serves its requests."""

    def __init__(self, core: LlamaCore, max_active: int | None = None, idle_horizon: int = 0) -> None:
        self.core = core
        self.idle_horizon = max(0, idle_horizon)
        """Fed tokens after which an unused idle slot's cells are freed (0: only when the cache is full);
        see :attr:`~.llama_core.LlamaSettings.idle_horizon`."""
        self.max_active = max(1, min(max_active or core.n_seq // 2, core.n_seq))
        self.slots = [Slot(seq) for seq in range(core.n_seq)]
        self.stats = EngineStats()
        self.tuner = ThreadTuner(core.thread_choices) if len(core.thread_choices) > 1 else None
        """Chooses each step's thread count by measurement (None: llama.cpp's fixed settings)."""
        self._inbox: deque[Job] = deque()
        self._controls: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._active: list[Job] = []
        self._wake = threading.Condition()
        self._closing = False
        self._clock = itertools.count()
        self._thread = threading.Thread(target=self._run, name="llama-engine", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------------------ public (any thread)

    def submit(self, job: Job) -> Job:
        """Queue ``job``; its ``sink`` receives ``("piece", str)`` events then one ``done`` or ``error``."""
        with self._wake:
            if self._closing:
                raise DecodeError("the engine is closed")
            self._inbox.append(job)
            self._wake.notify()
        return job

    def cancel(self, job: Job) -> None:
        """Stop ``job`` at the engine's next step (a no-op once it has finished)."""
        job.cancelled.set()
        with self._wake:
            self._wake.notify()

    def call_when_idle(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the engine thread once no request is decoding (queued ones wait for it), and return
        its result (or raise its exception). For changes of the model itself, such as a LoRA swap."""
        future: Future[Any] = Future()
        with self._wake:
            if self._closing:
                raise DecodeError("the engine is closed")
            self._controls.append((fn, future))
            self._wake.notify()
        return future.result()

    def clear_prefix_cache(self) -> None:
        """Free every idle slot's KV cells (engine thread only): after the weights change they are stale."""
        for slot in self.slots:
            if slot.job is None:
                self.core.seq_rm(slot.seq)
                slot.tokens.clear()

    def close(self) -> None:
        """Fail what is still queued or running, stop the thread and free llama.cpp."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join(timeout=30)
        self.core.close()

    # ------------------------------------------------------------------------------ engine thread

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._closing and not self._active and not self._inbox and not self._controls:
                    self._wake.wait()
                if self._closing:
                    break
            self._reap()
            if self._controls and not self._active:
                fn, future = self._controls.popleft()
                try:
                    future.set_result(fn())
                except Exception as exc:  # noqa: BLE001 - delivered to the caller
                    future.set_exception(exc)
                continue
            if not self._controls:
                self._admit()
            if self._active:
                self._step()
        for job in [*self._active, *self._inbox]:
            self._fail(job, DecodeError("the engine was closed"))
        for _, future in self._controls:
            future.set_exception(DecodeError("the engine was closed"))

    def _reap(self) -> None:
        """End cancelled requests and those past their deadline, queued or running."""
        now = time.monotonic()
        with self._wake:
            queued = [j for j in self._inbox if j.cancelled.is_set() or j.past(now)]
            for job in queued:
                self._inbox.remove(job)
        for job in [*queued, *[j for j in self._active if j.cancelled.is_set() or j.past(now)]]:
            self._stop(job, "cancelled" if job.cancelled.is_set() else "deadline")

    def _need(self, job: Job) -> int:
        """KV cells ``job`` may come to hold: its input and every token it may generate (those it has
        generated already hold cells too, so this does not shrink as it decodes)."""
        return len(job.feed) + job.max_tokens

    def _admit(self) -> None:
        """Start queued requests in order while slots are free and their KV fits: a request whose input and
        ``max_tokens`` would not fit beside the running ones waits for them (first come, first served, so
        none starves) instead of filling the cache and failing. Alone it is always started."""
        while len(self._active) < self.max_active:
            with self._wake:
                if not self._inbox:
                    return
                job = self._inbox[0]
                if (self.core.unified and self._active
                        and sum(map(self._need, self._active)) + self._need(job) > self.core.n_ctx):
                    self.stats.kv_wait_steps += 1
                    return
                self._inbox.popleft()
            try:
                self._place(job)
            except Exception as exc:  # noqa: BLE001 - delivered to that request only
                self._fail(job, exc)

    def _place(self, job: Job) -> None:
        """Give ``job`` a slot, starting from the longest cached prefix of its input."""
        feed = job.feed
        cap = job.first_output  # that position's logits are needed, so it is always computed
        best, best_len = None, 0
        for slot in self.slots:
            n = min(common_prefix(slot.tokens, feed), cap)
            if n > best_len:
                best, best_len = slot, n
        if self.core.unified:
            target = self._unified_target(best)
        else:
            target = self._stream_target(best, best_len)
        if target is not best or best_len == 0:
            self.core.seq_rm(target.seq)
            target.tokens = []
            if best is not None and best_len:
                self.core.seq_cp(best.seq, target.seq, best_len)
                target.tokens = feed[:best_len]
                self.stats.prefix_copies += not self.core.unified
        else:
            self.core.seq_rm(target.seq, best_len)
            del target.tokens[best_len:]
        target.job = job
        job.slot = target
        job.n_past = best_len
        job.reused = best_len
        job.started = time.monotonic()
        self.stats.reused_tokens += best_len
        self._active.append(job)

    def _unified_target(self, best: Slot | None) -> Slot:
        if best is not None and best.job is None:
            return best
        return min((s for s in self.slots if s.job is None), key=lambda s: (bool(s.tokens), s.used_at))

    def _stream_target(self, best: Slot | None, best_len: int) -> Slot:
        """The lowest free slot among the first ``max_active`` (or ``best`` when it is one of them, so no copy
        is needed); the idle prefix it holds, unless another slot holds that too, is first copied to the least
        recently used cache slot."""
        free = [s for s in self.slots[: self.max_active] if s.job is None]
        if best is not None and best in free:
            return best
        target = free[0]
        held = len(target.tokens)
        if held >= 16 and not any(common_prefix(s.tokens, target.tokens) == held for s in self.slots
                                  if s is not target):
            cache = [s for s in self.slots[self.max_active :] if s is not best]
            if cache:
                victim = min(cache, key=lambda s: (bool(s.tokens), s.used_at))
                self.core.seq_rm(victim.seq)
                self.core.seq_cp(target.seq, victim.seq, len(target.tokens))
                victim.tokens, victim.used_at = list(target.tokens), target.used_at
                self.stats.spills += 1
        return target

    def _step(self) -> None:
        began = time.perf_counter()
        try:
            self._batch_step()
        finally:
            self.stats.step_s += time.perf_counter() - began

    def _batch_step(self) -> None:
        budget = self.core.n_batch
        tokens: list[int] = []
        pos: list[int] = []
        seqs: list[int] = []
        outs: list[bool] = []
        plan: list[tuple[Job, int, int]] = []  # (job, first batch index, tokens fed)
        decoding = [j for j in self._active if j.pending is not None][:budget]
        shares: list[tuple[Job, int]] = [(job, 1) for job in decoding]
        room = budget - len(decoding)
        for job in self._active:
            n = min(room, len(job.feed) - job.n_past) if job.pending is None else 0
            if n > 0:
                shares.append((job, n))
                room -= n
        if not self.core.unified:  # llama.cpp computes consecutive sequence ids together
            shares.sort(key=lambda share: share[0].slot.seq if share[0].slot else 0)
        for job, n in shares:
            assert job.slot is not None
            plan.append((job, len(tokens), n))
            if job.pending is not None:
                tokens.append(job.pending)
                pos.append(job.n_past)
                seqs.append(job.slot.seq)
                outs.append(True)
                continue
            for i, token in enumerate(job.feed[job.n_past : job.n_past + n]):
                tokens.append(token)
                pos.append(job.n_past + i)
                seqs.append(job.slot.seq)
                outs.append(job.wants(job.n_past + i))
        threads = 0
        if self.tuner is not None:
            threads = self.tuner.choose(len(tokens))
            self.core.set_threads(threads)
        began = time.perf_counter()
        try:
            self.core.decode(tokens, pos, seqs, outs)
        except KVFullError as exc:
            if not self.core.unified:  # only the sequence nearest its stream's end can have run out
                self._fail(max(self._active, key=lambda j: j.n_past), exc)
            elif not self._evict_idle():
                self._fail(max(self._active, key=lambda j: j.started), exc)
            return
        except DecodeError as exc:
            for job, _, _ in plan:
                self._fail(job, exc)
            return
        took = time.perf_counter() - began
        self.stats.decode_s += took
        if self.tuner is not None:
            self.tuner.record(len(tokens), threads, took)
        self.stats.steps += 1
        self.stats.batch_tokens += len(tokens)
        if self.idle_horizon and self.core.unified:  # an idle stream slows nobody
            self._age_out()
        self.stats.max_batch_sequences = max(self.stats.max_batch_sequences, len(plan))
        for job, first, n in plan:
            try:
                self._advance(job, first, n, tokens)
            except Exception as exc:  # noqa: BLE001 - one request's failure ends only that request
                self._fail(job, exc)

    def _advance(self, job: Job, first: int, n: int, tokens: list[int]) -> None:
        assert job.slot is not None
        start = job.n_past
        job.slot.tokens.extend(tokens[first : first + n])
        job.n_past += n
        if job.pending is not None:
            job.pending = None
            self.stats.decoded_tokens += 1
            logits = self.core.logits(first)
        else:
            self.stats.prefilled_tokens += n
            for i in range(n):
                if job.wants(start + i):
                    job.take_logits(start + i, self.core.logits(first + i))
            if job.n_past < len(job.feed):
                return
            logits = self._after_prefill(job)
        token = job.sampler.pick(logits, job.generated if job.penalize else ())
        job.logprobs.append(job.sampler.last_logprob)
        job.proxies.append(job.sampler.last_proxy)
        self._emit_token(job, token)

    def _after_prefill(self, job: Job) -> np.ndarray:
        """Decide on a gated prefix; returns the logits the first generated token comes from."""
        job.first_token_at = time.monotonic()
        if job.prefix and job.threshold is not None:
            assert job.slot is not None
            job.prefix_used = job.gate_score >= job.threshold
            job.penalize = job.wants_penalty and not job.prefix_used
            if not job.prefix_used:
                self.core.seq_rm(job.slot.seq, len(job.prompt))
                del job.slot.tokens[len(job.prompt) :]
                job.n_past = len(job.prompt)
                job.start_text("")
                return job.prompt_logits
        job.start_text(job.prefix_text if job.prefix_used else "")
        return job.last_logits

    def _emit_token(self, job: Job, token: int) -> None:
        job.generated.append(token)
        assert job.text is not None
        if self.core.is_eog(token):
            self._finish(job, "stop")
            return
        piece = job.text.feed(self.core.piece(token))
        if piece:
            job.sink("piece", piece)
        if job.text.stopped:
            self._finish(job, "stop")
        elif len(job.generated) >= job.max_tokens:
            self._finish(job, "length")
        else:
            job.pending = token

    # ------------------------------------------------------------------------------ endings

    def _release(self, job: Job) -> None:
        if job in self._active:
            self._active.remove(job)
        if job.slot is not None:
            job.slot.job = None
            job.slot.used_at = next(self._clock)
            job.slot.idle_from = self.stats.batch_tokens
        job.ended = time.monotonic()

    def _finish(self, job: Job, reason: str) -> None:
        self._release(job)
        assert job.text is not None
        rest = job.text.finish()
        if rest:
            job.sink("piece", rest)
        self.stats.finished += 1
        job.sink("done", job.result(reason))

    def _stop(self, job: Job, why: str) -> None:
        self._release(job)
        self.stats.cancelled += 1
        job.sink("stopped", why)

    def _fail(self, job: Job, exc: BaseException) -> None:
        self._release(job)
        if job.slot is not None:  # its cells may be half-written: forget them
            self.core.seq_rm(job.slot.seq)
            job.slot.tokens = []
        self.stats.failed += 1
        job.sink("error", exc)

    def _age_out(self) -> None:
        """Free the cells of idle slots no request has reused for ``idle_horizon`` fed tokens."""
        oldest = self.stats.batch_tokens - self.idle_horizon
        for slot in self.slots:
            if slot.job is None and slot.tokens and slot.idle_from <= oldest:
                self.core.seq_rm(slot.seq)
                slot.tokens = []
                self.stats.aged_out += 1

    def _evict_idle(self) -> bool:
        """Free the least recently used idle slot's cells; False when none holds any."""
        idle = [s for s in self.slots if s.job is None and s.tokens]
        if not idle:
            return False
        victim = min(idle, key=lambda s: s.used_at)
        self.core.seq_rm(victim.seq)
        victim.tokens = []
        self.stats.evictions += 1
        return True

