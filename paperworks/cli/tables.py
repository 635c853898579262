"""Tables that fit any terminal, and their plain forms for pipes: ``--format table|tsv|json``.

A ``Listing`` is a title, columns and rows of plain values. On a terminal it is drawn as a table whose
column widths are chosen here: names a user must type (suites, workflows, models, run ids) wrap only at
spaces and are never cut; free text wraps at words; optional columns are left out when the terminal is
too narrow for them; only when even that is not enough does a long name fold onto a second line (all of
it still shown). In a pipe it is tab-separated text with a header line; ``json`` gives the rows as objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.console import Console

from paperworks.core.errors import UserError

FORMATS = ("table", "tsv", "json")
GAP = 2
"""Spaces between two columns of a drawn table."""
TEXT_COMFORT = 24
"""Width a free-text column is given before the names get their full width."""
TEXT_FLOOR = 8
"""Narrowest a free-text column gets."""


@dataclass
class Column:
    """One column of a listing."""

    name: str
    kind: Literal["name", "text"] = "name"
    """name: words a user types, wrapped only at spaces; text: free text, wrapped at words."""
    optional: int = 0
    """0: always shown; else left out of a drawn table (the highest first) while the names would wrap."""
    justify: Literal["left", "right"] = "left"
    style: Callable[[str], str] | None = None
    """Rich style for a cell's text (e.g. a status colour); tables only."""
    in_table: bool = True
    """False: only in the tsv and json forms (e.g. a run's full path)."""


@dataclass
class Listing:
    """A titled table of plain values (``None`` shows as an empty cell)."""

    title: str
    columns: list[Column]
    rows: list[list[Any]] = field(default_factory=list)
    empty: str | None = None
    """Shown in a drawn table that has no rows."""


def check_format(value: str | None) -> str | None:
    """``--format``: table, tsv or json (None: decided by the terminal); a one-line ``UserError`` otherwise."""
    if value is None:
        return None
    low = value.strip().lower()
    if low not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}, got {value!r}")
    return low


def table_format(console: Console, fmt: str | None) -> str:
    """The format to write: the one asked for, else a table on a terminal and tsv in a pipe."""
    return fmt or ("table" if console.is_terminal else "tsv")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _tsv_cell(value: Any) -> str:
    return " ".join(_text(value).replace("\t", " ").split())


def show(console: Console, listings: list[Listing], fmt: str | None) -> None:
    """Write ``listings`` in ``fmt`` (see ``table_format``)."""
    fmt = table_format(console, fmt)
    if fmt == "json":
        data = {item.title: [dict(zip((c.name for c in item.columns), row, strict=False)) for row in item.rows]
                for item in listings}
        _write(console, json.dumps(data if len(listings) > 1 else next(iter(data.values())), indent=2,
                                   ensure_ascii=False, default=str))
        return
    for n, item in enumerate(listings):
        if fmt == "tsv":
            lines = [""] if n else []
            lines.append("\t".join(c.name for c in item.columns))
            lines += ["\t".join(_tsv_cell(v) for v in row) for row in item.rows]
            _write(console, "\n".join(lines))
        else:
            console.print(render(item, console.width))


def _write(console: Console, text: str) -> None:
    """``text`` as it is: no markup, no colour, tabs kept (rich would expand them)."""
    console.file.write(text + "\n")
    console.file.flush()


def fit_widths(columns: list[Column], rows: list[list[str]], width: int) -> list[int | None]:
    """Each column's width in a table at most ``width`` wide (None: the column is left out)."""
    def words(text: str) -> int:
        return max((len(w) for w in text.split()), default=0)

    natural = [max([len(c.name), *(len(line) for r in rows for line in r[i].splitlines() or [""])])
               for i, c in enumerate(columns)]
    floor = [max(words(c.name), *(words(r[i]) for r in rows)) if c.kind == "name" else
             min(natural[i], max(words(c.name), TEXT_FLOOR)) for i, c in enumerate(columns)]
    comfort = [floor[i] if c.kind == "name" else min(natural[i], max(floor[i], TEXT_COMFORT))
               for i, c in enumerate(columns)]
    shown = list(range(len(columns)))

    def room(cols: list[int]) -> int:
        return width - GAP * (len(cols) - 1)

    wanted = [natural[i] if c.kind == "name" else comfort[i] for i, c in enumerate(columns)]
    while sum(wanted[i] for i in shown) > room(shown) and any(columns[i].optional for i in shown):
        shown.remove(max((i for i in shown if columns[i].optional), key=lambda i: (columns[i].optional, i)))
    mins = comfort if sum(comfort[i] for i in shown) <= room(shown) else floor
    widths: dict[int, int] = {i: min(mins[i], natural[i]) for i in shown}
    spare = room(shown) - sum(widths.values())
    if spare < 0:  # even the names do not fit: the widest ones fold (nothing is cut)
        while spare < 0 and max(widths.values()) > 4:
            widest = max(widths, key=lambda i: widths[i])
            widths[widest] -= 1
            spare += 1
    # the rest of the width, a character at a time to the neediest column: free text up to a readable
    # width, then names (fewer wrapped lines), then free text again
    for group, goal in (("text", comfort), ("name", natural), ("text", natural)):
        while spare > 0:
            wanting = [i for i in shown if columns[i].kind == group and widths[i] < goal[i]]
            if not wanting:
                break
            neediest = max(wanting, key=lambda i: goal[i] - widths[i])
            widths[neediest] += 1
            spare -= 1
    return [widths.get(i) for i in range(len(columns))]


def render(listing: Listing, width: int) -> Any:
    """``listing`` as a rich table at most ``width`` columns wide."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    columns = [c for c in listing.columns if c.in_table]
    index = [listing.columns.index(c) for c in columns]
    rows = [[_text(row[i]) for i in index] for row in listing.rows]
    widths = fit_widths(columns, rows, width)
    table = Table(title=escape(listing.title), title_justify="left", title_style="bold", box=None,
                  padding=(0, GAP // 2), pad_edge=False, header_style="bold underline", expand=False)
    kept = [n for n, w in enumerate(widths) if w is not None]
    for n in kept:
        col = columns[n]
        table.add_column(escape(col.name), justify=col.justify, width=widths[n], overflow="fold", no_wrap=False)
    for row in rows:
        table.add_row(*(Text(row[n], style=_style(columns[n], row[n])) for n in kept))
    if not rows and listing.empty:
        table.add_row(*([Text(listing.empty, style="dim")] + [Text("")] * (len(kept) - 1)))
    return table


def _style(column: Column, text: str) -> str:
    return column.style(text) if column.style is not None else ""
