"""The embedded model served by llama.cpp: the GGUF's own chat template and tokenizer, a batching engine.

:class:`LlamaLocalModel` has the interface of the torch :class:`~.generation.LocalModel` (``generate``,
``stream``, ``prompt_ids``, the same options and :class:`~.generation.GenerationResult`), plus async
variants whose cancellation stops decoding at the engine's next step. Requests from any number of threads
or event loops decode together in one engine thread (see :mod:`.batching`).
"""

from __future__ import annotations

import asyncio
import queue
import time
from collections import deque
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

from paperworks.models.local.batching import BatchEngine
from paperworks.models.local.engine_types import DeadlineExceeded, GenerationCancelled, Job
from paperworks.models.local.generation import ContextWindowError, GenerationResult, TextStream
from paperworks.models.local.llama_core import LlamaCore, LlamaSettings
from paperworks.models.local.sampling import Sampler, SamplingSettings

__all__ = ["AsyncTextStream", "LlamaLocalModel"]


def _render(template: str, messages: list[dict[str, str]], **extra: Any) -> str:
    """A chat template rendered the way transformers' ``apply_chat_template`` renders it."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def fail(message: str) -> None:
        raise ValueError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.globals["raise_exception"] = fail
    return env.from_string(template).render(messages=messages, add_generation_prompt=True, **extra)


class LlamaLocalModel:
    """An embedded GGUF model served by llama.cpp with continuous batching and prefix reuse."""

    engine_name = "llama.cpp"

    def __init__(self, name: str, gguf: Path, settings: LlamaSettings | None = None, *,
                 adapter: Path | None = None, adapter_scale: float = 1.0) -> None:
        """Load ``gguf`` and start the engine thread; ``adapter``: a llama.cpp LoRA adapter GGUF
        (:func:`~.lora_gguf.export_lora_gguf`) served from the start, scaled by ``adapter_scale``."""
        started = time.perf_counter()
        self.name = name
        self.source = "gguf"
        self.settings = settings or LlamaSettings.from_env()
        self.core = LlamaCore(gguf, self.settings, adapter, adapter_scale)
        self.adapter: Path | None = adapter
        """The LoRA adapter GGUF served (None: the base weights)."""
        self.adapter_stamp: tuple[int, int] | None = None
        """What :func:`~.engines.get_engine` last converted ``adapter`` from (the PEFT files' times)."""
        template = self.core.meta("tokenizer.chat_template")
        if not template:
            raise ValueError(f"{gguf} carries no chat template")
        self._template = template
        self._specials = {
            "bos_token": self._token_text("tokenizer.ggml.bos_token_id"),
            "eos_token": self._token_text("tokenizer.ggml.eos_token_id"),
        }
        self.window = min(self.core.n_ctx_train or self.core.n_ctx_seq, self.core.n_ctx_seq)
        self.engine = BatchEngine(self.core, idle_horizon=self.settings.idle_horizon)
        self.recent_jobs: deque[Job] = deque(maxlen=16)
        """The latest requests made (newest last), with their progress: tokens, reuse, timings."""
        self.load_s = time.perf_counter() - started

    def _token_text(self, key: str) -> str:
        value = self.core.meta(key)
        try:
            return self.core.piece(int(value or "")).decode("utf-8", "replace") if value else ""
        except ValueError:
            return ""

    # ------------------------------------------------------------------------------ prompts

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """Token ids of ``messages`` rendered with the GGUF's chat template, ready for the assistant's turn."""
        return self.core.tokenize(_render(self._template, messages, **self._specials))

    def make_job(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 512,
        temperature: float | None = 0.0,
        top_p: float | None = 1.0,
        top_k: int | None = None,
        seed: int | None = None,
        stop: list[str] | str | None = None,
        repetition_penalty: float | None = None,
        prefix: str = "",
        prefix_threshold: float | None = None,
        deadline: float | None = None,
        timeout: float | None = None,
    ) -> Job:
        """A request for the engine (options as :meth:`generate`); raises :class:`ContextWindowError`."""
        prompt = self.prompt_ids(messages)
        prefix_ids = self.core.tokenize(prefix, special=False) if prefix else []
        if len(prompt) + len(prefix_ids) >= self.window:
            more = ("" if self.window >= (self.core.n_ctx_train or self.window) else
                    f" here (each request's KV stream: PAPERWORKS_LOCAL_CTX {self.core.n_ctx} cells / "
                    f"PAPERWORKS_LOCAL_SEQS {self.core.n_seq}; the model reads {self.core.n_ctx_train})")
            raise ContextWindowError(
                f"the prompt has {len(prompt) + len(prefix_ids)} tokens; {self.name} reads at most {self.window}{more}"
            )
        if timeout is not None and timeout > 0:
            deadline = min(deadline, time.monotonic() + timeout) if deadline is not None else time.monotonic() + timeout
        sampling = SamplingSettings(
            temperature=float(temperature or 0.0),
            top_p=float(top_p) if top_p is not None else None,
            top_k=int(top_k) if top_k else None,
            seed=int(seed) if seed is not None else None,
            repetition_penalty=float(repetition_penalty) if repetition_penalty else None,
        )
        stops = [s for s in ([stop] if isinstance(stop, str) else stop or []) if s]
        job = Job(
            prompt=prompt,
            sampler=Sampler(sampling),
            sink=lambda kind, value: None,
            max_tokens=max(1, min(int(max_tokens), self.window - len(prompt) - len(prefix_ids))),
            stops=stops,
            prefix=prefix_ids,
            prefix_text=prefix,
            threshold=prefix_threshold if prefix else None,
            wants_penalty=bool(repetition_penalty),
            deadline=deadline,
        )
        self.recent_jobs.append(job)
        return job

    # ------------------------------------------------------------------------------ blocking

    def generate(self, messages: list[dict[str, str]], **options: Any) -> GenerationResult:
        """The assistant's reply to plain role/content ``messages``.

        Options: ``max_tokens=512, temperature=0.0`` (0 is greedy), ``top_p, top_k, seed`` (a seed makes
        sampling reproducible, batched or not), ``stop`` (strings that end the reply, cut off),
        ``repetition_penalty`` (over the last 64 generated tokens), ``prefix`` and ``prefix_threshold``
        (as the torch model), ``timeout`` (seconds) or ``deadline`` (``time.monotonic()``): past it,
        decoding stops and :class:`DeadlineExceeded` is raised.
        """
        stream = self.stream(messages, **options)
        for _ in stream:
            pass
        assert stream.result is not None
        return stream.result

    def stream(self, messages: list[dict[str, str]], **options: Any) -> TextStream:
        """Like :meth:`generate`, as a :class:`TextStream` of text pieces; closing it cancels the request."""
        job = self.make_job(messages, **options)
        events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        job.sink = lambda kind, value: events.put((kind, value))
        self.engine.submit(job)
        holder = TextStream(iter(()))

        def pieces() -> Iterator[str]:
            try:
                while True:
                    kind, value = events.get()
                    if kind == "piece":
                        yield value
                    elif kind == "done":
                        holder.result = value
                        return
                    else:
                        raise _ending(kind, value, job)
            finally:
                self.engine.cancel(job)

        holder._pieces = pieces()
        return holder

    # ------------------------------------------------------------------------------ async

    def astream(self, messages: list[dict[str, str]], **options: Any) -> AsyncTextStream:
        """An async stream of text pieces; cancelling the task that awaits it stops decoding."""
        return AsyncTextStream(self, self.make_job(messages, **options))

    async def agenerate(self, messages: list[dict[str, str]], **options: Any) -> GenerationResult:
        """:meth:`generate` for an event loop: no worker thread; cancellation stops decoding."""
        stream = self.astream(messages, **options)
        async for _ in stream:
            pass
        assert stream.result is not None
        return stream.result

    def set_adapter(self, gguf: Path | None, scale: float = 1.0) -> float:
        """Serve the llama.cpp LoRA adapter GGUF ``gguf`` scaled by ``scale`` from now on (None: the base
        weights), freeing the previous one; returns the seconds the swap took, waiting included.

        The swap runs on the engine thread between steps, once no request is decoding: running requests
        finish on the old weights, queued ones start on the new. The prefix cache is cleared, since its KV
        cells were computed with the old weights. Raises :class:`~.llama_core.DecodeError` (the previous
        adapter stays) when llama.cpp refuses the file.
        """
        started = time.perf_counter()

        def swap() -> None:
            self.core.set_adapter(gguf, scale)
            self.adapter = gguf
            self.engine.clear_prefix_cache()

        self.engine.call_when_idle(swap)
        return time.perf_counter() - started

    def close(self) -> None:
        """Stop the engine and free llama.cpp."""
        self.engine.close()


def _ending(kind: str, value: Any, job: Job) -> BaseException:
    """The exception a consumer sees for an engine ending other than ``done``."""
    if kind == "error":
        return value if isinstance(value, BaseException) else RuntimeError(str(value))
    n = len(job.generated)
    if value == "deadline":
        return DeadlineExceeded(f"the request's deadline passed after {n} generated tokens", n)
    return GenerationCancelled(f"the request was cancelled after {n} generated tokens", n)


class AsyncTextStream:
    """Async iterator over one request's text pieces; ``result`` is set once it is exhausted.

    The request is submitted on first iteration. Leaving the iteration early (``break`` then ``aclose``,
    or cancellation of the awaiting task) cancels it in the engine.
    """

    def __init__(self, model: LlamaLocalModel, job: Job) -> None:
        self.model, self.job = model, job
        self.result: GenerationResult | None = None
        self._iter = self._pieces()

    @property
    def completion_tokens(self) -> int:
        """Tokens generated so far (how far a cancelled request got)."""
        return len(self.job.generated)

    def __aiter__(self) -> AsyncTextStream:
        return self

    async def __anext__(self) -> str:
        return await self._iter.__anext__()

    async def aclose(self) -> None:
        """Stop early: the request is cancelled."""
        await self._iter.aclose()

    async def _pieces(self) -> AsyncGenerator[str, None]:
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def sink(kind: str, value: Any) -> None:
            try:
                loop.call_soon_threadsafe(events.put_nowait, (kind, value))
            except RuntimeError:  # the loop is closed: nobody listens any more
                self.job.cancelled.set()

        self.job.sink = sink
        self.model.engine.submit(self.job)
        try:
            while True:
                kind, value = await events.get()
                if kind == "piece":
                    yield value
                elif kind == "done":
                    self.result = value
                    return
                else:
                    raise _ending(kind, value, self.job)
        finally:
            self.model.engine.cancel(self.job)
