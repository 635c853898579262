"""Parsing SPADA's model replies: code blocks and the JSON spec. Never raises on garbage."""

from __future__ import annotations

import json
import re
from typing import Any

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


def extract_json(text: str) -> Any:
    """The first JSON object in a reply (fenced or bare), or None."""
    for candidate in [*_JSON_FENCE.findall(text), text]:
        start = candidate.find("{")
        while start != -1:
            depth, in_str, esc = 0, False, False
            for i in range(start, len(candidate)):
                ch = candidate[i]
                if in_str:
                    esc = ch == "\\" and not esc
                    if ch == '"' and not esc:
                        in_str = False
                    continue
                if ch == '"':
                    in_str = True
                elif ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        try:
                            return json.loads(candidate[start:i + 1])
                        except json.JSONDecodeError:
                            break
            start = candidate.find("{", start + 1)
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
