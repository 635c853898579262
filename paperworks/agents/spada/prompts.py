"""SPADA's prompts. The contract: the spec → a parametric program → deterministic tests → repair."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from paperworks.models.types import Message

CONVENTION = """Write one Python program using CadQuery (import cadquery as cq), with:
- PARAMS = {...}: every dimension as a named parameter, numbers in millimetres;
- def build(params) -> cq.Assembly: builds every part from params and adds each with
  assy.add(shape, name="<part name>", loc=cq.Location(cq.Vector(x, y, z))) using the part names of the spec;
- result = build(PARAMS) at the end.
Parts must be solids, must not overlap each other, and must touch where they are joined."""

TEST_CONVENTION = """Write deterministic tests for the program, as Python functions def test_<name>(ctx): that assert.
ctx.parts is a dict part name -> shape, ctx.params the parameters; helpers: ctx.bbox(name) returns
(xmin, ymin, zmin, xmax, ymax, zmax), ctx.volume(name), ctx.interference(a, b) (overlap volume),
ctx.distance(a, b) (minimum gap), ctx.center(name), ctx.is_valid(name).
Test the dimensions, the interfaces and the constraints of the spec; give each assert a message."""


def spec_messages(request: str) -> list[Message]:
    """Ask for a structured spec of the assembly."""
    return [
        {"role": "system", "content": "You are a mechanical design engineer. Reply with JSON only."},
        {"role": "user", "content": (
            f"Design request:\n{request}\n\nWrite the design spec as one JSON object with keys: "
            '"parts" (list of {"name", "description"}), "parameters" (list of {"name", "value", "unit", '
            '"min", "max"}), "interfaces" (list of {"parts": [a, b], "kind": "fit|contact|fastened", '
            '"note"}), "constraints" (list of strings: what must hold, e.g. clearances, no overlaps).')},
    ]


def code_messages(request: str, spec: dict[str, Any]) -> list[Message]:
    """Ask for the parametric assembly program."""
    return [
        {"role": "system", "content": "You write CadQuery assembly programs. Reply with one ```python block."},
        {"role": "user", "content": (
            f"Design request:\n{request}\n\nSpec:\n{json.dumps(spec, indent=1)[:6000]}\n\n{CONVENTION}")},
    ]


def tests_messages(request: str, spec: dict[str, Any], code: str) -> list[Message]:
    """Ask for deterministic tests of the program against the spec."""
    return [
        {"role": "system", "content": "You write tests for CadQuery assemblies. Reply with one ```python block."},
        {"role": "user", "content": (
            f"Design request:\n{request}\n\nSpec:\n{json.dumps(spec, indent=1)[:4000]}\n\n"
            f"Program:\n```python\n{code[:8000]}\n```\n\n{TEST_CONVENTION}")},
    ]


def repair_messages(request: str, code: str, feedback: str, renders: list[Path], vision: bool) -> list[Message]:
    """Ask for a repaired program, with the failures (and the renders, for models that see images)."""
    text = (f"Design request:\n{request}\n\nCurrent program:\n```python\n{code[:8000]}\n```\n\n"
            f"It fails:\n{feedback[:4000]}\n\nFix the program. {CONVENTION}\nReply with the whole program "
            "in one ```python block.")
    content: Any = text
    if vision and renders:
        content = [{"type": "text", "text": text + "\nThe images are renders of the current assembly."}]
        for path in renders[:4]:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            content.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
    return [
        {"role": "system", "content": "You repair CadQuery assembly programs. Reply with one ```python block."},
        {"role": "user", "content": content},
    ]


def feedback_text(result: dict[str, Any]) -> str:
    """The failures of one sandbox run, as lines a model can act on."""
    lines: list[str] = []
    if result.get("error"):
        lines.append(f"{result.get('stage')} error: {result['error']}")
    for t in result.get("tests", []):
        if not t.get("passed"):
            lines.append(f"test {t.get('name')} failed: {t.get('message')}")
    for c in result.get("checks", []):
        if not c.get("passed"):
            lines.append(f"check {c.get('name')} failed: {c.get('message')}")
    return "\n".join(lines) or "(no failure details)"
