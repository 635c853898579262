"""Numbers in answers and targets: ``1,234``, ``$12.50``, ``12.5%``, ``3/4``, ``-2``, ``1.5e-3``; and the
part of an answer that states its result (``final_answer_text``), which the numeric scorer reads."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

_NUMBER = re.compile(
    r"(?<![\w./])(?P<sign>[-+\u2212])?[$€£¥]?\s?"
    r"(?:(?P<num>\d+)\s*/\s*(?P<den>\d+)(?![/\d])"
    r"|(?P<dec>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)(?P<exp>[eE][-+]?\d+)?)"
    r"(?P<pct>\s?(?:%|percent\b))?"
)


@dataclass
class Number:
    """A number found in text."""

    value: float
    percent: bool = False
    """Written with ``%``: ``12%`` is 12, and also matches a target of 0.12."""


def _number(m: re.Match[str]) -> Number | None:
    if m.group("num") is not None:
        den = float(m.group("den"))
        if den == 0:
            return None
        value = float(m.group("num")) / den
    else:
        value = float(m.group("dec").replace(",", "") + (m.group("exp") or ""))
    if m.group("sign") in ("-", "\u2212"):
        value = -value
    return Number(value, percent=m.group("pct") is not None)


def find_numbers(text: str) -> list[Number]:
    """Every number in ``text``: ``1,234``, ``$12.50``, ``12.5%``, ``3/4``, ``-2``, ``1.5e-3``."""
    found = (_number(m) for m in _NUMBER.finditer(unicodedata.normalize("NFKC", text)))
    return [n for n in found if n is not None and math.isfinite(n.value)]


def target_number(target: Any) -> float | None:
    """The target as a number when it is one (``5``, ``"1,234.5"``, ``"3/4"``, ``"$12"``), else None."""
    if isinstance(target, bool) or target is None:
        return None
    if isinstance(target, int | float):
        return float(target)
    if not isinstance(target, str):
        return None
    m = _NUMBER.fullmatch(unicodedata.normalize("NFKC", target.strip()).rstrip("."))
    number = _number(m) if m else None
    return number.value if number else None


def close_to(a: Number, b: float, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """``a`` equals ``b`` within the tolerances (``12%`` also equals 0.12)."""
    hit = math.isclose(a.value, b, rel_tol=rel_tol, abs_tol=abs_tol)
    return hit or (a.percent and math.isclose(a.value / 100, b, rel_tol=rel_tol, abs_tol=abs_tol))


_TOOL_MARKUP = re.compile(r"<tool_call>.*?(?:</tool_call>|$)", re.DOTALL | re.IGNORECASE)
_ERROR_LINE = re.compile(r"^\s*[\[(\"'`*]*\s*(?:error\b|traceback\b|exception\b|\w+(?:Error|Exception)\b|"
                         r"stopped:|failed:|observation:)", re.IGNORECASE)
_FINAL_MARK = re.compile(r"(?:final\s+answer|the\s+answer\s+is|answer\s*:)\s*:?", re.IGNORECASE)


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def marked_numbers(marked: str) -> list[Number]:
    """The numbers a marked answer states as its result (``marked``: the text after "the answer is").

    Only its first sentence counts (up to ``.``/``!``/``?`` before a space, or a newline), without
    what is in parentheses or brackets (an explanation: "391 (17 × 23)"); in an equation ("17 × 23 = 391")
    the result after its last ``=``. More than one distinct number ("5 or 6", "not 5") is a hedge."""
    sentence = _SENTENCE_END.split(marked.strip(), maxsplit=1)[0]
    for _ in range(3):
        sentence = _PARENTHESES.sub(" ", sentence)
    if "=" in sentence:
        sentence = sentence.rsplit("=", 1)[1]
    return find_numbers(sentence)


def final_answer_text(answer: str) -> tuple[str, bool]:
    """The part of an answer that states its result, and whether the answer marked it.

    Tool-call markup and lines that are error messages (``error: ...``, tracebacks, ``ValueError: ...``,
    a copied tool observation) are removed; when the answer marks its result ("the answer is", "final
    answer:"), only what follows the last mark is kept (and True is returned)."""
    text = _TOOL_MARKUP.sub(" ", answer)
    text = "\n".join(line for line in text.splitlines() if not _ERROR_LINE.match(line))
    marks = list(_FINAL_MARK.finditer(text))
    if marks and text[marks[-1].end():].strip():
        return text[marks[-1].end():], True
    return text, False
