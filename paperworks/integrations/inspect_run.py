"""Reading a paperworks run directory for the Inspect export: its run.json, events and samples.

``read_run`` checks that a path (or run id) names a run directory of a kind the exporter knows and
returns its run record, with one-line ``UserError``s for anything else; the other helpers read the
run's ``events.jsonl`` (tolerating a torn last line), its sample records in order, and its
``results.json`` (or, for a run killed before writing it, the same figures computed from the records).
Nothing here knows Inspect's types.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval.records import SampleRecord


def read_run(run_dir: str | Path) -> tuple[Path, dict[str, Any]]:
    """The run directory and its run.json; a one-line ``UserError`` for anything that is not a
    finished-or-not paperworks run directory of a kind the exporter knows."""
    path = Path(run_dir).expanduser()
    if not path.is_dir():
        from paperworks.core.runs import RunDir

        path = RunDir.open(str(run_dir)).path  # a run id; a one-line error when there is none
    record_path = path / "run.json"
    if not record_path.is_file():
        raise UserError(f"{run_dir}: not a paperworks run directory (no run.json)")
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{record_path}: unreadable run record ({type(exc).__name__})") from exc
    if not isinstance(record, dict):
        raise UserError(f"{record_path}: expected a JSON object")
    kind = record.get("kind")
    if kind == "eval":
        if not (path / "samples.jsonl").is_file():
            raise UserError(f"{run_dir}: eval run has no samples.jsonl (no sample finished yet)")
    elif kind != "run":
        raise UserError(f"{run_dir}: a '{kind}' run cannot be exported; export an eval run or a workflow run")
    return path, record


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not path.is_file():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line of a killed run
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _records(path: Path) -> list[SampleRecord]:
    from paperworks.eval.samples_log import SamplesLog

    return sorted(SamplesLog(path / "samples.jsonl").read(), key=lambda r: (r.id, r.epoch))


def _results(path: Path, record: dict[str, Any], records: list[SampleRecord]) -> dict[str, Any]:
    """results.json, or (for a run killed before writing it) the same figures computed from the records."""
    results_path = path / "results.json"
    if results_path.is_file():
        try:
            data = json.loads(results_path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return data
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"{results_path}: unreadable results ({type(exc).__name__})") from exc
    from dataclasses import asdict

    from paperworks.eval.metrics import compute_results

    return asdict(compute_results(records, suite=str(record.get("suite")), model=str(record.get("model")),
                                  epochs=int(record.get("epochs") or 1), limited=bool(record.get("limited")),
                                  elapsed_s=float(record.get("elapsed_s") or 0.0)))
