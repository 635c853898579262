"""Scripted replays for OG-MAR (tests, benchmarks, demos): scripts for ``paperworks.models.scripted`` that
answer the way an oracle (or a deliberately wrong model) would, and suite variants with other settings.

- ``build_replies(truth, taxonomy)``: competency answers that state exactly the relations of ``truth``
  (``no effect`` for every other ordered pair) and a fixed summary text.
- ``answer_replies(rows, wrong)``: per suite row, persona agents and single-call baselines that give the
  row's true answer (or the other choice), and a judge that rates every answer 2.
- ``neighbour_replies(choices)``: persona agents that answer what their own respondent answered (the
  prompt's ``You answered this question: "<choice>".``), for every choice text in ``choices``: a model-free
  OG-MAR in which only the ontology (with ``evidence=triples``) can change the neighbours' majority.
- ``variant_suite(base, out, config)``: a suite folder (only a suite.yaml) that reads ``base``'s data with
  other workflow settings, e.g. ``{"mode": "knn"}`` — ``paperworks eval`` takes a suite's settings from
  its suite.yaml.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from paperworks.agents.ogmar.prompts import JUDGE_MARKER, SUMMARY_MARKER
from paperworks.tools.values.ontology import Ontology
from paperworks.tools.values.taxonomy import Taxonomy
from paperworks.workflows.ogmar.data import BUILT_DIR

SUMMARY_TEXT = "Holds the values the survey profile shows."


def build_replies(truth: Ontology, taxonomy: Taxonomy) -> list[Any]:
    """The offline phase's oracle: every true relation stated, nothing else."""
    replies: list[Any] = [{"when": SUMMARY_MARKER, "text": SUMMARY_TEXT}]
    for r in truth:
        question = f'How does "{taxonomy.get(r.subject).name}" affect "{taxonomy.get(r.object).name}"?'
        replies.append({"when": question, "text": r.predicate.replace("_", " ").capitalize() + "."})
    replies.append("No effect.")
    return replies


def answer_replies(rows: Iterable[Mapping[str, Any]], wrong: bool = False) -> list[Any]:
    """The online phase's oracle (or, with ``wrong``, its opposite) for these suite rows."""
    replies: list[Any] = []
    for row in rows:
        choices = list(row["choices"])
        answer = row["answer"] if not wrong else next(c for c in choices if c != row["answer"])
        rid, question = f"espondent {row['respondent_id']}", row["question"]
        persona = {"persona_id": "P", "answer": answer, "reasoning": "the relations and values agree",
                   "alignment_factors": [row.get("class", "")]}
        replies.append({"when": [JUDGE_MARKER, rid, question],
                        "text": json.dumps({"evidence": {f"P{i}": 2 for i in range(1, 21)}})})
        replies.append({"when": ["You are persona", rid, question], "text": json.dumps(persona)})
        replies.append({"when": [rid, question], "text": answer})
    return replies


def neighbour_replies(choices: Iterable[str]) -> list[Any]:
    """Persona agents that repeat their respondent's own answer (see the module docstring)."""
    replies: list[Any] = []
    for c in sorted(set(choices), key=lambda c: (-len(c), c)):
        body = {"persona_id": "P", "answer": c, "reasoning": "my own answer", "alignment_factors": []}
        replies.append({"when": f"You answered this question: {json.dumps(c, ensure_ascii=False)}.",
                        "text": json.dumps(body, ensure_ascii=False)})
    replies.append("{}")
    return replies


def _absolute(value: Any, base: Path) -> Any:
    if isinstance(value, str) and value and value not in ("auto", "none") and not Path(value).is_absolute() \
            and (base / value).exists():
        return str((base / value).resolve())
    return value


def variant_suite(base: Path, out: Path, config: Mapping[str, Any], generation: Mapping[str, Any] | None = None,
                  name: str | None = None) -> Path:
    """Write ``out/suite.yaml``: ``base``'s suite with its data files and relative settings made absolute,
    ``config`` merged over its settings (and ``generation`` over its generation settings). Returns ``out``."""
    spec = yaml.safe_load((base / "suite.yaml").read_text(encoding="utf-8"))
    spec["name"] = name or out.name
    spec["data"] = [str((base / d).resolve()) for d in ([spec["data"]] if isinstance(spec["data"], str)
                                                        else spec["data"])]
    merged = {k: _absolute(v, base) for k, v in (spec.get("config") or {}).items()}
    merged.update({k: _absolute(v, base) for k, v in config.items()})
    for key, found in (("ontology", base / BUILT_DIR / "ontology.ttl"), ("summaries", base / BUILT_DIR)):
        if merged.get(key, "auto") == "auto":  # 'auto' means the base suite's built folder, or none
            merged[key] = str(found.resolve()) if found.exists() else "none"
    spec["config"] = merged
    spec["generation"] = {**(spec.get("generation") or {}), **(generation or {})}
    out.mkdir(parents=True, exist_ok=True)
    (out / "suite.yaml").write_text(f"# Variant of {base} (paperworks.workflows.ogmar.replay.variant_suite).\n"
                                    + yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out
