"""The model-graded ``judge`` scorer: a judge model grades the answer against a reference or rubric.

The judge (``--judge-model``) replies with a JSON verdict ``{"reasoning": "...", "grade": "C"|"P"|"I"}``
(correct, partially correct, incorrect; worth 1, 0.5 and 0). A reply that cannot be read gets one
corrective retry; if that fails too, the sample scores 0 with ``details["judge_error"]`` set. The
reasoning, the grade, the raw reply, the judge model and its usage are recorded with the score.
``scorers.py`` lists it in the scorer table as ``judge``; this module imports nothing from there.
"""

from __future__ import annotations

import json
import re
from typing import Any

from paperworks.core.budget import Usage
from paperworks.core.errors import UserError
from paperworks.eval.records import Sample, Score
from paperworks.eval.score_context import ScoreContext

GRADES = {"C": 1.0, "P": 0.5, "I": 0.0}
_WORDS = {"CORRECT": "C", "PARTIAL": "P", "PARTIALLY CORRECT": "P", "PARTIALLY": "P", "INCORRECT": "I"}
_GRADE_LINE = re.compile(
    r"(?i:grade)[\"']?\s*[:=]\s*[*\"']*\s*((?i:partially correct|incorrect|correct|partial)|[CPI])\b"
)
"""A ``GRADE: C`` line (the letter upper case, so that "grade: i think" is not read as I)."""
_FIELD_LIMIT = 20_000
"""Longest text of one input field, answer or reference put in the prompt (characters)."""

SYSTEM = """You are a strict, fair grader. You are given a question, a candidate answer and a reference \
(a correct answer or a grading rubric). Decide whether the candidate answer is correct with respect to \
the reference. Judge the substance, not the style: ignore formatting, wording and extra explanation \
that does not contradict the reference.

Grades:
{grades}

Reply with only a JSON object, no other text:
{{"reasoning": "<one short paragraph>", "grade": "{letters}"}}"""

_GRADE_LINES = {
    "C": "- C: correct: the answer agrees with the reference in every point that matters.",
    "P": "- P: partially correct: some required points are right, others are missing or wrong.",
    "I": "- I: incorrect: the answer is wrong, missing, or contradicts the reference.",
}

RETRY = ("Your reply could not be read ({why}). Reply again with only the JSON object "
         '{{"reasoning": "...", "grade": "{letters}"}} and nothing else.')


def _clip(text: str) -> str:
    return text if len(text) <= _FIELD_LIMIT else text[:_FIELD_LIMIT] + " …[truncated]"


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def render_input(inp: Any) -> str:
    """A sample's input as readable text: a lone text field as itself, other dicts as ``key: value`` lines."""
    if isinstance(inp, dict):
        if len(inp) == 1 and isinstance(next(iter(inp.values())), str):
            return _clip(next(iter(inp.values())))
        return "\n".join(f"{key}: {_clip(_render(value))}" for key, value in inp.items())
    return _clip(_render(inp))


def build_messages(sample: Sample, answer: str, reference: Any, partial_credit: bool) -> list[dict[str, Any]]:
    """The judge's conversation: grading instructions, then the question, the answer and the reference."""
    letters = "C|P|I" if partial_credit else "C|I"
    grades = "\n".join(_GRADE_LINES[g] for g in letters.split("|"))
    ref = ("(none given: judge the answer on your own knowledge)" if reference is None
           else _clip(_render(reference)))
    user = (f"[QUESTION]\n{render_input(sample.input)}\n\n[CANDIDATE ANSWER]\n{_clip(answer) or '(empty)'}\n\n"
            f"[REFERENCE]\n{ref}\n\nGrade the candidate answer.")
    return [{"role": "system", "content": SYSTEM.format(grades=grades, letters=letters)},
            {"role": "user", "content": user}]


def _grade(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().strip(".*\"'").upper()
    return text if text in GRADES else _WORDS.get(text)


def _objects(text: str) -> list[dict[str, Any]]:
    """JSON objects in ``text``: fenced blocks first, then any ``{...}`` that decodes (trailing text ignored)."""
    found: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    blocks = re.findall(r"```(?:json|JSON)?\s*(.*?)```", text, flags=re.DOTALL)
    for chunk in [*blocks, text]:
        for start in [m.start() for m in re.finditer(r"\{", chunk)]:
            try:
                obj, _ = decoder.raw_decode(chunk, start)
            except (ValueError, RecursionError):  # not JSON here, or nested too deeply to decode
                continue
            if isinstance(obj, dict):
                found.append(obj)
    return found


def parse_verdict(text: str) -> tuple[str, str] | str:
    """``(grade, reasoning)`` from a judge's reply, or a string saying why it cannot be read.

    Accepts a JSON object (bare, fenced, or followed by other text), else a ``GRADE: C`` line
    (the reasoning is then the text before it).
    """
    lowered_objs = ({str(k).lower(): v for k, v in obj.items()} for obj in _objects(text))
    graded = [low for low in lowered_objs if "grade" in low]
    # A reply may quote the graded answer, and the answer may hold a forged {"grade": "C"}: a reply with
    # several different grades is unreadable (retried), never read by its first object.
    grades = {_grade(low["grade"]) for low in graded}
    if len(grades) > 1:
        shown = ", ".join(sorted(str(low["grade"]) for low in graded))
        return f"the reply holds several different grades ({shown[:80]})"
    if graded:
        lowered = graded[-1]
        grade = _grade(lowered["grade"])
        if grade is None:
            return f"grade {lowered['grade']!r} is not one of C, P, I"
        return grade, str(lowered.get("reasoning") or lowered.get("explanation") or "").strip()
    lines = [(m, g) for m in _GRADE_LINE.finditer(text) if (g := _grade(m.group(1))) is not None]
    if len({g for _, g in lines}) > 1:
        return f"the reply holds several different grades ({', '.join(g for _, g in lines)[:80]})"
    if lines:
        m, grade = lines[-1]
        return grade, text[: m.start()].strip().strip("`{*#\"").strip()
    if not text.strip():
        return "the reply was empty"
    return 'no JSON object with a "grade" field and no "GRADE: <letter>" line'


async def judge(sample: Sample, output: Any, answer: str, ctx: ScoreContext, *, rubric_field: str | None = None,
                partial_credit: bool = True, max_tokens: int = 1024) -> Score:
    """Model-graded: the judge model grades the answer against ``sample.target`` (or the rubric in
    ``sample.metadata[rubric_field]``). Value 1 / 0.5 / 0 for C / P / I (P is worth 0 without
    ``partial_credit``); passed when the grade is C."""
    if not ctx.judge_model:
        raise UserError("the 'judge' scorer needs a judge model: pass --judge-model "
                        "(a litellm model string, e.g. openai/gpt-4o-mini or local/smollm2-135m)")
    reference: Any = sample.target
    if rubric_field is not None:
        if rubric_field not in sample.metadata:
            where = f" ({sample.source})" if sample.source else ""
            raise UserError(f"sample '{sample.id}'{where}: no field '{rubric_field}' for the judge's "
                            f"rubric_field; its fields: {sorted(sample.metadata)}")
        reference = sample.metadata[rubric_field]
    if not answer and output is not None:
        answer = _render(output)

    from paperworks.models import get_model

    model = get_model(ctx.judge_model, cache=ctx.cache)
    messages = build_messages(sample, answer, reference, partial_credit)
    usage = Usage()
    replies: list[str] = []
    verdict: tuple[str, str] | str = ""
    for _attempt in range(2):
        response = await model.generate(messages, temperature=0, seed=ctx.seed, max_tokens=max_tokens)
        usage.add(response.usage)
        replies.append(response.text)
        verdict = parse_verdict(response.text)
        if isinstance(verdict, tuple):
            break
        letters = "C|P|I" if partial_credit else "C|I"
        messages = [*messages, {"role": "assistant", "content": response.text},
                    {"role": "user", "content": RETRY.format(why=verdict, letters=letters)}]

    details: dict[str, Any] = {"raw": replies[-1], "judge_model": ctx.judge_model, "usage": usage.to_dict(),
                               "attempts": len(replies)}
    if len(replies) > 1:
        details["raw_replies"] = replies
    if isinstance(verdict, str):
        details.update(grade=None, judge_error=f"unreadable judge reply after {len(replies)} attempts: {verdict}")
        return Score(value=0.0, passed=False, answer=answer, explanation="the judge's reply could not be read",
                     details=details)
    grade, reasoning = verdict
    value = GRADES[grade] if (grade != "P" or partial_credit) else 0.0
    details["grade"] = grade
    return Score(value=value, passed=grade == "C", answer=answer, explanation=reasoning or None, details=details)
