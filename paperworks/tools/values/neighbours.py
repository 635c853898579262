"""Demographic retrieval: the K respondents most similar to a query respondent.

The distance is Gower's mixed-type distance: over the demographic fields known for both respondents,
the weighted mean of per-field distances in [0, 1]:

- categorical (country, region, sex, urban): 0 when equal, else 1;
- numeric (age, income): |a - b| / (high - low) of the field's range, capped at 1;
- ordinal (education, religiosity): |rank(a) - rank(b)| / (number of levels - 1).

A field missing on either side is left out of the mean (distance 1 when no field is shared). Ties are
broken by respondent id, so results are deterministic. The query respondent (and any other id in
``exclude``) is never returned.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paperworks.tools.values.survey import DemographicField, Respondent


@dataclass(frozen=True)
class Neighbour:
    """A retrieved respondent and its distance to the query (0 = identical demographics)."""

    respondent: Respondent
    distance: float


def field_distance(f: DemographicField, a: Any, b: Any) -> float | None:
    """One field's distance in [0, 1], or None when either value is missing (or an unknown level)."""
    if a is None or b is None or a == "" or b == "":
        return None
    if f.kind == "numeric":
        if f.range is None:
            raise ValueError(f"demographic '{f.name}' is numeric but has no range")
        span = f.range[1] - f.range[0]
        return min(1.0, abs(float(a) - float(b)) / span) if span > 0 else float(float(a) != float(b))
    if f.kind == "ordinal":
        if str(a) not in f.levels or str(b) not in f.levels:
            return None
        steps = max(1, len(f.levels) - 1)
        return abs(f.levels.index(str(a)) - f.levels.index(str(b))) / steps
    return 0.0 if str(a) == str(b) else 1.0


def demographic_distance(a: Mapping[str, Any], b: Mapping[str, Any], schema: Sequence[DemographicField]) -> float:
    """Gower distance between two demographic records (see the module docstring)."""
    total = weights = 0.0
    for f in schema:
        d = field_distance(f, a.get(f.name), b.get(f.name))
        if d is not None:
            total += f.weight * d
            weights += f.weight
    return total / weights if weights else 1.0


def check_query(query: Mapping[str, Any], schema: Sequence[DemographicField], where: str = "demographics") -> None:
    """A one-line ``UserError`` when a numeric demographic of ``query`` is not a finite number (``"age": "old"``,
    an object, NaN); missing or empty values are allowed (they are left out of the distance)."""
    import math

    from paperworks.core.errors import UserError

    for f in schema:
        value = query.get(f.name)
        if f.kind != "numeric" or value is None or value == "":
            continue
        try:
            ok = not isinstance(value, bool) and math.isfinite(float(value))
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise UserError(f"{where}: '{f.name}' must be a number, got {value!r:.60}")


def nearest_respondents(query: Mapping[str, Any], pool: Iterable[Respondent], schema: Sequence[DemographicField],
                        k: int = 5, exclude: Iterable[str] = (), require_item: str | None = None) -> list[Neighbour]:
    """The ``k`` respondents of ``pool`` nearest to the demographics ``query``, nearest first (ties by id).
    ``exclude``: ids never returned (pass the query respondent's id). ``require_item``: only respondents
    who answered that item."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    check_query(query, schema)
    skip = set(exclude)
    scored = ((demographic_distance(query, r.demographics, schema), r.id, r) for r in pool
              if r.id not in skip and (require_item is None or require_item in r.answers))
    return [Neighbour(r, d) for d, _, r in heapq.nsmallest(k, scored, key=lambda t: (t[0], t[1]))]
