"""``paperworks eval --display``: how progress is shown while an eval runs, and ``--log-level``.

- ``full`` / ``rich``: a live progress bar (done/total, running accuracy, errors, tokens, elapsed).
- ``plain``: one line per finished sample, no control characters (fit for logs and pipes).
- ``conversation``: the plain line, then the sample's transcript.
- ``none``: no progress at all.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console


def verdict(record: Any) -> str:
    """A finished sample in a word or two: passed, failed, a score, or its status (and limit)."""
    if record.status != "succeeded" or record.error:
        return f"{record.status} ({record.limit} limit)" if record.limit else str(record.status or "failed")
    first = next(iter(record.scores.values()), None)
    if not isinstance(first, dict):
        return "done"
    if first.get("passed") is not None:
        return "passed" if first["passed"] else "failed"
    value = first.get("value")
    return f"score {value:.3f}" if isinstance(value, (int, float)) else "done"


def _stats(progress: Any) -> str:
    acc = progress.accuracy
    return (f"acc {acc:.3f}" if acc is not None else "acc -") + \
        f" · errors {progress.errors} · {progress.usage.total_tokens} tok"


class BarView:
    """``full`` / ``rich``: a live progress bar."""

    def __init__(self, console: Console) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]eval[/bold]"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), console=console,
                            transient=False)
        self.task = self.bar.add_task("eval", total=1, stats="")

    def __call__(self, progress: Any, record: Any) -> None:
        self.bar.update(self.task, total=progress.total, completed=progress.done, stats=_stats(progress))

    @contextmanager
    def showing(self) -> Iterator[None]:
        with self.bar:
            yield


class PlainView:
    """``plain``: ``[3/12] q7#1 passed · acc 0.667 · errors 0 · 812 tok · 4.2s``, one line per sample,
    written as plain text (no colours, no cursor movement)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def line(self, text: str) -> None:
        self.console.out(text, highlight=False)

    def __call__(self, progress: Any, record: Any) -> None:
        if record is None:
            if progress.done:
                self.line(f"[{progress.done}/{progress.total}] done before · {_stats(progress)}")
            return
        width = len(str(progress.total))
        self.line(f"[{progress.done:>{width}}/{progress.total}] {record.key} {verdict(record)} · "
                  f"{_stats(progress)} · {record.time_s:.1f}s")

    @contextmanager
    def showing(self) -> Iterator[None]:
        yield


class ConversationView(PlainView):
    """``conversation``: the plain line, then the finished sample's transcript."""

    def __init__(self, console: Console, run_path: Path) -> None:
        super().__init__(console)
        self.run_path = run_path

    def __call__(self, progress: Any, record: Any) -> None:
        super().__call__(progress, record)
        if record is None:
            return
        from paperworks.core.events import read_events
        from paperworks.eval.transcript import build_transcript, render_transcript, without_error_prefix

        events = [e for e in read_events(self.run_path / "events.jsonl") if e.get("sample") == record.key]
        self.console.print(render_transcript(build_transcript(events, self.run_path), width=600))
        if record.error:
            self.console.print(f"error: {without_error_prefix(record.error)}", markup=False, highlight=False)
        self.console.rule(style="dim")


def make_view(display: str, console: Console, run_path: Path) -> Any:
    """The progress listener for ``--display`` (None for ``none``)."""
    if display in ("full", "rich"):
        return BarView(console)
    if display == "plain":
        return PlainView(Console(color_system=None, highlight=False, soft_wrap=True))
    if display == "conversation":
        return ConversationView(console, run_path)
    return None


class _StderrHandler(logging.StreamHandler):
    """Writes to the current ``sys.stderr`` (which tests and redirections may replace)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


@contextmanager
def log_level(level: str) -> Iterator[None]:
    """Log lines at ``level`` and above go to stderr while the command runs."""
    root = logging.getLogger()
    handler, before = _StderrHandler(), root.level
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(before)
