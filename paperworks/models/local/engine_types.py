"""The records the llama.cpp serving engine works with: a request (:class:`Job`), a sequence slot, counters."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paperworks.models.local.generation import GenerationResult
from paperworks.models.local.sampling import Sampler, TextAssembler

__all__ = ["DeadlineExceeded", "EngineStats", "GenerationCancelled", "Job", "Slot", "common_prefix"]


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    m = min(len(a), len(b))
    if m == 0:
        return 0
    diff = np.flatnonzero(np.asarray(a[:m]) != np.asarray(b[:m]))
    return int(diff[0]) if diff.size else m


class GenerationCancelled(RuntimeError):
    """A request was cancelled before it finished; ``completion_tokens`` says how far it got."""

    def __init__(self, message: str, completion_tokens: int = 0) -> None:
        super().__init__(message)
        self.completion_tokens = completion_tokens


class DeadlineExceeded(TimeoutError):
    """A request's deadline passed while it was queued or decoding; decoding stopped there."""

    def __init__(self, message: str, completion_tokens: int = 0) -> None:
        super().__init__(message)
        self.completion_tokens = completion_tokens


@dataclass
class EngineStats:
    """Counters since the engine started (read them from any thread; written by the engine thread)."""

    steps: int = 0
    """llama_decode calls."""
    batch_tokens: int = 0
    """Tokens fed over all steps."""
    decoded_tokens: int = 0
    """Tokens fed one per decoding request per step."""
    prefilled_tokens: int = 0
    """Prompt tokens computed (the reused ones not counted)."""
    reused_tokens: int = 0
    """Prompt tokens whose KV came from the prefix cache instead."""
    max_batch_sequences: int = 0
    """The most requests one step has served."""
    decode_s: float = 0.0
    """Seconds spent inside llama_decode."""
    step_s: float = 0.0
    """Seconds spent in whole engine steps (decode plus batching, sampling and text handling)."""
    finished: int = 0
    cancelled: int = 0
    failed: int = 0
    evictions: int = 0
    """Idle slots freed to make room in a full KV cache."""
    aged_out: int = 0
    """Idle slots freed because they stayed unused for ``idle_horizon`` fed tokens."""
    kv_wait_steps: int = 0
    """Engine steps in which the next queued request waited for KV room (``BatchEngine._admit``)."""
    prefix_copies: int = 0
    """Streams copied to hand a cached prefix to another sequence (a stream per sequence only)."""
    spills: int = 0
    """Idle prefixes copied into the cache slots before their slot was taken (a stream per sequence only)."""


@dataclass
class Slot:
    """One llama.cpp sequence id and what its KV cells hold."""

    seq: int
    tokens: list[int] = field(default_factory=list)
    """The tokens at positions 0..len-1 of this sequence's KV."""
    job: Job | None = None
    """The request decoding in it, None when idle (then it is prefix cache)."""
    used_at: int = -1
    """When it last became idle (a counter); the least recent idle slot is evicted first."""
    idle_from: int = 0
    """The engine's ``batch_tokens`` when it last became idle (its age as prefix cache is counted from it)."""


Sink = Callable[[str, Any], None]


def _log_softmax_at(logits: np.ndarray, token: int) -> float:
    top = float(logits.max())
    return float(logits[token]) - top - math.log(float(np.exp(logits - top).sum()))


@dataclass(eq=False)
class Job:
    """One generation request and its progress (the engine thread owns the mutable part)."""

    prompt: list[int]
    sampler: Sampler
    sink: Sink
    """Receives ``("piece", text)``, then ``("done", GenerationResult)``, ``("stopped", why)`` or ``("error", exc)``."""
    max_tokens: int = 512
    stops: list[str] = field(default_factory=list)
    prefix: list[int] = field(default_factory=list)
    """Tokens the reply is made to start with (empty: none)."""
    prefix_text: str = ""
    threshold: float | None = None
    """Use ``prefix`` only if its total log-probability is at least this (None: always)."""
    wants_penalty: bool = False
    """The sampler's repetition penalty applies (never inside a forced prefix)."""
    deadline: float | None = None
    """``time.monotonic()`` after which decoding stops."""
    cancelled: threading.Event = field(default_factory=threading.Event)

    slot: Slot | None = None
    n_past: int = 0
    """Tokens of this request in its sequence's KV."""
    pending: int | None = None
    """The sampled token not yet fed (None while prefilling)."""
    generated: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    """Each generated token's log-probability under the distribution it was sampled from."""
    proxies: list[float] = field(default_factory=list)
    """Each generated token's logit-gradient proxy under that distribution (OTB's ``w_t``)."""
    text: TextAssembler | None = None
    reused: int = 0
    """Input tokens taken from the prefix cache."""
    gate_score: float = 0.0
    prefix_used: bool = False
    penalize: bool = False
    prompt_logits: Any = None
    last_logits: Any = None
    started: float = 0.0
    first_token_at: float | None = None
    ended: float | None = None

    def __post_init__(self) -> None:
        self.prefix_used = bool(self.prefix) and self.threshold is None
        self.penalize = self.wants_penalty and not self.prefix_used

    @property
    def gated(self) -> bool:
        """Whether the prefix depends on its log-probability."""
        return bool(self.prefix) and self.threshold is not None

    @property
    def feed(self) -> list[int]:
        """The tokens prefilled: the prompt, then the prefix when it is (or may be) used."""
        return self.prompt + self.prefix if self.prefix else self.prompt

    @property
    def first_output(self) -> int:
        """The first position whose logits are needed (never taken from the prefix cache)."""
        return len(self.prompt) - 1 if self.gated else len(self.feed) - 1

    def wants(self, pos: int) -> bool:
        """Whether the logits at input position ``pos`` are needed."""
        return pos == len(self.feed) - 1 or (self.gated and pos >= len(self.prompt) - 1)

    def take_logits(self, pos: int, logits: np.ndarray) -> None:
        """Record what the prefill needs from the logits at ``pos``."""
        if self.gated:
            j = pos - (len(self.prompt) - 1)
            if j < len(self.prefix):
                self.gate_score += _log_softmax_at(logits, self.prefix[j])
            if j == 0:
                self.prompt_logits = logits
        if pos == len(self.feed) - 1:
            self.last_logits = logits

    def start_text(self, prefix: str) -> None:
        """Begin assembling the reply (``prefix`` when the prefix is used)."""
        self.text = TextAssembler(self.stops, prefix)

    def past(self, now: float) -> bool:
        """Whether the deadline has passed."""
        return self.deadline is not None and now > self.deadline

    def result(self, reason: str) -> GenerationResult:
        """The finished generation."""
        assert self.text is not None
        return GenerationResult(
            text=self.text.text,
            prompt_tokens=len(self.feed) if self.prefix_used else len(self.prompt),
            completion_tokens=len(self.generated),
            finish_reason=reason,
            prefix=self.prefix_text if self.prefix_used else "",
            prompt_ids=list(self.feed if self.prefix_used else self.prompt),
            completion_ids=list(self.generated),
            logprobs=list(self.logprobs),
            proxies=list(self.proxies),
        )
