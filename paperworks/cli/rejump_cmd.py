"""``paperworks rejump RUN_DIR [--model M] [--task T] [--limit N] [--svg]``: ReJump analysis of a recorded run.

The agent's messages (assistant texts, its tool calls and their results) of each sample (an eval) or of the
run (a single run) are the trace; the extractor (``--model``, through the gateway) turns each into a tree and
a walk; the metrics go to ``RUN_DIR/rejump.json`` and the drawings to ``RUN_DIR/rejump/<sample>.png``, which
``paperworks view`` shows. A sample's leaves are judged against its target when it has one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from paperworks.core.errors import UserError

console = Console(soft_wrap=True)
TASKS = ("auto", "math", "game24", "sudoku")
TOOL_CHARS = 600
"""Longest tool result quoted into a trace."""


def _trace(events: list[dict[str, Any]], run_path: Path) -> tuple[str, str]:
    """``(problem, trace)`` of one conversation: the first user message, then the agent's side of it."""
    from paperworks.eval.transcript import build_transcript

    problem, lines = "", []
    for turn in build_transcript(events, run_path):
        if turn.role == "user" and not problem:
            problem = turn.text
        elif turn.role == "assistant":
            if turn.text.strip():
                lines.append(turn.text.strip())
            lines += [f"[calls {c.get('name')}({json.dumps(c.get('arguments'), default=str)})]"
                      for c in turn.tool_calls]
        elif turn.role == "tool":
            lines.append(f"[{turn.tool} returned: {turn.text.strip()[:TOOL_CHARS]}]")
    return problem, "\n".join(lines)


def _conversations(run_path: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    """Each sample's (or the run's) key, problem, trace and target."""
    from paperworks.core.events import read_events

    events = read_events(run_path / "events.jsonl") if (run_path / "events.jsonl").is_file() else []
    if record.get("kind") != "eval":
        problem, trace = _trace(events, run_path)
        return [{"key": "run", "problem": problem or json.dumps(record.get("input"), default=str),
                 "trace": trace, "target": None}]
    from paperworks.eval.samples_log import SamplesLog

    by_sample: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        by_sample.setdefault(str(event.get("sample") or ""), []).append(event)
    out = []
    for rec in SamplesLog(run_path / "samples.jsonl").read():
        problem, trace = _trace(by_sample.get(rec.key, []), run_path)
        out.append({"key": rec.key, "problem": problem or json.dumps(rec.input, default=str), "trace": trace,
                    "target": rec.target})
    return out


def _judge(task: str, problem: str, target: Any) -> Any:
    from paperworks.backends.rejump import tasks

    if task == "game24":
        numbers = [int(n) for n in re.findall(r"\d+", problem)][:4]
        return tasks.judge_game24(numbers) if len(numbers) == 4 else None
    if task == "sudoku":
        puzzle = tasks.parse_grid(" ".join(re.findall(r"[0-5]{5}", problem)))
        return tasks.judge_sudoku(puzzle) if puzzle else None
    if target is None or isinstance(target, (dict, list)):
        return None
    return tasks.judge_answer(target)


def _guess_task(problem: str) -> str:
    low = problem.lower()
    if "24" in low and len(re.findall(r"\b\d{1,2}\b", low)) >= 5:
        return "game24"
    if "sudoku" in low or "latin square" in low:
        return "sudoku"
    return "math"


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_") or "sample"


def rejump_command(
    run_dir: Annotated[str, typer.Argument(help="Run or eval directory (or id) to analyse.")],
    model: Annotated[str | None, typer.Option("--model", "-m", help="Extractor model, any litellm string "
                                              "(default local/smollm2-135m).")] = None,
    task: Annotated[str, typer.Option(help="How to prompt and judge: auto, math, game24 or sudoku.")] = "auto",
    limit: Annotated[int | None, typer.Option(help="Analyse at most this many samples.")] = None,
    max_tokens: Annotated[int, typer.Option(help="Most tokens per extractor reply.")] = 1024,
    svg: Annotated[bool, typer.Option(help="Also draw each tree as SVG.")] = False,
) -> None:
    """ReJump: extract each trace's reasoning tree and walk, add the metrics to the run, draw the trees."""
    from paperworks.backends.rejump.extract import ExtractionError, extract
    from paperworks.backends.rejump.metrics import compute_metrics
    from paperworks.backends.rejump.plots import draw_rejump
    from paperworks.core.lock import RunLock
    from paperworks.core.runs import RunDir, now_iso
    from paperworks.models import DEFAULT_MODEL, get_model

    if task not in TASKS:
        raise UserError(f"--task must be one of {', '.join(TASKS)}, got '{task}'")
    if limit is not None and limit < 1:
        raise UserError(f"--limit must be at least 1, got {limit}")
    if max_tokens < 16:
        raise UserError(f"--max-tokens must be at least 16, got {max_tokens}")
    run = RunDir.open(run_dir)
    record = run.read_record()
    convs = [c for c in _conversations(run.path, record) if c["trace"].strip()]
    if not convs:
        raise UserError(f"{run.path}: no agent messages to analyse (events.jsonl has no model replies)")
    convs = convs[:limit] if limit else convs
    name = DEFAULT_MODEL if model is None else model
    llm = get_model(name)

    loop = asyncio.new_event_loop()  # one loop for every call (the gateway's clients are bound to it)

    def complete(messages: list[dict[str, str]]) -> str:
        return loop.run_until_complete(llm.generate(messages, max_tokens=max_tokens, temperature=0.0)).text

    samples, ok_metrics = [], []
    with RunLock(run.path), contextlib.closing(loop):
        for conv in convs:
            kind = _guess_task(conv["problem"]) if task == "auto" else task
            entry: dict[str, Any] = {"key": conv["key"], "task": kind, "ok": False}
            try:
                ext = extract(conv["problem"], conv["trace"], complete, task=kind)
            except ExtractionError as exc:
                entry["error"] = str(exc)
                samples.append(entry)
                continue
            metrics = compute_metrics(ext.rejump, _judge(kind, conv["problem"], conv["target"]))
            png = Path("rejump") / f"{_safe(conv['key'])}.png"
            draw_rejump(ext.rejump, run.path / png, f"{conv['key']}: jump distance {metrics.jump_distance}")
            if svg:
                draw_rejump(ext.rejump, run.path / png.with_suffix(".svg"), conv["key"])
            entry.update(ok=True, metrics=metrics.to_dict(), png=str(png), rejump=ext.rejump.to_json())
            ok_metrics.append(metrics.to_dict())
            samples.append(entry)
        summary = _summary(ok_metrics, len(samples))
        doc = {"model": name, "created_at": now_iso(), "summary": summary, "samples": samples}
        target = run.path / "rejump.json"
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        tmp.replace(target)
    _print(samples, summary, target)
    if not ok_metrics:
        raise typer.Exit(1)


SUMMARY_KEYS = ("solution_count", "jump_distance", "success_rate", "overthinking", "forgetting",
                "verification_rate")


def _summary(rows: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """Means over the valid extractions (None-valued rates left out) and the validity rate."""
    out: dict[str, Any] = {"samples": n, "valid": len(rows), "validity_rate": len(rows) / n if n else 0.0}
    for key in SUMMARY_KEYS:
        vals = [float(r[key]) for r in rows if r.get(key) is not None]
        out[key] = sum(vals) / len(vals) if vals else None
    return out


def _print(samples: list[dict[str, Any]], summary: dict[str, Any], path: Path) -> None:
    table = Table(title="ReJump", title_justify="left")
    for col in ("sample", "leaves", "jump", "success", "overthink", "forget", "verif", "error"):
        table.add_column(col)
    fmt = lambda v: "–" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))  # noqa: E731
    for s in samples:
        m = s.get("metrics") or {}
        table.add_row(escape(s["key"]), *(fmt(m.get(k)) for k in SUMMARY_KEYS), escape(s.get("error") or ""))
    console.print(table)
    console.print(f"valid extractions: {summary['valid']}/{summary['samples']}; wrote {escape(str(path))}",
                  highlight=False)
