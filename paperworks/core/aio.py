"""Running a coroutine to its end from synchronous code (the CLI), so that Ctrl-C and leftovers
never keep the process waiting."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a runner coroutine from synchronous code (the CLI).

    Unlike ``asyncio.run``, Ctrl-C cancels the run (so it records "cancelled") and then returns at
    once, without waiting for worker threads that may be stuck in a blocking call; the caller ends
    the process (``os._exit``) in that case.
    """
    loop = asyncio.new_event_loop()
    executor = ThreadPoolExecutor(thread_name_prefix="paperworks")
    loop.set_default_executor(executor)
    task = loop.create_task(coro)
    try:
        return loop.run_until_complete(task)
    except KeyboardInterrupt:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
                loop.run_until_complete(task)
        raise
    finally:
        _cancel_leftovers(loop)
        executor.shutdown(wait=False, cancel_futures=True)
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel tasks still pending in the loop (litellm's logging worker, a cancelled call's helpers) and
    let them finish, as ``asyncio.run`` does; a task awaiting a blocked thread ends at once."""
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for t in pending:
        t.cancel()
    if pending:
        with contextlib.suppress(BaseException):
            loop.run_until_complete(asyncio.wait(pending, timeout=5))
