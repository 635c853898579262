"""A sample's conversation, read back from its events: messages by role, tool calls with their
arguments and results, and the time each model call spent waiting for the model and generating.

``model_call`` events point at their full prompt (``prompts/<sha>.json`` beside ``events.jsonl``): the
messages before the first reply (system prompt, the task) come from there, so a trace can be replayed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.text import Text


@dataclass
class Turn:
    """One entry of a transcript."""

    role: str
    """system, user, assistant or tool."""
    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """An assistant turn's calls: ``{"name", "arguments"}``."""
    tool: str | None = None
    """A tool turn's tool name."""
    arguments: Any = None
    """A tool turn's arguments."""
    ok: bool | None = None
    """A tool turn: whether the tool succeeded."""
    waiting_s: float | None = None
    """An assistant turn: seconds queued for a model slot before the call ran."""
    latency_s: float | None = None
    """An assistant turn: seconds the call took (retries included)."""
    model: str | None = None


def _content(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in value)
    return "" if value is None else str(value)


def load_prompt(run_dir: Path, event: dict[str, Any]) -> dict[str, Any] | None:
    """The prompt a ``model_call`` event points at (``{"messages", "tools", "settings", "model"}``)."""
    ref = event.get("prompt")
    if not isinstance(ref, str):
        return None
    try:
        data = json.loads((run_dir / ref).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def load_observation(run_dir: Path, event: dict[str, Any]) -> str:
    """A ``tool_call`` event's full observation: inline, or from the blob ``observation_ref`` points at."""
    ref = event.get("observation_ref")
    if isinstance(ref, str):
        try:
            data = json.loads((run_dir / ref).read_text(encoding="utf-8"))
            return str(data["observation"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return str(event.get("observation") or "")


def build_transcript(events: list[dict[str, Any]], run_dir: Path) -> list[Turn]:
    """The conversation of one sample (or run) from its events, in order."""
    turns: list[Turn] = []
    opened = False
    for event in events:
        kind = event.get("type")
        if kind == "model_call":
            if not opened:
                prompt = load_prompt(run_dir, event) or {}
                for msg in prompt.get("messages") or []:
                    if msg.get("role") == "assistant":
                        break
                    turns.append(Turn(role=str(msg.get("role", "?")), text=_content(msg.get("content"))))
                opened = True
            calls = [c if isinstance(c, dict) else {"name": str(c), "arguments": None}
                     for c in event.get("tool_calls") or []]
            turns.append(Turn(role="assistant", text=str(event.get("text") or ""), tool_calls=calls,
                              waiting_s=event.get("waiting_s"), latency_s=event.get("latency_s"),
                              model=event.get("model")))
        elif kind == "tool_call":
            turns.append(Turn(role="tool", tool=str(event.get("tool")), arguments=event.get("arguments"),
                              text=load_observation(run_dir, event), ok=event.get("ok")))
        elif kind == "limit":
            turns.append(Turn(role="limit", text=str(event.get("message") or "")))
    return turns


_STYLE = {"system": "dim", "user": "bold green", "assistant": "bold cyan", "tool": "magenta", "limit": "yellow"}


def render_transcript(turns: list[Turn], width: int = 2000) -> RenderableType:
    """The transcript for the terminal: one block per turn, role first."""
    lines: list[RenderableType] = []
    for turn in turns:
        style = _STYLE.get(turn.role, "bold")
        if turn.role == "assistant":
            timing = []
            if turn.waiting_s:
                timing.append(f"waited {turn.waiting_s:.2f}s for the model")
            if turn.latency_s is not None:
                timing.append(f"{turn.latency_s:.2f}s")
            head = f"[{style}]assistant[/]" + (f" [dim]({', '.join(timing)})[/dim]" if timing else "")
            lines.append(Text.from_markup(head + (f" {escape(_cut(turn.text, width))}" if turn.text else "")))
            for call in turn.tool_calls:
                args = json.dumps(call.get("arguments"), ensure_ascii=False, default=str)
                lines.append(Text.from_markup(f"  [magenta]→ {escape(str(call.get('name')))}[/]({escape(args)})"))
        elif turn.role == "tool":
            mark = "[green]ok[/green]" if turn.ok else "[red]error[/red]"
            args = json.dumps(turn.arguments, ensure_ascii=False, default=str)
            lines.append(Text.from_markup(f"[{style}]tool {escape(str(turn.tool))}[/]({escape(_cut(args, 300))}) "
                                          f"{mark}: {escape(_cut(_observation(turn), width))}"))
        else:
            lines.append(Text.from_markup(f"[{style}]{turn.role}[/] {escape(_cut(turn.text, width))}"))
    return Group(*lines)


def without_error_prefix(text: str) -> str:
    """``error: x`` → ``x``: tools word their failures ``error: ...``, and a line that already says it
    failed must not read ``error: error: ...``."""
    stripped = text.lstrip()
    return stripped[len("error:"):].lstrip() if stripped.lower().startswith("error:") else text


def _observation(turn: Turn) -> str:
    return turn.text if turn.ok else without_error_prefix(turn.text)


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def transcript_rows(turns: list[Turn], limit: int = 4000) -> list[list[str]]:
    """The transcript as ``[label, text]`` rows for the HTML report."""
    rows: list[list[str]] = []
    for turn in turns:
        if turn.role == "assistant":
            timing = f" (waited {turn.waiting_s:.2f}s)" if turn.waiting_s else ""
            calls = "".join(f"\n→ {c.get('name')}({json.dumps(c.get('arguments'), ensure_ascii=False, default=str)})"
                            for c in turn.tool_calls)
            rows.append([f"assistant{timing}", _cut(turn.text, limit) + calls])
        elif turn.role == "tool":
            args = json.dumps(turn.arguments, ensure_ascii=False, default=str)
            rows.append([f"tool {turn.tool}", f"({_cut(args, 300)}) {'ok' if turn.ok else 'error'}: "
                         f"{_cut(_observation(turn), limit)}"])
        else:
            rows.append([turn.role, _cut(turn.text, limit)])
    return rows
