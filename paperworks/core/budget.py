"""Per-run accounting and limits: tokens, cost and wall time.

The runner installs a ``Budget`` in a context variable; the model gateway records every call's
usage into it and checks the limits before each call, so a run stops at the first call past a limit.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

from paperworks.core.errors import LimitExceeded


@dataclass
class Usage:
    """Token counts and cost of one or more model calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost += other.cost
        self.calls += other.calls

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["total_tokens"] = self.total_tokens
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        return cls(
            prompt_tokens=int(d.get("prompt_tokens", 0)),
            completion_tokens=int(d.get("completion_tokens", 0)),
            cost=float(d.get("cost", 0.0)),
            calls=int(d.get("calls", 0)),
        )


@dataclass
class Limits:
    """Per-run limits; ``None`` means unlimited."""

    time_s: float | None = None
    """Wall-clock seconds for the whole run (summed over resumes)."""
    tokens: int | None = None
    """Prompt + completion tokens over all model calls of the run."""
    cost: float | None = None
    """US dollars over all model calls of the run (litellm's price map; local models cost 0)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Budget:
    """Usage so far and the limits it must stay within."""

    def __init__(self, limits: Limits | None = None, usage: Usage | None = None, elapsed_s: float = 0.0):
        self.limits = limits or Limits()
        self.usage = usage or Usage()
        self._elapsed_before = elapsed_s
        self._start = time.monotonic()

    @property
    def elapsed_s(self) -> float:
        """Seconds used by this run, earlier sessions of a resumed run included."""
        return self._elapsed_before + time.monotonic() - self._start

    def record(self, usage: Usage) -> None:
        """Add one call's usage."""
        self.usage.add(usage)

    def exceeded(self) -> LimitExceeded | None:
        """The first limit that is exhausted, or None."""
        lim = self.limits
        if lim.time_s is not None and self.elapsed_s >= lim.time_s:
            return LimitExceeded("time", f"time limit of {lim.time_s:g} s reached ({self.elapsed_s:.1f} s used)")
        if lim.tokens is not None and self.usage.total_tokens >= lim.tokens:
            return LimitExceeded(
                "tokens", f"token limit of {lim.tokens} reached ({self.usage.total_tokens} tokens used)"
            )
        if lim.cost is not None and self.usage.cost >= lim.cost:
            return LimitExceeded("cost", f"cost limit of ${lim.cost:g} reached (${self.usage.cost:.4f} used)")
        return None

    def check(self) -> None:
        """Raise ``LimitExceeded`` if any limit is exhausted."""
        exc = self.exceeded()
        if exc is not None:
            raise exc


current_budget: ContextVar[Budget | None] = ContextVar("paperworks_budget", default=None)
