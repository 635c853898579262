"""Enforcing a run's time limits while it is inside a call: the task is cancelled when one hits.

``async with enforce_time_limits(budget):`` starts a watchdog that sleeps until the wall-clock or
working-time limit can be reached, re-checks (waiting for the model moves the working deadline) and,
once a limit is exhausted, cancels the task that entered the block — the model call it awaits
included, so an in-process model stops decoding. The block then raises ``LimitExceeded`` naming the
limit, as ``asyncio.timeout`` turns its cancellation into ``TimeoutError``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from paperworks.core.budget import Budget
from paperworks.core.errors import LimitExceeded


@contextlib.asynccontextmanager
async def enforce_time_limits(budget: Budget) -> AsyncIterator[None]:
    """Cancel the current task when ``budget``'s time or working-time limit is exhausted."""
    if budget.seconds_to_time_limit() is None:
        yield
        return
    exc = budget.time_exceeded()
    if exc is not None:
        raise exc
    task = asyncio.current_task()
    assert task is not None
    hit: list[LimitExceeded] = []
    cancelling = task.cancelling()

    async def watch() -> None:
        while True:
            left = budget.seconds_to_time_limit()
            if left is None:
                return
            if left <= 0:
                found = budget.time_exceeded()
                if found is not None:
                    hit.append(found)
                    task.cancel()
                    return
                left = 0.005  # rounding: try again a moment later
            await asyncio.sleep(left)

    watchdog = asyncio.create_task(watch(), name="paperworks-time-limit")
    try:
        yield
    except asyncio.CancelledError:
        if hit and task.uncancel() <= cancelling:
            raise hit[0] from None
        raise
    finally:
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
    if hit and task.cancelling() > cancelling:  # the block ended just as the limit hit:
        with contextlib.suppress(asyncio.CancelledError):  # take delivery of our own cancellation
            await asyncio.sleep(0)
        task.uncancel()
        raise hit[0]
