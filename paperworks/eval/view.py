"""Reading an eval run: load its records, print a summary, write one self-contained HTML report.

``load_run`` reads ``run.json``, ``results.json`` (absent while the eval is unfinished),
``samples.jsonl`` and ``events.jsonl`` (each streamed once; torn lines skipped). ``summary`` is a
rich renderable for the terminal; ``write_report`` writes ``report.html`` with the samples embedded
as JSON and paged client-side, so that a 5,000-sample report opens quickly.
"""

from __future__ import annotations

import base64
import html
import json
import os
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from paperworks.core.errors import UserError
from paperworks.core.runs import RunDir
from paperworks.eval.groups import group_tables
from paperworks.eval.metrics import METRIC_HEADER, group_rich_tables, metric_rows
from paperworks.eval.records import Results, SampleRecord
from paperworks.eval.report_assets import render_page
from paperworks.eval.samples_log import record_from
from paperworks.eval.transcript import build_transcript, transcript_rows

FIELD_CHARS = 4000
"""Longest text field embedded in the report (characters); longer ones are cut and marked."""
EVENTS_PER_SAMPLE = 200
"""Most trace events embedded per sample."""
IMAGE_BYTES = 200_000
"""Largest image inlined as a data URI; larger ones are linked by relative path."""
TOTAL_IMAGE_BYTES = 20_000_000
"""Most image bytes inlined in one report; the rest are linked."""
AUDIO_BYTES = 2_000_000
"""Largest audio file (e.g. AgentSteerTTS's renders) inlined as a data URI; larger ones are linked."""
_AUDIO_TYPES = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac"}
_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                ".webp": "image/webp", ".svg": "image/svg+xml"}


@dataclass
class EvalRun:
    """One eval run directory, read."""

    path: Path
    record: dict[str, Any]
    """``run.json``."""
    results: Results | None
    """``results.json``; None when the eval did not finish."""
    samples: list[SampleRecord] = field(default_factory=list)
    """Finished (sample, epoch) records; a repeated (id, epoch) keeps its last line."""
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Events by sample key ``"<id>#<epoch>"``; events without a sample are under ``""``."""
    skipped_lines: int = 0
    """Unreadable lines of samples.jsonl / events.jsonl (e.g. a torn last line)."""

    @property
    def planned(self) -> int | None:
        """How many (sample, epoch) pairs the eval was to run, when known."""
        epochs = int((self.results.epochs if self.results else None) or self.record.get("epochs") or 1)
        ids = self.record.get("sample_ids")
        n = self.results.n_samples if self.results else len(ids) if isinstance(ids, list) else None
        return n * epochs if isinstance(n, int) else None

    @property
    def limited(self) -> bool:
        """True when ``--limit``/``--sample-id`` cut the suite (results are for testing only)."""
        args = self.record.get("args")
        args = args if isinstance(args, dict) else {}
        return bool((self.results and self.results.limited) or self.record.get("limited") or
                    args.get("limit") is not None or args.get("sample_ids"))


def _jsonl(path: Path) -> Iterator[dict[str, Any] | None]:
    """Objects of a JSONL file, streamed; None for each unreadable line."""
    if not path.is_file():
        return
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                yield None
                continue
            yield obj if isinstance(obj, dict) else None


def load_run(run_dir: Path) -> EvalRun:
    """Read an eval run directory; ``UserError`` when it is not one."""
    run_dir = Path(run_dir)
    if not (run_dir / "run.json").is_file():
        raise UserError(f"{run_dir}: not a run directory (no run.json)")
    record = RunDir(run_dir).read_record()
    if record.get("kind", "eval") != "eval" or ("suite" not in record and "kind" not in record):
        raise UserError(f"{run_dir}/run.json: not an eval run (kind is {record.get('kind')!r}, expected 'eval')")
    results = None
    results_path = run_dir / "results.json"
    if results_path.is_file():
        try:
            data = json.loads(results_path.read_text(encoding="utf-8"))
            known = {f.name for f in fields(Results)}
            results = Results(**{k: v for k, v in data.items() if k in known})
        except (OSError, json.JSONDecodeError, TypeError, AttributeError) as exc:
            raise UserError(f"{results_path}: unreadable results ({exc})") from exc
    run = EvalRun(run_dir, record, results)
    by_key: dict[str, SampleRecord] = {}
    for obj in _jsonl(run_dir / "samples.jsonl"):
        sample = record_from(obj)  # None for a line that is not a well-formed record (fields of wrong types)
        if sample is None:
            run.skipped_lines += 1
            continue
        by_key[sample.key] = sample
    run.samples = in_suite_order(list(by_key.values()), record.get("sample_ids"))
    for event in _jsonl(run_dir / "events.jsonl"):
        if event is None:
            run.skipped_lines += 1
            continue
        run.events.setdefault(str(event.get("sample") or ""), []).append(event)
    return run


def in_suite_order(samples: list[SampleRecord], sample_ids: Any) -> list[SampleRecord]:
    """The records in the suite's order (``run.json``'s ``sample_ids``), each sample's epochs in order;
    ``samples.jsonl`` holds them in the order they finished. Ids the run did not plan come last."""
    order = {str(i): n for n, i in enumerate(sample_ids)} if isinstance(sample_ids, list) else {}
    return sorted(samples, key=lambda r: (order.get(r.id, len(order)), r.epoch))


def _num(value: Any) -> str:
    """A metric figure: 3 decimals, or 3 significant digits for small ones (costs)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    return f"{value:.3f}" if value == 0 or abs(value) >= 0.01 else f"{value:.2e}"


def _facts(run: EvalRun) -> list[tuple[str, str]]:
    """The run's header lines, as (label, text) pairs, shared by the terminal and the HTML report."""
    rec, res = run.record, run.results
    suite = str(rec.get("suite") or (res.suite if res else "?"))
    if rec.get("suite_version"):
        suite += f" (version {rec['suite_version']})"
    planned = run.planned
    status = str(rec.get("status", "?")) if res else f"{rec.get('status', '?')} — unfinished (no results.json)"
    facts = [("suite", suite), ("workflow", str(rec.get("workflow", "–"))),
             ("model", str(rec.get("model") or (res.model if res else "–"))), ("status", status),
             ("samples done", f"{len(run.samples)}/{planned if planned is not None else '?'}"
                              + (f" ({res.epochs} epochs)" if res and res.epochs > 1 else ""))]
    if rec.get("judge_model"):
        facts.insert(3, ("judge model", str(rec["judge_model"])))
    usage = (res.usage if res else None) or rec.get("usage") or {}
    if usage:
        tokens = usage.get("total_tokens", int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0)))
        facts.append(("usage", f"{tokens} tokens, {usage.get('calls', 0)} calls, ${float(usage.get('cost', 0)):.4f}"))
    elapsed = res.elapsed_s if res else rec.get("elapsed_s")
    if elapsed:
        facts.append(("elapsed", f"{float(elapsed):.1f} s"))
    if rec.get("seed") is not None:
        facts.append(("seed", str(rec["seed"])))
    if rec.get("tags"):
        facts.append(("tags", ", ".join(map(str, rec["tags"]))))
    if isinstance(rec.get("metadata"), dict) and rec["metadata"]:
        facts.append(("metadata", ", ".join(f"{k}={v}" for k, v in rec["metadata"].items())))
    return facts


def _notes(run: EvalRun) -> list[str]:
    notes = []
    if run.limited:
        notes.append("--limit/--sample-id cut the suite: results are for testing only.")
    if run.results is None:
        notes.append(f"The eval did not finish (no results.json): {len(run.samples)} samples done so far, "
                     "no metrics computed.")
    if run.skipped_lines:
        notes.append(f"{run.skipped_lines} unreadable line(s) in samples.jsonl/events.jsonl were skipped.")
    return notes


def summary(run: EvalRun) -> RenderableType:
    """The run at a glance: header, metrics (value ± stderr, n), errors by kind, notes."""
    head = Table.grid(padding=(0, 2))
    for label, text in _facts(run):
        head.add_row(f"[bold]{label}[/bold]", escape(text))
    parts: list[RenderableType] = [head]
    res = run.results
    if res is not None:
        table = Table(title="metrics", title_justify="left")
        for col in METRIC_HEADER:
            table.add_column(col, justify="left" if col == "metric" else "right")
        for row in metric_rows(res.metrics):
            table.add_row(*(escape(c) for c in row))
        parts.append(table)
        parts += group_rich_tables(res.metrics)
        if res.errors:
            errors = Table(title="errors", title_justify="left")
            errors.add_column("kind")
            errors.add_column("count", justify="right")
            for kind, count in sorted(res.errors.items()):
                errors.add_row(escape(kind), str(count))
            parts.append(errors)
    rejump = rejump_table(run.path)
    if rejump is not None:
        parts.append(rejump)
    parts += [Text(note, style="yellow") for note in _notes(run)]
    return Group(*parts)


REJUMP_COLUMNS = ("solution_count", "jump_distance", "success_rate", "overthinking", "forgetting",
                  "verification_rate")
"""The per-sample ReJump metrics shown (``paperworks rejump RUN_DIR`` writes ``rejump.json``)."""


def load_rejump(run_dir: Path) -> dict[str, Any] | None:
    """``RUN_DIR/rejump.json`` when ``paperworks rejump`` has analysed the run (None if absent or unreadable)."""
    try:
        data = json.loads((Path(run_dir) / "rejump.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("samples"), list) else None


def _rejump_rows(data: dict[str, Any]) -> list[list[str]]:
    return [[str(s.get("key")), *(_num((s.get("metrics") or {}).get(k)) for k in REJUMP_COLUMNS),
             str(s.get("png") or s.get("error") or "")] for s in data["samples"] if isinstance(s, dict)]


def rejump_table(run_dir: Path) -> RenderableType | None:
    """The run's ReJump metrics per sample, with the tree drawing's path (None before ``paperworks rejump``)."""
    data = load_rejump(run_dir)
    if data is None:
        return None
    table = Table(title=f"ReJump (extractor {data.get('model')})", title_justify="left")
    for col in ("sample", *REJUMP_COLUMNS, "tree / error"):
        table.add_column(col)
    for row in _rejump_rows(data):
        table.add_row(*(escape(c) for c in row))
    return table


# -- the HTML report ----------------------------------------------------------------------------------

def _cut(value: Any, limit: int = FIELD_CHARS) -> str | None:
    """Text of a field for the report, cut to ``limit`` characters with a marker."""
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return text if len(text) <= limit else text[:limit] + f"… [truncated: {len(text) - limit} more characters]"


def _event_line(event: dict[str, Any]) -> str:
    """One short line describing a trace event."""
    kind, e = event.get("type"), event
    if kind == "node_start":
        text = str(e.get("node"))
    elif kind == "node_end":
        text = f"{e.get('node')} {e.get('seconds', 0)}s" + (f" error: {e['error']}" if e.get("error") else "")
        text += f" → {json.dumps(e.get('update'), ensure_ascii=False, default=str)}" if e.get("update") else ""
    elif kind == "model_call":
        text = (f"{e.get('model')} {e.get('prompt_tokens')}+{e.get('completion_tokens')} tok {e.get('latency_s')}s"
                + (" cached" if e.get("cached") else "")
                + (f" → tools {', '.join(map(str, e.get('tool_calls') or []))}" if e.get("tool_calls") else "")
                + (f" → {e.get('text')}" if e.get("text") else ""))
    elif kind == "tool_call":
        text = (f"{e.get('tool')}({json.dumps(e.get('arguments'), ensure_ascii=False, default=str)}) "
                f"{'ok' if e.get('ok') else 'failed'} → {e.get('observation', '')}")
    else:
        rest = {k: v for k, v in e.items() if k not in ("t", "type", "sample")}
        text = json.dumps(rest, ensure_ascii=False, default=str)
    return _cut(" ".join(text.split()), 400) or ""


def _verdict(sample: SampleRecord) -> str:
    """pass, fail or error: error when the sample failed, pass when every scorer passed."""
    if sample.error or sample.status not in ("succeeded", ""):
        return "error"
    oks = [s.get("passed") if s.get("passed") is not None else float(s.get("value") or 0) >= 0.5
           for s in sample.scores.values()]
    return "pass" if oks and all(oks) else "fail"


class _Images:
    """Inlines artifact images as data URIs within the byte budgets; links everything else."""

    def __init__(self, run_dir: Path, out_dir: Path) -> None:
        self.run_dir, self.out_dir, self.used = run_dir.resolve(), out_dir.resolve(), 0

    def __call__(self, rel: str) -> dict[str, Any]:
        path = (self.run_dir / rel).resolve()
        entry: dict[str, Any] = {"path": rel}
        if not path.is_relative_to(self.run_dir) or not path.is_file():
            entry["missing"] = True
            return entry
        link = os.path.relpath(path, self.out_dir).replace(os.sep, "/")
        entry["href"] = urllib.parse.quote(link if link.startswith("../") else "./" + link)
        mime = _IMAGE_TYPES.get(path.suffix.lower())
        size = path.stat().st_size
        audio = _AUDIO_TYPES.get(path.suffix.lower())
        if audio:  # a player in the report: inlined within the same total budget, else played from the link
            entry["audio"] = True
            if size <= AUDIO_BYTES and self.used + size <= TOTAL_IMAGE_BYTES:
                self.used += size
                entry["data"] = f"data:{audio};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
            return entry
        if mime and size <= IMAGE_BYTES and self.used + size <= TOTAL_IMAGE_BYTES:
            self.used += size
            entry["data"] = f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
        elif mime:
            entry["image"] = True  # shown as a link: over the inline budget
        return entry


def _sample_data(sample: SampleRecord, events: list[dict[str, Any]], images: _Images) -> dict[str, Any]:
    t0 = events[0].get("t", 0) if events else 0
    trace = [[e.get("type"), round(float(e.get("t", t0) or 0) - float(t0 or 0), 2), _event_line(e)]
             for e in events[:EVENTS_PER_SAMPLE]]
    scores = [{"name": name, "value": s.get("value"), "passed": s.get("passed"), "answer": _cut(s.get("answer")),
               "explanation": _cut(s.get("explanation"))} for name, s in sample.scores.items()]
    usage = sample.usage or {}
    return {"id": sample.id, "epoch": sample.epoch, "verdict": _verdict(sample), "status": sample.status,
            "input": _cut(sample.input), "target": _cut(sample.target), "output": _cut(sample.output),
            "scores": scores, "error": _cut(sample.error), "error_kind": sample.error_kind,
            "time_s": sample.time_s, "tokens": usage.get("total_tokens"), "trace": trace,
            "trace_dropped": max(0, len(events) - EVENTS_PER_SAMPLE),
            "transcript": transcript_rows(build_transcript(events, images.run_dir)),
            "artifacts": [images(a) for a in sample.artifacts]}


def _table(header: list[str] | None, rows: list[list[str]]) -> str:
    """An HTML table; every cell escaped."""
    head = "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>" if header else ""
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}<tbody>{body}</tbody></table>"


def write_report(run: EvalRun, out: Path | None = None) -> Path:
    """Write the run's self-contained HTML report (default ``<run_dir>/report.html``); returns its path."""
    out = check_report_path(Path(out) if out is not None else run.path / "report.html")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create its folder ({exc.strerror or exc})") from exc
    images = _Images(run.path, out.parent)
    samples = [_sample_data(s, run.events.get(s.key, []), images) for s in run.samples]
    parts = [_table(None, [[label, text] for label, text in _facts(run)])]
    if run.results is not None:
        parts.append("<h2>Metrics</h2>" + _table(METRIC_HEADER, metric_rows(run.results.metrics)))
        for group, header, group_rows in group_tables(run.results.metrics):
            parts.append(f"<h2>Metrics by {html.escape(group)}</h2>" + _table(header, group_rows))
        if run.results.errors:
            parts.append("<h2>Errors</h2>" + _table(["kind", "count"],
                                                    [[k, str(v)] for k, v in sorted(run.results.errors.items())]))
    rejump = load_rejump(run.path)
    if rejump is not None:
        parts.append(f"<h2>ReJump (extractor {html.escape(str(rejump.get('model')))})</h2>"
                     + _table(["sample", *REJUMP_COLUMNS, "tree / error"], _rejump_rows(rejump)))
        for s in rejump["samples"]:
            img = images(str(s["png"])) if isinstance(s, dict) and s.get("png") else {}
            if img.get("data") or img.get("href"):
                parts.append(f'<p>{html.escape(str(s.get("key")))}<br><img alt="ReJump tree" style="max-width:100%" '
                             f'src="{html.escape(str(img.get("data") or img.get("href")))}"></p>')
    notes = _notes(run) + [f"Long fields are cut to {FIELD_CHARS:,} characters and traces to {EVENTS_PER_SAMPLE} "
                           "events per sample here; the full records are in samples.jsonl and events.jsonl."]
    parts.append("".join(f'<p class="note">{html.escape(n)}</p>' for n in notes))
    title = f"{run.record.get('suite', 'eval')} · {run.record.get('model', '')} · {run.path.name}"
    page = render_page(title=title, header_html="\n".join(parts), data={"samples": samples})
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as exc:  # an unwritable folder, a full disk: one line, and no half-written file left
        tmp.unlink(missing_ok=True)
        raise UserError(f"--out {out}: cannot write the report ({exc.strerror or exc})") from exc
    return out


def check_report_path(out: Path) -> Path:
    """``out`` as a report file path, or a one-line ``UserError`` (a folder, or under a file), checked before
    anything is printed or written."""
    if out.is_dir():
        raise UserError(f"--out {out}: is a folder; give the HTML file to write, e.g. {out / 'report.html'}")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UserError(f"--out {out}: {parent} is a file, not a folder")
            break
    return out
