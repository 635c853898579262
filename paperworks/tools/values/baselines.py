"""Model-free predictors of a held-out binary answer, the floor any LLM method must beat.

- ``knn_majority``: the majority answer of the K demographically nearest training respondents on the
  same item (ties: the item's overall majority in the pool, then 1).
- ``item_majority``: the item's majority answer over the whole pool.
- ``own_class_answers``: the respondent's own visible answers to other items of the same class, keyed;
  falls back to ``knn_majority`` when there is none.
- ``triple_vote``: the answer that a set of relations favours given the respondent's other classes:
  evidence = Σ weight × (2·score(other class) - 1) over the relations touching the item's class whose
  other endpoint has a visible score (``triple_evidence``); positive evidence favours the answer that
  means more of the class. Without the model, this is what "consistent with the retrieved triples"
  means (None when there is no evidence).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from paperworks.tools.values.neighbours import nearest_respondents
from paperworks.tools.values.ontology import Relation
from paperworks.tools.values.profiles import ValueProfile
from paperworks.tools.values.survey import ItemSpec, Respondent, SurveyData


def item_majority(pool: Sequence[Respondent], code: str) -> int:
    """1 when at least half of the respondents who answered ``code`` answered 1 (1 for an empty pool)."""
    answers = [r.answers[code] for r in pool if code in r.answers]
    return 1 if not answers or 2 * sum(answers) >= len(answers) else 0


def knn_majority(query: Mapping[str, Any], train: SurveyData, code: str, k: int = 5,
                 exclude: Sequence[str] = ()) -> int:
    """Majority answer on ``code`` of the ``k`` nearest training respondents who answered it."""
    neighbours = nearest_respondents(query, train.respondents, train.schema, k, exclude, require_item=code)
    ones = sum(n.respondent.answers[code] for n in neighbours)
    if 2 * ones == len(neighbours):
        return item_majority(train.respondents, code)
    return 1 if 2 * ones > len(neighbours) else 0


def own_class_answers(respondent: Respondent, train: SurveyData, code: str, k: int = 5) -> int:
    """Predict from the respondent's own answers to the other items of the same class (majority of the
    keyed answers, turned back into this item's coding); ``knn_majority`` when none is visible or tied."""
    item = train.items[code]
    votes = [train.items[c].keyed(a) for c, a in respondent.answers.items()
             if c != code and c in train.items and train.items[c].class_id == item.class_id]
    if votes and 2 * sum(votes) != len(votes):
        more = 1 if 2 * sum(votes) > len(votes) else 0
        return more if item.key == 1 else 1 - more
    return knn_majority(respondent.demographics, train, code, k, exclude=[respondent.id])


def triple_evidence(profile: ValueProfile, class_id: str, relations: Iterable[Relation]) -> float:
    """Σ weight × (2·score - 1) over the relations touching ``class_id`` whose other endpoint has a score."""
    total = 0.0
    for r in relations:
        if class_id not in r.pair:
            continue
        other = r.object if r.subject == class_id else r.subject
        score = profile.score(other)
        if score is not None:
            total += r.weight * (2.0 * score - 1.0)
    return total


def triple_vote(profile: ValueProfile, item: ItemSpec, relations: Iterable[Relation]) -> int | None:
    """The 0/1 answer to ``item`` that the relations favour, or None without (or with balanced) evidence."""
    evidence = triple_evidence(profile, item.class_id, relations)
    if abs(evidence) < 1e-12:
        return None
    more = 1 if evidence > 0 else 0
    return more if item.key == 1 else 1 - more
