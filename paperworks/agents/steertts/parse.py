"""Reading AgentSteerTTS replies. Pure text functions: a reply they cannot read gives ``None`` and an error
line, never an exception.

- ``parse_intent_reply``: the parser's JSON -> :class:`~paperworks.tools.speech.intent.Intent`. Emotion
  and modifier names may be the table's own (``anger``) or any word the keyword table knows (``angry``,
  ``furious``); weights are normalised; an intensity above 1 is read as a percentage.
- ``check_against_keywords``: a readable reply that contradicts what the keyword table reads in the
  instruction itself (none of its emotions, or another stated percentage) is rejected with one line.
- ``parse_verdict``: the Supervisor's JSON -> ``(agree, critique, revised intent or None)``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from paperworks.tools.speech.intent import EMOTION_CUES, EMOTION_WORDS, MODIFIER_WORDS, MODIFIERS, Intent

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|\Z)", re.DOTALL)


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


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


def _emotion(name: Any) -> str | None:
    key = str(name).strip().lower()
    return key if key in EMOTION_CUES else EMOTION_WORDS.get(key)


def _modifier(name: Any) -> str | None:
    key = str(name).strip().lower()
    return key if key in MODIFIERS else MODIFIER_WORDS.get(key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip().rstrip("%").strip()
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def intent_from_data(data: dict[str, Any]) -> tuple[Intent | None, str | None]:
    """An intent from a parsed JSON object (``emotions``, ``intensity``, ``modifiers``), or an error line."""
    raw = data.get("emotions", {})
    if isinstance(raw, str):
        raw = [raw]
    if isinstance(raw, list):
        raw = dict.fromkeys(raw, 1.0)
    if not isinstance(raw, dict):
        return None, "'emotions' is neither an object nor a list"
    emotions: dict[str, float] = {}
    for name, w in raw.items():
        emo, weight = _emotion(name), _number(w)
        if emo is None:
            return None, f"unknown emotion {str(name)!r} (known: {', '.join(EMOTION_CUES)})"
        if weight is None or weight < 0:
            return None, f"emotion {str(name)!r}: weight {w!r} is not a number >= 0"
        if weight > 0:
            emotions[emo] = emotions.get(emo, 0.0) + weight
    mods_raw = data.get("modifiers", [])
    mods_raw = [mods_raw] if isinstance(mods_raw, str) else mods_raw
    if not isinstance(mods_raw, list):
        return None, "'modifiers' is not a list"
    mods = []
    for m in mods_raw:
        mod = _modifier(m)
        if mod is None:
            return None, f"unknown modifier {str(m)!r} (known: {', '.join(MODIFIERS)})"
        mods.append(mod)
    intensity = _number(data.get("intensity", 1.0))
    if intensity is None:
        return None, f"intensity {data.get('intensity')!r} is not a number"
    if 10.0 <= intensity <= 100.0:  # "60" is 60%; 1 < x < 10 is read as neither
        intensity /= 100.0
    if not 0.0 <= intensity <= 1.0:
        return None, f"intensity {intensity:g} is outside 0-1 (or a percentage 10-100)"
    if not emotions and not mods:
        return None, "the reply names no emotion and no modifier"
    peak = max(emotions.values(), default=1.0)
    scaled = {k: v / peak for k, v in emotions.items()}  # first to at most 1: weights of 1e308 sum to inf
    total = sum(scaled.values())
    order = tuple(m for m in MODIFIERS if m in mods)
    return Intent({k: v / total for k, v in scaled.items()}, intensity, order), None


def check_against_keywords(intent: Intent, instruction: str) -> str | None:
    """Why a readable intent contradicts the instruction as the keyword table reads it, or None: it names
    none of the emotions the instruction names, or its intensity is not a percentage the instruction states.
    An instruction the keyword table cannot read is not checked."""
    from paperworks.core.errors import UserError
    from paperworks.tools.speech.intent import parse_intent

    try:
        named = parse_intent(instruction)
    except UserError:
        return None
    if named.emotions and not set(intent.emotions) & set(named.emotions):
        return (f"the reply's emotions ({', '.join(intent.emotions) or 'none'}) share none with the instruction's "
                f"({', '.join(named.emotions)})")
    if re.search(r"\d+(?:\.\d+)?\s*%", instruction) and abs(intent.intensity - named.intensity) > 0.05:
        return f"the reply's intensity {intent.intensity:.0%} contradicts the instruction's {named.intensity:.0%}"
    return None


def parse_intent_reply(text: str) -> tuple[Intent | None, str | None]:
    """The intent parser's reply -> (intent, None), or (None, why it could not be read)."""
    data, error = json_object(text)
    if data is None:
        return None, error
    return intent_from_data(data)


@dataclass
class Verdict:
    """The Supervisor's reply."""

    agree: bool
    critique: str = ""
    intent: Intent | None = None
    """A corrected plan (None: keep the current one)."""


def parse_verdict(text: str) -> tuple[Verdict | None, str | None]:
    """The Supervisor's reply -> (verdict, None), or (None, why it could not be read). A disagreeing reply
    whose plan cannot be read keeps its critique and no plan."""
    data, error = json_object(text)
    if data is None:
        return None, error
    agree = data.get("agree")
    if isinstance(agree, str) and agree.strip().lower() in ("true", "yes", "false", "no"):
        agree = agree.strip().lower() in ("true", "yes")
    if not isinstance(agree, bool):
        return None, f"'agree' must be true or false, got {agree!r}"
    critique = " ".join(str(data.get("critique") or "").split())[:300]
    if agree:
        return Verdict(True, critique), None
    intent = None
    if "emotions" in data or "modifiers" in data:
        intent, _ = intent_from_data(data)
    return Verdict(False, critique, intent), None
