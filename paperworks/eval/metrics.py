"""Metrics of an eval: accuracy and means with standard errors, unbiased pass@k, time, tokens, cost.

Samples are the unit of uncertainty: with several epochs, a sample's value is the mean over its
epochs, and standard errors are computed over those per-sample means (clustered by sample).
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from paperworks.eval.figures import format_metric
from paperworks.eval.groups import group_key, group_tables, label_order, labels_of, split_metrics
from paperworks.eval.records import Metric, Results, SampleRecord

if TYPE_CHECKING:
    from rich.console import Group
    from rich.table import Table

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "cost", "calls")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` attempts of which ``c`` passed: ``1 - C(n-c, k) / C(n, k)``.

    Computed as ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``, which stays exact for large ``n``.
    """
    if k < 1 or n < 0 or not 0 <= c <= n:
        raise ValueError(f"pass_at_k needs k >= 1 and 0 <= c <= n (got n={n}, c={c}, k={k})")
    if k > n:
        raise ValueError(f"pass_at_k: k={k} is more than the n={n} attempts")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def mean_stderr(values: list[float]) -> Metric:
    """The mean, and the standard error of the mean (sample std / sqrt(n); None for n < 2)."""
    n = len(values)
    if n == 0:
        return Metric(value=0.0, stderr=None, n=0)
    mean = math.fsum(values) / n
    if n < 2:
        return Metric(value=mean, stderr=None, n=1)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return Metric(value=mean, stderr=math.sqrt(variance / n), n=n)


def _canonical(records: list[SampleRecord]) -> list[SampleRecord]:
    """Records sorted by (id, epoch); a (sample, epoch) recorded twice counts once (the later one)."""
    by_key: dict[tuple[str, int], SampleRecord] = {}
    for rec in records:
        key = (rec.id, rec.epoch)
        old = by_key.get(key)
        if old is None or _rank(rec) > _rank(old):
            by_key[key] = rec
    return [by_key[key] for key in sorted(by_key)]


def _rank(rec: SampleRecord) -> tuple[str, str]:
    return rec.finished_at, json.dumps(rec.to_dict(), sort_keys=True, default=str)


def _score(rec: SampleRecord, scorer: str) -> dict[str, Any] | None:
    score = rec.scores.get(scorer)
    return score if rec.status == "succeeded" and isinstance(score, dict) else None


def _passed(rec: SampleRecord, scorer: str) -> float:
    score = _score(rec, scorer)
    return 1.0 if score is not None and score.get("passed") is True else 0.0


def _value(rec: SampleRecord, scorer: str) -> float:
    score = _score(rec, scorer)
    value = score.get("value") if score is not None else None
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else 0.0


def _number(usage: dict[str, Any], key: str) -> float:
    value = usage.get(key)
    if key == "total_tokens" and value is None:
        return _number(usage, "prompt_tokens") + _number(usage, "completion_tokens")
    return float(value) if isinstance(value, int | float) else 0.0


def default_ks(epochs: int) -> list[int]:
    """pass@1, and pass@epochs when there are several epochs."""
    return [1, epochs] if epochs > 1 else [1]


def _accuracy(samples: list[list[SampleRecord]], scorer: str) -> dict[str, Any]:
    """Mean over samples of the share of a sample's recorded epochs that passed."""
    return mean_stderr([math.fsum(_passed(r, scorer) for r in rs) / len(rs) for rs in samples]).to_dict()


def _pass_at(samples: list[list[SampleRecord]], scorer: str, k: int, epochs: int) -> dict[str, Any]:
    """Mean over samples of the unbiased pass@k, with ``n = epochs`` (missing epochs count as failures)."""
    return mean_stderr([pass_at_k(max(epochs, len(rs)), int(sum(_passed(r, scorer) for r in rs)), k)
                        for rs in samples]).to_dict()


def _groups(samples: list[list[SampleRecord]], field: str) -> list[tuple[str, list[list[SampleRecord]]]]:
    """(label, samples) for each value of the metadata ``field``, labels in ``label_order``. A sample's
    value is that of its first record that has the field."""
    members: dict[str, list[list[SampleRecord]]] = defaultdict(list)
    for rs in samples:
        value = next((r.metadata[field] for r in rs if field in (r.metadata or {})), None)
        for label in labels_of(value):
            members[label].append(rs)
    return [(label, members[label]) for label in sorted(members, key=label_order)]


def _sub_metrics(record: SampleRecord, scorer: str) -> dict[str, Any]:
    """A scorer's extra numeric figures (``details["metrics"]``), e.g. SPADA's ``invalid`` rate."""
    score = record.scores.get(scorer)
    extra = (score or {}).get("details", {}).get("metrics") if isinstance(score, dict) else None
    return {k: v for k, v in (extra or {}).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def compute_results(records: list[SampleRecord], *, suite: str, model: str, epochs: int, limited: bool,
                    elapsed_s: float, ks: list[int] | None = None, scorers: list[str] | None = None,
                    group_by: list[str] | None = None) -> Results:
    """``Results`` from the records of an eval. The same records in any order give the same results.

    Per scorer: ``accuracy`` (passed as 0/1) and ``mean`` (the score's value) over samples, each sample
    the mean over its recorded epochs, a failed (sample, epoch) counting as 0; ``pass@k`` for each
    ``k <= epochs`` with ``n = epochs`` per sample (missing epochs count as failures). Then the per
    (sample, epoch) means of ``time_s``, ``tokens`` and ``cost``, error counts by kind and the total usage
    (the samples' own calls and the judge's). A scorer's ``details["metrics"]`` figures are averaged
    per (sample, epoch) as ``<scorer>/<name>`` over the records that have them. ``scorers`` names the
    suite's scorers, so that a scorer
    whose every sample failed before scoring still gets its (zero) accuracy.

    ``group_by`` names metadata fields: for each value of each, every graded scorer's ``accuracy`` and
    ``pass@k`` over the samples with that value, as ``<scorer>/<metric>[<field>=<value>]`` (e.g.
    ``match/pass@2[level=3]``; ``paperworks.eval.groups``). A list-valued field puts a sample in the group
    of each value it lists; a missing, null or empty one in none.
    """
    recs = _canonical(records)
    by_sample: dict[str, list[SampleRecord]] = defaultdict(list)
    for rec in recs:
        by_sample[rec.id].append(rec)
    samples = list(by_sample.values())
    seen = {name for rec in recs for name in rec.scores}
    names = sorted(seen | set(scorers or []))
    ks = sorted({k for k in (ks if ks is not None else default_ks(epochs)) if 1 <= k <= epochs})

    metrics: dict[str, dict[str, Any]] = {}
    graded_names = []
    for name in names:
        graded = name not in seen or any(
            isinstance(r.scores.get(name), dict) and r.scores[name].get("passed") is not None for r in recs)
        if graded:
            graded_names.append(name)
            metrics[f"{name}/accuracy"] = _accuracy(samples, name)
        per_sample = [math.fsum(_value(r, name) for r in rs) / len(rs) for rs in samples]
        metrics[f"{name}/mean"] = mean_stderr(per_sample).to_dict()
        if graded:
            for k in ks:
                metrics[f"{name}/pass@{k}"] = _pass_at(samples, name, k, epochs)

        for key in sorted({k for r in recs for k in _sub_metrics(r, name)}):
            values = [float(_sub_metrics(r, name)[key]) for r in recs if key in _sub_metrics(r, name)]
            metrics[f"{name}/{key}"] = mean_stderr(values).to_dict()

    metrics["time_s/mean"] = mean_stderr([float(r.time_s or 0.0) for r in recs]).to_dict()
    for field in ("working_s", "waiting_s"):  # recorded per sample since working-time limits exist
        timed = [float(getattr(r, field)) for r in recs if getattr(r, field) is not None]
        if timed:
            metrics[f"{field}/mean"] = mean_stderr(timed).to_dict()
    metrics["tokens/mean"] = mean_stderr([_number(r.usage, "total_tokens") for r in recs]).to_dict()
    metrics["cost/mean"] = mean_stderr([_number(r.usage, "cost") for r in recs]).to_dict()
    for field in dict.fromkeys(group_by or []):
        for label, members in _groups(samples, field):
            for name in graded_names:
                metrics[group_key(f"{name}/accuracy", field, label)] = _accuracy(members, name)
                for k in ks:
                    metrics[group_key(f"{name}/pass@{k}", field, label)] = _pass_at(members, name, k, epochs)

    errors = Counter(r.error_kind or "unknown" for r in recs if r.error)
    return Results(suite=suite, model=model, n_samples=len(samples), epochs=epochs, metrics=metrics,
                   errors=dict(sorted(errors.items())), usage=total_usage(recs), elapsed_s=elapsed_s,
                   limited=limited)


def total_usage(records: list[SampleRecord]) -> dict[str, Any]:
    """Summed usage of the records: their own model calls plus the judge calls in their scores' details."""
    usages: list[dict[str, Any]] = []
    for rec in records:
        usages.append(rec.usage or {})
        for name in sorted(rec.scores):
            details = (rec.scores[name] or {}).get("details") or {}
            if isinstance(details.get("usage"), dict):
                usages.append(details["usage"])
    total: dict[str, Any] = {}
    for key in USAGE_KEYS:
        summed = math.fsum(_number(u, key) for u in usages)
        total[key] = summed if key == "cost" else int(summed)
    return total


def metric_rows(metrics: dict[str, dict[str, Any]]) -> list[list[str]]:
    """The overall metrics as ``[name, "value ± stderr", n]`` rows, in ``results.json``'s order."""
    return [[name, format_metric(name, m), str(m.get("n", ""))] for name, m in split_metrics(metrics)[0].items()]


METRIC_HEADER = ["metric", "value ± stderr", "n"]
"""The header of every metrics table."""


def errors_line(results: Results) -> str:
    """``errors: none`` or ``errors: 3 (model_error 2, tool_error 1)``."""
    if not results.errors:
        return "errors: none"
    parts = ", ".join(f"{kind} {count}" for kind, count in results.errors.items())
    return f"errors: {sum(results.errors.values())} ({parts})"


def format_table(results: Results) -> Table | Group:
    """A rich table of the metrics (metric, value, ± stderr, n), captioned with the errors line; with
    grouped metrics, followed by one table per grouped field (``group_tables``)."""
    from rich.console import Group
    from rich.markup import escape
    from rich.table import Table

    epochs = f" × {results.epochs} epochs" if results.epochs > 1 else ""
    table = Table(title=f"{results.suite} · {results.model} · {results.n_samples} samples{epochs}")
    for col in METRIC_HEADER:
        table.add_column(col, justify="left" if col == "metric" else "right")
    for row in metric_rows(results.metrics):
        table.add_row(*(escape(c) for c in row))
    caption = errors_line(results)
    if results.limited:
        caption += " · results are for testing only (--limit / --sample-id)"
    table.caption = caption
    return Group(table, *group_rich_tables(results.metrics)) if split_metrics(results.metrics)[1] else table


def group_rich_tables(metrics: dict[str, dict[str, Any]]) -> list[Table]:
    """One rich table per grouped field ("metrics by level": a row per value, a column per metric)."""
    from rich.markup import escape
    from rich.table import Table

    tables = []
    for field, header, rows in group_tables(metrics):
        by = Table(title=f"metrics by {escape(field)}", title_justify="left")
        for i, col in enumerate(header):
            by.add_column(escape(col), justify="left" if i == 0 else "right")
        for row in rows:
            by.add_row(*(escape(c) for c in row))
        tables.append(by)
    return tables
