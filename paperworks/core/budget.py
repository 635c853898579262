"""Per-run accounting and limits: tokens, cost, wall time and working time.

The runner installs a ``Budget`` in a context variable; the model gateway records every call's
usage into it and checks the limits before each call, so a run stops at the first call past a limit.
The gateway also reports the time a call spends queued for a model-concurrency slot
(``begin_wait``/``end_wait``): working time is wall time minus that waiting, as in Inspect. The time
limits themselves are enforced while the run is in a call (``paperworks.core.timelimit``).
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
    working_time_s: float | None = None
    """Working seconds: wall time minus time spent queued for the model (summed over resumes)."""
    tokens: int | None = None
    """Prompt + completion tokens over all model calls of the run."""
    cost: float | None = None
    """US dollars over all model calls of the run (litellm's price map; local models cost 0)."""
    messages: int | None = None
    """Model messages (replies, cached ones included): the call after the last one allowed is refused."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def validate(self, flags: dict[str, str] | None = None) -> Limits:
        """Every limit set must be > 0: a one-line ``UserError`` naming its flag otherwise."""
        from paperworks.core.errors import UserError

        names = {"time_s": "--time-limit", "working_time_s": "--working-limit", "tokens": "--token-limit",
                 "cost": "--cost-limit", "messages": "--message-limit", **(flags or {})}
        for key, value in asdict(self).items():
            if value is None:
                continue
            if key == "messages" and (isinstance(value, bool) or not isinstance(value, int)):
                raise UserError(f"{names[key]} must be a whole number of messages, got {value!r}")
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise UserError(f"{names[key]} must be greater than 0, got {value!r}")
        return self


class Budget:
    """Usage so far and the limits it must stay within."""

    def __init__(self, limits: Limits | None = None, usage: Usage | None = None, elapsed_s: float = 0.0,
                 waiting_s: float = 0.0):
        self.limits = limits or Limits()
        self.usage = usage or Usage()
        self._elapsed_before = elapsed_s
        self._start = time.monotonic()
        self._waited = waiting_s
        self._waits = 0
        self._wait_since = 0.0
        self.messages = 0
        """Model calls begun under this budget (``check_call``), cached replies included."""

    @property
    def elapsed_s(self) -> float:
        """Seconds used by this run, earlier sessions of a resumed run included."""
        return self._elapsed_before + time.monotonic() - self._start

    @property
    def waiting_s(self) -> float:
        """Seconds spent queued for a model slot (overlapping waits of parallel branches count once)."""
        current = time.monotonic() - self._wait_since if self._waits else 0.0
        return self._waited + current

    @property
    def working_s(self) -> float:
        """Wall seconds minus waiting seconds."""
        return max(0.0, self.elapsed_s - self.waiting_s)

    @property
    def waiting_now(self) -> bool:
        """Whether some call of this run is queued for a model slot right now."""
        return self._waits > 0

    def begin_wait(self) -> None:
        """A call of this run starts waiting for a model-concurrency slot."""
        if self._waits == 0:
            self._wait_since = time.monotonic()
        self._waits += 1

    def end_wait(self) -> None:
        """That call got its slot (or gave up waiting)."""
        self._waits = max(0, self._waits - 1)
        if self._waits == 0:
            self._waited += time.monotonic() - self._wait_since

    def time_exceeded(self) -> LimitExceeded | None:
        """The wall-clock or working-time limit, if one is exhausted."""
        lim = self.limits
        if lim.time_s is not None and self.elapsed_s >= lim.time_s:
            return LimitExceeded("time", f"time limit of {lim.time_s:g} s reached ({self.elapsed_s:.1f} s used)")
        if lim.working_time_s is not None and self.working_s >= lim.working_time_s:
            return LimitExceeded("working_time", f"working-time limit of {lim.working_time_s:g} s reached "
                                 f"({self.working_s:.1f} s working, {self.waiting_s:.1f} s waiting for the model)")
        return None

    def seconds_to_time_limit(self) -> float | None:
        """A lower bound on the seconds until a time limit can be reached (None: no time limit).

        Working time grows no faster than wall time, so sleeping this long never oversleeps."""
        lim = self.limits
        left = [lim.time_s - self.elapsed_s] if lim.time_s is not None else []
        if lim.working_time_s is not None:
            left.append(lim.working_time_s - self.working_s)
        return max(0.0, min(left)) if left else None

    def record(self, usage: Usage) -> None:
        """Add one call's usage."""
        self.usage.add(usage)

    def exceeded(self) -> LimitExceeded | None:
        """The first limit that is exhausted, or None."""
        lim = self.limits
        timed = self.time_exceeded()
        if timed is not None:
            return timed
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

    def check_call(self) -> None:
        """Before a model call: ``check``, then the message limit, which refuses the call past it (as
        Inspect's does: the call is not made), then count the call."""
        self.check()
        limit = self.limits.messages
        if limit is not None and self.messages >= limit:
            raise LimitExceeded("messages", f"message limit of {limit} reached ({self.messages} model messages; "
                                "the next call was not made)")
        self.messages += 1


current_budget: ContextVar[Budget | None] = ContextVar("paperworks_budget", default=None)
