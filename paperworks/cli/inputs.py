"""Parsing command-line values: workflow input, ``key=value`` settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from paperworks.core.errors import UserError


def read_input(value: str) -> Any:
    """``-i`` value: a JSON object, ``@file`` / a path to .json/.yaml, or plain text."""
    text = value.strip()
    path: Path | None = None
    if text.startswith("@"):
        path = Path(text[1:]).expanduser()
        if not path.is_file():
            raise UserError(f"input file '{path}' does not exist")
    elif text.endswith((".json", ".yaml", ".yml")) and Path(text).expanduser().is_file():
        path = Path(text).expanduser()
    if path is not None:
        content = path.read_text(encoding="utf-8")
        try:
            return yaml.safe_load(content) if path.suffix in (".yaml", ".yml") else json.loads(content)
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            line = getattr(exc, "lineno", None) or getattr(getattr(exc, "problem_mark", None), "line", None)
            where = f"{path}:{line}" if line else str(path)
            raise UserError(f"{where}: malformed input ({' '.join(str(exc).split())[:200]})") from exc
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"input: malformed JSON at column {exc.colno}: {exc.msg}") from exc
    return value


def parse_settings(pairs: list[str], what: str = "setting") -> dict[str, Any]:
    """``["a=1", "b=[x, y]"]`` → ``{"a": 1, "b": ["x", "y"]}`` (values parsed as YAML scalars/lists)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"{what} '{pair}': expected key=value")
        try:
            out[key.strip()] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            out[key.strip()] = raw
    return out
