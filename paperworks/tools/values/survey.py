"""Survey data in one shape for real files and the synthetic population: respondents (id,
demographics, binary item answers) and the items (code → taxonomy class, wording, choices, key).

An answer is 1 when the respondent chose the item's first choice and 0 for the second; an item's
``key`` says what 1 means for its class (+1: more of the class, -1: less). Missing answers are simply
absent from ``Respondent.answers``. ``DemographicField`` records each demographic's kind
(categorical, numeric with a range, or ordinal with ordered levels), which the respondent distance
(``paperworks.tools.values.neighbours``) uses.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("categorical", "numeric", "ordinal")
Demographic = str | float | int


@dataclass(frozen=True)
class DemographicField:
    """One demographic column: its kind and what the distance needs to scale it."""

    name: str
    kind: str
    """``categorical`` (exact match), ``numeric`` (scaled by ``range``) or ``ordinal`` (by level rank)."""
    range: tuple[float, float] | None = None
    """Numeric only: (low, high) used to scale differences to [0, 1]."""
    levels: tuple[str, ...] = ()
    """Ordinal only: the levels, lowest first."""
    weight: float = 1.0
    """Weight of this field in the respondent distance."""


@dataclass(frozen=True)
class ItemSpec:
    """One binary item mapped to a taxonomy subclass."""

    code: str
    class_id: str
    text: str
    choices: tuple[str, str]
    """(first, second): answer 1 is the first choice."""
    key: int = 1
    """+1: answer 1 means more of the class; -1: it means less."""

    def choice(self, answer: int) -> str:
        """The choice text of a 0/1 answer."""
        return self.choices[0] if answer == 1 else self.choices[1]

    def answer_of(self, choice: str) -> int:
        """The 0/1 answer of a choice's text (case-insensitive); ``ValueError`` for anything else."""
        folded = choice.strip().casefold()
        for value, text in ((1, self.choices[0]), (0, self.choices[1])):
            if folded == text.casefold():
                return value
        raise ValueError(f"{choice!r} is not a choice of item {self.code} ({self.choices[0]!r} or {self.choices[1]!r})")

    def keyed(self, answer: int) -> int:
        """The answer as evidence for the class: 1 = more of the class, 0 = less."""
        return answer if self.key == 1 else 1 - answer


@dataclass(frozen=True)
class Respondent:
    """One respondent: an id, demographics by field name, and 0/1 answers by item code."""

    id: str
    demographics: Mapping[str, Demographic]
    answers: Mapping[str, int] = field(default_factory=dict)

    def without(self, codes: Iterable[str]) -> Respondent:
        """A copy whose answers to ``codes`` are hidden (a held-out respondent's view)."""
        hidden = set(codes)
        return Respondent(self.id, self.demographics, {c: a for c, a in self.answers.items() if c not in hidden})


@dataclass
class SurveyData:
    """Respondents, items and the demographic schema of one survey (file order kept)."""

    respondents: list[Respondent]
    items: dict[str, ItemSpec]
    schema: list[DemographicField]
    source: str = ""

    def __post_init__(self) -> None:
        self._by_id = {r.id: r for r in self.respondents}

    def __len__(self) -> int:
        return len(self.respondents)

    def __iter__(self) -> Iterator[Respondent]:
        return iter(self.respondents)

    def respondent(self, respondent_id: str) -> Respondent:
        """The respondent with this id (``KeyError`` otherwise)."""
        try:
            return self._by_id[respondent_id]
        except KeyError:
            raise KeyError(f"no respondent '{respondent_id}' in {self.source or 'the survey'}") from None

    def field(self, name: str) -> DemographicField:
        """The schema entry of one demographic."""
        for f in self.schema:
            if f.name == name:
                return f
        raise KeyError(f"no demographic '{name}' (have {', '.join(f.name for f in self.schema)})")

    def items_of_class(self, class_id: str) -> list[ItemSpec]:
        """The items mapped to one class, in item order."""
        return [i for i in self.items.values() if i.class_id == class_id]

    def subset(self, ids: Iterable[str]) -> SurveyData:
        """The same survey restricted to ``ids`` (in the given order)."""
        return SurveyData([self.respondent(i) for i in ids], dict(self.items), list(self.schema), self.source)

    def to_csv(self) -> str:
        """Wide CSV text: respondent_id, the demographics, then one column per item (1, 0 or empty).
        ``paperworks.tools.values.mapping.mapping_for`` writes the mapping that reads it back."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        names = [f.name for f in self.schema]
        codes = list(self.items)
        writer.writerow(["respondent_id", *names, *codes])
        for r in self.respondents:
            demo = [_cell(r.demographics.get(n)) for n in names]
            writer.writerow([r.id, *demo, *(r.answers.get(c, "") for c in codes)])
        return out.getvalue()

    def write_csv(self, path: str | Path) -> None:
        """Write ``to_csv()`` to ``path``."""
        Path(path).write_text(self.to_csv(), encoding="utf-8")


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
