"""Live terminal view of a run's events (rich)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LiveView:
    """An event listener that prints node, model and tool events as they happen."""

    def __init__(self, console: Console, verbose: bool = True, stream_prefix: str = "[dim]│[/dim] ") -> None:
        self.console = console
        self.verbose = verbose
        self.stream_prefix = stream_prefix
        self.streamed = ""
        """Text streamed since the last model call ended (the chat uses it to avoid printing twice)."""
        self._streaming = False

    def _end_stream(self) -> None:
        if self._streaming:
            self.console.print()
            self._streaming = False

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        c = self.console
        if kind == "token":
            if not self._streaming:
                c.print(self.stream_prefix, end="")
                self._streaming = True
                self.streamed = ""
            self.streamed += event.get("text", "")
            c.print(escape(event.get("text", "")), end="", style="cyan", highlight=False)
            return
        self._end_stream()
        if kind == "run_start" and self.verbose:
            verb = "resuming" if event.get("resumed") else "running"
            c.print(f"[bold]{verb}[/bold] {event.get('workflow')} · model {event.get('model')} "
                    f"· run {event.get('run_id')}")
        elif kind == "node_start" and self.verbose:
            c.print(f"[blue]▶ {event.get('node')}[/blue]")
        elif kind == "node_end" and self.verbose:
            err = event.get("error")
            mark = "[red]✗[/red]" if err else "[green]✓[/green]"
            # the error itself is printed once, as the run's "error:" line at the end
            c.print(f"{mark} {event.get('node')} [dim]{event.get('seconds', 0):.2f}s[/dim]"
                    + (" [red]failed[/red]" if err else ""))
        elif kind == "model_call" and self.verbose:
            calls = [c.get("name", "?") if isinstance(c, dict) else str(c) for c in event.get("tool_calls") or []]
            what = f"→ tools {', '.join(calls)}" if calls else f"→ {escape(_short(event.get('text', ''), 80))}"
            cached = " cached" if event.get("cached") else ""
            c.print(f"  [dim]model {event.get('model')}: {event.get('prompt_tokens')}+"
                    f"{event.get('completion_tokens')} tok, {event.get('latency_s')}s{cached}[/dim] {what}")
        elif kind == "model_retry":
            c.print(f"  [yellow]retry {event.get('attempt')} in {event.get('delay_s')}s: "
                    f"{escape(str(event.get('error')))}[/yellow]")
        elif kind == "tool_call" and self.verbose:
            style = "green" if event.get("ok") else "red"
            c.print(f"  [magenta]tool {event.get('tool')}[/magenta]({escape(_short(event.get('arguments'), 80))})"
                    f" → [{style}]{escape(_short(event.get('observation', ''), 100))}[/{style}]")
        elif kind == "limit":
            c.print(f"[yellow]limit reached: {escape(str(event.get('message')))}[/yellow]")


def status_style(status: str) -> str:
    """Colour for a run status."""
    return {"succeeded": "green", "running": "blue", "cancelled": "yellow", "step_limit": "yellow",
            "limit_exceeded": "yellow", "interrupted": "magenta"}.get(status, "red")


def print_outcome(console: Console, err_console: Console, record: dict[str, Any], path: str,
                  quiet: bool = False) -> None:
    """How a run ended: its answer (or output), status, usage and time, the error once; ``quiet``: the
    answer alone."""

    status = record.get("status", "?")
    output = record.get("output")
    if quiet:  # the result alone: the answer (or the output), and the error if there is one
        if isinstance(output, dict) and "answer" in output:
            console.print(str(output["answer"]), markup=False, highlight=False)
        elif output is not None:
            console.print(json.dumps(output, ensure_ascii=False), markup=False, highlight=False)
        if record.get("error"):
            err_console.print(f"error: {_without_error_prefix(str(record['error']))}", markup=False, highlight=False)
        return
    if isinstance(output, dict) and "answer" in output:
        console.print(f"[bold]answer:[/bold] {output['answer']}")
    elif output is not None:
        console.print(json.dumps(output, indent=2, ensure_ascii=False)[:4000])
    usage = record.get("usage") or {}
    limit = f" ({record['limit']})" if record.get("limit") else ""
    console.print(f"[{status_style(status)}]{status}{limit}[/] · {usage.get('total_tokens', 0)} tokens · "
                  f"${usage.get('cost', 0):.4f} · {record.get('elapsed_s', 0):.1f}s"
                  + (f" ({record['waiting_s']:.1f}s waiting for the model)" if record.get("waiting_s") else ""))
    if record.get("error"):
        err_console.print(f"error: {_without_error_prefix(str(record['error']))}", markup=False, highlight=False)
    console.print(f"run dir: {path}", markup=False, highlight=False, soft_wrap=True)


def _without_error_prefix(text: str) -> str:
    from paperworks.eval.transcript import without_error_prefix

    return without_error_prefix(text)
