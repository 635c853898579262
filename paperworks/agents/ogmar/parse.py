"""Reading OG-MAR replies. Pure text functions: a reply they cannot read gives ``None`` or an error
string, never an exception.

- ``parse_relation``: a competency answer → a predicate id (``strongly_undermines`` ...) or ``none``.
- ``parse_persona``: a persona agent's JSON → ``PersonaAnswer``; broken JSON, a missing field or an
  answer that is not one of the choices is an abstention with one error line.
- ``parse_evidence``: the judge's JSON → evidence strength 0-3 per persona id.
- ``parse_choice``: a free-text reply (the single-call baselines) → the choice it names first.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from paperworks.agents.ogmar.prompts import RELATION_OPTIONS, predicate_of_option

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NONE_WORDS = ("no effect", "none", "no relation", "unrelated", "neither")
EVIDENCE_WORDS = {"none": 0, "no": 0, "weak": 1, "moderate": 2, "medium": 2, "strong": 3}


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def parse_relation(text: str) -> tuple[str, bool]:
    """(predicate id or ``"none"``, whether the reply named an option). The option mentioned first wins;
    longer options beat the shorter ones inside them (``strongly supports`` over ``supports``)."""
    folded = " ".join((text or "").casefold().replace("_", " ").split())
    found: list[tuple[int, int, str]] = []
    for option in (*RELATION_OPTIONS, *_NONE_WORDS):
        for m in re.finditer(rf"\b{re.escape(option)}\b", folded):
            found.append((m.start(), -len(option), option))
    if not found:
        return "none", False
    taken: list[tuple[int, int]] = []
    best: tuple[int, str] | None = None
    for start, neg_len, option in sorted(found, key=lambda t: (t[1], t[0])):  # longest options first
        end = start - neg_len
        if any(s <= start < e or s < end <= e for s, e in taken):
            continue
        taken.append((start, end))
        if best is None or start < best[0]:
            best = (start, option)
    assert best is not None
    predicate = predicate_of_option(best[1])
    return predicate or "none", True


def match_choice(value: Any, choices: Sequence[str]) -> str | None:
    """The choice ``value`` names exactly (case, spaces, quotes and a final full stop ignored)."""
    if not isinstance(value, str):
        return None
    folded = " ".join(value.strip().strip("\"'.").casefold().split())
    for c in choices:
        if folded == " ".join(c.casefold().split()):
            return c
    return None


def parse_choice(text: str, choices: Sequence[str]) -> str | None:
    """The choice a free-text reply names first (whole words; a longer choice that contains a shorter
    one, like ``not happy`` and ``happy``, wins where both match); None when it names none."""
    folded = (text or "").casefold()
    spans: list[tuple[int, int, str]] = []
    for c in sorted(choices, key=len, reverse=True):
        for m in re.finditer(rf"(?<!\w){re.escape(c.casefold())}(?!\w)", folded):
            if not any(s <= m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), c))
    return min(spans)[2] if spans else None


def json_object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The first JSON object in a reply (a fenced block first), or an error line saying why not."""
    body = text or ""
    fenced = _FENCE.search(body)
    if fenced and "{" in fenced.group(1):
        body = fenced.group(1)
    start = body.find("{")
    if start < 0:
        return None, f"no JSON object in the reply {_show(text)}"
    depth, quote, escape = 0, False, False
    for i in range(start, len(body)):
        ch = body[i]
        if quote:
            escape = ch == "\\" and not escape
            if ch == '"' and not escape:
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                try:
                    value = json.loads(body[start: i + 1])
                except json.JSONDecodeError as exc:
                    return None, f"invalid JSON ({exc.msg} at column {exc.colno}) in the reply {_show(text)}"
                except (ValueError, RecursionError) as exc:  # a 5000-digit number; nesting too deep
                    why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:80]
                    return None, f"invalid JSON ({why}) in the reply {_show(text)}"
                return (value, None) if isinstance(value, dict) else (None, "the JSON is not an object")
    return None, f"unterminated JSON object in the reply {_show(text)}"


@dataclass
class PersonaAnswer:
    """One persona agent's answer; ``answer`` None (with ``error``) is an abstention."""

    persona_id: str
    answer: str | None
    reasoning: str = ""
    alignment_factors: list[str] = field(default_factory=list)
    error: str | None = None
    structured: bool = True
    """False when the answer was read from free text (``lenient``), not from the JSON asked for."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def parse_persona(text: str, persona_id: str, choices: Sequence[str], lenient: bool = False) -> PersonaAnswer:
    """A persona agent's JSON reply (``persona_id``, ``answer``, ``reasoning``, ``alignment_factors``).
    ``lenient``: a reply without a JSON object that names a choice (``parse_choice``) counts as that
    answer, marked ``structured=False`` (for small models that do not write JSON)."""
    data, error = json_object(text)
    if data is None:
        loose = parse_choice(text, choices) if lenient else None
        if loose is not None:
            return PersonaAnswer(persona_id, loose, " ".join(text.split())[:300], structured=False)
        return PersonaAnswer(persona_id, None, error=f"persona {persona_id}: {error}; counted as an abstention")
    raw = data.get("answer", data.get("chosen_answer"))
    answer = match_choice(raw, choices)
    if answer is None:
        what = "has no 'answer' field" if raw is None else \
            f"answer {_show(str(raw), 40)} is not one of {list(choices)}"
        return PersonaAnswer(persona_id, None,
                             error=f"persona {persona_id}: the reply {what}; counted as an abstention")
    factors = data.get("alignment_factors") or []
    factors = [str(f) for f in factors] if isinstance(factors, list) else [str(factors)]
    return PersonaAnswer(persona_id, answer, str(data.get("reasoning") or "")[:500], factors[:8])


def parse_evidence(text: str, persona_ids: Sequence[str]) -> tuple[dict[str, int], str | None]:
    """Evidence strength 0-3 per persona id from the judge's JSON (``{"evidence": {"P1": 2}}``, or the ids
    at the top level; words weak/moderate/strong are read too). Ids it leaves out get 0; a reply that is
    not JSON gives every persona 0 and an error line."""
    data, error = json_object(text)
    if data is None:
        return dict.fromkeys(persona_ids, 0), f"judge: {error}; evidence counted as tied"
    nested = data.get("evidence")
    table: dict[str, Any] = nested if isinstance(nested, dict) else data
    out = {}
    for pid in persona_ids:
        value: Any = table.get(pid)
        if isinstance(value, str):
            value = EVIDENCE_WORDS.get(value.strip().casefold(), value)
            try:
                value = float(value)
            except (TypeError, ValueError):
                value = None
        ok = (isinstance(value, int) and not isinstance(value, bool)) or \
            (isinstance(value, float) and math.isfinite(value))  # NaN / Infinity are no rating
        out[pid] = int(min(3, max(0, round(value)))) if ok else 0
    return out, None
