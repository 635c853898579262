"""Build a survey-prediction suite from any ``SurveyData`` (the synthetic population or a user's survey
file): hold out respondents, pick their questions, hide what must not be seen, write the folder.

``split_heldout`` picks ``per_group`` respondents of every group (region by default) and
``questions_per_respondent`` items for each from as many different domains, rotating through the
domains so every group sees every domain equally often. With ``hide="class"`` (the default) the
respondent's answers to *every* item of a question's class are hidden, so an answer has to be inferred
from the respondent's other classes (through the ontology) and from similar respondents, not read off a
sibling item; ``hide="item"`` hides only the question's own item. Held-out respondents never appear in
the training population.

``write_suite`` writes ``questions.jsonl`` (the suite's data), ``population/train.csv`` (training
respondents, retrieval pool), ``population/heldout.csv`` (held-out respondents with the hidden answers
blank), ``population/mapping.yaml`` (reads both CSVs back with ``load_survey``), ``taxonomy.yaml`` and
``suite.yaml``.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from paperworks.tools.values.loader import load_survey
from paperworks.tools.values.mapping import mapping_for, write_mapping
from paperworks.tools.values.survey import SurveyData
from paperworks.tools.values.taxonomy import Taxonomy

QUESTIONS_FILE = "questions.jsonl"
TRAIN_FILE = "population/train.csv"
HELDOUT_FILE = "population/heldout.csv"
MAPPING_FILE = "population/mapping.yaml"
TAXONOMY_FILE = "taxonomy.yaml"


@dataclass(frozen=True)
class HeldoutQuestion:
    """One question of the suite: a held-out respondent × an item, with the true binary answer."""

    id: str
    respondent_id: str
    item: str
    question: str
    choices: list[str]
    answer: str
    """The chosen choice's text (the suite's target)."""
    answer_value: int
    """1 when the answer is the first choice."""
    domain: str
    class_id: str
    region: str
    country: str
    demographics: dict[str, Any]
    hidden_items: list[str]
    """Item codes hidden for this respondent (all their questions' hidden items)."""

    def row(self) -> dict[str, Any]:
        """The JSONL row (``class`` instead of ``class_id``)."""
        data = asdict(self)
        order = ["id", "respondent_id", "item", "question", "choices", "answer", "answer_value", "domain", "class",
                 "region", "country", "demographics", "hidden_items"]
        data["class"] = data.pop("class_id")
        return {k: data[k] for k in order}


@dataclass
class HeldoutSplit:
    """Training population, held-out respondents (hidden answers removed) and the questions."""

    train: SurveyData
    heldout: SurveyData
    questions: list[HeldoutQuestion]


def split_heldout(survey: SurveyData, taxonomy: Taxonomy, per_group: int = 20, questions_per_respondent: int = 3,
                  seed: int = 0, group_field: str = "region", hide: str = "class") -> HeldoutSplit:
    """Hold out ``per_group`` respondents per group with their questions (see the module docstring)."""
    if hide not in ("class", "item"):
        raise ValueError(f"hide must be 'class' or 'item', got {hide!r}")
    rng = random.Random(f"{seed}:split")
    groups: dict[str, list[str]] = {}
    for r in survey:
        groups.setdefault(str(r.demographics.get(group_field, "")), []).append(r.id)
    domains = [d.id for d in taxonomy.domains if any(taxonomy.domain_of(i.class_id) == d.id
                                                     for i in survey.items.values())]
    q = min(questions_per_respondent, len(domains))
    chosen, questions = set(), []
    hidden_of: dict[str, list[str]] = {}
    for group in sorted(groups):
        ids = sorted(groups[group])
        rng.shuffle(ids)
        picked = 0
        for rid in ids:
            if picked == per_group:
                break
            r = survey.respondent(rid)
            wanted = [domains[(picked * q + t) % len(domains)] for t in range(q)]
            items = []
            for d in wanted:
                pool = [i for i in survey.items.values() if taxonomy.domain_of(i.class_id) == d and i.code in r.answers]
                if not pool:
                    break
                items.append(pool[rng.randrange(len(pool))])
            if len(items) < q:
                continue  # the respondent lacks answers in a wanted domain
            picked += 1
            chosen.add(rid)
            hide_classes = {i.class_id for i in items}
            hidden = sorted(c for c, i in survey.items.items() if (i.class_id in hide_classes if hide == "class"
                                                                    else c in {x.code for x in items}))
            hidden_of[rid] = hidden
            for item in items:
                value = r.answers[item.code]
                questions.append(HeldoutQuestion(
                    f"{rid}-{item.code}", rid, item.code, item.text, list(item.choices), item.choice(value), value,
                    taxonomy.domain_of(item.class_id), item.class_id, str(r.demographics.get("region", "")),
                    str(r.demographics.get("country", "")), dict(r.demographics), hidden))
    train = survey.subset([r.id for r in survey if r.id not in chosen])
    heldout = SurveyData([survey.respondent(i).without(hidden_of[i]) for i in sorted(chosen)], dict(survey.items),
                         list(survey.schema), survey.source)
    return HeldoutSplit(train, heldout, questions)


SUITE_YAML = """\
# {title}.
# Generated by {generator} ({note}).
# Each row: a held-out respondent x an item, with a binary answer (the chosen choice's text), the
# respondent's id and demographics. Their OTHER answers are in population/heldout.csv, where
# {hide_note}. population/train.csv is the pool of training respondents to
# retrieve from (held-out respondents are not in it); population/mapping.yaml reads both CSVs
# (paperworks.tools.values.load_survey); taxonomy.yaml is the 76-class taxonomy.{oracle_note}
# Scored by quasi-exact match on the choice text; accuracy overall and per region and per domain
# (results.json keys such as match/accuracy[region=Europe], match/accuracy[domain=migration]).
name: {name}
version: "{version}"
description: {description}
workflow: ogmar
data: [questions.jsonl]
id_field: id
input:
  question: "{{question}}"
  choices: "{{choices}}"
  respondent_id: "{{respondent_id}}"
  demographics: "{{demographics}}"
target: answer
metadata: [domain, class, region, country, item, answer_value]
group_by: [region, domain]
scorers:
  - match
answer_field: answer
metrics: [accuracy, stderr]
epochs: 1
limits: {{working_time_s: 600, time_s: 1800, tokens: 60000, cost: null}}
config:
  population: population/train.csv
  heldout: population/heldout.csv
  mapping: population/mapping.yaml
  taxonomy: taxonomy.yaml
generation: {{temperature: 0, max_tokens: 512}}
"""


def write_suite(out: Path, split: HeldoutSplit, taxonomy: Taxonomy, *, name: str, description: str, title: str,
                generator: str, note: str = "", version: str = "1.0", oracle_note: str = "") -> dict[str, int]:
    """Write the suite folder (see the module docstring); returns counts. Checks that the CSVs read back."""
    (out / "population").mkdir(parents=True, exist_ok=True)
    with open(out / QUESTIONS_FILE, "w", encoding="utf-8") as fh:
        for q in split.questions:
            fh.write(json.dumps(q.row(), ensure_ascii=False) + "\n")
    split.train.write_csv(out / TRAIN_FILE)
    split.heldout.write_csv(out / HELDOUT_FILE)
    write_mapping(mapping_for(split.train, name=f"{name} population"), out / MAPPING_FILE)
    head = "# The OG-MAR value taxonomy (copied from paperworks/tools/values/data/taxonomy.yaml).\n"
    body = yaml.safe_dump({"version": taxonomy.version, "classes": taxonomy.to_rows()}, sort_keys=False,
                          allow_unicode=True, width=120)
    (out / TAXONOMY_FILE).write_text(head + body, encoding="utf-8")
    by_class = all(set(q.hidden_items) >= {i.code for i in split.train.items_of_class(q.class_id)}
                   for q in split.questions)
    hide_note = "every item of each question's class is blank" if by_class else "each question's own item is blank"
    (out / "suite.yaml").write_text(SUITE_YAML.format(
        title=title, generator=generator, note=note or "deterministic", name=name, version=version,
        description=description, hide_note=hide_note, oracle_note=oracle_note), encoding="utf-8")
    for file in (TRAIN_FILE, HELDOUT_FILE):  # the files must read back through the public loader
        load_survey(out / file, out / MAPPING_FILE, taxonomy)
    return {"questions": len(split.questions), "train": len(split.train), "heldout": len(split.heldout)}


@dataclass
class ValuesSuite:
    """A suite folder read back: questions, training pool, held-out respondents, taxonomy."""

    folder: Path
    questions: list[HeldoutQuestion]
    train: SurveyData
    heldout: SurveyData
    taxonomy: Taxonomy


def read_suite(folder: str | Path) -> ValuesSuite:
    """Read a folder written by ``write_suite`` (the synthetic suite or one built from a user's file)."""
    from paperworks.tools.values.taxonomy import load_taxonomy

    folder = Path(folder)
    taxonomy = load_taxonomy(folder / TAXONOMY_FILE)
    questions = []
    for line in (folder / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row["class_id"] = row.pop("class")
        questions.append(HeldoutQuestion(**row))
    return ValuesSuite(folder, questions, load_survey(folder / TRAIN_FILE, folder / MAPPING_FILE, taxonomy),
                       load_survey(folder / HELDOUT_FILE, folder / MAPPING_FILE, taxonomy), taxonomy)
