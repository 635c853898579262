"""Comparing two finished eval runs: metric deltas with their uncertainty, and the samples that flipped.

The stderr of a delta is the paired one (the standard error of the mean of per-sample differences)
when both runs scored the same sample ids and the metric is a mean of per-sample values, as
``metrics.py`` computes them: a scorer's ``accuracy`` and ``mean`` (a sample's value is the mean over
its epochs, a failed sample counting 0), and ``time_s``/``tokens``/``cost`` means (over (sample, epoch)
records, paired by ``<id>#<epoch>``), and ``pass@k`` (per-sample unbiased estimates). Otherwise (other
metrics, differing samples) it is the independent one, ``sqrt(seA² + seB²)``. Grouped metrics
(``match/accuracy[level=2]``) pair the samples of their group. A delta is flagged when
``|delta| > 1.96 · stderr``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from paperworks.core.errors import UserError
from paperworks.eval.groups import labels_of, metric_order, parse_group_key
from paperworks.eval.records import SampleRecord
from paperworks.eval.view import EvalRun, load_run

Z95 = 1.96
"""A delta larger than ``Z95`` standard errors is flagged."""
FLIPS_SHOWN = 20
"""Flipped sample ids printed per scorer and direction (all are kept in the Comparison)."""


@dataclass
class MetricDelta:
    """One metric in both runs."""

    name: str
    a: float
    b: float
    delta: float
    """``b - a``."""
    stderr: float | None
    """Standard error of the delta; None when neither run gave one and no pairing was possible."""
    stderr_kind: str
    """``"paired"`` (from per-sample differences), ``"independent"`` (sqrt(seA² + seB²)) or ``"none"``."""
    n_paired: int = 0
    """Units paired (samples; (sample, epoch) pairs for time, tokens, cost), when ``stderr_kind`` is paired."""

    @property
    def significant(self) -> bool:
        """True when ``|delta| > 1.96 · stderr``."""
        return self.stderr is not None and abs(self.delta) > Z95 * self.stderr


@dataclass
class Flips:
    """One scorer's samples whose per-sample pass (mean over epochs ≥ 0.5) changed from A to B."""

    pass_to_fail: list[str] = field(default_factory=list)
    fail_to_pass: list[str] = field(default_factory=list)
    compared: int = 0
    """Samples scored in both runs."""


@dataclass
class Comparison:
    """The result of ``compare_runs``."""

    a: dict[str, Any]
    """Run A at a glance: path, suite, suite_version, model, n_samples."""
    b: dict[str, Any]
    metrics: list[MetricDelta] = field(default_factory=list)
    flips: dict[str, Flips] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (with each metric's ``significant`` flag)."""
        out = asdict(self)
        for m, d in zip(self.metrics, out["metrics"], strict=True):
            d["significant"] = m.significant
        return out


def _pass_value(record: SampleRecord, scorer: str) -> float:
    """1/0: the score's ``passed`` (else value ≥ 0.5); 0 for a failed sample, as the metrics count it."""
    score = record.scores.get(scorer)
    if record.status != "succeeded" or not isinstance(score, dict):
        return 0.0
    passed = score.get("passed")
    return float(passed is True) if passed is not None else float(float(score.get("value") or 0) >= 0.5)


def _score_value(record: SampleRecord, scorer: str) -> float:
    score = record.scores.get(scorer)
    value = score.get("value") if record.status == "succeeded" and isinstance(score, dict) else None
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else 0.0


def _usage(record: SampleRecord, key: str) -> float:
    usage = record.usage or {}
    if key == "total_tokens" and usage.get(key) is None:
        return _usage(record, "prompt_tokens") + _usage(record, "completion_tokens")
    value = usage.get(key)
    return float(value) if isinstance(value, (int, float)) else 0.0


def _pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one sample with ``c`` passes in ``n`` attempts: 1 - C(n-c, k) / C(n, k)."""
    return 1.0 if n - c < k else 1.0 - math.comb(n - c, k) / math.comb(n, k)


def unit_values(run: EvalRun, metric: str) -> dict[str, float] | None:
    """The per-unit values whose mean is ``metric``, as ``metrics.py`` computes it, or None when the
    metric is not such a mean. Units are sample ids (a scorer's ``accuracy`` and ``mean``: the mean over
    epochs, a failed sample counting 0; ``pass@k``: the unbiased estimate from the sample's epochs) or
    ``<id>#<epoch>`` record keys (``time_s``, ``tokens`` and ``cost`` means). A grouped metric
    (``match/accuracy[level=2]``) has the values of its metric over the samples in its group."""
    grouped = parse_group_key(metric)
    if grouped is not None:
        base, group, label = grouped
        members = [r for r in run.samples if label in labels_of((r.metadata or {}).get(group))]
        return unit_values(dataclasses.replace(run, samples=members), base) if members else None
    head, _, tail = metric.rpartition("/")
    get: Callable[[SampleRecord], float]
    if not head or not (tail in ("accuracy", "mean") or re.fullmatch(r"pass@\d+", tail)):
        return None
    if head in ("time_s", "tokens", "cost") and tail == "mean":
        key = {"time_s": "time_s", "tokens": "total_tokens", "cost": "cost"}[head]
        return {r.key: float(r.time_s or 0.0) if key == "time_s" else _usage(r, key) for r in run.samples}
    get = (lambda r: _score_value(r, head)) if tail == "mean" else (lambda r: _pass_value(r, head))
    by_id: dict[str, list[float]] = defaultdict(list)
    for record in run.samples:
        by_id[record.id].append(get(record))
    if tail.startswith("pass@"):
        k, epochs = int(tail[5:]), int(run.results.epochs if run.results else 1)
        if any(k > max(epochs, len(vs)) for vs in by_id.values()):
            return None
        return {sid: _pass_at_k(max(epochs, len(vs)), int(sum(vs)), k) for sid, vs in by_id.items()}
    return {sid: sum(vs) / len(vs) for sid, vs in by_id.items()}


def paired_stderr(a: dict[str, float], b: dict[str, float]) -> float | None:
    """Standard error of the mean of per-sample differences ``b - a``; None unless both cover the
    same ids (at least two)."""
    if set(a) != set(b) or len(a) < 2:
        return None
    diffs = [b[k] - a[k] for k in a]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return math.sqrt(var / len(diffs))


def _delta(name: str, ma: dict[str, Any], mb: dict[str, Any], ra: EvalRun, rb: EvalRun) -> MetricDelta:
    va, vb = float(ma.get("value") or 0.0), float(mb.get("value") or 0.0)
    pa, pb = unit_values(ra, name), unit_values(rb, name)
    if pa is not None and pb is not None:
        se = paired_stderr(pa, pb)
        if se is not None:
            return MetricDelta(name, va, vb, vb - va, se, "paired", len(pa))
    sa, sb = ma.get("stderr"), mb.get("stderr")
    if sa is None and sb is None:
        return MetricDelta(name, va, vb, vb - va, None, "none")
    return MetricDelta(name, va, vb, vb - va, math.sqrt(float(sa or 0) ** 2 + float(sb or 0) ** 2), "independent")


def _scorers(run: EvalRun) -> set[str]:
    return {name for record in run.samples for name in record.scores}


def _flips(ra: EvalRun, rb: EvalRun, scorer: str) -> Flips:
    pa, pb = unit_values(ra, f"{scorer}/accuracy") or {}, unit_values(rb, f"{scorer}/accuracy") or {}
    common = sorted(set(pa) & set(pb))
    return Flips(pass_to_fail=[s for s in common if pa[s] >= 0.5 > pb[s]],
                 fail_to_pass=[s for s in common if pb[s] >= 0.5 > pa[s]], compared=len(common))


def _side(run: EvalRun) -> dict[str, Any]:
    res, rec = run.results, run.record
    assert res is not None
    return {"path": str(run.path), "suite": rec.get("suite") or res.suite, "suite_version": rec.get("suite_version"),
            "model": rec.get("model") or res.model, "n_samples": res.n_samples, "epochs": res.epochs,
            "limited": run.limited}


def _load_finished(path: Path, label: str) -> EvalRun:
    run = load_run(Path(path))
    if run.results is None:
        raise UserError(f"run {label} ({path}): no results.json — the eval did not finish "
                        "(finish it with `paperworks eval --resume RUN_DIR`)")
    return run


def compare_runs(a: Path, b: Path) -> Comparison:
    """Compare two finished eval runs (B against A); ``UserError`` if either is not one."""
    ra, rb = _load_finished(a, "A"), _load_finished(b, "B")
    assert ra.results is not None and rb.results is not None
    comp = Comparison(_side(ra), _side(rb))
    if comp.a["suite"] != comp.b["suite"]:
        comp.warnings.append(f"the suites differ: A is {comp.a['suite']!r}, B is {comp.b['suite']!r}")
    elif comp.a["suite_version"] != comp.b["suite_version"]:
        comp.warnings.append(f"the suite versions differ: A is {comp.a['suite_version']!r}, "
                             f"B is {comp.b['suite_version']!r}")
    ids_a, ids_b = {r.id for r in ra.samples}, {r.id for r in rb.samples}
    if ids_a != ids_b:
        comp.warnings.append(f"the sample sets differ: {len(ids_a - ids_b)} only in A, {len(ids_b - ids_a)} only "
                             f"in B, {len(ids_a & ids_b)} in both (flips count only samples in both)")
    if comp.a["epochs"] != comp.b["epochs"]:
        comp.warnings.append(f"the epochs differ: A ran {comp.a['epochs']}, B ran {comp.b['epochs']}")
    if comp.a["limited"] or comp.b["limited"]:
        comp.warnings.append("a run was cut by --limit/--sample-id: results are for testing only")
    ma, mb = ra.results.metrics, rb.results.metrics
    comp.metrics = [_delta(name, ma[name], mb[name], ra, rb) for name in sorted(set(ma) & set(mb), key=metric_order)]
    only = sorted(set(ma) ^ set(mb), key=metric_order)
    if only:
        comp.warnings.append(f"metrics in only one run (not compared): {', '.join(only)}")
    comp.flips = {s: _flips(ra, rb, s) for s in sorted(_scorers(ra) & _scorers(rb))}
    return comp


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:FLIPS_SHOWN])
    return shown + (f" … and {len(ids) - FLIPS_SHOWN} more" if len(ids) > FLIPS_SHOWN else "")


def print_comparison(c: Comparison, console: Console) -> None:
    """Print a comparison: the two runs, warnings, the metric deltas, the flipped samples."""
    runs = Table.grid(padding=(0, 2))
    for label, side in (("A", c.a), ("B", c.b)):
        version = f" v{side['suite_version']}" if side.get("suite_version") else ""
        runs.add_row(f"[bold]{label}[/bold]", escape(f"{side['suite']}{version} · {side['model']} · "
                                                     f"{side['n_samples']} samples · {side['path']}"))
    console.print(runs)
    for warning in c.warnings:
        console.print(f"[yellow]warning: {escape(warning)}[/yellow]")
    table = Table(title="metrics (Δ = B − A; * when |Δ| > 1.96·stderr)", title_justify="left")
    for col in ("metric", "A", "B", "Δ", "± stderr", "stderr", ""):
        table.add_column(col, justify="left" if col in ("metric", "stderr") else "right")
    for m in c.metrics:
        style = ("green" if m.delta > 0 else "red") if m.significant else ""
        kind = f"paired (n={m.n_paired})" if m.stderr_kind == "paired" else m.stderr_kind
        table.add_row(escape(m.name), f"{m.a:.3f}", f"{m.b:.3f}", f"[{style}]{m.delta:+.3f}[/{style}]" if style
                      else f"{m.delta:+.3f}", "–" if m.stderr is None else f"{m.stderr:.3f}", kind,
                      "*" if m.significant else "")
    console.print(table)
    if c.flips:
        flips = Table(title="flipped samples (pass = mean over epochs ≥ 0.5)", title_justify="left")
        for col in ("scorer", "compared", "pass → fail", "fail → pass"):
            flips.add_column(col, overflow="fold")
        for scorer, f in c.flips.items():
            flips.add_row(escape(scorer), str(f.compared),
                          escape(f"{len(f.pass_to_fail)}: {_ids(f.pass_to_fail)}" if f.pass_to_fail else "0"),
                          escape(f"{len(f.fail_to_pass)}: {_ids(f.fail_to_pass)}" if f.fail_to_pass else "0"))
        console.print(flips)
