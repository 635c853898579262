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
            c.print(f"{mark} {event.get('node')} [dim]{event.get('seconds', 0):.2f}s[/dim]"
                    + (f" [red]{escape(err)}[/red]" if err else ""))
        elif kind == "model_call" and self.verbose:
            calls = event.get("tool_calls") or []
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
            "limit_exceeded": "yellow"}.get(status, "red")
