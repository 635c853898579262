"""Precision and recall of a recovered ontology against a reference (the generator's ground truth).

Four levels of matching, from loosest to strictest:
``pair`` (the two classes are related, either direction), ``directed`` (subject → object),
``signed`` (directed, same sign: supports vs undermines) and ``typed`` (directed, same predicate).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from paperworks.tools.values.ontology import Ontology, Relation

LEVELS: dict[str, Callable[[Relation], Hashable]] = {
    "pair": lambda r: frozenset(r.pair),
    "directed": lambda r: r.pair,
    "signed": lambda r: (r.subject, r.object, r.sign),
    "typed": lambda r: (r.subject, r.object, r.predicate),
}


@dataclass(frozen=True)
class OntologyScore:
    """Matches of one level: true positives, false positives, false negatives and the rates."""

    level: str
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        """tp / (tp + fp); 0 for an empty recovered ontology."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        """tp / (tp + fn); 0 for an empty reference."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int | str]:
        """The counts and rates as a flat dict (rates rounded to 4 places)."""
        return {"level": self.level, "tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4), "f1": round(self.f1, 4)}


def score_ontology(recovered: Ontology, truth: Ontology, level: str = "signed") -> OntologyScore:
    """Precision/recall of ``recovered`` against ``truth`` at one level (see the module docstring)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    key = LEVELS[level]
    got, want = {key(r) for r in recovered}, {key(r) for r in truth}
    return OntologyScore(level, len(got & want), len(got - want), len(want - got))


def compare_ontologies(recovered: Ontology, truth: Ontology) -> dict[str, OntologyScore]:
    """``score_ontology`` at every level."""
    return {level: score_ontology(recovered, truth, level) for level in LEVELS}
