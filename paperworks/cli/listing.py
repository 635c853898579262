"""What ``paperworks list`` and ``paperworks runs`` show, as ``Listing``s (drawn by ``paperworks.cli.tables``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from paperworks.cli.tables import Column, Listing
from paperworks.models import KNOWN_MODELS

DESCRIPTION_CHARS = 200
"""A description keeps whole sentences up to about this many characters (at least its first sentence)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`])")


def sentences(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """``text`` on one line, cut after the last whole sentence that fits in ``limit`` characters; never
    inside a sentence (a first sentence longer than ``limit`` is kept whole)."""
    flat = " ".join(str(text).split())
    out = ""
    for sentence in _SENTENCE_END.split(flat):
        if out and len(out) + 1 + len(sentence) > limit:
            break
        out = f"{out} {sentence}" if out else sentence
    return out


def docstring_summary(source: str) -> str:
    """A module's description: the first paragraph of its docstring, in whole sentences."""
    text = source.lstrip()
    for quote in ('"""', "'''"):
        if text.startswith(quote):
            text = text[3:].split(quote, 1)[0]
            break
    else:
        return ""
    paragraph = text.strip().split("\n\n", 1)[0].replace("``", "")
    return sentences(paragraph)


def workflows() -> Listing:
    """Registered workflows."""
    from paperworks.workflows.registry import list_workflows

    return Listing("workflows", [Column("workflow"), Column("description", "text")],
                   [[spec.name, sentences(spec.description)] for spec in list_workflows()])


def models() -> Listing:
    """Model strings paperworks knows about (any litellm string works)."""
    return Listing("models", [Column("model"), Column("what", "text")],
                   [[name, sentences(what)] for name, what in KNOWN_MODELS])


def suites() -> Listing:
    """Benchmark suites under ``evals/`` with their sample counts; a malformed one shows its error."""
    from paperworks.eval.suite import list_suites

    rows: list[list[Any]] = []
    for name, suite in list_suites():
        if isinstance(suite, str):
            rows.append([name, None, None, None, None, f"error: {suite}"])
            continue
        spec = suite.spec
        rows.append([name, spec.version, len(suite.samples), spec.workflow, ", ".join(s.name for s in spec.scorers),
                     sentences(spec.description)])
    return Listing("suites", [Column("suite"), Column("version", optional=2), Column("samples", justify="right"),
                              Column("workflow"), Column("scorers", optional=1), Column("description", "text")], rows,
                   empty="none yet: add one under evals/<suite>/suite.yaml")


def backends() -> Listing:
    """Compute backends (one folder per paper under paperworks/backends/)."""
    root = Path(__file__).resolve().parents[1] / "backends"
    found = sorted(p for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
                   and not p.name.startswith("_"))
    rows = [[folder.name, docstring_summary((folder / "__init__.py").read_text(encoding="utf-8"))] for folder in found]
    return Listing("backends", [Column("backend"), Column("description", "text")], rows,
                   empty="none yet: backends arrive with their issues")


def _results(record: dict[str, Any]) -> dict[str, Any]:
    import json

    try:
        data = json.loads((Path(record.get("dir", "")) / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _score(record: dict[str, Any], results: dict[str, Any]) -> str:
    """An eval's headline figure: its first accuracy (or first metric) ± stderr, from results.json;
    for an unfinished eval, how many samples are done."""
    from paperworks.eval.figures import format_metric

    folder = Path(record.get("dir", ""))
    metrics = results.get("metrics") or {}
    name = next((k for k in metrics if k.endswith("/accuracy")), next(iter(metrics), None))
    if name is not None:
        return f"{name.removesuffix('/accuracy')} {format_metric(name, metrics[name])}"
    samples = folder / "samples.jsonl"
    done = sum(1 for line in samples.read_text(encoding="utf-8").splitlines() if line.strip()) \
        if samples.is_file() else 0
    total = len(record.get("sample_ids") or []) * int(record.get("epochs") or 1)
    return f"{done}/{total} samples done"


def runs_listing(records: list[dict[str, Any]]) -> Listing:
    """``paperworks runs``: status as shown (a killed run is ``interrupted``), an eval's suite, score and tags."""
    from paperworks.cli.display import status_style

    rows: list[list[Any]] = []
    for r in records:
        eval_run = r.get("kind") == "eval"
        results = _results(r) if eval_run else {}
        what = f"{r.get('suite', '')} ({r.get('workflow', '')})" if eval_run else str(r.get("workflow", ""))
        tokens = (r.get("usage") or results.get("usage") or {}).get("total_tokens")
        tags = r.get("tags")
        rows.append([str(r.get("id", "?")), str(r.get("kind", "")), what, str(r.get("model", "") or ""),
                     str(r.get("shown_status") or r.get("status", "?")), _score(r, results) if eval_run else "",
                     ",".join(map(str, tags)) if isinstance(tags, list) else "", tokens,
                     round(float(r.get("elapsed_s") or 0), 1), str(r.get("created_at", ""))[5:16].replace("T", " "),
                     str(r.get("dir", ""))])
    return Listing("runs", [
        Column("id"), Column("kind", optional=4), Column("task"), Column("model"),
        Column("status", style=status_style), Column("score", "text"),
        Column("tags", optional=1, in_table=any(isinstance(r.get("tags"), list) and r["tags"] for r in records)),
        Column("tokens", optional=3, justify="right"), Column("seconds", optional=3, justify="right"),
        Column("created", optional=2), Column("dir", in_table=False)], rows)
