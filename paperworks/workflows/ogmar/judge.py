"""The OG-MAR judge's decision order, computed deterministically from its inputs.

The paper's judge decides by evidence strength, then vote count, then demographic relevance. Here:

1. **Evidence strength** (the only model-judged part, with ``evidence=model``): the judge model rates
   each persona's answer 0-3 (none, weak, moderate, strong support from the retrieved triples and the
   respondent's values). A choice's evidence is the *strongest* rating among the personas that chose
   it (not the sum, which would count votes twice). With ``evidence=triples`` the rating is computed
   instead: 1 for a persona whose answer the retrieved triples favour (``triple_evidence`` over the
   respondent's visible scores), else 0; with ``evidence=none`` every rating is 0.
2. **Vote count**: among the choices tied on evidence, the one most personas chose.
3. **Demographic relevance**: among those still tied, the choice whose supporters are demographically
   closest to the respondent: the highest mean similarity 1 - d (d: Gower distance of the persona's
   respondent to the target).
4. Still tied (identical distances): the choice listed first.

Abstaining personas (unreadable replies) take no part. When every persona abstains there is no
decision (``answer`` None); the workflow's ``fallback`` setting says what happens then. A unanimous
set of answers is decided without asking the judge model (``decided_by: unanimous``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Decision:
    """The judge's verdict and the figures each criterion compared."""

    answer: str | None
    decided_by: str
    """``unanimous``, ``evidence``, ``votes``, ``demographics``, ``order`` or ``no_answers``."""
    votes: dict[str, int] = field(default_factory=dict)
    evidence: dict[str, int] = field(default_factory=dict)
    """Per choice: the strongest rating of its supporters."""
    relevance: dict[str, float] = field(default_factory=dict)
    """Per choice: mean demographic similarity (1 - distance) of its supporters."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def _best(scores: Mapping[str, float], among: Sequence[str]) -> list[str]:
    top = max(scores[c] for c in among)
    return [c for c in among if abs(scores[c] - top) < 1e-12]


def decide(answers: Sequence[Mapping[str, Any]], choices: Sequence[str], ratings: Mapping[str, int]) -> Decision:
    """Apply the decision order (module docstring) to persona answers: rows with ``persona_id``,
    ``answer`` (a choice, or None for an abstention) and ``distance``; ``ratings``: evidence per persona id."""
    valid = [a for a in answers if a.get("answer") in choices]
    votes = {c: sum(1 for a in valid if a["answer"] == c) for c in choices}
    chosen = [c for c in choices if votes[c] > 0]
    if not chosen:
        return Decision(None, "no_answers", votes)
    evidence = {c: max(int(ratings.get(a["persona_id"], 0)) for a in valid if a["answer"] == c) for c in chosen}
    relevance = {c: sum(1.0 - float(a.get("distance", 1.0)) for a in valid if a["answer"] == c) / votes[c]
                 for c in chosen}
    if len(chosen) == 1:
        return Decision(chosen[0], "unanimous", votes, evidence, relevance)
    tied = _best({c: float(v) for c, v in evidence.items()}, chosen)
    if len(tied) == 1:
        return Decision(tied[0], "evidence", votes, evidence, relevance)
    tied = _best({c: float(votes[c]) for c in tied}, tied)
    if len(tied) == 1:
        return Decision(tied[0], "votes", votes, evidence, relevance)
    tied = _best(relevance, tied)
    return Decision(tied[0], "demographics" if len(tied) == 1 else "order", votes, evidence, relevance)


def triple_ratings(answers: Sequence[Mapping[str, Any]], favoured: str | None) -> dict[str, int]:
    """``evidence=triples``: 1 for each persona whose answer is the choice the triples favour, else 0."""
    return {str(a["persona_id"]): int(favoured is not None and a.get("answer") == favoured) for a in answers}
