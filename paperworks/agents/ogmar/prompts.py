"""OG-MAR's prompts, kept short: the embedded 135M model reads every token at CPU speed.

Every prompt that concerns a respondent names them (``Respondent EAS0066``), and each role has a fixed
marker line, so a scripted model can pick its reply with ``when`` substrings:

- summary: ``Summarise the values of``;
- competency question: ``How does "<A>" affect "<B>"?`` (unique per ordered class pair);
- persona agent: ``You are persona P<n>``; the judge: ``Rate the evidence``;
- baselines: ``Which choice would`` (zero-shot and ValuesRAG-style) and ``Answer as yourself`` (persona).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from paperworks.tools.values.ontology import PREDICATES
from paperworks.tools.values.taxonomy import ValueClass

Messages = list[dict[str, Any]]
PROMPT_VERSION = "ogmar-prompts-1"
"""Changes whenever a prompt's wording does (part of the build's cache keys)."""
RELATION_OPTIONS = ("strongly supports", "supports", "weakly supports", "no effect", "weakly undermines",
                    "undermines", "strongly undermines")
JUDGE_MARKER = "Rate the evidence"
SUMMARY_MARKER = "Summarise the values of"


def persona_text(demo: Mapping[str, Any]) -> str:
    """Demographics as a short phrase: ``a 47-year-old male in EAS-1 (East Asia), education tertiary,
    income decile 7, religiosity low, rural``. Unknown fields are listed as ``name value``."""
    parts = []
    age, sex = demo.get("age"), demo.get("sex")
    head = "a"
    if age not in (None, ""):
        head += f" {_number(age)}-year-old"
    head += f" {sex}" if sex not in (None, "") else " person"
    place = demo.get("country") or demo.get("region")
    if place not in (None, ""):
        region = demo.get("region")
        head += f" in {place}" + (f" ({region})" if region and region != place else "")
    parts.append(head)
    for key, value in demo.items():
        if key in ("age", "sex", "country", "region") or value in (None, ""):
            continue
        if key == "urban":
            parts.append(str(value))
        elif key == "income":
            parts.append(f"income decile {_number(value)}")
        else:
            parts.append(f"{key} {value}")
    return ", ".join(parts)


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _choices(choices: Sequence[str]) -> str:
    return " or ".join(json.dumps(c, ensure_ascii=False) for c in choices)


def _short(text: str, limit: int = 90) -> str:
    first = text.split(". ")[0].strip().rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def summary_messages(respondent_id: str, demo: Mapping[str, Any], lines: Sequence[str]) -> Messages:
    """Ask for a two-sentence summary of one respondent's values from their per-class score lines."""
    body = "\n".join(f"- {line}" for line in lines) or "- (no answers)"
    return [{"role": "user", "content": (
        f"{SUMMARY_MARKER} respondent {respondent_id}, {persona_text(demo)}.\n"
        f"Scores from 0 (rejects) to 1 (holds):\n{body}\nWrite two short sentences.")}]


def competency_messages(persona: str, subject: ValueClass, obj: ValueClass) -> Messages:
    """The competency question for the ordered pair ``subject`` → ``obj``, asked as one persona."""
    return [{"role": "user", "content": (
        f"Think as {persona}.\n\"{subject.name}\": {_short(subject.description)}.\n"
        f"\"{obj.name}\": {_short(obj.description)}.\n"
        f"How does \"{subject.name}\" affect \"{obj.name}\"?\n"
        f"Answer with one option: {', '.join(RELATION_OPTIONS)}.")}]


def relation_lines(triples: Sequence[str]) -> str:
    """Bullet lines of relation texts (``- Religious Exclusivism strongly undermines ...``)."""
    return "\n".join(f"- {t}" for t in triples)


def persona_messages(persona_id: str, neighbour: str, neighbour_lines: Sequence[str], neighbour_answer: str | None,
                     respondent_id: str, target: str, target_lines: Sequence[str], triples: Sequence[str],
                     question: str, choices: Sequence[str]) -> Messages:
    """One value-persona agent: a similar respondent's profile answering for the target respondent."""
    parts = [f"You are persona {persona_id}, a survey respondent: {neighbour}."]
    if neighbour_lines:
        parts.append("Your values: " + "; ".join(neighbour_lines) + ".")
    if neighbour_answer:
        parts.append(f"You answered this question: {json.dumps(neighbour_answer, ensure_ascii=False)}.")
    parts.append(f"Respondent {respondent_id} to predict: {target}.")
    if target_lines:
        parts.append("Their values: " + "; ".join(target_lines) + ".")
    if triples:
        parts.append("Relations between values:\n" + relation_lines(triples))
    parts.append(f"Question: {question}\nChoices: {_choices(choices)}")
    example = {"persona_id": persona_id, "answer": choices[0], "reasoning": "one sentence",
               "alignment_factors": ["a value"]}
    parts.append("How would the respondent answer? Reply with JSON only, like " + json.dumps(example))
    return [{"role": "user", "content": "\n".join(parts)}]


def judge_messages(respondent_id: str, target: str, target_lines: Sequence[str], triples: Sequence[str],
                   question: str, choices: Sequence[str], answers: Sequence[Mapping[str, Any]]) -> Messages:
    """The judge: every persona's answer, to be rated for evidence strength (0-3). ``answers`` rows have
    ``persona_id``, ``answer``, ``reasoning``, ``alignment_factors``."""
    rows = []
    for a in answers:
        factors = ", ".join(str(f) for f in a.get("alignment_factors") or [])
        rows.append(f"- {a['persona_id']}: {json.dumps(a['answer'], ensure_ascii=False)}; "
                    f"{a.get('reasoning') or 'no reasoning'}" + (f" (factors: {factors})" if factors else ""))
    parts = [f"Persona agents predicted how respondent {respondent_id} ({target}) answers a survey question."]
    if target_lines:
        parts.append("Their values: " + "; ".join(target_lines) + ".")
    if triples:
        parts.append("Relations between values:\n" + relation_lines(triples))
    parts.append(f"Question: {question}\nChoices: {_choices(choices)}\nAnswers:\n" + "\n".join(rows))
    example = {"evidence": {str(a["persona_id"]): 2 for a in answers[:2]}}
    parts.append(f"{JUDGE_MARKER}: how well do the relations and values support each answer's reasoning? "
                 "0 none, 1 weak, 2 moderate, 3 strong. Reply with JSON only, like " + json.dumps(example))
    return [{"role": "user", "content": "\n".join(parts)}]


def zero_shot_messages(respondent_id: str, target: str, question: str, choices: Sequence[str]) -> Messages:
    """Zero-shot: the question and the respondent's demographics, nothing retrieved."""
    return [{"role": "user", "content": (
        f"Respondent {respondent_id}: {target}.\nQuestion: {question}\nChoices: {_choices(choices)}\n"
        "Which choice would this respondent pick? Answer with the choice only.")}]


def roleplay_messages(respondent_id: str, target: str, question: str, choices: Sequence[str]) -> Messages:
    """Persona prompt only: the model plays the respondent (system prompt), nothing retrieved."""
    return [{"role": "system", "content": f"You are respondent {respondent_id}: {target}."},
            {"role": "user", "content": f"Question: {question}\nChoices: {_choices(choices)}\n"
                                        "Answer as yourself, with the choice only."}]


def valuesrag_messages(respondent_id: str, target: str, target_lines: Sequence[str],
                       neighbours: Sequence[Mapping[str, Any]], question: str, choices: Sequence[str]) -> Messages:
    """ValuesRAG-style: similar respondents' value profiles (and their answers) in context, no ontology.
    ``neighbours`` rows: ``persona_id``, ``text``, ``lines``, ``answer`` (may be None)."""
    rows = []
    for n in neighbours:
        row = f"- {n['persona_id']}: {n['text']}"
        if n.get("lines"):
            row += "; values: " + "; ".join(n["lines"])
        if n.get("answer"):
            row += f"; answered {json.dumps(n['answer'], ensure_ascii=False)}"
        rows.append(row)
    parts = [f"Respondent {respondent_id}: {target}."]
    if target_lines:
        parts.append("Their values: " + "; ".join(target_lines) + ".")
    parts.append("Similar respondents:\n" + "\n".join(rows))
    parts.append(f"Question: {question}\nChoices: {_choices(choices)}\n"
                 "Which choice would this respondent pick? Answer with the choice only.")
    return [{"role": "user", "content": "\n".join(parts)}]


def predicate_of_option(option: str) -> str | None:
    """``strongly supports`` → ``strongly_supports``; ``no effect`` → None."""
    key = option.replace(" ", "_")
    return key if key in PREDICATES else None
