"""The submitted answer of a forward derivation: a proposition about ``answer`` (what the solver's final
``have h_answer : answer = TERM`` states, or what Lean assigned to the answer slot), and the closed term
when the proposition is ``answer = TERM``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperworks.tools.lean.goals import Goal
from paperworks.tools.lean.text import depth_profile, split_steps, strip_comments

ANSWER = "answer"
_WORD = re.compile(r"(?<![\w'.])answer(?![\w'])")
# Connectives and relations that bind looser than (or as loose as) `=`: `answer = 1 ∨ answer = 2`,
# `answer = 1 ∧ p` are not equations with a closed right side.
_LOOSE = ("∧", "∨", "↔", "→", "/\\", "\\/", "<->", "->", "∣", "≠", "≤", "≥", "<", ">", "∈", "∉", "⊆", "⊂", "=",
          "¬", ",", "≃", "≅")
_SUBMIT = re.compile(r"^\s*exact\s+([^\s()]+)\s*$")
_HAVE = re.compile(r"^have\s+(\S+)\s*:(.*)$", re.DOTALL)


@dataclass(frozen=True)
class Submission:
    """``prop`` is always set (``answer = 7``); ``term`` (``7``) when ``prop`` is ``answer = TERM`` with a
    right side that does not mention ``answer``."""

    prop: str
    term: str | None = None

    @classmethod
    def from_prop(cls, prop: str) -> Submission:
        """A submission from its proposition; ``term`` is read off ``answer = TERM`` or ``TERM = answer``."""
        prop = strip_comments(prop).strip()
        if "\n" not in prop:
            prop = " ".join(prop.split())
        return cls(prop=prop, term=_closed_side(prop))

    @classmethod
    def of(cls, text: str) -> Submission:
        """An explicit submission: a proposition about ``answer`` as is, any other text as the term."""
        text = strip_comments(text).strip()
        if _WORD.search(text):
            return cls.from_prop(text)
        return cls(prop=f"{ANSWER} = ({text})", term=text)


def _equals_positions(text: str) -> list[int]:
    """Positions of `=` outside brackets that are a plain equality (not `:=`, `==`, `≤`-like)."""
    out, depth = [], 0
    for i, ch in enumerate(text):
        if ch == "=" and depth == 0:
            before, after = text[i - 1:i], text[i + 1:i + 2]
            if before not in (":", "=", "<", ">", "!", "≠") and after not in ("=", ">"):
                out.append(i)
        depth = depth_profile(ch, depth)
    return out


def _loose_at_top(text: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        if depth == 0 and any(text.startswith(op, i) for op in _LOOSE):
            return True
        depth = depth_profile(ch, depth)
    return False


def _closed_side(prop: str) -> str | None:
    eqs = _equals_positions(prop)
    if len(eqs) != 1:
        return None
    lhs, rhs = prop[:eqs[0]].strip(), prop[eqs[0] + 1:].strip()
    for side, other in ((lhs, rhs), (rhs, lhs)):
        if side == ANSWER and other and not _WORD.search(other) and not _loose_at_top(other):
            return other
    return None


def submitted_name(script: str, default: str = "h_answer") -> str:
    """The hypothesis a script submits: the name in its last step ``exact NAME`` (``-- submit``), else ``default``."""
    steps = split_steps(strip_comments(script))
    if steps:
        m = _SUBMIT.match(steps[-1])
        if m:
            return m.group(1)
    return default


def extract_submission(script: str, name: str | None = None) -> Submission | None:
    """The submission stated by a forward script: the type of its last top-level ``have NAME : TYPE :=``,
    where NAME is ``name`` or the one the script's final ``exact NAME`` submits. None when there is none."""
    name = name or submitted_name(script)
    for step in reversed(split_steps(strip_comments(script))):
        m = _HAVE.match(step)
        if not m or m.group(1) != name:
            continue
        body = m.group(2)
        depth, cut = 0, None
        for i, ch in enumerate(body):
            if depth == 0 and body.startswith(":=", i):
                cut = i
                break
            depth = depth_profile(ch, depth)
        if cut is None:
            return None
        return Submission.from_prop(body[:cut].strip())
    return None


def submission_from_goal(goal: str, name: str = "h_submission") -> Submission | None:
    """The submission as Lean shows it: the type of hypothesis ``name`` in a goal display."""
    prop = Goal.parse(goal).hyp(name)
    return Submission.from_prop(prop) if prop else None
