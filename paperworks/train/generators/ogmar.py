"""Generated survey-prediction problems for training OG-MAR on the ``values_synth`` task, never its items.

The eval suite asks about its 120 HELD-OUT respondents (``population/heldout.csv``) and retrieves from its
1,200 TRAINING respondents (``population/train.csv``). Generated problems are built from training
respondents only: a draw picks training respondents (balanced over regions), an item for each (rotating
through the 12 domains), and blanks the item's whole class for that respondent, as the suite does for
its own questions. The target is that respondent's real answer in the original ``train.csv``.

``write_suite`` makes the asked respondents held out for real: the folder's ``population/train.csv`` is
the original pool without them, its ``population/heldout.csv`` holds their rows with the asked classes
blank (the shipped layout), beside copies of ``mapping.yaml`` and ``taxonomy.yaml`` and the suite's
``suite.yaml`` (same config keys, paths relative to the folder). ``oracle/`` and ``built/`` are never
copied (so ``mode=ogmar`` runs in a generated folder without triples unless a setting names an ontology).

Phrasings: the training respondents are split by a hash of their id; about a fifth
(``heldout_respondents()``, 252 of 1,200) are asked only under ``phrasing="heldout"`` and the rest
(948) only under ``"train"``. A ``train`` folder's retrieval pool also leaves the held-out fifth out, so
no training prompt shows a held-out respondent's answers. Deterministic for a seed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval.suite_paths import package_suites_dir
from paperworks.tools.values.loader import load_survey
from paperworks.tools.values.survey import Respondent, SurveyData
from paperworks.tools.values.taxonomy import Taxonomy, load_taxonomy

LIKE = "values_synth"
PHRASINGS = ("train", "heldout")
HELDOUT_SHARE = 5
"""One training respondent in ``HELDOUT_SHARE`` (by a hash of the id) is kept for ``phrasing="heldout"``."""
QUESTIONS = "questions.jsonl"
TRAIN_CSV = "population/train.csv"
HELDOUT_CSV = "population/heldout.csv"
MAPPING = "population/mapping.yaml"
TAXONOMY = "taxonomy.yaml"
ROW_KEYS = ("id", "respondent_id", "item", "question", "choices", "answer", "answer_value", "domain", "class",
            "region", "country", "demographics", "hidden_items")


def suite_folder(like: str = LIKE) -> Path:
    """The shipped suite's folder (``paperworks/suites/<like>``, or ``evals/<like>`` in a checkout)."""
    folder = package_suites_dir() / like
    if not (folder / TRAIN_CSV).is_file():
        raise UserError(f"generator 'ogmar': suite '{like}' has no {TRAIN_CSV} in {folder}")
    return folder


@lru_cache(maxsize=4)
def _source(like: str = LIKE) -> tuple[SurveyData, Taxonomy]:
    folder = suite_folder(like)
    taxonomy = load_taxonomy(folder / TAXONOMY)
    return load_survey(folder / TRAIN_CSV, folder / MAPPING, taxonomy), taxonomy


def training_pool(like: str = LIKE) -> SurveyData:
    """The shipped suite's training respondents (``population/train.csv``), read once per process."""
    return _source(like)[0]


def suite_rows(like: str = LIKE) -> list[dict[str, Any]]:
    """The shipped suite's questions (what generated problems must never touch)."""
    path = suite_folder(like) / QUESTIONS
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def is_heldout(respondent_id: str) -> bool:
    """Whether a training respondent belongs to the ``heldout`` phrasing (a fixed hash of the id)."""
    return hashlib.sha256(respondent_id.encode("utf-8")).digest()[0] % HELDOUT_SHARE == 0


def heldout_respondents(like: str = LIKE) -> list[str]:
    """Ids of the training respondents kept for ``phrasing="heldout"``, in file order."""
    return [r.id for r in training_pool(like) if is_heldout(r.id)]


def overlap(rows: list[dict[str, Any]], suite: list[dict[str, Any]]) -> list[str]:
    """Ids of ``rows`` that touch an item of ``suite``: a respondent the suite asks about, or the same
    (respondent, item)."""
    people = {str(r.get("respondent_id")) for r in suite}
    pairs = {(str(r.get("respondent_id")), str(r.get("item"))) for r in suite}
    return [str(row.get("id")) for row in rows
            if str(row.get("respondent_id")) in people
            or (str(row.get("respondent_id")), str(row.get("item"))) in pairs]


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _order(people: list[Respondent], rng: random.Random) -> list[Respondent]:
    """Respondents shuffled within each region, then interleaved over the regions (balanced draws)."""
    by_region: dict[str, list[Respondent]] = {}
    for r in people:
        by_region.setdefault(str(r.demographics.get("region", "")), []).append(r)
    regions = sorted(by_region)
    rng.shuffle(regions)
    for region in regions:
        rng.shuffle(by_region[region])
    out: list[Respondent] = []
    for k in range(max(len(v) for v in by_region.values())):
        out.extend(by_region[g][k] for g in regions if k < len(by_region[g]))
    return out


def generate(n: int, seed: int, *, phrasing: str = "train") -> list[dict[str, Any]]:
    """``n`` questions from ``seed``: one item per respondent (more, from different domains, only when
    ``n`` exceeds the phrasing's respondents); rows shaped like the suite's ``questions.jsonl``."""
    if phrasing not in PHRASINGS:
        raise ValueError(f"phrasing must be one of {PHRASINGS}, got {phrasing!r}")
    if n <= 0:
        return []
    survey, taxonomy = _source(LIKE)
    banned = {str(r["respondent_id"]) for r in suite_rows(LIKE)}
    people = [r for r in survey if r.id not in banned and is_heldout(r.id) == (phrasing == "heldout")]
    domains = [d.id for d in taxonomy.domains
               if any(taxonomy.domain_of(i.class_id) == d.id for i in survey.items.values())]
    per_person = -(-n // len(people))
    if per_person > len(domains):
        raise ValueError(f"generator 'ogmar': at most {len(people) * len(domains)} {phrasing} questions "
                         f"({len(people)} respondents x {len(domains)} domains), asked for {n}")
    rng = random.Random(f"ogmar-{phrasing}-{seed}")
    rows: list[dict[str, Any]] = []
    turn = rng.randrange(len(domains))
    for person in _order(people, rng):
        if len(rows) >= n:
            break
        items = []
        for _ in range(min(per_person, n - len(rows))):
            domain = domains[turn % len(domains)]
            turn += 1
            pool = [i for i in survey.items.values()
                    if taxonomy.domain_of(i.class_id) == domain and i.code in person.answers]
            if pool:
                items.append(pool[rng.randrange(len(pool))])
        classes = {i.class_id for i in items}
        hidden = sorted(c for c, i in survey.items.items() if i.class_id in classes)
        demographics = {k: _plain(v) for k, v in person.demographics.items()}
        for item in items:
            value = person.answers[item.code]
            rows.append({"id": f"gen-{person.id}-{item.code}", "respondent_id": person.id, "item": item.code,
                         "question": item.text, "choices": list(item.choices), "answer": item.choice(value),
                         "answer_value": value, "domain": taxonomy.domain_of(item.class_id),
                         "class": item.class_id, "region": str(person.demographics.get("region", "")),
                         "country": str(person.demographics.get("country", "")), "demographics": demographics,
                         "hidden_items": hidden})
    return rows[:n]


def oracle_calls(row: dict[str, Any]) -> list[dict[str, Any]]:
    """No scripted oracle: OG-MAR's model calls (persona agents, judge) have no single right trajectory."""
    raise UserError("no scripted oracle for ogmar (generator 'ogmar' supports RL from the suite's reward only)")


def _suite_yaml(source: str, name: str, like: str) -> str:
    lines = source.splitlines(keepends=True)
    start = next((k for k, line in enumerate(lines) if line.strip() and not line.startswith("#")), len(lines))
    text = "".join(lines[start:])
    text = re.sub(r"(?m)^name: .*$", f"name: {name}", text, count=1)
    text = re.sub(r"(?m)^data: .*$", f"data: [{QUESTIONS}]", text, count=1)
    head = (f"# Generated training problems (paperworks.train.generators.ogmar), shaped like suite '{like}'.\n"
            f"# Each row asks about a TRAINING respondent of '{like}' (never one of its held-out respondents);\n"
            "# population/train.csv is the original pool without the asked respondents, population/heldout.csv\n"
            "# their rows with every item of each asked class blank.\n")
    return head + text


def write_suite(rows: list[dict[str, Any]], folder: Path, like: str = LIKE) -> Path:
    """``rows`` (from ``generate``) as a suite folder that ``paperworks eval`` runs (see the module docstring)."""
    source = suite_folder(like)
    survey = training_pool(like)
    hidden: dict[str, set[str]] = {}
    for row in rows:
        rid = str(row["respondent_id"])
        try:
            survey.respondent(rid)
        except KeyError:
            raise ValueError(f"row {row.get('id')!r}: respondent {rid!r} is not in {source / TRAIN_CSV}") from None
        hidden.setdefault(rid, set()).update(str(c) for c in row.get("hidden_items", []))
        hidden[rid].add(str(row["item"]))
    leave_out = set(hidden)
    if not any(is_heldout(rid) for rid in hidden):  # a train-phrasing folder: no held-out respondent's answers
        leave_out |= {r.id for r in survey if is_heldout(r.id)}
    folder = Path(folder)
    (folder / "population").mkdir(parents=True, exist_ok=True)
    survey.subset([r.id for r in survey if r.id not in leave_out]).write_csv(folder / TRAIN_CSV)
    asked = [survey.respondent(rid).without(hidden[rid]) for rid in sorted(hidden)]
    SurveyData(asked, dict(survey.items), list(survey.schema), survey.source).write_csv(folder / HELDOUT_CSV)
    shutil.copyfile(source / MAPPING, folder / MAPPING)
    shutil.copyfile(source / TAXONOMY, folder / TAXONOMY)
    with open(folder / QUESTIONS, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({k: row[k] for k in ROW_KEYS}, ensure_ascii=False) + "\n")
    spec = (source / "suite.yaml").read_text(encoding="utf-8")
    (folder / "suite.yaml").write_text(_suite_yaml(spec, folder.name, like), encoding="utf-8")
    return folder
