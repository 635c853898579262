"""HistAgent's own scorer: did the answer cite the documents its evidence is in?"""

from __future__ import annotations

import re
from typing import Any

from paperworks.core.errors import UserError
from paperworks.core.scoring import Score


def _basename(path: str) -> str:
    """The file name of a path written with ``/`` or ``\\`` (a workbook made on Windows)."""
    return re.split(r"[/\\]", path.strip())[-1]


def _document(item: Any) -> str | None:
    """The document an evidence item names: a dict's ``document``, or the item itself when it is a string."""
    if isinstance(item, dict):
        item = item.get("document")
    return item if isinstance(item, str) and item.strip() else None


def _names(items: Any) -> set[str]:
    """File names of the documents in an evidence list (paths differ: relative in a suite, absolute in a run).
    A model's output may hold anything: what names no document is ignored."""
    if isinstance(items, str | dict):
        items = [items]
    if not isinstance(items, list | tuple):
        return set()
    return {_basename(d) for d in map(_document, items) if d is not None} - {""}


def _wanted(sample: Any) -> set[str]:
    """The row's evidence documents; a malformed ``metadata.evidence`` is a one-line error naming the row
    (read as "no evidence" it would give every output full marks)."""
    raw = (getattr(sample, "metadata", None) or {}).get("evidence")
    if raw is None or raw == [] or raw == "":
        return set()
    items = [raw] if isinstance(raw, str | dict) else raw
    if not isinstance(items, list | tuple) or any(_document(i) is None for i in items):
        where = f" ({sample.source})" if getattr(sample, "source", None) else ""
        raise UserError(f"sample '{getattr(sample, 'id', '?')}'{where}: metadata 'evidence' must be a list of "
                        f"document names or {{\"document\": NAME, ...}} objects, got {str(raw)[:80]!r}")
    return _names(items)


async def evidence(sample: Any, output: Any, answer: str, ctx: Any) -> Score:
    """Evidence recall: the share of the row's evidence documents (``metadata.evidence``) that the output's
    ``evidence`` cites; passed when all are cited. A row without evidence scores 1.0."""
    wanted = _wanted(sample)
    cited = _names(output.get("evidence") if isinstance(output, dict) else None)
    if not wanted:
        return Score(value=1.0, passed=True, explanation="the row names no evidence")
    found = wanted & cited
    missing = sorted(wanted - cited)
    return Score(value=len(found) / len(wanted), passed=not missing,
                 explanation="cited every evidence document" if not missing else f"not cited: {', '.join(missing)}",
                 details={"cited": sorted(cited)})
