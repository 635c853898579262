"""Validation of FPS rows: every problem names the row and the field that was wrong, in one line."""

from __future__ import annotations

import re
from typing import Any

from paperworks.core.errors import UserError

_NAME = re.compile(r"^[^\s():\[\]{}⟨⟩,]+$")
_RESERVED = ("answer", "h_submission")


def _text(row: dict[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = row.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        got = "missing" if key not in row else f"{type(value).__name__} {value!r}"[:60]
        raise UserError(f"{where}: field '{key}': expected a non-empty string, got {got}")
    return value


def _binders(row: dict[str, Any], key: str, where: str, binder: Any) -> tuple[Any, ...]:
    items = row.get(key)
    if not isinstance(items, list):
        raise UserError(f"{where}: field '{key}': expected a list of {{t, v, name}} objects, got "
                        f"{'missing' if key not in row else type(items).__name__}")
    out = []
    for i, item in enumerate(items):
        at = f"{where}: field '{key}'[{i}]"
        if not isinstance(item, dict):
            raise UserError(f"{at}: expected an object with t, v, name, got {type(item).__name__}")
        t, v, name = item.get("t"), item.get("v"), item.get("name")
        if not isinstance(t, str) or not t.strip():
            raise UserError(f"{at}.t: expected a non-empty Lean type, got {t!r}"[:200])
        if v is not None and (not isinstance(v, str) or not v.strip()):
            raise UserError(f"{at}.v: expected null or a Lean term, got {v!r}"[:200])
        if name is not None and (not isinstance(name, str) or not _NAME.match(name)):
            raise UserError(f"{at}.name: expected null or a Lean identifier, got {name!r}"[:200])
        if name in _RESERVED:
            raise UserError(f"{at}.name: '{name}' is reserved for the answer and its submission")
        if v is not None and name is None:
            raise UserError(f"{at}: a let-value (v) needs a name")
        out.append(binder(name, t.strip(), v.strip() if isinstance(v, str) else None))
    return tuple(out)


def parse_row(cls: Any, binder: Any, row: Any, where: str) -> Any:
    """Build ``cls`` (FpsProblem) from ``row`` or raise a one-line ``UserError`` about ``where``."""
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object, got {type(row).__name__}")
    informal = _text(row, "informal_problem", where)
    formal_answer = _text(row, "formal_answer", where)
    answer_type = _text(row, "formal_answer_type", where)
    assert informal is not None and formal_answer is not None and answer_type is not None
    if not re.search(r"(?<![\w'.])answer(?![\w'])", formal_answer):
        raise UserError(f"{where}: field 'formal_answer': expected a proposition about 'answer', got "
                        f"{formal_answer[:60]!r}")
    intros = _binders(row, "intros", where, binder)
    outros = _binders(row, "outros", where, binder)
    if not outros:
        raise UserError(f"{where}: field 'outros': expected at least one binder (the last is the statement "
                        "about 'answer')")
    if outros[-1].value is not None:
        raise UserError(f"{where}: field 'outros'[{len(outros) - 1}].v: the last outro is the conclusion "
                        "and cannot have a let-value")
    header = _text(row, "header", where, required=False)
    meta = row.get("metainfo")
    if meta is not None and not isinstance(meta, dict):
        raise UserError(f"{where}: field 'metainfo': expected an object or null, got {type(meta).__name__}")
    optional = {k: row.get(k) if isinstance(row.get(k), str) else None
                for k in ("informal_answer", "informal_solution")}
    return cls(id=where, informal_problem=informal, formal_answer=formal_answer.strip(),
               formal_answer_type=answer_type.strip(), intros=intros, outros=outros,
               header=header.strip() if header else None, metainfo=dict(meta or {}), **optional)
