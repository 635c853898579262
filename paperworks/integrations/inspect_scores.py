"""paperworks' scores and metrics as Inspect's: a sample's ``Score``s and the run's ``EvalResults``.

A paperworks ``Score`` becomes an Inspect ``Score`` with the same number as its value (``passed`` and
the scorer's details in its metadata); ``results.json`` becomes ``EvalResults`` with one ``EvalScore``
per scorer whose metrics are paperworks' own figures (``accuracy``, ``mean``, ``pass@k``, grouped ones),
each with its stderr and n, and the per-sample time, token and cost means in the results' metadata.
Numbers are copied, never recomputed, so Inspect shows what paperworks reported.
"""

from __future__ import annotations

import math
from typing import Any


def inspect_score(score: dict[str, Any]) -> Any:
    """A paperworks ``Score.to_dict()`` as an Inspect ``Score``: the same number as ``value``."""
    from inspect_ai.scorer import Score

    value = score.get("value")
    number = float(value) if isinstance(value, int | float) and math.isfinite(value) else 0.0
    return Score(value=number, answer=score.get("answer"), explanation=score.get("explanation"),
                 metadata={"passed": score.get("passed"), "details": score.get("details") or {}})


def eval_results(results: dict[str, Any], scorers: list[str], total: int, completed: int) -> Any:
    """paperworks' metrics as Inspect ``EvalResults`` (values copied, not recomputed)."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    metrics: dict[str, dict[str, Any]] = results.get("metrics") or {}
    names = list(dict.fromkeys([*scorers, *(k.split("/", 1)[0] for k in metrics if "/" in k)]))
    per_sample = {"time_s", "working_s", "waiting_s", "tokens", "cost"}
    eval_scores = []
    for name in names:
        if name in per_sample:
            continue
        table: dict[str, Any] = {}
        for key, m in metrics.items():
            if not key.startswith(name + "/") or not isinstance(m, dict):
                continue
            metric = key[len(name) + 1:]
            table[metric] = EvalMetric(name=metric, value=float(m.get("value") or 0.0),
                                       metadata={"stderr": m.get("stderr"), "n": m.get("n")})
            if metric == "accuracy" and m.get("stderr") is not None:
                table["stderr"] = EvalMetric(name="stderr", value=float(m["stderr"]))
        if table:
            scored = next((int(m.get("n") or 0) for k, m in metrics.items() if k.startswith(name + "/")), None)
            eval_scores.append(EvalScore(name=name, scorer=name, scored_samples=scored, metrics=table))
    return EvalResults(total_samples=total, completed_samples=completed, scores=eval_scores,
                       metadata={"paperworks_metrics": {k: v for k, v in metrics.items()
                                                        if k.split("/", 1)[0] in per_sample},
                                 "errors": results.get("errors") or {}, "usage": results.get("usage") or {},
                                 "elapsed_s": results.get("elapsed_s"), "limited": results.get("limited")})
