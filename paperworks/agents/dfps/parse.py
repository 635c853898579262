"""Reading a model's Lean reply: its code block and the answer it submits. Pure text functions (no
Lean; the Lean text rules are ``paperworks.tools.lean.text``); a reply they cannot read gives empty
results, never raises."""

from __future__ import annotations

import re

_FENCE = re.compile(r"```[ \t]*(?:lean4|lean|Lean4|Lean)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
_ANSWER_LINE = re.compile(r"^\s*\**\s*(?:final\s+)?answer\s*(?:\*\*\s*[:=]|[:=]\s*\**)\s*(.+?)\s*$",
                          re.IGNORECASE | re.MULTILINE)


def extract_code(reply: str) -> str:
    """The first Lean code block of a reply (an unclosed one runs to the end), or the whole reply when it
    has none; common indentation removed."""
    match = _FENCE.search(reply or "")
    code = match.group(1) if match else (reply or "")
    lines = code.splitlines()
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(line[cut:] for line in lines).strip("\n")


def submission_from_proof(code: str) -> str | None:
    """The answer a forward proof submits: the ``have`` its closing ``exact NAME`` names (``h_answer`` by
    default), read as ``answer = TERM`` → TERM, or the whole proposition when it is no plain equation
    (``answer = 1 ∨ answer = 2``). None when no such step is there."""
    from paperworks.tools.lean.submission import extract_submission

    sub = extract_submission(code)
    if sub is None:
        return None
    return sub.term if sub.term is not None else sub.prop


def submission_from_answer_line(reply: str) -> str | None:
    """The term after ``Answer:`` in a reply (the single-shot format), without surrounding backticks or $."""
    match = _ANSWER_LINE.search(remove_comments_outside_code(reply))
    if not match:
        return None
    term = match.group(1).strip().strip("`$*").strip()
    return term or None


def remove_comments_outside_code(reply: str) -> str:
    """The reply with its code blocks removed (the ``Answer:`` line lives outside them)."""
    return re.sub(r"```.*?(?:```|\Z)", "\n", reply or "", flags=re.DOTALL)
