"""Demographic retrieval against hand-computed Gower distances, and the K-nearest majority baseline."""

from __future__ import annotations

from typing import Any

import pytest

from paperworks.tools.values.baselines import item_majority, knn_majority, own_class_answers
from paperworks.tools.values.neighbours import demographic_distance, field_distance, nearest_respondents
from paperworks.tools.values.survey import DemographicField, ItemSpec, Respondent, SurveyData

SCHEMA = [DemographicField("country", "categorical"), DemographicField("age", "numeric", range=(20.0, 80.0)),
          DemographicField("education", "ordinal", levels=("primary", "secondary", "tertiary")),
          DemographicField("income", "numeric", range=(0.0, 10.0))]
QUERY: dict[str, Any] = {"country": "A", "age": 40, "education": "secondary", "income": 5}


def _r(rid: str, country: str, age: float | None, edu: str, income: float, x: int | None = None) -> Respondent:
    demo: dict[str, Any] = {"country": country, "education": edu, "income": income}
    if age is not None:
        demo["age"] = age
    return Respondent(rid, demo, {} if x is None else {"X": x})


POOL = [
    _r("q", "A", 40, "secondary", 5, 1),      # the query respondent itself
    _r("r1", "A", 40, "secondary", 5, 1),     # 0
    _r("r2b", "A", 46, "secondary", 10, 0),   # (0 + 0.1 + 0 + 0.5) / 4 = 0.15: ties r2, after it by id
    _r("r2", "A", 46, "tertiary", 5, 1),      # (0 + 6/60 + 1/2 + 0) / 4 = 0.15
    _r("r3", "B", 40, "secondary", 7, 0),     # (1 + 0 + 0 + 0.2) / 4 = 0.3
    _r("r4", "A", 70, "primary", 0, 0),       # (0 + 0.5 + 0.5 + 0.5) / 4 = 0.375
    _r("r5", "A", None, "secondary", 8, 0),   # age unknown: (0 + 0 + 0.3) / 3 = 0.1
    _r("r6", "B", 80, "tertiary", 10),        # (1 + 40/60 + 0.5 + 0.5) / 4 = 0.6667; no answer to X
]
HAND = {"q": 0.0, "r1": 0.0, "r2": 0.15, "r2b": 0.15, "r3": 0.3, "r4": 0.375, "r5": 0.1, "r6": 8 / 12}


def test_distances_match_hand_computation() -> None:
    for r in POOL:
        assert demographic_distance(QUERY, r.demographics, SCHEMA) == pytest.approx(HAND[r.id], abs=1e-12), r.id
    assert field_distance(SCHEMA[1], 20, 200) == 1.0  # capped
    assert field_distance(SCHEMA[2], "primary", "none") is None  # unknown level: left out
    assert demographic_distance({}, {"country": "A"}, SCHEMA) == 1.0  # nothing shared


def test_nearest_exclude_the_query_and_break_ties_by_id() -> None:
    got = nearest_respondents(QUERY, POOL, SCHEMA, k=5, exclude=["q"])
    assert [(n.respondent.id, round(n.distance, 4)) for n in got] == [
        ("r1", 0.0), ("r5", 0.1), ("r2", 0.15), ("r2b", 0.15), ("r3", 0.3)]
    assert [n.respondent.id for n in nearest_respondents(QUERY, POOL, SCHEMA, k=2)] == ["q", "r1"]


def test_weights_and_required_item() -> None:
    weighted = [DemographicField("country", "categorical", weight=2.0), *SCHEMA[1:]]
    assert demographic_distance(QUERY, POOL[4].demographics, weighted) == pytest.approx((2 + 0.2) / 5)
    ids = [n.respondent.id for n in nearest_respondents(QUERY, POOL, SCHEMA, k=10, exclude=["q"], require_item="X")]
    assert ids == ["r1", "r5", "r2", "r2b", "r3", "r4"]  # r6 never answered X
    with pytest.raises(ValueError, match="k must be >= 1"):
        nearest_respondents(QUERY, POOL, SCHEMA, k=0)


def test_knn_majority_and_its_tie_rule() -> None:
    items = {"X": ItemSpec("X", "generalized_trust", "x?", ("yes", "no"))}
    train = SurveyData(POOL, items, SCHEMA)
    assert knn_majority(QUERY, train, "X", k=3, exclude=["q"]) == 1   # r1 1, r5 0, r2 1
    assert item_majority(POOL, "X") == 0                                # 3 ones of 7 answers
    assert knn_majority(QUERY, train, "X", k=4, exclude=["q"]) == 0   # 2-2 tie: the item's majority
    assert knn_majority(QUERY, train, "X", k=1) == 1                  # the query itself, when not excluded


def test_own_class_answers_use_the_sibling_item_keyed() -> None:
    items = {"X": ItemSpec("X", "generalized_trust", "x?", ("yes", "no"), key=1),
             "Y": ItemSpec("Y", "generalized_trust", "y?", ("yes", "no"), key=-1)}
    train = SurveyData(POOL, items, SCHEMA)
    who = Respondent("z", dict(QUERY), {"Y": 1})          # Y=1 means less trust, so X (key +1) = 0
    assert own_class_answers(who, train, "X") == 0
    assert own_class_answers(Respondent("z", dict(QUERY), {}), train, "X", k=3) == 1  # falls back to kNN
