"""HistAgent's model-facing tool schemas (delegation, final answer) and how replies become state."""

from __future__ import annotations

import math
import re
from typing import Any

FINAL = "final_answer"
ASK_PREFIX = "ask_"

_EVIDENCE_ITEM = {
    "type": "object",
    "properties": {
        "document": {"type": "string", "description": "The file or archive document."},
        "page": {"type": "integer", "description": "Page, sheet or slide (1-based)."},
        "line": {"type": "integer", "description": "Line or row on that page (1-based)."},
        "text": {"type": "string", "description": "The quoted words."},
    },
    "required": ["document"],
}


def ask_schema(name: str, duty: str) -> dict[str, Any]:
    """The manager's tool that delegates a sub-task to the ``name`` specialist."""
    return {"type": "function", "function": {
        "name": ASK_PREFIX + name,
        "description": f"Delegate a sub-task to the {name.replace('_', ' ')} specialist. {duty}",
        "parameters": {"type": "object", "properties": {
            "task": {"type": "string", "description": "What to find, in which file, in which language."}},
            "required": ["task"]}}}


def final_schema() -> dict[str, Any]:
    """The manager's tool that ends the research with an answer and its evidence."""
    return {"type": "function", "function": {
        "name": FINAL,
        "description": "Give the final answer (short, as the question asks) and the evidence it rests on.",
        "parameters": {"type": "object", "properties": {
            "answer": {"type": "string", "description": "Only the name, number, date, letter or phrase."},
            "evidence": {"type": "array", "items": _EVIDENCE_ITEM,
                         "description": "Where the answer is written: document, page, line, text."}},
            "required": ["answer"]}}}


def _text(value: Any) -> str:
    """A model-given string field: a string or a number as text; anything else (null, an object) is empty."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    return ""


def _position(value: Any) -> int | None:
    """A 1-based page or line number: a positive integer (or its digits as text); else None."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10**9:
        return value
    return None


def parse_final(arguments: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(answer, evidence) from ``final_answer`` arguments. The answer is a string (a number as text; null or
    an object is no answer). Evidence items keep a non-empty string ``document``, a positive whole ``page`` and
    ``line`` and a string ``text``; an item without a document is dropped, a malformed page, line or text is
    left out (so NaN, objects or 10**400 never reach the run's JSON or the evidence scorer)."""
    answer = _text(arguments.get("answer", ""))
    raw = arguments.get("evidence") or []
    items = raw if isinstance(raw, list) else [raw]
    evidence: list[dict[str, Any]] = []
    for item in items[:100]:
        if isinstance(item, str) and item.strip():
            evidence.append({"document": item.strip()})
        elif isinstance(item, dict) and _text(item.get("document")):
            cited: dict[str, Any] = {"document": _text(item.get("document"))}
            for key in ("page", "line"):
                if (number := _position(item.get(key))) is not None:
                    cited[key] = number
            if isinstance(item.get("text"), str):
                cited["text"] = item["text"]
            evidence.append(cited)
    return answer, evidence


_PREFIX = re.compile(r"^\s*(\*\*)?(final answer|answer|the answer is)\s*[:：]?\s*(\*\*)?\s*", re.I)


def short_answer(text: str) -> str:
    """A draft answer tidied without a model: no ``Final answer:`` prefix, markup, quotes or trailing
    period; the last non-empty line if the draft has several."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    marked = [ln for ln in lines if _PREFIX.match(ln)]
    out = _PREFIX.sub("", (marked or lines)[-1]).strip().strip("*").strip()
    if len(out) > 1 and out[0] == out[-1] and out[0] in "\"'“”":
        out = out[1:-1].strip()
    return out[:-1].rstrip() if out.endswith(".") and not re.search(r"\b[A-Z][a-z]?\.$", out) else out


def needs_rewrite(draft: str, max_words: int) -> bool:
    """Whether a draft is too long to be a final answer as it is."""
    return len(draft.split()) > max_words or "\n" in draft.strip()
