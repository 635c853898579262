"""What a scorer sees and returns. Here, at the bottom, because workflows define their own scorers
(DESIGN.md) and the eval harness above them runs those; ``paperworks.eval.records`` re-exports both."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Sample:
    """One row of a suite, mapped to the workflow's input and the target."""

    id: str
    """Unique within the suite (from the row's id field, else ``<file stem>-<line>``)."""
    input: dict[str, Any]
    """The workflow input (validated later by the workflow's input model)."""
    target: Any = None
    """What a correct answer is (string, number or list); None for judge-only suites."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Other fields of the row that the suite keeps (category, difficulty, rubric ...)."""
    source: str = ""
    """``path:line`` of the row, for error messages."""


@dataclass
class Score:
    """One scorer's verdict on one sample."""

    value: float
    """1.0/0.0 for pass/fail scorers; any number for graded ones."""
    passed: bool | None = None
    """Pass/fail when the scorer has that notion (accuracy and pass@k count these)."""
    answer: str | None = None
    """The answer the scorer extracted from the output."""
    explanation: str | None = None
    """Why (e.g. the judge's reasoning, or "|391 - 390| > tolerance")."""
    details: dict[str, Any] = field(default_factory=dict)
    """Anything else worth recording (the judge's raw verdict, its usage ...)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Score:
        return cls(value=float(d.get("value") or 0.0), passed=d.get("passed"), answer=d.get("answer"),
                   explanation=d.get("explanation"), details=dict(d.get("details") or {}))
