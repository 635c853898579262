"""Tables for ``paperworks list``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from paperworks.models import KNOWN_MODELS


def workflows() -> Table:
    """Registered workflows."""
    from paperworks.workflows.registry import list_workflows

    table = Table("workflow", "description", title="workflows", title_justify="left")
    for spec in list_workflows():
        table.add_row(spec.name, spec.description)
    return table


def models() -> Table:
    """Model strings paperworks knows about (any litellm string works)."""
    table = Table("model", "what", title="models", title_justify="left")
    for name, what in KNOWN_MODELS:
        table.add_row(name, what)
    return table


def suites() -> Table:
    """Benchmark suites under ``evals/`` with their sample counts; a malformed one shows its error."""
    from rich.text import Text

    from paperworks.eval.suite import list_suites

    table = Table("suite", "version", "samples", "workflow", "scorers", "description", title="suites",
                  title_justify="left")
    found = list_suites()
    for name, suite in found:
        if isinstance(suite, str):
            table.add_row(name, "", "", "", "", Text(f"error: {suite}", style="red"))
            continue
        spec = suite.spec
        table.add_row(name, spec.version, str(len(suite.samples)), spec.workflow,
                      ", ".join(s.name for s in spec.scorers), Text(spec.description))
    if not found:
        table.add_row("(none yet)", "", "", "", "", "add one under evals/<suite>/suite.yaml")
    return table


def backends() -> Table:
    """Compute backends (one folder per paper under paperworks/backends/)."""
    table = Table("backend", "description", title="backends", title_justify="left")
    root = Path(__file__).resolve().parents[1] / "backends"
    found = sorted(p for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
                   and not p.name.startswith("_"))
    for folder in found:
        doc = (folder / "__init__.py").read_text(encoding="utf-8").strip().strip('"').splitlines()
        table.add_row(folder.name, doc[0].strip('"') if doc else "")
    if not found:
        table.add_row("(none yet)", "backends arrive with their issues (OTB, SpecMD, ...)")
    return table


def _results(record: dict[str, Any]) -> dict[str, Any]:
    import json

    try:
        data = json.loads((Path(record.get("dir", "")) / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _score(record: dict[str, Any]) -> str:
    """An eval's headline figure: its first accuracy (or first metric) ± stderr, from results.json;
    for an unfinished eval, how many samples are done."""
    folder = Path(record.get("dir", ""))
    metrics = _results(record).get("metrics") or {}
    name = next((k for k in metrics if k.endswith("/accuracy")), next(iter(metrics), None))
    if name is not None:
        metric = metrics[name]
        err = f" ± {metric['stderr']:.3f}" if metric.get("stderr") is not None else ""
        return f"{name.removesuffix('/accuracy')} {metric.get('value', 0):.3f}{err}"
    samples = folder / "samples.jsonl"
    done = sum(1 for line in samples.read_text(encoding="utf-8").splitlines() if line.strip()) \
        if samples.is_file() else 0
    total = len(record.get("sample_ids") or []) * int(record.get("epochs") or 1)
    return f"{done}/{total} samples done"


def runs_table(records: list[dict[str, Any]]) -> Table:
    """``paperworks runs``: status as shown (a killed run is ``interrupted``), an eval's suite and score."""
    from rich.markup import escape

    from paperworks.cli.display import status_style

    table = Table("id", "kind", "task", "model", "status", "score", "tokens", "seconds", "created")
    for column in (table.columns[0], table.columns[1], table.columns[4], table.columns[8]):
        column.no_wrap = True
    for r in records:
        status = str(r.get("shown_status") or r.get("status", "?"))
        eval_run = r.get("kind") == "eval"
        what = f"{r.get('suite', '')} ({r.get('workflow', '')})" if eval_run else str(r.get("workflow", ""))
        table.add_row(str(r.get("id", "?")), str(r.get("kind", "")), escape(what), escape(str(r.get("model", ""))),
                      f"[{status_style(status)}]{status}[/]", _score(r) if eval_run else "",
                      str((r.get("usage") or (_results(r).get("usage") if eval_run else None) or {})
                          .get("total_tokens", "")), f"{float(r.get('elapsed_s') or 0):.1f}",
                      str(r.get("created_at", ""))[5:16].replace("T", " "))
    return table
