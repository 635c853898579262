"""The checker's entry point: a check or a coverage report, run in the worker process. Layer: entry (its
top: it holds the one :class:`~paperworks.tools.lean.symbolic.client.Worker` and sends it requests that
``local`` answers; nothing below imports this module).
"""

from __future__ import annotations

import time
from typing import Any

from paperworks.tools.lean.symbolic.client import Worker
from paperworks.tools.lean.symbolic.local import SymbolicVerdict, check_answer_local, coverage_row, one_line, precheck


def check_answer(submission: str, formal_answer: str, answer_type: str, *, intros: list | None = None,
                 timeout_s: float = 5.0, isolate: bool = True) -> SymbolicVerdict:
    """Judge ``submission`` (a Lean term in surface syntax) against a row's ``formal_answer``.

    ``answer_type`` is the row's ``formal_answer_type``; ``intros`` its intro binders (their
    variables may appear on both sides). The work runs in a worker process killed after
    ``timeout_s`` (``isolate=False`` runs it here, bounded only by guards and deadlines).
    """
    start = time.monotonic()
    early = precheck(submission, formal_answer, answer_type)
    if early is not None:
        return early
    if not isolate:
        return check_answer_local(submission, formal_answer, answer_type, intros=intros, timeout_s=timeout_s)
    try:
        verdict = _WORKER.call("check", (submission, formal_answer, answer_type, intros, timeout_s), timeout_s + 1.0)
    except TimeoutError:
        return SymbolicVerdict(None, "undecided", f"timed out after {timeout_s:g} s",
                               elapsed_s=time.monotonic() - start)
    except (OSError, EOFError, RuntimeError) as err:
        return SymbolicVerdict(None, "undecided", one_line(f"checker worker failed: {err}"),
                               elapsed_s=time.monotonic() - start)
    assert isinstance(verdict, SymbolicVerdict)
    return verdict


# -- the worker process ------------------------------------------------------------------------------
_WORKER = Worker()


def shutdown_worker() -> None:
    """Stop the checker's worker process (it also stops when this process exits)."""
    _WORKER.close()


# -- coverage ----------------------------------------------------------------------------------------
def coverage(rows: list[dict[str, Any]], *, timeout_s: float = 5.0, isolate: bool = True,
             top: int = 12) -> dict[str, Any]:
    """Coverage of one benchmark file's rows: references parsed, informal answers parsed, informal
    answers that agree with the formal one (as judged here), and the commonest failure reasons."""
    from collections import Counter

    n = len(rows)
    ref_ok = inf_ok = agree = disagree = undecided = 0
    readers: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    seconds = 0.0
    for row in rows:
        if isolate:
            try:
                res = _WORKER.call("coverage_row", (row, timeout_s), timeout_s * 3 + 2)
            except (TimeoutError, RuntimeError, OSError, EOFError):
                res = {"reference": False, "informal": False, "agrees": None, "reason": "timed out", "seconds": 0}
        else:
            res = coverage_row(row, timeout_s)
        seconds += float(res.get("seconds", 0.0))
        ref_ok += bool(res["reference"])
        inf_ok += bool(res["informal"])
        if res["informal"]:
            readers[str(res.get("informal_reader"))] += 1
            agree += res["agrees"] is True
            disagree += res["agrees"] is False
            undecided += res["agrees"] is None
        if res.get("reason"):
            reasons[_group(res["reason"])] += 1

    def pct(k: int) -> float:
        return round(100.0 * k / n, 1) if n else 0.0

    return {
        "rows": n,
        "reference_parsed": ref_ok, "reference_parsed_pct": pct(ref_ok),
        "informal_parsed": inf_ok, "informal_parsed_pct": pct(inf_ok),
        "informal_parsed_as_lean": readers["lean"], "informal_parsed_as_latex": readers["latex"],
        "informal_agrees": agree, "informal_agrees_pct": pct(agree),
        "informal_disagrees": disagree, "informal_undecided": undecided,
        "agreement_of_parsed_pct": round(100.0 * agree / inf_ok, 1) if inf_ok else 0.0,
        "seconds_total": round(seconds, 2), "seconds_per_row": round(seconds / n, 4) if n else 0.0,
        "top_failure_reasons": reasons.most_common(top),
    }


def _group(reason: str) -> str:
    import re

    reason = re.sub(r"differs at .*", "differs at a sample point", reason)
    reason = re.sub(r"(disagrees: ).*(only in the \w+ set)", r"\1an element is \2", reason)
    reason = re.sub(r"(disagrees: ).*≈.*", r"\1values differ numerically", reason)
    reason = re.sub(r"(disagrees: ).* ≠ .*", r"\1values differ", reason)
    return reason[:110]


__all__ = ["check_answer", "coverage", "shutdown_worker"]
