"""Lenient reading of JSON written by small language models: repairs brackets, commas and quotes.

Pure Python. Used by :mod:`.toolcalls`.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from typing import Any

_CLOSERS = {"{": "}", "[": "]"}


def balanced(text: str, start: int) -> tuple[str, int]:
    """The JSON-like value opening at ``text[start]``, repaired, and the index just past it.

    Mismatched closers are dropped and a value cut off by the end of the text is closed.
    """
    stack: list[str] = []
    out: list[str] = []
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        out.append(ch)
        if quote:
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
        elif ch in "}]":
            if stack and ch == stack[-1]:
                stack.pop()
                if not stack:
                    return "".join(out), i + 1
            else:
                out.pop()  # a stray closer: drop it
        i += 1
    return "".join(out) + quote + "".join(reversed(stack)), len(text)


def loads_lenient(s: str) -> Any:
    """Parse JSON leniently (trailing commas, single quotes, Python literals); None when hopeless."""
    no_trailing = re.sub(r",\s*([}\]])", r"\1", s)
    for candidate in (s, no_trailing):
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    pythonic = re.sub(r"\btrue\b", "True", no_trailing)
    pythonic = re.sub(r"\bfalse\b", "False", pythonic)
    pythonic = re.sub(r"\bnull\b", "None", pythonic)
    with warnings.catch_warnings():  # odd escapes in model output make ast warn
        warnings.simplefilter("ignore")
        for candidate in (no_trailing, pythonic):
            try:
                return ast.literal_eval(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                pass
    return None


def json_values(segment: str, max_failures: int = 64) -> list[tuple[int, int, Any]]:
    """Top-level JSON-like values in ``segment``: ``(start, end, parsed)``.

    Gives up after ``max_failures`` openers that lead nowhere, which bounds the time on garbage.
    """
    found: list[tuple[int, int, Any]] = []
    i = 0
    while max_failures > 0:
        starts = [p for p in (segment.find("{", i), segment.find("[", i)) if p >= 0]
        if not starts:
            return found
        start = min(starts)
        raw, end = balanced(segment, start)
        value = loads_lenient(raw)
        if value is not None:
            found.append((start, end, value))
            i = end
        else:
            i = start + 1
            max_failures -= 1
    return found
