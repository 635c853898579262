"""Parsing SPADA's model replies: code blocks and the JSON spec. Never raises on garbage."""

from __future__ import annotations

import json
import re
from typing import Any

from paperworks.tools.cad.procs import JSON_DEPTH, too_deep

_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)
_JSON_FENCE = re.compile(r"```(?:json)?[ \t]*\n(.*?)```", re.S)


def extract_code(text: str) -> str:
    """The Python program in a reply: the longest fenced block, else an unterminated fence's tail,
    else the whole reply (a model may answer with bare code)."""
    blocks = _FENCE.findall(text)
    if blocks:
        return max(blocks, key=len).strip() + "\n"
    if "```" in text:
        tail = text.split("```", 1)[1]
        tail = tail.split("\n", 1)[1] if "\n" in tail else ""
        return tail.strip() + "\n"
    return text.strip() + "\n"


_DECODER = json.JSONDecoder()
_OBJECT_START = re.compile(r'\{(?=\s*["}])')  # where a JSON object can start: { then a key or }
MAX_DEPTH = JSON_DEPTH
"""Deepest list/dict nesting accepted in a reply's JSON (as for JSON that crossed the sandbox)."""


def extract_json(text: str) -> Any:
    """The first JSON object in a reply (fenced or bare), or None. Each ``{`` that can start an object
    is tried with the C decoder (a character-by-character brace matcher per ``{`` took minutes on a
    degenerate reply such as ``{{{{...``)."""
    for candidate in [*_JSON_FENCE.findall(text), text]:
        for match in _OBJECT_START.finditer(candidate):
            try:
                value = _DECODER.raw_decode(candidate, match.start())[0]
            except (ValueError, RecursionError):  # not JSON here, or nested ~1000 deep
                continue
            if isinstance(value, dict) and not too_deep(value, MAX_DEPTH):  # deeper: json.dumps of it would fail later
                return value
    return None


def normalise_spec(raw: Any, request: str) -> dict[str, Any]:
    """A spec with the expected keys (parts, parameters, interfaces, constraints), from whatever the
    model produced; unusable replies give an empty spec that still carries the request."""
    spec: dict[str, Any] = {"request": request, "parts": [], "parameters": [], "interfaces": [], "constraints": []}
    if not isinstance(raw, dict):
        spec["parse_error"] = "the reply held no JSON object"
        return spec
    for key in ("parts", "parameters", "interfaces", "constraints"):
        value = raw.get(key)
        if isinstance(value, list):
            spec[key] = [v for v in value if isinstance(v, (dict, str))][:50]
    return spec
