"""The pure parts of OG-MAR's ontology construction: which personas are asked, which class pairs, and
how their answers become typed, weighted relations with provenance.

- Personas (``select_personas``): ``per_group`` training respondents per region (the paper: 20 × 6
  regions = 120), drawn with a seeded shuffle; a persona is the respondent's demographics as a phrase.
- Pairs (``select_pairs``): ``partial`` screens the subclass pairs by the absolute partial correlation of
  the training respondents' class scores (the inverse of the ridge-regularised correlation matrix) and
  keeps the top ``n``; ``all`` takes every pair of subclasses. The screen picks *which* pairs to ask
  about; the relation's type and direction come from the personas' answers. ``screen_ontology`` is what
  the screen alone implies (sign of the partial correlation, direction in taxonomy order), reported
  beside the elicited ontology so that what the model adds can be seen.
- Aggregation (``aggregate``): per ordered pair, the personas' answers vote on the sign; the relation is
  kept when the winning sign has at least ``min_agreement`` of the personas asked (ties: none). Its
  predicate is the most common one of that sign (ties: the stronger), its strength the mean default
  strength of that sign's answers, and its provenance the personas that gave the predicate, how many
  (``agreed``) of how many asked. When both directions of a pair are kept, the one with more agreement
  (then strength, then taxonomy order) stays.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paperworks.agents.ogmar.prompts import persona_text
from paperworks.tools.values.ontology import PREDICATES, Ontology, Provenance, relation
from paperworks.tools.values.profiles import value_profile
from paperworks.tools.values.survey import SurveyData
from paperworks.tools.values.taxonomy import Taxonomy

GROUP_FIELDS = ("region", "country")


@dataclass(frozen=True)
class Persona:
    """A persona the competency questions are asked under."""

    id: str
    group: str
    text: str


def select_personas(train: SurveyData, per_group: int, seed: int = 0) -> list[Persona]:
    """``per_group`` respondents of every region (or country; else of the whole pool), seeded."""
    field = next((f for f in GROUP_FIELDS if any(f in r.demographics for r in train)), None)
    groups: dict[str, list[str]] = {}
    for r in train:
        groups.setdefault(str(r.demographics.get(field, "all")) if field else "all", []).append(r.id)
    out = []
    for group in sorted(groups):
        ids = sorted(groups[group])
        random.Random(f"{seed}:personas:{group}").shuffle(ids)
        out += [Persona(i, group, persona_text(train.respondent(i).demographics)) for i in ids[:per_group]]
    return out


def class_scores(train: SurveyData, taxonomy: Taxonomy) -> tuple[list[str], Any]:
    """(subclass ids, respondents × subclasses matrix of class scores, NaN where no answer)."""
    import numpy as np

    ids = [c.id for c in taxonomy.subclasses]
    index = {c: i for i, c in enumerate(ids)}
    matrix = np.full((len(train), len(ids)), np.nan)
    for row, r in enumerate(train):
        for cid, score in value_profile(r, train.items, taxonomy).classes.items():
            matrix[row, index[cid]] = score.score
    return ids, matrix


def partial_correlations(train: SurveyData, taxonomy: Taxonomy, ridge: float = 1e-3) -> tuple[list[str], Any]:
    """(subclass ids, their partial-correlation matrix); classes nobody answered are left at 0."""
    import numpy as np

    ids, matrix = class_scores(train, taxonomy)
    means = np.nanmean(np.where(np.isnan(matrix).all(axis=0), 0.5, matrix), axis=0) if len(matrix) else \
        np.zeros(len(ids))
    filled = np.where(np.isnan(matrix), means, matrix)
    sd = filled.std(axis=0)
    z = (filled - filled.mean(axis=0)) / np.where(sd == 0, 1.0, sd)
    corr = (z.T @ z) / max(1, len(z))
    precision = np.linalg.inv(corr + ridge * np.eye(len(ids)))
    d = np.sqrt(np.abs(np.diag(precision)))
    partial = -precision / np.outer(d, d)
    np.fill_diagonal(partial, 1.0)
    partial[:, sd == 0] = 0.0
    partial[sd == 0, :] = 0.0
    return ids, partial


def select_pairs(train: SurveyData, taxonomy: Taxonomy, n: int, how: str = "partial",
                 partial: tuple[list[str], Any] | None = None) -> list[tuple[str, str]]:
    """Unordered subclass pairs (in taxonomy order) to ask about (see the module docstring); ``partial``:
    ``partial_correlations(train, taxonomy)`` when already computed."""
    ids = [c.id for c in taxonomy.subclasses]
    if how == "all":
        pairs = list(itertools.combinations(ids, 2))
        return pairs if n <= 0 else pairs[:n]
    if how != "partial":
        raise ValueError(f"pair selection must be 'partial' or 'all', got {how!r}")
    ids, matrix = partial or partial_correlations(train, taxonomy)
    ranked = sorted(((abs(float(matrix[i, j])), i, j) for i, j in itertools.combinations(range(len(ids)), 2)),
                    key=lambda t: (-t[0], t[1], t[2]))
    return [(ids[i], ids[j]) for _, i, j in ranked[: n if n > 0 else len(ranked)]]


def screen_ontology(train: SurveyData, taxonomy: Taxonomy, pairs: Sequence[tuple[str, str]],
                    partial: tuple[list[str], Any] | None = None) -> Ontology:
    """What the partial-correlation screen alone implies for ``pairs``: the sign of the partial
    correlation, strength by its size (|r| ≥ 0.3 strong, ≥ 0.15 plain, else weak), taxonomy order."""
    ids, matrix = partial or partial_correlations(train, taxonomy)
    index = {c: i for i, c in enumerate(ids)}
    out = Ontology(name="screen")
    for a, b in pairs:
        r = float(matrix[index[a], index[b]])
        level = "strongly_" if abs(r) >= 0.3 else "" if abs(r) >= 0.15 else "weakly_"
        out.add(relation(a, f"{level}{'supports' if r >= 0 else 'undermines'}", b,
                         provenance=Provenance(source="screen:partial_correlation")))
    return out


def aggregate(answers: Iterable[Mapping[str, Any]], min_agreement: float = 0.5, source: str = "",
              order: Sequence[str] = ()) -> Ontology:
    """Answers (rows with ``persona``, ``subject``, ``object``, ``predicate`` — a predicate id or ``none``)
    → the ontology (see the module docstring). ``order``: class ids in taxonomy order, for ties."""
    rank = {c: i for i, c in enumerate(order)}
    by_pair: dict[tuple[str, str], dict[str, str]] = {}
    for a in answers:
        by_pair.setdefault((str(a["subject"]), str(a["object"])), {})[str(a["persona"])] = str(a["predicate"])
    kept: dict[frozenset[str], tuple[tuple[float, float, int], Any]] = {}
    strength_rank = {p: i for i, p in enumerate(sorted(PREDICATES, key=lambda p: -PREDICATES[p][1]))}
    for (s, o), votes in sorted(by_pair.items()):
        asked = len(votes)
        signs = Counter(PREDICATES[p][0] for p in votes.values() if p in PREDICATES)
        pos, neg = signs.get(1, 0), signs.get(-1, 0)
        if pos == neg:
            continue
        sign, agreed_sign = (1, pos) if pos > neg else (-1, neg)
        if agreed_sign / asked < min_agreement:
            continue
        same = [p for p in votes.values() if p in PREDICATES and PREDICATES[p][0] == sign]
        counts = Counter(same)
        predicate = min(counts, key=lambda p: (-counts[p], strength_rank[p]))
        strength = sum(PREDICATES[p][1] for p in same) / len(same)
        personas = tuple(sorted(k for k, v in votes.items() if v == predicate))
        rel = relation(s, predicate, o, round(strength, 4), Provenance(personas, counts[predicate], asked, source))
        key = (agreed_sign / asked, strength, -rank.get(s, len(rank)))
        pair = frozenset((s, o))
        if pair not in kept or key > kept[pair][0]:
            kept[pair] = (key, rel)
    last = len(rank)
    relations = sorted((v[1] for v in kept.values()),
                       key=lambda r: (rank.get(r.subject, last), rank.get(r.object, last), r.subject, r.object))
    return Ontology(relations, name=source)
