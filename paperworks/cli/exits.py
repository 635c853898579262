"""How the CLI ends its process: at once once the results are written, not waiting on stuck threads."""

from __future__ import annotations

import os
import sys


def hard_exit(code: int) -> None:
    """Exit now, without waiting for worker threads stuck in a blocking call (the record is written)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def exit_promptly(code: int) -> None:
    """End the process with ``code`` once everything is written, without waiting for worker threads
    still stuck in a blocking call (a cancelled decode, a provider's HTTP pool): Python would join
    those at exit and keep a finished eval alive for hours. Plain ``sys.exit`` when none is left."""
    import threading

    lingering = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon
                 and t.is_alive()]
    if lingering:
        hard_exit(code)
    sys.exit(code)
