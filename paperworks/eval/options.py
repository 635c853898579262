"""``paperworks eval``'s Inspect-style options, parsed and checked: ``--limit N`` or ``A-B``, ``--sample-id a,b``,
``--tags a,b``, ``--metadata k=v``, ``--display`` and ``--log-level``. Each bad value is a one-line
``UserError`` naming the flag, raised before anything is created."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from paperworks.core.errors import UserError

DISPLAYS = ("full", "conversation", "rich", "plain", "none")
"""``--display``: full and rich draw the progress bar; plain prints a line per finished sample (no control
characters); conversation prints each finished sample's transcript under its line; none shows no progress."""
LOG_LEVELS = ("debug", "info", "warning", "error")
"""``--log-level``: the level of the log lines paperworks writes to stderr (default warning)."""
Limit = int | list[int]
"""``--limit``: the first N samples, or ``[A, B]``: samples A to B, counted from 1, both included."""

_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
_TAG = re.compile(r"^[^\s,=]{1,100}$")


def parse_limit(text: str | int | None) -> Limit | None:
    """``"5"`` → 5; ``"2-5"`` → ``[2, 5]`` (1-based, inclusive, as ``inspect eval --limit``)."""
    if text is None or isinstance(text, int):
        return text
    value = text.strip()
    found = _RANGE.match(value)
    if found:
        return [int(found[1]), int(found[2])]
    if value.lstrip("+-").isdigit():
        return int(value)
    raise UserError(f"--limit must be a number of samples N or a range A-B (e.g. 2-5), got {text!r}")


def check_limit(limit: Any) -> Limit | None:
    """``limit`` as recorded (an int or ``[A, B]``), or a one-line ``UserError``."""
    if limit is None:
        return None
    if isinstance(limit, bool):
        raise UserError(f"--limit must be a number of samples N or a range A-B, got {limit!r}")
    if isinstance(limit, int):
        if limit < 1:
            raise UserError(f"--limit must be at least 1, got {limit}")
        return limit
    if isinstance(limit, (list, tuple)) and len(limit) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in limit):
        start, end = int(limit[0]), int(limit[1])
        if start < 1:
            raise UserError(f"--limit {start}-{end}: samples are counted from 1, got a start of {start}")
        if end < start:
            raise UserError(f"--limit {start}-{end}: the range ends before it starts")
        return [start, end]
    raise UserError(f"--limit must be a number of samples N or a range A-B, got {limit!r}")


def limit_text(limit: Any) -> str:
    """``5`` or ``2-5``, as the user wrote it."""
    return f"{limit[0]}-{limit[1]}" if isinstance(limit, (list, tuple)) else str(limit)


def split_list(values: Iterable[str] | None, flag: str) -> list[str]:
    """Comma lists, from one or repeated flags: ``["a,b", "c"]`` → ``["a", "b", "c"]`` (repeats dropped)."""
    out: list[str] = []
    for value in values or []:
        for item in str(value).split(","):
            item = item.strip()
            if not item:
                raise UserError(f"{flag}: empty item in {value!r} (give a comma list like a,b,c)")
            out.append(item)
    return list(dict.fromkeys(out))


def parse_tags(values: Iterable[str] | None) -> list[str]:
    """``--tags a,b`` (repeatable): short words without spaces, commas or '='."""
    tags = split_list(values, "--tags")
    for tag in tags:
        if not _TAG.match(tag):
            raise UserError(f"--tags: {tag!r} is not a tag (up to 100 characters, no spaces, commas or '=')")
    return tags


def parse_metadata(values: Iterable[str] | None) -> dict[str, str]:
    """``--metadata k=v`` (repeatable) → ``{"k": "v"}``; values are kept as text."""
    out: dict[str, str] = {}
    for pair in values or []:
        key, sep, value = str(pair).partition("=")
        key = key.strip()
        if not sep or not _TAG.match(key):
            raise UserError(f"--metadata {pair!r}: expected key=value (a key without spaces, commas or '=')")
        out[key] = value.strip()
    return out


def check_choice(value: str | None, choices: tuple[str, ...], flag: str) -> str | None:
    """``value`` when it is one of ``choices`` (case-insensitive), else a one-line ``UserError``."""
    if value is None:
        return None
    low = str(value).strip().lower()
    if low not in choices:
        raise UserError(f"{flag} must be one of {', '.join(choices)}, got {value!r}")
    return low
