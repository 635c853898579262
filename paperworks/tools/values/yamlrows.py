"""Read a YAML (or JSON) data file keeping the line of every list item, for one-line row errors."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from paperworks.tools.values.errors import ValuesDataError


@dataclass(frozen=True)
class Row:
    """One mapping of a list in a data file: its fields, 1-based position and line."""

    data: dict[str, Any]
    index: int
    line: int


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """Parse ``path`` (YAML or JSON); a one-line ``ValuesDataError`` for a missing file or bad syntax."""
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValuesDataError([f"{shown}: cannot read the file ({exc.strerror or exc})"]) from exc
    try:
        return yaml.safe_load(text), yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{shown}:{mark.line + 1}" if mark else shown
        raise ValuesDataError([f"{where}: invalid YAML ({' '.join(str(exc.problem or 'syntax error').split())})"]) \
            from exc


def list_rows(raw: Any, node: yaml.Node | None, key: str, shown: str) -> list[Row]:
    """The mappings listed under top-level ``key``; each problem with the list itself is one line."""
    if not isinstance(raw, dict) or key not in raw:
        raise ValuesDataError([f"{shown}: expected a mapping with a '{key}' list"])
    items = raw[key]
    if not isinstance(items, list):
        raise ValuesDataError([f"{shown}: field '{key}': expected a list of rows, got {type(items).__name__}"])
    lines = item_lines(node, key, len(items))
    rows, problems = [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"{at(shown, lines[i])}: row {i + 1}: expected a mapping of fields, got "
                            f"{type(item).__name__}")
            continue
        rows.append(Row({str(k): v for k, v in item.items()}, i + 1, lines[i]))
    if problems:
        raise ValuesDataError(problems)
    return rows


def item_lines(node: yaml.Node | None, key: str, count: int) -> list[int]:
    """1-based lines of the items of the top-level list ``key`` (0 where unknown)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == key and isinstance(v, yaml.SequenceNode):
                return [item.start_mark.line + 1 for item in v.value]
    return [0] * count


def at(shown: str, line: int) -> str:
    """``file:line`` (``file`` alone when the line is unknown)."""
    return f"{shown}:{line}" if line else shown


def hint(value: Any, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss among ``known``, else an empty string."""
    close = difflib.get_close_matches(str(value), list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def row_where(shown: str, row: Row, label: str = "id") -> str:
    """``file:line: row N (id 'x')`` for messages about one row."""
    ident = row.data.get(label)
    tag = f" ({label} {ident!r})" if isinstance(ident, str | int) and ident != "" else ""
    return f"{at(shown, row.line)}: row {row.index}{tag}"
