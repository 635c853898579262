"""Errors of the values tools: one line per problem, each naming the file, the row, the field and
what was expected (``taxonomy.yaml:14: row 3 (id 'x'): field 'domain': expected ..., got ...``)."""

from __future__ import annotations

from collections.abc import Iterable

from paperworks.core.errors import UserError

MAX_LINES = 25


class ValuesDataError(UserError):
    """A data file (taxonomy, mapping, survey file, ontology) is wrong. ``problems`` holds one line per
    bad row or field; the message is those lines (at most ``MAX_LINES``, then a count of the rest)."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = list(problems)
        shown = self.problems[:MAX_LINES]
        rest = len(self.problems) - len(shown)
        super().__init__("\n".join(shown + ([f"... and {rest} more problem(s)"] if rest > 0 else [])))


def raise_if(problems: list[str]) -> None:
    """Raise ``ValuesDataError`` when ``problems`` is not empty."""
    if problems:
        raise ValuesDataError(problems)
