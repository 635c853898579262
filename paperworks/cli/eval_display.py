"""``paperworks eval --display``: how progress is shown while an eval runs, and ``--log-level``.

- ``full`` / ``rich``: Inspect's live task panel: the suite, sample count and model as its title, the eval's
  settings, a progress bar (done/total, running accuracy, elapsed) and a footer (errors, tokens, calls); redrawn
  in place on a terminal, drawn once (the final state) on a pipe.
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


_LIMIT_NAMES = {"time_s": "time_limit", "working_time_s": "working_limit", "tokens": "token_limit",
                "cost": "cost_limit", "messages": "message_limit"}


def _suite_settings(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The suite's own workflow and generation settings (empty when its folder cannot be read any more)."""
    from paperworks.eval.suite import load_suite

    try:
        spec = load_suite(record["suite_path"]).spec if record.get("suite_path") and not record.get("suite_data") \
            else None
    except Exception:  # a moved or edited suite folder only costs the display its settings
        spec = None
    return (dict(spec.config or {}), dict(spec.generation or {})) if spec is not None else ({}, {})


def _settings(record: dict[str, Any]) -> str:
    """The eval's settings in one line, as Inspect shows a task's config under its title."""
    args = record.get("args") or {}
    config, generation = _suite_settings(record)
    parts = [f"workflow: {record.get('workflow')}"] if record.get("workflow") else []
    parts += [f"{k}: {v}" for k, v in {**config, **(args.get("config") or {}), **generation,
                                       **(args.get("generation") or {})}.items()]
    parts += [f"{k}: {v}" for k, v in (("epochs", record.get("epochs")), ("max_samples", args.get("concurrency")))
              if v is not None]
    parts += [f"{_LIMIT_NAMES.get(k, k)}: {v:g}" for k, v in (record.get("limits") or {}).items() if v is not None]
    if record.get("tags"):
        parts.append(f"tags: {','.join(map(str, record['tags']))}")
    return ", ".join(parts)


class PanelView:
    """``full`` / ``rich``: a live panel like Inspect's task display (title, settings, progress bar, footer)."""

    def __init__(self, console: Console, run_path: Path) -> None:
        from rich.live import Live
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        from paperworks.core.runs import RunDir

        record = RunDir.open(str(run_path)).read_record()
        samples, epochs = len(record.get("sample_ids") or []), int(record.get("epochs") or 1)
        count = f"{samples} x {epochs} samples" if epochs > 1 else f"{samples} sample{'s' if samples != 1 else ''}"
        self.title = f"{record.get('suite') or 'eval'} ({count}): {record.get('model')}"
        self.settings = _settings(record)
        self.bar = Progress(TextColumn("[bold]eval[/bold]"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[score]}"), TimeElapsedColumn(), console=console)
        self.task = self.bar.add_task("eval", total=1, score="")
        self.footer = ("errors 0", "0 tokens · 0 calls")
        self.live = Live(get_renderable=self.render, console=console, refresh_per_second=4, transient=False)

    def render(self) -> Any:
        """The panel as it stands now (Live redraws it; its elapsed-time column ticks on its own)."""
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        footer = Table.grid(expand=True)
        footer.add_column()
        footer.add_column(justify="right")
        footer.add_row(Text(self.footer[0], style="dim"), Text(self.footer[1], style="dim"))
        body = Group(Text(self.settings, style="dim"), "", self.bar, "", footer) if self.settings else \
            Group(self.bar, "", footer)
        return Panel(body, title=Text(self.title, style="bold"), title_align="left", expand=True)

    def __call__(self, progress: Any, record: Any) -> None:
        acc = progress.accuracy
        self.bar.update(self.task, total=progress.total, completed=progress.done,
                        score=f"accuracy {acc:.3f}" if acc is not None else "")
        usage = progress.usage
        self.footer = (f"errors {progress.errors}", f"{usage.total_tokens:,} tokens · {usage.calls} calls")
        self.live.refresh()

    @contextmanager
    def showing(self) -> Iterator[None]:
        with self.live:
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
        return PanelView(console, run_path)
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
