"""The OG-MAR suites' scorer: ``match`` (it replaces the built-in one for ``ogmar`` suites), binary
accuracy by exact choice match, with sub-metrics in ``details["metrics"]`` (averaged by the eval as
``match/<name>`` over the samples that have them):

- ``consistency``: 1 when the answer is the choice the retrieved triples favour, 0 when it is the other
  one; left out where the triples give no evidence (no ontology, no triple touching the item's class
  with a visible other endpoint), so it is the share of answers that agree with the retrieved triples;
- ``abstained``: 1 when no answer could be read (the answer is '').
"""

from __future__ import annotations

from typing import Any

from paperworks.core.scoring import Sample, Score


def _fold(text: Any) -> str:
    return " ".join(str(text or "").strip().strip("\"'.").casefold().split())


async def score_choice(sample: Sample, output: Any, answer: str, ctx: Any) -> Score:
    """Exact (case- and space-insensitive) match of the chosen choice with the target choice."""
    out = output if isinstance(output, dict) else {}
    given = str(out.get("answer", answer) or "")
    ok = bool(given) and _fold(given) == _fold(sample.target)
    metrics: dict[str, float] = {"abstained": 0.0 if given else 1.0}
    consistency = out.get("consistency")
    if isinstance(consistency, bool):
        metrics["consistency"] = float(consistency)
    explanation = (f"chose {given!r}, the respondent chose {sample.target!r}" if given
                   else f"no answer; the respondent chose {sample.target!r}")
    return Score(1.0 if ok else 0.0, ok, given, explanation, details={
        "metrics": metrics, "decided_by": out.get("decided_by"), "votes": out.get("votes")})


SCORERS: dict[str, Any] = {"match": score_choice}

score_choice.metrics = ("abstained", "consistency")  # type: ignore[attr-defined]
